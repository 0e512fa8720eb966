/* generated from chapters/20-command.nw, chapters/23-writing-results.nw; edit the book, not this file */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layer_dir.h"
#include "output.h"

/* <<[[layer_dir.c]] functions>> */
size_t mha_layer_options(struct mha_forward_options *o, mha_option options[MHA_LAYER_OPTIONS])
{
    memset(o, 0, sizeof *o);
    o->impl = &mha_impls[0];
    o->want_weights = 1;
    o->wait = MHA_OUTPUT_WAIT;
    options[0] = (mha_option){"--heads", MHA_OPTION_SIZE, &o->heads, 1, SIZE_MAX, 0, 0, NULL};
    options[1] = (mha_option){"--impl", MHA_OPTION_TEXT, &o->impl_name, 0, 0, 0, 0, NULL};
    options[2] = (mha_option){"--causal", MHA_OPTION_FLAG, &o->causal, 0, 0, 0, 0, NULL};
    options[3] = mha_wait_option(&o->wait);
    options[4] = (mha_option){"--no-weights", MHA_OPTION_FLAG, &o->no_weights, 0, 0, 0, 0,
                              NULL};
    return MHA_LAYER_OPTIONS;
}
/* <<[[layer_dir.c]] functions>> */
int mha_parse_layer_options(int argc, char **argv, const mha_option *options, size_t count,
                            struct mha_forward_options *o, FILE *err)
{
    mha_command_line line;
    if (mha_cli_options(argc, argv, options, count, "directory", &line, err) != MHA_EXIT_OK)
        return MHA_EXIT_USAGE;
    o->help = line.help;
    if (o->help)
        return MHA_EXIT_OK;
    o->dir = line.operand_given;
    o->want_weights = !o->no_weights;
    /* <<make sure [[forward]] got a directory and a head count>> */
    if (o->dir == NULL) {
        mha_cli_error(err, "%s: no directory given (try 'mha %s --help')", argv[0], argv[0]);
        return MHA_EXIT_USAGE;
    }
    if (o->heads == 0) {
        mha_cli_error(err, "--heads: required (the number of heads, a divisor of E)");
        return MHA_EXIT_USAGE;
    }
    mha_wait_for_other_runs(argv[0], o->wait, err);
    return MHA_EXIT_OK;
}
/* <<[[layer_dir.c]] functions>> */
int mha_parse_forward_options(int argc, char **argv, struct mha_forward_options *o, FILE *err)
{
    mha_option options[MHA_LAYER_OPTIONS];
    const size_t count = mha_layer_options(o, options);
    const int status = mha_parse_layer_options(argc, argv, options, count, o, err);
    if (status != MHA_EXIT_OK || o->help || o->impl_name == NULL)
        return status;
    /* <<look up the implementation named [[o->impl_name]]>> */
    o->impl = mha_impl_find(o->impl_name);
    if (o->impl == NULL) {
        char known[256];
        size_t used = 0;
        known[0] = '\0';
        for (size_t k = 0; k < mha_impl_count && used < sizeof known; k++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                     k ? ", " : "", mha_impls[k].name);
        mha_cli_error(err, "--impl: unknown implementation '%s' (known: %s)", o->impl_name, known);
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
/* <<[[layer_dir.c]] functions>> */
/* The exit status for a loader's status: a head count that does not divide
   E is the command line's fault, anything else the directory's. */
static int report(mha_status status, const char *message, FILE *err)
{
    if (status == MHA_OK)
        return MHA_EXIT_OK;
    mha_cli_error(err, "%s", message);
    return status == MHA_ERR_HEADS ? MHA_EXIT_USAGE : MHA_EXIT_FAILURE;
}

int mha_load_checked(const char *dir, const char *name, int required, int kinds,
                     mha_npy *array, size_t rank, const mha_axis *axes, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_checked(dir, name, required, kinds, array, rank, axes,
                                         message, sizeof message), message, err);
}

int mha_load_projections(const char *dir, const char *rows_letters, size_t rows, size_t E,
                         mha_layer_files *in, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_projections(dir, rows_letters, rows, E, in,
                                             message, sizeof message), message, err);
}

int mha_load_query(const char *dir, mha_layer_files *in, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_query(dir, in, message, sizeof message), message, err);
}

