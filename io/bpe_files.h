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
/* A whole regular file into *bytes (malloc'd; *n bytes), if it holds at most
   limit bytes.  A FIFO, a device or a directory is refused at once, without
   waiting for a writer; a longer file before anything is allocated for it.
   MHA_ERR_IO for a file that cannot be opened (errno is open's: ENOENT for a
   missing one), is not regular or cannot be read; MHA_ERR_FORMAT for one
   longer than limit.  The limits the project reads with: */
#define MHA_READ_NOTE_MAX ((size_t)1 << 16)   /* 64 KiB: model.txt, state.txt */
#define MHA_READ_TABLE_MAX ((size_t)1 << 25)  /* 32 MiB: tokenizer files, tables */
#define MHA_READ_TEXT_MAX ((size_t)1 << 30)   /* 1 GiB: a text, a run's history */
MHA_MUST_CHECK
mha_status mha_read_whole_file(const char *path, size_t limit, unsigned char **bytes,
                               size_t *n, char *message, size_t size);
#endif
