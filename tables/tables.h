/* generated from chapters/06-kv-cache.nw, chapters/10-terminal-heads.nw, chapters/11-designed-heads.nw, chapters/13-learning.nw, chapters/15-language-model.nw, chapters/16-austen-model.nw, chapters/17-austen-heads.nw, chapters/20-command.nw, chapters/23-demo-command.nw, chapters/24-measuring.nw, chapters/27-book-tables.nw; edit the book, not this file */
#ifndef MHA_TABLES_H
#define MHA_TABLES_H
/* The book's table printers: each writes one table, or the numbers the
   prose quotes, as LaTeX to out.  The attention library (src/) never
   prints; these functions do, and they live in tables/. */
#include <stdio.h>
#include "mha.h"
/* <<[[tables.h]] printers>> */
void mha_print_decode_flop_table(FILE *out);
void mha_print_cache_memory_table(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_demo_terminal(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_designed_table(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_training_figure(FILE *out);
void mha_print_training_summary(FILE *out);
typedef struct training_curve {
    size_t points;
    double step[256], accuracy[256], best_previous[256], best_induction[256];
} training_curve;
int mha_read_training_history(const char *path, training_curve *curve);
size_t mha_training_quiet_point(const training_curve *curve);  /* last accuracy < 30% */
size_t mha_training_jump_point(const training_curve *curve);   /* first accuracy >= 90% */
/* <<[[tables.h]] printers>> */
typedef struct austen_row {
    char model[16], scored_on[16];
    size_t order, vocab, symbols, bytes;
    double bits_per_char;
} austen_row;
typedef struct austen_baselines {
    size_t train_bytes, valid_bytes, rows;
    char train_sha256[65], valid_sha256[65];
    austen_row row[32];
} austen_baselines;
int mha_read_austen_baselines(const char *path, austen_baselines *table);
void mha_print_austen_baselines(FILE *out);
void mha_print_austen_numbers(FILE *out);
/* <<[[tables.h]] printers>> */
typedef struct austen_history {
    size_t points, steps, eval_every;    /* points of 100 steps each */
    double step[256], train[256], valid[256];      /* valid: NAN if none */
} austen_history;
int mha_read_austen_history(const char *path, austen_history *h);
typedef struct austen_eval {
    size_t tokens, bytes, context, stride;
    double loss, bits_per_char;
} austen_eval;
int mha_read_austen_eval(const char *path, austen_eval *e);
void mha_print_austen_model_numbers(FILE *out);
void mha_print_austen_curve(FILE *out);
void mha_print_austen_scores(FILE *out);
void mha_print_austen_samples(FILE *out);
/* <<[[tables.h]] printers>> */
typedef struct austen_head {
    double score[9];               /* prev_token .. prefix_matching, in the file's order */
    char role[24];
} austen_head;
typedef struct austen_heads {
    size_t context, windows, layers, heads;
    austen_head head[1024];        /* (layers, heads) */
} austen_heads;
int mha_read_austen_heads(const char *path, austen_heads *table);
void mha_print_austen_heads_numbers(FILE *out);
void mha_print_austen_heads(FILE *out);
void mha_print_austen_heads_scores(FILE *out);
/* <<[[tables.h]] printers>> */
#include "bpe.h"
#include "lm.h"
typedef struct austen_example {
    const char *relation, *text, *query, *target;
    int query_nth, target_nth;
} austen_example;
typedef struct austen_example_weights {
    size_t tokens, query, pieces;    /* the sentence's tokens; the query's last piece;
                                        the target's pieces */
    size_t best_layer, best_head;    /* the head that gives the target the most weight */
    double best, mean, even;         /* its weight, the heads' mean, an even spread's */
} austen_example_weights;
int mha_austen_example_weights(const lm_model *m, const bpe *tokenizer,
                               const austen_example *example, austen_example_weights *w);
void mha_print_austen_sentences_numbers(FILE *out);
void mha_print_austen_sentences(FILE *out);
/* <<[[tables.h]] printers>> */
typedef struct austen_prune {
    size_t context, windows, layers, heads;
    double base;
    double importance[1024], loss[1024];   /* (layers, heads); loss NAN: not removed */
    size_t step[1024];                     /* the greedy step that removed it; 0: none */
    char role[1024][24];                   /* from figures/austen-heads.tsv */
    double entropy[1024];                  /* entropy_bits from there; NAN if unmeasured */
} austen_prune;
int mha_read_austen_prune(const char *path, austen_prune *table);
void mha_print_austen_prune_numbers(FILE *out);
void mha_print_austen_prune(FILE *out);
void mha_print_austen_prune_curve(FILE *out);
void mha_print_austen_prune_plot(FILE *out);
void mha_print_austen_prune_roles(FILE *out);
/* <<[[tables.h]] printers>> */
typedef struct heads_run {
    size_t heads, head_dim, seed, layers, dim, context, batch, steps, tokens_seen, parameters;
    double bits_per_char, loss, seconds;
} heads_run;
typedef struct heads_group {           /* the runs of one number of heads */
    size_t heads, runs;
    double mean, spread, best, worst;  /* bits per character; spread: sample deviation */
} heads_group;
typedef struct heads_count {
    char cpu[128];
    size_t runs, groups;
    heads_run run[256];
    heads_group group[16];             /* by heads, ascending */
} heads_count;
int mha_read_heads_count(const char *path, heads_count *table);
void mha_write_heads_count_numbers(FILE *out, const heads_count *table);
void mha_print_heads_count_numbers(FILE *out);
void mha_print_heads_count(FILE *out);
void mha_print_heads_count_figure(FILE *out);
/* <<[[tables.h]] printers>> */
enum { AUSTEN_RUN_EVALS = 512 };
typedef struct austen_run {
    size_t vocab, layers, heads, context, batch, step;
    double repeat;
    size_t repeat_until;                   /* the last step with repeats; 0: every step */
    double token_sd, position_sd;          /* the embeddings' deviations at the start */
    size_t evals;
    size_t tokens[AUSTEN_RUN_EVALS];
    double valid[AUSTEN_RUN_EVALS], in_context[AUSTEN_RUN_EVALS];
    double previous[AUSTEN_RUN_EVALS];     /* the best prev_token of block 0 */
    double prefix[AUSTEN_RUN_EVALS];       /* the best prefix_matching of the later blocks */
    double prefix_first[AUSTEN_RUN_EVALS]; /* and of block 0 */
    double induction[AUSTEN_RUN_EVALS];    /* the best induction (on text) of the later blocks */
    size_t previous_head[AUSTEN_RUN_EVALS], prefix_layer[AUSTEN_RUN_EVALS];
    size_t prefix_head[AUSTEN_RUN_EVALS];
} austen_run;
/* Reads figures/runs/NAME-state.txt and NAME-heads-history.tsv; 0 if
   either is missing or malformed. */
int mha_read_austen_run(const char *name, austen_run *run);
void mha_print_austen_runs_numbers(FILE *out);
void mha_print_austen_runs(FILE *out);
void mha_print_austen_forming(FILE *out);
void mha_print_austen_circuit_numbers(FILE *out);
void mha_print_austen_circuit_names(FILE *out);
void mha_print_austen_pieces_forming(FILE *out);
void mha_print_austen_pieces_numbers(FILE *out);
void mha_print_austen_pieces_names(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_command_summary(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_demo_sample(FILE *out);
/* <<[[tables.h]] printers>> */
enum { LM_PROFILE_PARTS = 14, LM_PROFILE_RUNS = 4 };
/* figures/lm-profile.txt: one column (run) for each instruction set */
typedef struct {
    char machine[400];
    size_t runs;
    char isa[LM_PROFILE_RUNS][16];
    double threads[LM_PROFILE_RUNS], steps[LM_PROFILE_RUNS], seconds[LM_PROFILE_RUNS];
    double samples[LM_PROFILE_RUNS][LM_PROFILE_PARTS], total[LM_PROFILE_RUNS];
} lm_profile;
extern const char *const lm_profile_part[LM_PROFILE_PARTS];    /* the file's names */
/* 1 when the file is read whole; 0, with *p empty, when it is missing or wrong */
int mha_read_lm_profile(const char *path, lm_profile *p);
/* part's share of run's samples, in percent */
double lm_profile_share(const lm_profile *p, size_t run, size_t part);
void mha_print_lm_profile_from(FILE *out, const char *path, int numbers);
void mha_print_lm_profile(FILE *out);
void mha_print_lm_profile_numbers(FILE *out);
/* <<[[tables.h]] printers>> */
/* n with thin spaces between groups of three digits, in buf; returns buf. */
const char *format_count(char buf[64], unsigned long long n);
/* flops in millions: three significant digits below 100, else grouped. */
const char *format_millions(char buf[64], double flops);
void mha_print_param_table(FILE *out);
void mha_print_flop_table(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_numbers(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_example_table(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_erratum(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_example_heatmap(FILE *out);
/* <<[[tables.h]] printers>> */
void mha_print_sqrt_d(FILE *out);
void mha_print_softmax_temperature(FILE *out);
void mha_print_designed_heatmaps(FILE *out);
void mha_print_sinusoidal_table(FILE *out);
void mha_print_gelu_curve(FILE *out);
#endif
