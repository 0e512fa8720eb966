/* generated from chapters/16-austen-model.nw; edit the book, not this file */
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
#include "layer_dir.h"
#include "layer_files.h"
#include "head_roles.h"
#include "lm.h"
#include "lm_files.h"
#include "lm_cmd.h"
#include "ngram.h"
#include "output.h"
#include "random.h"
#include "sha256.h"

/* <<[[lm_train.c]] sub-commands>> */
struct lm_train_options {
    const char *text, *valid, *out, *tokenizer, *resume, *state;
    size_t vocab, layers, heads, dim, context, steps, batch, seed, eval_every, warmup, stop_at;
    size_t repeat_until;
    double lr, repeat, token_sd, position_sd;
};
static void lm_train_usage(FILE *out, const struct lm_train_options *d)
{
    fprintf(out,
        "usage: mha lm train --text FILE --out DIR [--valid FILE] [--tokenizer DIR | --vocab V]\n"
        "                    [--layers N] [--heads H] [--dim E] [--context T] [--steps S]\n"
        "                    [--batch B] [--lr X] [--warmup W] [--seed S] [--eval-every K]\n"
        "                    [--repeat P] [--repeat-until K] [--token-sd X]\n"
        "                    [--position-sd X] [--state DIR] [--stop-at K] [--resume STATE]\n\n"
        "Trains a small GPT (token and position embeddings, N pre-norm blocks of H heads,\n"
        "width E, MLP 4E, a final norm, the tied unembedding) on the tokens of FILE, with\n"
        "AdamW (weight decay 0.1 on the blocks' matrices) at peak rate X after W warm-up\n"
        "steps, then a cosine down to X/10 at step S.  Batches are B random windows of T+1\n"
        "tokens; a share P of them (default 0) has a passage of its own tokens written\n"
        "twice, in every step or, with --repeat-until K, in steps 1 to K only (then plain\n"
        "text: a curriculum).  The token and position embeddings start with deviations\n"
        "--token-sd and --position-sd (default 0.02, GPT-2's, as every matrix).  The\n"
        "tokenizer is read from DIR (merges.txt, vocab.txt) or learnt from FILE with V\n"
        "tokens.  Every K steps: a progress line, the held-out\n"
        "loss on --valid, and the model written to --out (model.txt, one .npy per tensor,\n"
        "the tokenizer) and the state to --state (default: the --out name followed by\n"
        ".state): parameters, AdamW's moments, step, random state, history.tsv.\n"
        "--stop-at K stops after step K; --resume STATE carries on that run, bit for bit\n"
        "as if it had not stopped, with the options it was started with (any other than\n"
        "--text, --valid, --out, --state and --stop-at is refused).\n"
        "Defaults: --vocab %zu --layers %zu --heads %zu --dim %zu --context %zu --steps %zu\n"
        "--batch %zu --lr %g --warmup S/20 --seed %zu --eval-every %zu --repeat 0.\n",
        d->vocab, d->layers, d->heads, d->dim, d->context, d->steps, d->batch, d->lr, d->seed,
        d->eval_every);
}
/* <<[[lm_train.c]] sub-commands>> */
struct lm_data {
    bpe tokenizer;
    int have_tokenizer;
    int *train, *valid;
    size_t train_n, valid_n;
    char train_sha[LM_SHA_HEX], valid_sha[LM_SHA_HEX];
};
static void lm_data_free(struct lm_data *d)
{
    if (d->have_tokenizer)
        bpe_free(&d->tokenizer);
    free(d->train);
    free(d->valid);
}
static int lm_data_read(const struct lm_train_options *o, size_t context, const bpe *resumed,
                        struct lm_data *d, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    size_t bytes;
    memset(d, 0, sizeof *d);
    strcpy(d->valid_sha, "-");
    if (o->resume)
        d->tokenizer = *resumed;                   /* the state's, now the data's */
    else if (o->tokenizer) {
        if (bpe_files_read(o->tokenizer, &d->tokenizer, message, sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            return MHA_EXIT_FAILURE;
        }
    } else {
        unsigned char *text;
        if (mha_read_whole_file(o->text, MHA_READ_TEXT_MAX, &text, &bytes, message,
                                sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            return MHA_EXIT_FAILURE;
        }
        const mha_status learned = bpe_learn(text, bytes, o->vocab, &d->tokenizer);
        free(text);
        if (learned != MHA_OK) {
            mha_cli_error(err, "%s: learning a tokenizer of %zu tokens: %s", o->text, o->vocab,
                          mha_status_message(learned));
            return MHA_EXIT_FAILURE;
        }
    }
    d->have_tokenizer = 1;
    int status = lm_cmd_read_tokens(o->text, &d->tokenizer, context + 2, &d->train,
                                    &d->train_n, &bytes, d->train_sha, err);
    if (status == MHA_EXIT_OK && o->valid)
        status = lm_cmd_read_tokens(o->valid, &d->tokenizer, context + 1, &d->valid,
                                    &d->valid_n, &bytes, d->valid_sha, err);
    return status;
}
/* <<[[lm_train.c]] sub-commands>> */
static mha_status held_out_loss(const lm_model *m, const lm_run *run, const struct lm_data *d,
                                double *loss)
{
    const size_t T = run->config.context, windows = (d->valid_n - 1) / T;
    const size_t B = windows < run->batch ? windows : run->batch;
    const size_t batches = windows / B < 8 ? windows / B : 8;
    lm_workspace ws;
    mha_status status = lm_workspace_init(&ws, m, B, T, 0);
    int *x = malloc(B * T * sizeof *x), *y = malloc(B * T * sizeof *y);
    double sum = 0;
    if (status == MHA_OK && (x == NULL || y == NULL))
        status = MHA_ERR_NOMEM;
    for (size_t k = 0; status == MHA_OK && k < batches; k++) {
        for (size_t b = 0; b < B; b++) {
            memcpy(x + b * T, d->valid + (k * B + b) * T, T * sizeof *x);
            memcpy(y + b * T, d->valid + (k * B + b) * T + 1, T * sizeof *y);
        }
        double l;
        status = lm_loss(m, &ws, x, y, &l);
        sum += l;
    }
    *loss = sum / (double)batches;
    free(x);
    free(y);
    lm_workspace_free(&ws);
    return status;
}
/* <<[[lm_train.c]] sub-commands>> */
static int lm_save(const struct lm_train_options *o, const lm_run *run, const lm_model *m,
                   const lm_adamw *opt, const struct lm_data *d, const lm_history *history,
                   FILE *err)
{
    char message[MHA_PATH_SIZE + 256], path[MHA_PATH_SIZE];
    const size_t n = lm_model_file_count(m);
    char (*names)[LM_NAME_MAX + 8] = malloc(n * sizeof *names);
    const char **list = malloc(n * sizeof *list);
    mha_status status = names && list ? MHA_OK
                      : mha_fail(MHA_ERR_NOMEM, message, sizeof message, "%s: out of memory", o->out);
    for (size_t i = 0; status == MHA_OK && i < n; i++) {
        lm_model_file_name(m, i, names[i], sizeof names[i]);
        list[i] = names[i];
    }
    if (status == MHA_OK)
        status = mha_output_make_dir(o->out, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_make_dir(o->state, message, sizeof message);
    if (status == MHA_OK)                          /* both held once they exist */
        status = mha_output_hold(o->out, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_hold(o->state, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_begin(o->out, (int)n, list, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_own(lm_model_owned, message, sizeof message);
    for (size_t i = 0; status == MHA_OK && i < LM_STATE_FILES; i++) {
        const char *name = lm_state_names[i];
        status = mha_join_path(path, sizeof path, o->state, name)
               ? mha_output_add(path, message, sizeof message)
               : mha_fail(MHA_ERR_ARG, message, sizeof message, "%s: name too long", o->state);
    }
    const lm_provenance p = {run->step, "", ""};
    lm_provenance q = p;
    memcpy(q.train_sha256, d->train_sha, LM_SHA_HEX);
    memcpy(q.valid_sha256, d->valid_sha, LM_SHA_HEX);
    if (status == MHA_OK)
        status = lm_model_put(o->out, m, &d->tokenizer, &q, message, sizeof message);
    if (status == MHA_OK)
        status = lm_state_put(o->state, run, m, opt, &d->tokenizer, history, message,
                              sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    free(names);
    free(list);
    if (status != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
/* <<[[lm_train.c]] sub-commands>> */
/* Where a folder is, or will be: its own device and inode, or, missing, its
   parent's and its name. */
struct lm_place { dev_t dev; ino_t ino; int exists; const char *name; };
static int lm_place_of(const char *dir, struct lm_place *p)
{
    char parent[MHA_PATH_SIZE];
    const char *slash = strrchr(dir, '/');
    struct stat st;
    p->name = slash != NULL ? slash + 1 : dir;
    p->exists = stat(dir, &st) == 0;
    if (!p->exists) {
        if (*p->name == '\0' || strlen(dir) >= sizeof parent)
            return 0;
        snprintf(parent, sizeof parent, "%.*s", slash == NULL || slash == dir ? 1
                 : (int)(slash - dir), slash == NULL ? "." : dir);
        if (stat(parent, &st) != 0)
            return 0;
    }
    p->dev = st.st_dev, p->ino = st.st_ino;
    return 1;
}
static int lm_same_place(const char *x, const char *y)
{
    struct lm_place a, b;
    return strcmp(x, y) == 0 ||
           (lm_place_of(x, &a) && lm_place_of(y, &b) && a.dev == b.dev && a.ino == b.ino &&
            a.exists == b.exists && (a.exists || strcmp(a.name, b.name) == 0));
}
static int lm_train_outputs_check(const struct lm_train_options *o, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    if (lm_same_place(o->out, o->state)) {
        mha_cli_error(err, "--state: %s is the --out folder; the state needs its own",
                      o->state);
        return MHA_EXIT_USAGE;
    }
    if (mha_output_check_new_dir(o->out, message, sizeof message) != MHA_OK ||
        mha_output_check_new_dir(o->state, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
/* <<[[lm_train.c]] sub-commands>> */
static int lm_train_parse(int argc, char **argv, struct lm_train_options *o, int *help, FILE *err)
{
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &o->text, 0, 0, 0, 0, NULL},
        {"--valid", MHA_OPTION_TEXT, &o->valid, 0, 0, 0, 0, NULL},
        {"--out", MHA_OPTION_TEXT, &o->out, 0, 0, 0, 0, NULL},
        {"--tokenizer", MHA_OPTION_TEXT, &o->tokenizer, 0, 0, 0, 0, NULL},
        {"--resume", MHA_OPTION_TEXT, &o->resume, 0, 0, 0, 0, NULL},
        {"--state", MHA_OPTION_TEXT, &o->state, 0, 0, 0, 0, NULL},
        {"--vocab", MHA_OPTION_SIZE, &o->vocab, BPE_BYTES, BPE_VOCAB_MAX, 0, 0, NULL},
        {"--layers", MHA_OPTION_SIZE, &o->layers, 1, LM_MAX_LAYERS, 0, 0, NULL},
        {"--heads", MHA_OPTION_SIZE, &o->heads, 1, 256, 0, 0, NULL},
        {"--dim", MHA_OPTION_SIZE, &o->dim, 1, 8192, 0, 0, NULL},
        {"--context", MHA_OPTION_SIZE, &o->context, 2, 8192, 0, 0, NULL},
        {"--steps", MHA_OPTION_SIZE, &o->steps, 1, SIZE_MAX / 2, 0, 0, NULL},
        {"--batch", MHA_OPTION_SIZE, &o->batch, 1, LM_BATCH_MAX, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &o->seed, 1, SIZE_MAX, 0, 0, NULL},
        {"--eval-every", MHA_OPTION_SIZE, &o->eval_every, 1, SIZE_MAX, 0, 0, NULL},
        {"--warmup", MHA_OPTION_SIZE, &o->warmup, 0, SIZE_MAX / 2, 0, 0, NULL},
        {"--stop-at", MHA_OPTION_SIZE, &o->stop_at, 1, SIZE_MAX / 2, 0, 0, NULL},
        {"--repeat-until", MHA_OPTION_SIZE, &o->repeat_until, 1, SIZE_MAX / 2, 0, 0, NULL},
        {"--lr", MHA_OPTION_DOUBLE, &o->lr, 0, 0, 1e-12, 1, "a learning rate in (0, 1]"},
        {"--repeat", MHA_OPTION_DOUBLE, &o->repeat, 0, 0, 0, 1, "a share from 0 to 1"},
        {"--token-sd", MHA_OPTION_DOUBLE, &o->token_sd, 0, 0, 1e-6, 1,
         "a deviation in (0, 1]"},
        {"--position-sd", MHA_OPTION_DOUBLE, &o->position_sd, 0, 0, 1e-6, 1,
         "a deviation in (0, 1]"},
    };
    mha_command_line line;
    const int status = mha_cli_options(argc, argv, options, sizeof options / sizeof options[0],
                                       NULL, &line, err);
    *help = line.help;
    return status;
}
static int lm_train_check(const struct lm_train_options *o, FILE *err)
{
    if (o->text == NULL || o->out == NULL) {
        mha_cli_error(err, "lm train: %s is required (try 'mha lm train --help')",
                      o->text == NULL ? "--text" : "--out");
        return MHA_EXIT_USAGE;
    }
    if (o->dim % o->heads != 0) {
        mha_cli_error(err, "lm train: --heads %zu does not divide --dim %zu", o->heads, o->dim);
        return MHA_EXIT_USAGE;
    }
    if (o->warmup >= o->steps) {
        mha_cli_error(err, "lm train: --warmup %zu is not below --steps %zu", o->warmup,
                      o->steps);
        return MHA_EXIT_USAGE;
    }
    if (o->repeat_until > o->steps) {
        mha_cli_error(err, "lm train: --repeat-until %zu is past --steps %zu", o->repeat_until,
                      o->steps);
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
/* <<[[lm_train.c]] sub-commands>> */
static int lm_resume_check(int argc, char **argv, const struct lm_train_options *o, FILE *err)
{
    static const char *const fixed[] = {"--tokenizer", "--vocab", "--layers", "--heads", "--dim",
                                        "--context", "--steps", "--batch", "--lr", "--warmup",
                                        "--seed", "--eval-every", "--repeat",
                                        "--repeat-until", "--token-sd", "--position-sd"};
    for (int i = 1; o->resume != NULL && i < argc; i++)
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
            const size_t n = strlen(fixed[k]);
            if (strncmp(argv[i], fixed[k], n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
                mha_cli_error(err, "%s: a resumed run keeps the options it was started with "
                              "(%s/state.txt); with --resume give only --text, --valid, --out, "
                              "--state and --stop-at", fixed[k], o->resume);
                return MHA_EXIT_USAGE;
            }
        }
    return MHA_EXIT_OK;
}
/* <<[[lm_train.c]] sub-commands>> */
enum { LM_HISTORY_WINDOWS = 32 };
static mha_status heads_at(const lm_model *m, const struct lm_data *d,
                           const unsigned char *classes, size_t step, size_t tokens, double valid,
                           FILE *h)
{
    const size_t N = m->config.layers, H = m->config.heads, T = m->config.context;
    lm_head_scores *s = malloc(N * H * sizeof *s);
    double early = NAN, late = NAN;
    mha_status status = s ? lm_heads_measure(m, d->valid, d->valid_n, classes,
                                             LM_HISTORY_WINDOWS, 1, s)
                          : MHA_ERR_NOMEM;
    if (status == MHA_OK && T >= 8)
        status = lm_in_context_score(m, d->valid, d->valid_n, LM_HISTORY_WINDOWS, &early, &late);
    if (status == MHA_OK && ftell(h) == 0)
        fputs("step\ttokens\tvalid_loss\tearly_loss\tlate_loss\tlayer\thead\tprev_token\t"
              "induction\tsame_token\tfirst_token\tpunctuation\tsentence_start\t"
              "mean_distance\tentropy_bits\tprefix_matching\trole\n", h);
    for (size_t k = 0; status == MHA_OK && k < N * H; k++)
        fprintf(h, "%zu\t%zu\t%.6f\t%.6f\t%.6f\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t"
                "%.4f\t%.3f\t%.4f\t%.4f\t%s\n", step, tokens, valid, early, late, k / H, k % H,
                s[k].prev_token, s[k].induction, s[k].same_token, s[k].first_token,
                s[k].punctuation, s[k].sentence_start, s[k].mean_distance, s[k].entropy_bits,
                s[k].prefix_matching, lm_head_role(&s[k]));
    free(s);
    return status;
}
/* <<[[lm_train.c]] sub-commands>> */
static int lm_train_loop(const struct lm_train_options *o, lm_run *run, lm_model *m,
                         lm_adamw *opt, const struct lm_data *d, const lm_history *earlier,
                         lm_history *history, FILE *out, FILE *err)
{
    const size_t B = run->batch, T = run->config.context;
    const size_t stop = o->stop_at && o->stop_at < run->steps ? o->stop_at : run->steps;
    lm_workspace ws;
    mha_status failed = lm_workspace_init(&ws, m, B, T, 1);
    int *x = malloc(B * T * sizeof *x), *y = malloc(B * T * sizeof *y);
    unsigned char *classes = malloc(d->tokenizer.vocab);
    FILE *h = open_memstream(&history->steps, &history->steps_length);
    FILE *hh = open_memstream(&history->heads, &history->heads_length);
    int status = failed == MHA_OK && x && y && classes && h && hh ? MHA_EXIT_OK
                                                                   : MHA_EXIT_FAILURE;
    if (status != MHA_EXIT_OK)
        mha_cli_error(err, "lm train: %s", failed != MHA_OK ? mha_status_message(failed)
                                                             : "out of memory");
    if (h && earlier->steps_length)
        fwrite(earlier->steps, 1, earlier->steps_length, h);
    if (hh && earlier->heads_length)
        fwrite(earlier->heads, 1, earlier->heads_length, hh);
    if (classes)
        lm_token_classes(&d->tokenizer, classes);
    const double started = mha_seconds();
    const size_t first = run->step;
    mha_cli_governor governor;
    mha_cli_governor_init(&governor);
    while (status == MHA_EXIT_OK && run->step < stop) {
        const size_t step = run->step + 1;
        const double rate = lm_learning_rate(step, run->warmup, run->steps, run->learning_rate);
        double loss, valid = NAN;
        const double step_started = mha_cli_governor_before(&governor);
        const int repeats = run->repeat_until == 0 || step <= run->repeat_until;
        failed = lm_batch(d->train, d->train_n, B, T, repeats ? run->repeat : 0,
                          &run->data_state, x, y);
        if (failed == MHA_OK)
            failed = lm_loss(m, &ws, x, y, &loss);
        if (failed == MHA_OK) {
            const double norm = lm_gradient_norm(ws.grads, m->count);
            lm_adamw_step(opt, m, ws.grads, lm_clip_scale(norm, 1.0), rate);
            run->step = step;
        }
        mha_cli_governor_after(&governor, mha_seconds() - step_started);
        const int report = step % run->eval_every == 0 || step == run->steps;
        if (failed == MHA_OK && report && d->valid)
            failed = held_out_loss(m, run, d, &valid);
        if (failed == MHA_OK && report && d->valid && d->valid_n > T)
            failed = heads_at(m, d, classes, step, step * B * T, valid, hh);
        if (failed != MHA_OK) {
            mha_cli_error(err, "lm train: step %zu: %s", step, mha_status_message(failed));
            status = MHA_EXIT_FAILURE;
            break;
        }
        if (step == 1)
            fprintf(h, "step\tlearning_rate\tloss\tvalid_loss\n");
        fprintf(h, "%zu\t%.6g\t%.6f\t", step, rate, loss);
        fprintf(h, isnan(valid) ? "-\n" : "%.6f\n", valid);
        const double seconds = mha_seconds() - started, done = (double)(step - first);
        if (report || step % 10 == 0) {
            fprintf(out, "step=%zu/%zu loss=%.4f", step, run->steps, loss);
            if (!isnan(valid))
                fprintf(out, " valid=%.4f", valid);
            fprintf(out, " tokens/s=%.0f left=%.0fs\n", done * (double)(B * T) / seconds,
                    seconds / done * (double)(stop - step));
            fflush(out);
        }
        if (report || step == stop) {
            fflush(h);
            fflush(hh);
            status = lm_save(o, run, m, opt, d, history, err);
        }
    }
    mha_cli_governor_end(&governor);
    if (h)
        fclose(h);
    if (hh)
        fclose(hh);
    free(classes);
    free(x);
    free(y);
    lm_workspace_free(&ws);
    return status;
}
/* <<[[lm_train.c]] sub-commands>> */
int mha_cmd_lm_train(int argc, char **argv, FILE *out, FILE *err)
{
    struct lm_train_options o = {NULL, NULL, NULL, NULL, NULL, NULL, 2048, 4, 8, 256, 128, 2000,
                                 16, 1, 100, SIZE_MAX, 0, 0, 3e-3, 0.0, LM_INIT_SD,
                                 LM_INIT_SD};
    int help = 0, status = lm_train_parse(argc, argv, &o, &help, err);
    if (status != MHA_EXIT_OK || help) {
        if (help)
            lm_train_usage(out, &o);
        return status;
    }
    if (o.warmup == SIZE_MAX)
        o.warmup = o.steps / 20;
    if ((status = lm_train_check(&o, err)) != MHA_EXIT_OK ||
        (status = lm_resume_check(argc, argv, &o, err)) != MHA_EXIT_OK)
        return status;
    char state[MHA_PATH_SIZE], message[MHA_PATH_SIZE + 256];
    if (o.state == NULL) {
        if (snprintf(state, sizeof state, "%s.state", o.out) >= (int)sizeof state) {
            mha_cli_error(err, "--out: name too long");
            return MHA_EXIT_USAGE;
        }
        o.state = state;
    }
    if ((status = lm_train_outputs_check(&o, err)) != MHA_EXIT_OK ||
        (status = lm_cmd_hold_folder(o.out, err)) != MHA_EXIT_OK ||
        (status = lm_cmd_hold_folder(o.state, err)) != MHA_EXIT_OK)
        return status;
    lm_run run = {{0, o.context, o.dim, o.heads, o.layers, 4 * o.dim}, o.steps, o.warmup,
                  o.batch, o.eval_every, 0, o.lr, o.repeat, o.seed, 0, "-", "-",
                  o.repeat_until, o.token_sd, o.position_sd};
    lm_model m = {0};
    lm_adamw opt = {0};
    lm_history history = {0}, earlier = {0};
    struct lm_data d;
    bpe resumed;
    if (o.resume && lm_state_read(o.resume, &run, &m, &opt, &resumed, &earlier, message,
                                  sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    status = lm_data_read(&o, run.config.context, &resumed, &d, err);
    if (status == MHA_EXIT_OK && o.resume &&
        (strcmp(d.train_sha, run.train_sha256) != 0 || strcmp(d.valid_sha, run.valid_sha256))) {
        mha_cli_error(err, "%s: not the text%s the run in %s was trained on", strcmp(d.train_sha,
                      run.train_sha256) ? o.text : o.valid ? o.valid : "--valid",
                      strcmp(d.train_sha, run.train_sha256) ? "" : " held out", o.resume);
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK && !o.resume) {
        run.config.vocab = d.tokenizer.vocab;
        memcpy(run.train_sha256, d.train_sha, LM_SHA_HEX);
        memcpy(run.valid_sha256, d.valid_sha, LM_SHA_HEX);
        run.data_state = mha_random_seeded(o.seed ^ 0x5DEECE66Dull);
        const mha_status made = lm_model_init_with(&m, &run.config, o.seed, run.token_sd,
                                                   run.position_sd);
        if (made != MHA_OK || lm_adamw_init(&opt, &m) != MHA_OK) {
            mha_cli_error(err, "lm train: %s", mha_status_message(made != MHA_OK ? made
                                                                            : MHA_ERR_NOMEM));
            status = made == MHA_ERR_NOMEM ? MHA_EXIT_FAILURE : MHA_EXIT_USAGE;
        }
    }
    if (status == MHA_EXIT_OK) {
        fprintf(out, "mha lm train: %zu parameters, %zu training tokens%s, vocabulary %zu\n",
                m.count, d.train_n, d.valid ? " and held-out ones" : "", run.config.vocab);
        status = lm_train_loop(&o, &run, &m, &opt, &d, &earlier, &history, out, err);
    }
    free(earlier.steps), free(earlier.heads);
    free(history.steps), free(history.heads);
    lm_data_free(&d);
    lm_adamw_free(&opt);
    lm_model_free(&m);
    return status;
}
/* <<[[lm_train.c]] sub-commands>> */
static mha_status sliding_loss(const lm_model *m, const int *ids, size_t n, size_t T,
                               double *total, size_t *scored)
{
    enum { WINDOWS = 16 };                         /* windows of T run together */
    const size_t S = T / 2 ? T / 2 : 1, V = m->config.vocab;
    lm_workspace ws;
    mha_status status = lm_workspace_init(&ws, m, WINDOWS, T, 0);
    int *x = malloc(WINDOWS * T * sizeof *x);
    size_t start = 0, done = 0;                    /* targets 1..done are scored */
    if (status == MHA_OK && x == NULL)
        status = MHA_ERR_NOMEM;
    *total = 0;
    while (status == MHA_OK && done < n - 1) {
        /* a batch of full windows start, start + S, ...; or the last, shorter one */
        size_t B = 0, L = n - 1 - start < T ? n - 1 - start : T;
        while (B < WINDOWS && start + B * S + T <= n - 1 && L == T)
            memcpy(x + B * T, ids + start + B * S, T * sizeof *x), B++;
        if (B == 0)
            memcpy(x, ids + start, L * sizeof *x), B = 1;
        status = lm_forward(m, &ws, x, B, L);
        for (size_t b = 0; status == MHA_OK && b < B; b++, start += S) {
            for (size_t i = 0; i < L; i++)
                if (start + 1 + i > done)
                    *total += lm_row_loss(ws.logits + (b * L + i) * V, V,
                                          ids[start + 1 + i]);
            done = start + L;
        }
    }
    *scored = done;
    free(x);
    lm_workspace_free(&ws);
    return status == MHA_OK && !isfinite(*total) ? MHA_ERR_RANGE : status;
}
/* <<[[lm_train.c]] sub-commands>> */
int mha_cmd_lm_eval(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL, *mask = NULL;
    size_t context = 0;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--context", MHA_OPTION_SIZE, &context, 2, SIZE_MAX, 0, 0, NULL},
        {"--mask", MHA_OPTION_TEXT, &mask, 0, 0, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 3, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm eval DIR --text FILE [--context T] [--mask L:H[,L:H...]]\n\n"
                  "Scores FILE with the model in DIR and prints one line:\n"
                  "tokens=N bytes=N loss=L bits_per_char=X context=T stride=S\n"
                  "(L in nats per token; X the total bits over the bytes of FILE).  Windows of\n"
                  "T tokens (the model's context, or less) advance by S = T/2; each token after\n"
                  "the first window is scored with at least T/2 tokens before it.  --mask\n"
                  "removes head H of block L for each pair (the line then ends removed=N).\n",
                  out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm eval: %s is required (try 'mha lm eval --help')",
                      text == NULL ? "--text" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (lm_cmd_read_model(line.operand_given, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    const size_t T = context ? context : m.config.context;
    int *ids = NULL;
    size_t n = 0, bytes = 0, scored = 0;
    double total = 0;
    if (T > m.config.context) {
        mha_cli_error(err, "--context: %zu is beyond the model's context of %zu tokens", T,
                      m.config.context);
        status = MHA_EXIT_USAGE;
    } else if (mask != NULL)
        status = lm_cmd_remove_heads(&m, mask, err);
    if (status == MHA_EXIT_OK)
        status = lm_cmd_read_tokens(text, &tokenizer, 2, &ids, &n, &bytes, NULL, err);
    if (status == MHA_EXIT_OK) {
        const mha_status failed = sliding_loss(&m, ids, n, T, &total, &scored);
        if (failed != MHA_OK) {
            lm_cmd_blame(err, "eval", line.operand_given, text, failed);
            status = MHA_EXIT_FAILURE;
        } else {
            fprintf(out, "tokens=%zu bytes=%zu loss=%.6f bits_per_char=%.6f context=%zu "
                    "stride=%zu", n, bytes, total / (double)scored,
                    total / log(2.0) / (double)bytes, T, T / 2 ? T / 2 : 1);
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
/* <<[[lm_train.c]] sub-commands>> */
static mha_status feed(lm_decoder *dec, const int *ids, size_t n)
{
    mha_status status = MHA_OK;
    for (size_t i = 0; status == MHA_OK && i < n; i++)
        status = lm_decoder_step(dec, ids[i]);
    return status;
}
int mha_cmd_lm_generate(int argc, char **argv, FILE *out, FILE *err)
{
    const char *prompt = NULL;
    size_t tokens = 200, top_k = 40, seed = 1;
    double temperature = 0.8;
    const mha_option options[] = {
        {"--prompt", MHA_OPTION_TEXT, &prompt, 0, 0, 0, 0, NULL},
        {"--tokens", MHA_OPTION_SIZE, &tokens, 0, 1000000, 0, 0, NULL},
        {"--top-k", MHA_OPTION_SIZE, &top_k, 0, BPE_VOCAB_MAX, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &seed, 0, SIZE_MAX, 0, 0, NULL},
        {"--temperature", MHA_OPTION_DOUBLE, &temperature, 0, 0, 0, 100,
         "a temperature in [0, 100]"}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 5, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm generate DIR --prompt TEXT [--tokens N] [--temperature T]\n"
                  "                       [--top-k K] [--seed S]\n\n"
                  "Continues TEXT with N tokens (default 200) drawn from the model in DIR at\n"
                  "temperature T (default 0.8; 0 takes the most likely token) among the K most\n"
                  "likely (default 40; 0 for all), through the KV cache, and prints the\n"
                  "continuation.  The same seed gives the same text.  The prompt must fit in the\n"
                  "model's context; past the context the window slides: the last half of the\n"
                  "context is read again and generation goes on from it.\n", out);
        return status;
    }
    if (line.operand_given == NULL || prompt == NULL) {
        mha_cli_error(err, "lm generate: %s is required (try 'mha lm generate --help')",
                      prompt == NULL ? "--prompt" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (lm_cmd_read_model(line.operand_given, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    /* <<generate from the prompt>> */
    const size_t T = m.config.context, V = m.config.vocab, length = strlen(prompt);
    int *ids = NULL;
    size_t n = 0;
    float *scratch = malloc(V * sizeof *scratch);
    lm_decoder dec = {0};
    mha_status failed = lm_cmd_encode_text(&tokenizer, (const unsigned char *)prompt, length,
                                           &ids, &n);
    int *grown = failed == MHA_OK ? realloc(ids, (n + tokens + 1) * sizeof *ids) : NULL;
    if (failed == MHA_OK && grown == NULL)
        failed = MHA_ERR_NOMEM;
    else if (grown)
        ids = grown;
    if (failed == MHA_OK && scratch == NULL)
        failed = MHA_ERR_NOMEM;
    if (failed == MHA_OK)
        failed = lm_decoder_init(&dec, &m);
    if (failed != MHA_OK) {
        mha_cli_error(err, "lm generate: %s", mha_status_message(failed));
        status = MHA_EXIT_FAILURE;
    } else if (n == 0 || n > T) {
        mha_cli_error(err, "--prompt: %zu tokens; the model reads 1 to %zu", n, T);
        status = MHA_EXIT_USAGE;
    }
    uint64_t state = mha_random_seeded((uint64_t)seed);
    if (status == MHA_EXIT_OK)
        failed = feed(&dec, ids, n);
    for (size_t k = 0; status == MHA_EXIT_OK && failed == MHA_OK && k < tokens; k++) {
        const int next = lm_sample(dec.logits, V, temperature, top_k, &state, scratch);
        size_t bytes;
        const unsigned char *piece = bpe_token(&tokenizer, (uint32_t)next, &bytes);
        fwrite(piece, 1, bytes, out);
        ids[n++] = next;
        if (k + 1 == tokens)
            break;
        if (dec.position == T) {                       /* the window slides */
            lm_decoder_reset(&dec);
            failed = feed(&dec, ids + n - T / 2, T / 2);
        } else
            failed = lm_decoder_step(&dec, next);
    }
    if (status == MHA_EXIT_OK && failed == MHA_ERR_RANGE)
        lm_cmd_blame(err, "generate", line.operand_given, "the prompt", failed);
    else if (status == MHA_EXIT_OK && failed != MHA_OK)
        mha_cli_error(err, "lm generate: %s", mha_status_message(failed));
    if (status == MHA_EXIT_OK && failed != MHA_OK)
        status = MHA_EXIT_FAILURE;
    if (status == MHA_EXIT_OK)
        fputc('\n', out);
    free(ids);
    free(scratch);
    lm_decoder_free(&dec);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
