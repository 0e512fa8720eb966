/* generated from chapters/23-train-command.nw; edit the book, not this file */
#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "checkpoint.h"
#include "cli.h"
#include "clock.h"
#include "layer_dir.h"
#include "learning.h"
#include "output.h"

/* <<[[train.c]] functions>> */
struct train_command {
    size_t steps, every, seed;
    const char *out_dir, *from, *history;
    mha_trainer_config run;
    double wait;
};

static void train_usage(FILE *out, const struct train_command *d)
{
    fprintf(out,
        "usage: mha train [--steps N] [--seed S] [--layers 1|2] [--every K] [--out DIR]\n"
        "                 [--from DIR] [--history FILE] [--batch B] [--vocab V]\n"
        "                 [--length T] [--dim E] [--heads H] [--lr RATE] [--wait SECONDS]\n"
        "Trains an attention-only model on random sequences that repeat a segment, and\n"
        "prints every K steps: the loss, the accuracy on the repeated tokens, and each\n"
        "head's previous-token and induction scores (layer by layer, heads separated by\n"
        "commas, layers by '|').  Defaults: --steps %zu --seed %zu --layers %zu --every %zu\n"
        "--batch %zu --vocab %zu --length %zu --dim %zu --heads %zu --lr %g.  --out DIR\n"
        "saves the model as a checkpoint (model.txt and .npy files); --from DIR starts\n"
        "from the weights of the checkpoint in DIR, whose sizes replace the options'\n"
        "(one of format 0, without model.txt, has --heads heads); --history FILE writes\n"
        "the progress as a table (--history - writes it to standard output instead of\n"
        "the progress lines).  The checkpoint and the history are replaced together, or\n"
        "not at all; --wait sets how long to wait for another run writing there\n"
        "(default 30 s).\n",
        d->steps, d->seed, d->run.layers, d->every, d->run.batch, d->run.vocab,
        d->run.length, d->run.embed_dim, d->run.heads, d->run.optimiser.learning_rate);
}
/* <<[[train.c]] functions>> */
static int parse_train_options(int argc, char **argv, struct train_command *o, int *help,
                               FILE *err)
{
    const mha_option options[] = {
        {"--steps", MHA_OPTION_SIZE, &o->steps, 0, SIZE_MAX, 0, 0, NULL},
        {"--every", MHA_OPTION_SIZE, &o->every, 1, SIZE_MAX, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &o->seed, 1, SIZE_MAX, 0, 0, NULL},
        {"--batch", MHA_OPTION_SIZE, &o->run.batch, 1, 65536, 0, 0, NULL},
        {"--vocab", MHA_OPTION_SIZE, &o->run.vocab, 2, 65536, 0, 0, NULL},
        {"--length", MHA_OPTION_SIZE, &o->run.length, 6, 4096, 0, 0, NULL},
        {"--dim", MHA_OPTION_SIZE, &o->run.embed_dim, 1, 4096, 0, 0, NULL},
        {"--heads", MHA_OPTION_SIZE, &o->run.heads, 1, MHA_LEARNING_MAX_HEADS, 0, 0, NULL},
        {"--layers", MHA_OPTION_SIZE, &o->run.layers, 1, MHA_LEARNING_MAX_LAYERS, 0, 0, NULL},
        {"--out", MHA_OPTION_TEXT, &o->out_dir, 0, 0, 0, 0, NULL},
        {"--from", MHA_OPTION_TEXT, &o->from, 0, 0, 0, 0, NULL},
        {"--history", MHA_OPTION_TEXT, &o->history, 0, 0, 0, 0, NULL},
        {"--lr", MHA_OPTION_DOUBLE, &o->run.optimiser.learning_rate, 0, 0, DBL_TRUE_MIN, 1,
         "a learning rate in (0, 1]"},
        mha_wait_option(&o->wait),
    };
    mha_command_line line;
    const int status = mha_cli_options(argc, argv, options, sizeof options / sizeof options[0],
                                       NULL, &line, err);
    *help = line.help;
    return status;
}
/* <<[[train.c]] functions>> */
static double seconds_since_start(double start)
{
    return mha_seconds() - start;
}
/* <<[[train.c]] functions>> */
struct history_text { char *bytes; size_t length; };

