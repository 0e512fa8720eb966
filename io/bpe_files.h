/* generated from chapters/15-language-model.nw; edit the book, not this file */
#ifndef MHA_BPE_FILES_H
#define MHA_BPE_FILES_H
/* A tokenizer's files, merges.txt and vocab.txt (chapter "A language model of
   Jane Austen"), and whole files read into memory.  On failure a function
   returns the status and writes one line into message[0..size-1], naming the
   file at fault. */
#include <stddef.h>
#include <stdio.h>
#include "bpe.h"
#include "mha.h"

#define BPE_MERGES_FILE "merges.txt"
#define BPE_VOCAB_FILE "vocab.txt"
#define BPE_MERGES_HEADER "mha-bpe-merges 1"
MHA_MUST_CHECK
mha_status bpe_files_read(const char *dir, bpe *tokenizer, char *message, size_t size);
MHA_MUST_CHECK
mha_status bpe_files_write(const char *dir, const bpe *tokenizer, char *message, size_t size);
MHA_MUST_CHECK
mha_status bpe_merges_parse(const char *name, const char *text, size_t n, bpe *tokenizer,
                            char *message, size_t size);
MHA_MUST_CHECK
mha_status bpe_vocab_check(const char *name, const char *text, size_t n, const bpe *tokenizer,
                           char *message, size_t size);
int bpe_write_merges(FILE *file, void *tokenizer);
int bpe_write_vocab(FILE *file, void *tokenizer);
void bpe_escape(FILE *file, const unsigned char *bytes, size_t n);
MHA_MUST_CHECK
mha_status mha_read_whole_file(const char *path, unsigned char **bytes, size_t *n,
                               char *message, size_t size);
#endif
