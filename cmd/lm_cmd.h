/* generated from chapters/15-language-model.nw, chapters/16-austen-model.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#ifndef MHA_LM_CMD_H
#define MHA_LM_CMD_H
/* The sub-commands of mha lm (mha_command_fn: cli.h), and the helpers that
   more than one of them calls, defined in lm.c.  Each helper that returns an
   int returns an exit status and writes one mha: line on failure. */
#include <stdio.h>
#include "bpe.h"
#include "cli.h"
#include "lm.h"
#include "lm_files.h"

/* <<[[lm_cmd.h]] declarations>> */
mha_command_fn mha_cmd_lm_tokenizer, mha_cmd_lm_encode, mha_cmd_lm_decode,
    mha_cmd_lm_baselines;
/* Holds the folder dir (Chapter ch:output) for the rest of the run. */
int lm_cmd_hold_folder(const char *dir, FILE *err);
/* The one mha: line of command's failure on text, blaming the model in dir
   for a result that overflows. */
void lm_cmd_blame(FILE *err, const char *command, const char *dir, const char *text,
                  mha_status failed);
/* <<[[lm_cmd.h]] declarations>> */
mha_command_fn mha_cmd_lm_train, mha_cmd_lm_eval, mha_cmd_lm_generate;
/* The token ids of the text in path (at least min of them, and their count,
   the text's bytes and its SHA-256 in hex; *ids is the caller's to free). */
int lm_cmd_read_tokens(const char *path, const bpe *tokenizer, size_t min, int **ids,
                       size_t *count, size_t *bytes, char sha[LM_SHA_HEX], FILE *err);
/* The token ids of n bytes of text (*ids is the caller's to free). */
MHA_MUST_CHECK mha_status lm_cmd_encode_text(const bpe *tokenizer, const unsigned char *text,
                                             size_t n, int **ids, size_t *count);
/* The model folder dir, read into m and its tokenizer. */
int lm_cmd_read_model(const char *dir, lm_model *m, bpe *tokenizer, FILE *err);
/* <<[[lm_cmd.h]] declarations>> */
mha_command_fn mha_cmd_lm_heads, mha_cmd_lm_prune, mha_cmd_lm_repeat;
/* The heads that spec ("L:H[,L:H...]") names removed from m. */
int lm_cmd_remove_heads(lm_model *m, const char *spec, FILE *err);
#endif
