/* generated from chapters/16-austen-model.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#ifndef MHA_LM_FILES_H
#define MHA_LM_FILES_H
/* A small GPT's folder and a training run's state (chapter "A small GPT that
   reads Austen").  On failure a function returns its status and writes one
   line naming the file at fault into message[0..size-1]. */
#include <stddef.h>
#include <stdint.h>
#include "bpe.h"
#include "lm.h"

#define LM_MODEL_KIND "gpt"
enum { LM_MODEL_FORMAT = 2 };              /* 2 adds tokenizer_sha256; 1 is read too */
#define LM_STATE_FORMAT "mha-lm-state 2"
enum { LM_SHA_HEX = 65, LM_TEXT_MAX = 65536 };
typedef struct lm_provenance {
    size_t steps;                          /* trained */
    char train_sha256[LM_SHA_HEX], valid_sha256[LM_SHA_HEX];   /* "-": none */
} lm_provenance;
/* Within a set of outputs begun in dir (the names of lm_model_file_names):
   writes model.txt, the tensors and the tokenizer, in that order. */
size_t lm_model_file_count(const lm_model *m);
void lm_model_file_name(const lm_model *m, size_t i, char *name, size_t size);
extern const char *const lm_model_owned[];
MHA_MUST_CHECK mha_status lm_model_put(const char *dir, const lm_model *m, const bpe *tokenizer,
                                       const lm_provenance *p, char *message, size_t size);
MHA_MUST_CHECK mha_status lm_model_read(const char *dir, lm_model *m, bpe *tokenizer,
                                        lm_provenance *p, char *message, size_t size);

typedef struct lm_run {                    /* a training run's options and position */
    lm_config config;
    size_t steps, warmup, batch, eval_every, step;
    double learning_rate;
    double repeat;                         /* the share of windows with a passage repeated */
    uint64_t seed, data_state;
    char train_sha256[LM_SHA_HEX], valid_sha256[LM_SHA_HEX];
    size_t repeat_until;                   /* the last step whose batches repeat; 0: every one */
    double token_sd, position_sd;          /* the embeddings' deviations at the start */
} lm_run;
typedef struct lm_history {               /* a run's two histories, as text */
    char *steps;                           /* history.tsv: a line for every step */
    size_t steps_length;
    char *heads;                           /* heads-history.tsv: every head at every evaluation */
    size_t heads_length;
} lm_history;
enum { LM_STATE_FILES = 5 };
/* state.txt; arrays.npy (3, count): parameters, first and second moments;
   history.tsv; merges.txt, the tokenizer; heads-history.tsv. */
extern const char *const lm_state_names[LM_STATE_FILES];
MHA_MUST_CHECK mha_status lm_state_put(const char *dir, const lm_run *run, const lm_model *m,
                                       const lm_adamw *opt, const bpe *tokenizer,
                                       const lm_history *history, char *message, size_t size);
/* Reads the run (and allocates the model, the moments, the tokenizer and both histories). */
MHA_MUST_CHECK mha_status lm_state_read(const char *dir, lm_run *run, lm_model *m, lm_adamw *opt,
                                        bpe *tokenizer, lm_history *history, char *message,
                                        size_t size);
/* <<[[lm_files.h]] the tables of heads>> */
/* heads.tsv and prune.tsv as the commands lm heads and lm prune write them,
   read from text[0..n-1], which may hold anything; a line that is not one
   of a head of an N-block, H-head model is skipped.  roles: (N H) strings
   of role_size bytes each, "?" for a head not listed.  Study: *base and
   importance (N H); 1 when the base and every head's finite importance were
   found, else 0. */
void lm_table_roles(const unsigned char *text, size_t n, size_t N, size_t H, char *roles,
                    size_t role_size);
int lm_table_study(const unsigned char *text, size_t n, size_t N, size_t H, double *base,
                   double *importance);
/* The column of heads.tsv that its header names column: values (N H), NAN for a head
   not listed or whose field is not a finite number; the count of heads found. */
size_t lm_table_column(const unsigned char *text, size_t n, size_t N, size_t H,
                       const char *column, double *values);
#endif