int mha_load_forward_inputs(const struct mha_forward_options *o, mha_layer_files *in,
                            mha_shape *shape, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_forward(o->dir, o->heads, in, shape, message, sizeof message),
                  message, err);
}
/* <<[[layer_dir.c]] functions>> */
static int report_output(mha_status status, const char *message, FILE *err)
{
    if (status != MHA_OK)
        mha_cli_error(err, "%s", message);
    return status == MHA_OK ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}

/* Begin the set files[0..n-1] in dir, owning own[] there. */
static int begin_files(const char *dir, int n, const struct mha_written_file *files,
                       const char *const own[], FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    const char *names[MHA_OUTPUT_FILES_MAX];
    if (n > MHA_OUTPUT_FILES_MAX)
        return report_output(mha_fail(MHA_ERR_ARG, message, sizeof message,
                                      "%s: too many files", dir), message, err);
    for (int i = 0; i < n; i++)
        names[i] = files[i].name;
    mha_status status = mha_output_begin(dir, n, names, message, sizeof message);
    if (status == MHA_OK && own != NULL)
        status = mha_output_own(own, message, sizeof message);
    if (status != MHA_OK)
        mha_output_end();
    return report_output(status, message, err);
}

/* Write and commit the set begun with the same files; files[0] is renamed
   last.  The set is ended whatever happens. */
static int finish_files(const char *dir, int n, const struct mha_written_file *files,
                        FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    mha_status status = MHA_OK;
    for (int i = 0; status == MHA_OK && i < n; i++) {
        char why[256];
        const int fd = mha_output_next(message, sizeof message);
        if (fd < 0)
            status = MHA_ERR_IO;
        else if ((status = mha_npy_write_fd(fd, files[i].data, files[i].rank, files[i].shape,
                                            why, sizeof why)) != MHA_OK)
            snprintf(message, sizeof message, "%s/%s: %s", dir, files[i].name, why);
    }
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    return report_output(status, message, err);
}

int mha_write_files(const char *dir, int n, const struct mha_written_file *files,
                    const char *const own[], FILE *err)
{
    const int status = begin_files(dir, n, files, own, err);
    return status == MHA_EXIT_OK ? finish_files(dir, n, files, err) : status;
}
/* <<[[layer_dir.c]] functions>> */
int mha_write_outputs(const char *dir, const char *label, int want_weights,
                      const mha_shape *shape, const float *output,
                      const float *weights, FILE *out, FILE *err)
{
    static const char *const own[] = {"out.npy", "attn_weights.npy", NULL};
    const size_t output_shape[3] = {shape->batch, shape->query_len, shape->embed_dim};
    const size_t weight_shape[4] = {shape->batch, shape->heads, shape->query_len,
                                    shape->key_len};
    const struct mha_written_file files[2] = {{"out.npy", output, 3, output_shape},
                                         {"attn_weights.npy", weights, 4, weight_shape}};
    const int n = want_weights ? 2 : 1;
    int status = mha_write_files(dir, n, files, own, err);
    if (status == MHA_EXIT_OK) {
        /* <<tell the user what was written>> */
        char text[2][128];
        mha_npy_shape_text(text[0], sizeof text[0], 3, output_shape);
        mha_npy_shape_text(text[1], sizeof text[1], 4, weight_shape);
        fprintf(out, "mha %s: wrote %s/out.npy %s", label, dir, text[0]);
        if (n == 2)
            fprintf(out, " and %s/attn_weights.npy %s", dir, text[1]);
        fputc('\n', out);
    }
    return status;
}
/* <<[[layer_dir.c]] functions>> */
static struct { const char *command; FILE *err; } waiting;

static void tell_waiting(const char *dir, double seconds, void *context)
{
    (void)context;
    fprintf(waiting.err, "mha %s: waiting up to %g s for another run writing in %s\n",
            waiting.command, seconds, dir);
    fflush(waiting.err);
}

void mha_wait_for_other_runs(const char *command, double seconds, FILE *err)
{
    waiting.command = command, waiting.err = err;
    mha_output_wait(seconds, tell_waiting, NULL);
}

mha_option mha_wait_option(double *seconds)
{
    return (mha_option){"--wait", MHA_OPTION_DOUBLE, seconds, 0, 0, 0, 86400,
                        "a number of seconds from 0 to 86400"};
}
/* <<[[layer_dir.c]] functions>> */
int mha_check_directory(const char *dir, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    if (mha_output_check_dir(dir, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    if (strlen(dir) + 64 >= MHA_PATH_SIZE) {
        mha_cli_error(err, "%s: directory name too long", dir);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
