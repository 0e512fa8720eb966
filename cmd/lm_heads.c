/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bpe.h"
#include "bpe_files.h"
#include "cli.h"
#include "clock.h"
#include "head_roles.h"
#include "layer_dir.h"
#include "layer_files.h"
#include "lm.h"
#include "lm_cmd.h"
#include "lm_files.h"
#include "ngram.h"
#include "output.h"
#include "random.h"
#include "sha256.h"

/* <<[[lm_heads.c]] sub-commands>> */
struct heads_table { char *text; size_t length; };
static int write_heads(FILE *file, void *context)
{
    const struct heads_table *t = context;
    return fwrite(t->text, 1, t->length, file) == t->length ? 0 : -1;
}
static void head_line(FILE *out, size_t l, size_t h, const lm_head_scores *s, int tsv)
{
    fprintf(out, tsv ? "%zu\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%s\n"
                     : "layer=%zu head=%zu prev_token=%.3f induction=%.3f same_token=%.3f "
                       "first_token=%.3f punctuation=%.3f sentence_start=%.3f "
                       "mean_distance=%.2f entropy_bits=%.3f prefix_matching=%.3f role=%s\n",
            l, h, s->prev_token, s->induction, s->same_token, s->first_token, s->punctuation,
            s->sentence_start, s->mean_distance, s->entropy_bits, s->prefix_matching,
            lm_head_role(s));
}
static void heads_usage(FILE *out)
{
    fputs("usage: mha lm heads DIR --text FILE [--windows N] [--seed S]\n\n"
          "Measures every head of the model in DIR on N windows of its context (default\n"
          "64) spread evenly over the tokens of FILE, and on the same windows with a span\n"
          "of 20 to 50 tokens repeated (placed by seed S, default 1), and on as many\n"
          "windows of random tokens of FILE written twice.  Prints one line per head,\n"
          "and writes the same table, tab-separated, to DIR/heads.tsv:\n"
          "layer=L head=H prev_token=X induction=X same_token=X first_token=X\n"
          "punctuation=X sentence_start=X mean_distance=X entropy_bits=X\n"
          "prefix_matching=X role=NAME\n"
          "then the in-context-learning score: the mean loss of N runs of T/8 tokens read\n"
          "at the last T/8 positions of a window less that of the same tokens read at\n"
          "positions 5T/32 to 9T/32 of a later one (nan for T < 8 or a text shorter than\n"
          "about 55T/32 tokens):\n"
          "in_context early_loss=X late_loss=X score=X\n"
          "and, on the same tokens, the share the copying rule (the token after the\n"
          "latest earlier copy of the current one) predicts from the early and the late\n"
          "context, and the early loss of the tokens only the late one predicts, over\n"
          "all of them (the most copying could take off the score):\n"
          "copying early_share=X late_share=X ceiling=X\n"
          "(means over the queries after the first; the role from the scores by the rule\n"
          "of the chapter \"What the heads of the Austen model do\").\n", out);
}
/* <<[[lm_heads.c]] sub-commands>> */
struct heads_run {
    size_t layers, heads, context, tokens;
    const char *text;              /* the text's name, or "random" */
    char sha[LM_SHA_HEX];
    lm_head_scores *scores;        /* (layers heads) */
    double early, late;            /* the in-context score's two losses */
    double copy_early, copy_late, ceiling;      /* lm_copying_reach's */
};
/* <<[[lm_heads.c]] sub-commands>> */
static int heads_of_gpt(const char *dir, const char *path, const char *text, size_t windows,
                        size_t seed, struct heads_run *run, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    lm_model m;
    bpe tokenizer;
    if (lm_cmd_read_model(dir, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    if (mha_output_check(path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        bpe_free(&tokenizer);
        lm_model_free(&m);
        return MHA_EXIT_FAILURE;
    }
    const size_t N = m.config.layers, H = m.config.heads, T = m.config.context;
    int *ids = NULL;
    size_t n = 0, bytes = 0;
    *run = (struct heads_run){N, H, T, 0, text, "-", malloc(N * H * sizeof *run->scores), NAN,
                              NAN, NAN, NAN, NAN};
    unsigned char *classes = malloc(tokenizer.vocab);
    int status = MHA_EXIT_OK;
    if (classes == NULL || run->scores == NULL) {
        mha_cli_error(err, "lm heads: out of memory");
        status = MHA_EXIT_FAILURE;
    } else
        status = lm_cmd_read_tokens(text, &tokenizer, T, &ids, &n, &bytes, run->sha, err);
    run->tokens = n;
    mha_status failed = MHA_OK;
    if (status == MHA_EXIT_OK) {
        lm_token_classes(&tokenizer, classes);
        failed = lm_heads_measure(&m, ids, n, classes, windows, (uint64_t)seed, run->scores);
    }
    if (status == MHA_EXIT_OK && failed == MHA_OK && T >= 8 &&
        n >= 2 * T - T / 8 - 5 * T / 32 + 1)
        failed = lm_in_context_score(&m, ids, n, windows, &run->early, &run->late);
    if (status == MHA_EXIT_OK && failed == MHA_OK && !isnan(run->early))
        failed = lm_copying_reach(&m, ids, n, windows, &run->copy_early, &run->copy_late,
                                  &run->ceiling);
    if (status == MHA_EXIT_OK && failed != MHA_OK) {
        lm_cmd_blame(err, "heads", dir, text, failed);
        status = MHA_EXIT_FAILURE;
    }
    free(ids);
    free(classes);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
/* <<[[lm_heads.c]] sub-commands>> */
#include "checkpoint.h"
/* 1 for an induction checkpoint, 0 for anything else or a missing model.txt
   (which the reader of the model then names), -1 with one mha: line for a
   model.txt that cannot be read */
static int is_induction_checkpoint(const char *dir, FILE *err)
{
    char path[MHA_PATH_SIZE], message[MHA_PATH_SIZE + 256];
    unsigned char *text;
    size_t n;
    if (!mha_join_path(path, sizeof path, dir, CHECKPOINT_METADATA))
        return 0;
    const mha_status read = mha_read_whole_file(path, MHA_READ_NOTE_MAX, &text, &n, message,
                                                sizeof message);
    if (read == MHA_ERR_IO && access(path, F_OK) != 0)
        return 0;
    if (read != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return -1;
    }
    const char kind[] = "\nmodel induction\n";
    int found = 0;
    for (size_t i = 0; !found && i + sizeof kind - 1 <= n; i++)
        found = memcmp(text + i, kind, sizeof kind - 1) == 0;
    free(text);
    return found;
}
struct induction_reading { const mha_induction_model *m; mha_learning_workspace ws; int *x; };
static mha_status induction_weights(void *model, const int *tokens, size_t B, float *weights)
{
    struct induction_reading *r = model;
    const size_t W = r->ws.batch, T = r->m->length, H = r->m->heads, one = H * T * T;
    for (size_t b = 0; b < W; b++)
        memcpy(r->x + b * T, tokens + (b < B ? b : 0) * T, T * sizeof *r->x);
    mha_status status = mha_induction_forward(r->m, &r->ws, r->x);
    for (size_t l = 0; status == MHA_OK && l < r->m->layers; l++)
        memcpy(weights + l * B * one, r->ws.weights + l * W * one, B * one * sizeof *weights);
    return status;
}
static int heads_of_induction(const char *dir, const char *path, size_t windows, size_t seed,
                              struct heads_run *run, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    mha_induction_model m;
    if (induction_checkpoint_read(dir, 0, &m, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    if (mha_output_check(path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        mha_induction_model_free(&m);
        return MHA_EXIT_FAILURE;
    }
    const size_t N = m.layers, H = m.heads, T = m.length, V = m.vocab;
    const size_t B = windows < LM_HEADS_BATCH ? windows : LM_HEADS_BATCH;
    struct induction_reading reading = {&m, {0}, malloc(B * T * sizeof *reading.x)};
    *run = (struct heads_run){N, H, T, windows * T, "random", "-",
                              malloc(N * H * sizeof *run->scores), NAN, NAN, NAN, NAN, NAN};
    int *ids = malloc(windows * T * sizeof *ids);
    unsigned char *classes = calloc(V, 1);
    mha_status failed = mha_learning_workspace_init(&reading.ws, &m, B);
    if (failed == MHA_OK && (!reading.x || !run->scores || !ids || !classes))
        failed = MHA_ERR_NOMEM;
    uint64_t state = mha_random_seeded((uint64_t)seed);
    for (size_t i = 0; failed == MHA_OK && i < windows * T; i++)
        ids[i] = (int)(mha_random(&state) % V);
    const lm_attention_reader r = {N, H, V, T, B, induction_weights, &reading};
    if (failed == MHA_OK)
        failed = lm_heads_measure_reader(&r, ids, windows * T, classes, windows, (uint64_t)seed,
                                         run->scores);
    if (failed != MHA_OK)
        mha_cli_error(err, "lm heads: %s: %s", dir, mha_status_message(failed));
    if (failed != MHA_ERR_NOMEM || reading.ws.batch)
        mha_learning_workspace_free(&reading.ws);
    mha_induction_model_free(&m);
    free(reading.x);
    free(ids);
    free(classes);
    return failed == MHA_OK ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
/* <<[[lm_heads.c]] sub-commands>> */
static int heads_publish(const char *path, const struct heads_run *run, size_t windows,
                         size_t seed, FILE *out, FILE *err)
{
    char message[MHA_PATH_SIZE + 256], *table = NULL;
    size_t length = 0;
    const size_t N = run->layers, H = run->heads;
    FILE *f = open_memstream(&table, &length);
    if (f == NULL) {
        mha_cli_error(err, "lm heads: out of memory");
        return MHA_EXIT_FAILURE;
    }
    fprintf(f, "# heads\ttext=%s\ttokens=%zu\tsha256=%s\tcontext=%zu\twindows=%zu\tseed=%zu\t"
            "early_loss=%.4f\tlate_loss=%.4f\teven_induction=%.4f\teven_prefix=%.4f\t"
            "copy_early=%.4f\tcopy_late=%.4f\tcopy_ceiling=%.4f\n",
            run->text, run->tokens, run->sha, run->context, windows, seed, run->early,
            run->late, run->scores[0].induction_even, run->scores[0].prefix_even,
            run->copy_early, run->copy_late, run->ceiling);
    fputs("layer\thead\tprev_token\tinduction\tsame_token\tfirst_token\tpunctuation\t"
          "sentence_start\tmean_distance\tentropy_bits\tprefix_matching\trole\n", f);
    for (size_t k = 0; k < N * H; k++)
        head_line(f, k / H, k % H, &run->scores[k], 1);
    int status = fclose(f) == 0 ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
    struct heads_table written = {table, length};
    if (status != MHA_EXIT_OK)
        mha_cli_error(err, "lm heads: out of memory");
    else if (mha_output_file(path, write_heads, &written, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    }
    for (size_t k = 0; status == MHA_EXIT_OK && k < N * H; k++)
        head_line(out, k / H, k % H, &run->scores[k], 0);
    if (status == MHA_EXIT_OK)
        fprintf(out, "in_context early_loss=%.4f late_loss=%.4f score=%.4f\n"
                "copying early_share=%.4f late_share=%.4f ceiling=%.4f\n", run->early,
                run->late, run->late - run->early, run->copy_early, run->copy_late,
                run->ceiling);
    free(table);
    return status;
}
/* <<[[lm_heads.c]] sub-commands>> */
int mha_cmd_lm_heads(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL;
    size_t windows = 64, seed = 1;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--windows", MHA_OPTION_SIZE, &windows, 1, 100000, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &seed, 0, SIZE_MAX, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 3, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            heads_usage(out);
        return status;
    }
    const char *dir = line.operand_given;
    const int induction = dir != NULL ? is_induction_checkpoint(dir, err) : 0;
    if (induction < 0)
        return MHA_EXIT_FAILURE;
    if (dir == NULL || (text == NULL && !induction)) {
        mha_cli_error(err, "lm heads: %s is required (try 'mha lm heads --help')",
                      dir == NULL ? "the model directory" : "--text");
        return MHA_EXIT_USAGE;
    }
    if (text != NULL && induction) {
        mha_cli_error(err, "--text: %s is a model of random tokens, with no tokenizer; it is "
                      "measured on random tokens, without --text", dir);
        return MHA_EXIT_USAGE;
    }
    char path[MHA_PATH_SIZE];
    if (!mha_join_path(path, sizeof path, dir, "heads.tsv")) {
        mha_cli_error(err, "%s: name too long", dir);
        return MHA_EXIT_USAGE;
    }
    if (lm_cmd_hold_folder(dir, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    struct heads_run run = {0};
    status = induction ? heads_of_induction(dir, path, windows, seed, &run, err)
                       : heads_of_gpt(dir, path, text, windows, seed, &run, err);
    if (status == MHA_EXIT_OK)
        status = heads_publish(path, &run, windows, seed, out, err);
    free(run.scores);
    return status;
}
/* <<[[lm_heads.c]] sub-commands>> */
struct prune_sample { const int *ids; size_t n, windows; };
static mha_status prune_loss(const lm_model *m, void *context, double *loss)
{
    const struct prune_sample *s = context;
    return lm_sample_loss(m, s->ids, s->n, s->windows, loss);
}
static void prune_usage(FILE *out)
{
    fputs("usage: mha lm prune DIR --text FILE [--tokens N] [--max K]\n\n"
          "The loss of the model in DIR on about N tokens of FILE (default 4096: windows\n"
          "of its context spread over the text) with every head, with each head alone\n"
          "removed (its importance), and along the greedy order that removes, step after\n"
          "step, the head whose removal raises the loss least (at most K steps; default\n"
          "every head).  Prints the loss with every head and one line per step:\n"
          "removed=K share=X layer=L head=H loss=X\n"
          "and writes DIR/prune.tsv: per head, its importance, the step that removed it\n"
          "(0: none) and the loss after that step.\n", out);
}
int mha_cmd_lm_prune(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL;
    size_t tokens = 4096, max = SIZE_MAX;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--tokens", MHA_OPTION_SIZE, &tokens, 1, 100000000, 0, 0, NULL},
        {"--max", MHA_OPTION_SIZE, &max, 1, SIZE_MAX, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 3, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            prune_usage(out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm prune: %s is required (try 'mha lm prune --help')",
                      text == NULL ? "--text" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    const char *dir = line.operand_given;
    char path[MHA_PATH_SIZE], message[MHA_PATH_SIZE + 256];
    if (!mha_join_path(path, sizeof path, dir, "prune.tsv")) {
        mha_cli_error(err, "%s: name too long", dir);
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (lm_cmd_hold_folder(dir, err) != MHA_EXIT_OK ||
        lm_cmd_read_model(dir, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    /* <<measure the importance and the greedy order of [[m]]'s heads and write [[path]]>> */
    const size_t T = m.config.context, H = m.config.heads, NH = m.config.layers * H;
    const size_t count = max < NH ? max : NH;
    int *ids = NULL;
    size_t n = 0, bytes = 0, length = 0;
    char sha[LM_SHA_HEX] = "-", *table = NULL;
    double base = 0, *importance = malloc(NH * sizeof *importance);
    lm_prune_step *steps = malloc(NH * sizeof *steps);
    if (mha_output_check(path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    } else if (importance == NULL || steps == NULL) {
        mha_cli_error(err, "lm prune: out of memory");
        status = MHA_EXIT_FAILURE;
    } else
        status = lm_cmd_read_tokens(text, &tokenizer, T + 1, &ids, &n, &bytes, sha, err);
    struct prune_sample sample = {ids, n, tokens / T ? tokens / T : 1};
    if (sample.windows > (n - 1) / T)
        sample.windows = (n - 1) / T ? (n - 1) / T : 1;
    mha_status failed = MHA_OK;
    if (status == MHA_EXIT_OK) {
        failed = lm_heads_importance(&m, prune_loss, &sample, &base, importance);
        if (failed == MHA_OK)
            failed = lm_heads_prune(&m, prune_loss, &sample, count, steps);
    }
    FILE *f = status == MHA_EXIT_OK && failed == MHA_OK ? open_memstream(&table, &length) : NULL;
    if (f != NULL) {
        fprintf(f, "# prune\ttext=%s\ttokens=%zu\tsha256=%s\tcontext=%zu\twindows=%zu\tbase=%.6f\n",
                text, n, sha, T, sample.windows, base);
        fputs("layer\thead\timportance\tstep\tloss\n", f);
        for (size_t k = 0; k < NH; k++) {
            size_t step = 0;
            while (step < count && steps[step].layer * H + steps[step].head != k)
                step++;
            if (step < count)
                fprintf(f, "%zu\t%zu\t%.6f\t%zu\t%.6f\n", k / H, k % H, importance[k], step + 1,
                        steps[step].loss);
            else
                fprintf(f, "%zu\t%zu\t%.6f\t0\t-\n", k / H, k % H, importance[k]);
        }
        failed = fclose(f) == 0 ? MHA_OK : MHA_ERR_NOMEM;
    } else if (status == MHA_EXIT_OK && failed == MHA_OK)
        failed = MHA_ERR_NOMEM;
    if (status == MHA_EXIT_OK && failed != MHA_OK) {
        lm_cmd_blame(err, "prune", dir, text, failed);
        status = MHA_EXIT_FAILURE;
    }
    struct heads_table written = {table, length};
    if (status == MHA_EXIT_OK &&
        mha_output_file(path, write_heads, &written, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK)
        fprintf(out, "tokens=%zu windows=%zu context=%zu loss=%.6f\n", sample.windows * T,
                sample.windows, T, base);
    for (size_t s = 0; status == MHA_EXIT_OK && s < count; s++)
        fprintf(out, "removed=%zu share=%.3f layer=%zu head=%zu loss=%.6f\n", s + 1,
                (double)(s + 1) / (double)NH, steps[s].layer, steps[s].head, steps[s].loss);
    free(ids);
    free(importance);
    free(steps);
    free(table);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
/* <<[[lm_heads.c]] sub-commands>> */
int mha_cmd_lm_repeat(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL, *mask = NULL;
    size_t passages = 20, least = 40, most = 60;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--passages", MHA_OPTION_SIZE, &passages, 1, 100000, 0, 0, NULL},
        {"--least", MHA_OPTION_SIZE, &least, 2, 4096, 0, 0, NULL},
        {"--most", MHA_OPTION_SIZE, &most, 2, 4096, 0, 0, NULL},
        {"--mask", MHA_OPTION_TEXT, &mask, 0, 0, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 5, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm repeat DIR --text FILE [--passages N] [--least A] [--most B]\n"
                  "                     [--mask L:H[,L:H...]]\n\n"
                  "Writes N passages of FILE (default 20), spread evenly over it, of A to B\n"
                  "tokens (default 40 to 60, 2B at most the model's context), twice each, and\n"
                  "prints one line:\n"
                  "passages=N first=X second=X gain=X\n"
                  "(the mean loss of the next token in nats on the first copy and on the second,\n"
                  "and first less second).  --mask removes head H of block L for each pair (the\n"
                  "line then ends removed=N).\n", out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm repeat: %s is required (try 'mha lm repeat --help')",
                      text == NULL ? "--text" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    if (least > most) {
        mha_cli_error(err, "--least: %zu is more than --most, %zu", least, most);
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (lm_cmd_read_model(line.operand_given, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    int *ids = NULL;
    size_t n = 0, bytes = 0;
    if (2 * most > m.config.context) {
        mha_cli_error(err, "--most: %zu tokens written twice are beyond the model's context of "
                      "%zu", most, m.config.context);
        status = MHA_EXIT_USAGE;
    } else if (mask != NULL)
        status = lm_cmd_remove_heads(&m, mask, err);
    if (status == MHA_EXIT_OK)
        status = lm_cmd_read_tokens(text, &tokenizer, most, &ids, &n, &bytes, NULL, err);
    double first, second;
    if (status == MHA_EXIT_OK) {
        const mha_status failed = lm_repeat_gain(&m, ids, n, passages, least, most, &first,
                                                 &second);
        if (failed != MHA_OK) {
            lm_cmd_blame(err, "repeat", line.operand_given, text, failed);
            status = MHA_EXIT_FAILURE;
        } else {
            fprintf(out, "passages=%zu first=%.4f second=%.4f gain=%.4f", passages, first,
                    second, first - second);
            if (mask != NULL)
                fprintf(out, " removed=%zu", lm_heads_removed(&m));
            fputc('\n', out);
        }
    }
    free(ids);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
