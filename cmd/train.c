/* generated from chapters/13-learning.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "layer_dir.h"
#include <time.h>
#include "learning.h"

struct train_command {
    size_t steps, every, batch, vocab, length, dim, heads, layers, seed;
    const char *out_dir, *history;
    train_options optimiser;
};

static void train_usage(FILE *out, const struct train_command *d)
{
    fprintf(out,
        "usage: mha train [--steps N] [--seed S] [--layers 1|2] [--every K] [--out DIR]\n"
        "                 [--history FILE] [--batch B] [--vocab V] [--length T]\n"
        "                 [--dim E] [--heads H] [--lr RATE]\n"
        "Trains an attention-only model on random sequences that repeat a segment, and\n"
        "prints every K steps: the loss, the accuracy on the repeated tokens, and each\n"
        "head's previous-token and induction scores (layer by layer, heads separated by\n"
        "commas, layers by '|').  Defaults: --steps %zu --seed %zu --layers %zu --every %zu\n"
        "--batch %zu --vocab %zu --length %zu --dim %zu --heads %zu --lr %g.  --out DIR\n"
        "saves the model as .npy files; --history FILE writes the progress as a table.\n",
        d->steps, d->seed, d->layers, d->every, d->batch, d->vocab, d->length, d->dim,
        d->heads, d->optimiser.learning_rate);
}
static int parse_train_options(int argc, char **argv, struct train_command *o, int *help,
                               FILE *err)
{
    const char *names[] = {"--steps", "--every", "--batch", "--vocab", "--length",
                           "--dim", "--heads", "--layers", "--seed"};
    size_t *fields[] = {&o->steps, &o->every, &o->batch, &o->vocab, &o->length,
                        &o->dim, &o->heads, &o->layers, &o->seed};
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int matched = 0, r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *help = 1;
            return MHA_EXIT_OK;
        }
        if ((r = mha_option_value(argc, argv, &i, "--out", &o->out_dir, err)) ||
            (r = mha_option_value(argc, argv, &i, "--history", &o->history, err))) {
            if (r < 0) return MHA_EXIT_USAGE;
            continue;
        }
        if ((r = mha_option_value(argc, argv, &i, "--lr", &value, err)) != 0) {
            char *end = NULL;
            if (r < 0) return MHA_EXIT_USAGE;
            o->optimiser.learning_rate = strtod(value, &end);
            if (end == value || *end != '\0' || !(o->optimiser.learning_rate > 0) ||
                o->optimiser.learning_rate > 1) {
                mha_cli_error(err, "--lr: '%s' is not a learning rate in (0, 1]", value);
                return MHA_EXIT_USAGE;
            }
            continue;
        }
        for (size_t n = 0; n < sizeof names / sizeof names[0] && !matched; n++)
            if ((r = mha_option_value(argc, argv, &i, names[n], &value, err)) != 0) {
                if (r < 0 || mha_parse_size(names[n], value, fields[n], err) != 0)
                    return MHA_EXIT_USAGE;
                matched = 1;
            }
        if (!matched) {
            mha_cli_error(err, "train: unknown option '%s' (try 'mha train --help')", argv[i]);
            return MHA_EXIT_USAGE;
        }
    }
    return MHA_EXIT_OK;
}
static double seconds_since_start(double start)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec - start;
}
int mha_cmd_train(int argc, char **argv, FILE *out, FILE *err)
{
    struct train_command o = {1000, 100, 32, 64, 32, 32, 2, 2, 1, NULL, NULL,
                              {1e-2, 0.01, 0.9, 0.98, 1e-8, 100}};
    int help = 0, status = parse_train_options(argc, argv, &o, &help, err);
    if (status != MHA_EXIT_OK || help) {
        if (help)
            train_usage(out, &o);
        return status;
    }
    if (o.length < 6 || o.length > 4096) {
        mha_cli_error(err, "--length: %zu is out of range (6 to 4096)", o.length);
        return MHA_EXIT_USAGE;
    }
    if (o.heads > 16 || o.layers > LEARNING_MAX_LAYERS) {
        mha_cli_error(err, o.heads > 16 ? "--heads: at most 16" : "--layers: 1 or 2");
        return MHA_EXIT_USAGE;
    }
    induction_model model;
    learning_workspace ws, probe_ws;
    induction_batch batch, probe;
    memset(&ws, 0, sizeof ws); memset(&probe_ws, 0, sizeof probe_ws);
    memset(&batch, 0, sizeof batch); memset(&probe, 0, sizeof probe);
    FILE *history = NULL;
    mha_status made = induction_model_init(&model, o.vocab, o.length, o.dim, o.heads,
                                           o.layers, o.seed);
    if (made == MHA_OK)
        made = learning_workspace_init(&ws, &model, o.batch);
    if (made == MHA_OK)
        made = learning_workspace_init(&probe_ws, &model, 64);
    if (made == MHA_OK && (induction_batch_init(&batch, o.batch, o.length) != MHA_OK ||
                           induction_batch_init(&probe, 64, o.length) != MHA_OK))
        made = MHA_ERR_NOMEM;
    if (made != MHA_OK) {
        mha_cli_error(err, "train: %s", mha_status_message(made));
        status = made == MHA_ERR_NOMEM ? MHA_EXIT_FAILURE : MHA_EXIT_USAGE;
    } else if (o.history && (history = fopen(o.history, "w")) == NULL) {
        mha_cli_error(err, "%s: %s", o.history, strerror(errno));
        status = MHA_EXIT_FAILURE;
    } else {
        uint64_t data_state = o.seed * 2654435761u + 7, probe_state = o.seed * 2654435761u + 99;
        induction_batch_fill(&probe, o.vocab, &probe_state);
        if (history)
            fprintf(history, "step\tloss\taccuracy\tlayer\thead\tprevious\tinduction\n");
        const double started = seconds_since_start(0);
        for (size_t step = 1; step <= o.steps; step++) {
            induction_batch_fill(&batch, o.vocab, &data_state);
            const train_stats stats = induction_train_step(&model, &ws, &batch, &o.optimiser);
            if (step % o.every == 0 || step == o.steps) {
                head_scores scores;
                induction_forward(&model, &probe_ws, probe.tokens);
                const size_t TT = o.length * o.length;
                for (size_t l = 0; l < o.layers; l++)
                    head_scores_from_weights(probe_ws.weights + l * 64 * o.heads * TT, &probe, o.heads, l,
                                             &scores);
                fprintf(out, "step=%zu loss=%.3f acc=%.3f", step, stats.loss, stats.accuracy);
                for (int which = 0; which < 2; which++) {
                    fprintf(out, which ? " ind=" : " prev=");
                    for (size_t l = 0; l < o.layers; l++)
                        for (size_t h = 0; h < o.heads; h++)
                            fprintf(out, "%.2f%s", which ? scores.induction[l][h] : scores.previous[l][h],
                                    h + 1 < o.heads ? "," : l + 1 < o.layers ? "|" : "");
                }
                fprintf(out, " time=%.1fs\n", seconds_since_start(started));
                fflush(out);
                for (size_t l = 0; history && l < o.layers; l++)
                    for (size_t h = 0; h < o.heads; h++)
                        fprintf(history, "%zu\t%.4f\t%.4f\t%zu\t%zu\t%.4f\t%.4f\n", step, stats.loss,
                                stats.accuracy, l, h, scores.previous[l][h], scores.induction[l][h]);
            }
        }
        if (o.out_dir && status == MHA_EXIT_OK && (status = check_directory(o.out_dir, err)) == 0) {
            const model_tensors t = induction_model_tensors(&model);
            const size_t E = o.dim, ve[2] = {o.vocab, E}, te[2] = {o.length, E},
                         w3[2] = {3 * E, E}, b3[1] = {3 * E}, ww[2] = {E, E}, bb[1] = {E};
            char names[LEARNING_MAX_LAYERS][4][48];
            struct output_file files[3 + 4 * LEARNING_MAX_LAYERS];
            int n = 0;
            files[n++] = (struct output_file){"tok_emb.npy", t.tok_emb, 2, ve};
            files[n++] = (struct output_file){"pos_emb.npy", t.pos_emb, 2, te};
            files[n++] = (struct output_file){"unembed.npy", t.unembed, 2, ve};
            for (size_t l = 0; l < o.layers; l++) {
                const char *what[4] = {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"};
                float *data[4] = {t.in_w[l], t.in_b[l], t.out_w[l], t.out_b[l]};
                const size_t *shapes[4] = {w3, b3, ww, bb};
                for (int k = 0; k < 4; k++) {
                    snprintf(names[l][k], sizeof names[l][k], "layers.%zu.%s.npy", l, what[k]);
                    files[n++] = (struct output_file){names[l][k], data[k], k % 2 ? 1 : 2, shapes[k]};
                }
            }
            status = write_files(o.out_dir, n, files, err);
            if (status == MHA_EXIT_OK)
                fprintf(out, "mha train: wrote %d files to %s\n", n, o.out_dir);
        }
    }
    if (history && fclose(history) != 0 && status == MHA_EXIT_OK) {
        mha_cli_error(err, "%s: %s", o.history, strerror(errno));
        status = MHA_EXIT_FAILURE;
    }
    induction_batch_free(&batch); induction_batch_free(&probe);
    learning_workspace_free(&ws); learning_workspace_free(&probe_ws);
    induction_model_free(&model);
    return status;
}