static int write_history(FILE *file, void *context)
{
    const struct history_text *text = context;
    return fwrite(text->bytes, 1, text->length, file) == text->length ? 0 : -1;
}
/* <<[[train.c]] functions>> */
int mha_cmd_train(int argc, char **argv, FILE *out, FILE *err)
{
    struct train_command o = {1000, 100, (size_t)mha_trainer_defaults.seed, NULL, NULL, NULL,
                              mha_trainer_defaults, MHA_OUTPUT_WAIT};
    int help = 0, status = parse_train_options(argc, argv, &o, &help, err);
    if (status != MHA_EXIT_OK || help) {
        if (help)
            train_usage(out, &o);
        return status;
    }
    /* <<check the training options that the model does not check itself>> */
    if (o.run.embed_dim % o.run.heads != 0) {
        mha_cli_error(err, "--heads: %zu does not divide --dim %zu", o.run.heads, o.run.embed_dim);
        return MHA_EXIT_USAGE;
    }
    if (o.out_dir && (mha_check_directory(o.out_dir, err) != MHA_EXIT_OK))
        return MHA_EXIT_FAILURE;
    char where[MHA_PATH_SIZE + 256];
    if (o.history && strcmp(o.history, "-") != 0 &&
        mha_output_check(o.history, where, sizeof where) != MHA_OK) {
        mha_cli_error(err, "%s", where);
        return MHA_EXIT_FAILURE;
    }
    mha_induction_model start = {0};
    /* <<read the checkpoint [[o.from]] into [[start]] and take its sizes, if asked>> */
    if (o.from) {
        char message[MHA_PATH_SIZE + 256];
        if (induction_checkpoint_read(o.from, o.run.heads, &start, message,
                                      sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            return MHA_EXIT_FAILURE;
        }
        o.run.vocab = start.vocab, o.run.length = start.length, o.run.embed_dim = start.embed_dim;
        o.run.heads = start.heads, o.run.layers = start.layers;
    }
    o.run.seed = o.seed;
    /* <<let freed memory wait for the next step>> */
    #if defined(__GLIBC__)
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
    mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
    #endif
    mha_induction_trainer trainer;
    struct history_text text = {NULL, 0};
    const int history_out = o.history != NULL && strcmp(o.history, "-") == 0;
    const int saving = o.out_dir != NULL || (o.history != NULL && !history_out);
    FILE *history = history_out ? out : NULL;
    char message[MHA_PATH_SIZE + 256];
    mha_wait_for_other_runs("train", o.wait, err);
    const mha_status made = mha_induction_trainer_init(&trainer, &o.run);
    if (made != MHA_OK) {
        mha_cli_error(err, "train: %s", mha_status_message(made));
        status = made == MHA_ERR_NOMEM ? MHA_EXIT_FAILURE : MHA_EXIT_USAGE;
    } else if (o.history && !history_out &&
               (history = open_memstream(&text.bytes, &text.length)) == NULL) {
        mha_cli_error(err, "%s: %s", o.history, strerror(errno));
        status = MHA_EXIT_FAILURE;
    } else {
        if (o.from)
            memcpy(trainer.model.params, start.params, start.count * sizeof(float));
        /* <<begin the set of the checkpoint and the history>> */
        if (saving) {
            mha_status begun = o.out_dir
                ? induction_checkpoint_begin(o.out_dir, &trainer.model, message, sizeof message)
                : mha_output_begin(".", 0, NULL, message, sizeof message);
            if (begun == MHA_OK && o.history && !history_out)
                begun = mha_output_add(o.history, message, sizeof message);
            if (begun != MHA_OK) {
                mha_output_end();
                mha_cli_error(err, "%s", message);
                status = MHA_EXIT_FAILURE;
            }
        }
    }
    if (status == MHA_EXIT_OK) {
        /* <<train for [[o.steps]] steps, reporting every [[o.every]]>> */
        if (history)
            fprintf(history, "step\tloss\taccuracy\tlayer\thead\tprevious\tinduction\n");
        if (history_out)
            fflush(out);
        const double started = seconds_since_start(0);
        mha_cli_governor governor;          /* the thread count, step by step (the small GPT's) */
        mha_cli_governor_init(&governor);
        for (size_t step = 1; step <= o.steps && status == MHA_EXIT_OK; step++) {
            mha_train_stats stats;
            mha_head_scores scores;
            const int report = step % o.every == 0 || step == o.steps;
            const double step_started = mha_cli_governor_before(&governor);
            mha_status failed = mha_induction_trainer_step(&trainer, &stats);
            mha_cli_governor_after(&governor, mha_seconds() - step_started);
            if (failed == MHA_OK && report)
                failed = mha_induction_trainer_measure(&trainer, &scores);
            if (failed != MHA_OK) {
                mha_cli_error(err, "train: step %zu: %s", step, mha_status_message(failed));
                status = MHA_EXIT_FAILURE;
            } else if (report) {
                /* <<print one progress line, and one history row per head>> */
                const size_t layers = o.run.layers, heads = o.run.heads;
                if (!history_out) {
                    fprintf(out, "step=%zu loss=%.3f acc=%.3f", step, stats.loss, stats.accuracy);
                    for (int which = 0; which < 2; which++) {
                        fprintf(out, which ? " ind=" : " prev=");
                        for (size_t l = 0; l < layers; l++)
                            for (size_t h = 0; h < heads; h++)
                                fprintf(out, "%.2f%s", which ? scores.induction[l][h] : scores.previous[l][h],
                                        h + 1 < heads ? "," : l + 1 < layers ? "|" : "");
                    }
                    fprintf(out, " time=%.1fs\n", seconds_since_start(started));
                }
                for (size_t l = 0; history && l < layers; l++)
                    for (size_t h = 0; h < heads; h++)
                        fprintf(history, "%zu\t%.4f\t%.4f\t%zu\t%zu\t%.4f\t%.4f\n", step, stats.loss,
                                stats.accuracy, l, h, scores.previous[l][h], scores.induction[l][h]);
                fflush(out);
            }
        }
        mha_cli_governor_end(&governor);
        /* <<save the model and the history as one set>> */
        if (saving) {
            mha_status put = status == MHA_EXIT_OK ? MHA_OK : MHA_ERR_ARG;
            if (put == MHA_OK && history != NULL && !history_out) {
                const int closed = fclose(history);
                history = NULL;
                if (closed != 0)
                    put = mha_fail(MHA_ERR_IO, message, sizeof message, "%s: %s", o.history,
                                   strerror(errno));
            }
            if (put == MHA_OK && o.out_dir)
                put = induction_checkpoint_put(o.out_dir, &trainer.model, message, sizeof message);
            if (put == MHA_OK && o.history && !history_out)
                put = mha_output_stream(write_history, &text, message, sizeof message);
            if (put == MHA_OK)
                put = mha_output_commit(message, sizeof message);
            mha_output_end();
            if (put != MHA_OK && status == MHA_EXIT_OK) {
                mha_cli_error(err, "%s", message);
                status = MHA_EXIT_FAILURE;
            }
        }
        if (status == MHA_EXIT_OK && o.out_dir) {
            checkpoint_file table[CHECKPOINT_FILES_MAX];
            fprintf(out, "mha train: wrote %s and %zu tensors to %s\n", CHECKPOINT_METADATA,
                    induction_checkpoint_files(&trainer.model, table), o.out_dir);
        }
    }
    if (history != NULL && !history_out)
        fclose(history);
    free(text.bytes);
    mha_induction_trainer_free(&trainer);
    mha_induction_model_free(&start);
    return status;
}
