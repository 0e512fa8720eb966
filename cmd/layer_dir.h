/* generated from chapters/20-command.nw, chapters/23-writing-results.nw; edit the book, not this file */
#ifndef MHA_LAYER_DIR_H
#define MHA_LAYER_DIR_H
/* A layer directory: a layer's inputs and parameters as .npy files under
   PyTorch's names, and the files a command writes back.  What forward,
   decode and backward share: forward's options (the others extend them),
   a loader that checks every file's shape, and an all-or-nothing writer.
   Each function reports a failure as one 'mha: ' line on err and returns
   an exit status of cli.h. */
#include <stdio.h>
#include "cli.h"
#include "mha.h"
#include "npy.h"
#include "layer_files.h"
#include "output.h"

/* <<[[layer_dir.h]] types>> */
struct mha_forward_options {
    const char *dir;
    size_t heads;                /* H, 0 until --heads is seen */
    const char *impl_name;       /* --impl as given; NULL: the default */
    const mha_impl *impl;
    int causal, no_weights, want_weights, help;
    double wait;                 /* seconds to wait for another run's lock */
};
enum { MHA_LAYER_OPTIONS = 5 };      /* how many options mha_layer_options describes */
/* <<[[layer_dir.h]] types>> */
struct mha_written_file {
    const char *name;            /* in the directory: "out.npy" */
    const float *data;
    size_t rank;
    const size_t *shape;
};
enum { MHA_OUTPUT_FILES_MAX = 32 };
/* <<[[layer_dir.h]] functions>> */
size_t mha_layer_options(struct mha_forward_options *o, mha_option options[MHA_LAYER_OPTIONS]);
int mha_parse_layer_options(int argc, char **argv, const mha_option *options, size_t count,
                            struct mha_forward_options *o, FILE *err);
int mha_parse_forward_options(int argc, char **argv, struct mha_forward_options *o, FILE *err);
int mha_load_checked(const char *dir, const char *name, int required, int kinds,
                     mha_npy *array, size_t rank, const mha_axis *axes, FILE *err);
int mha_load_projections(const char *dir, const char *rows_letters, size_t rows, size_t E,
                         mha_layer_files *in, FILE *err);
int mha_load_query(const char *dir, mha_layer_files *in, FILE *err);
int mha_load_forward_inputs(const struct mha_forward_options *o, mha_layer_files *in,
                            mha_shape *shape, FILE *err);
int mha_write_files(const char *dir, int n, const struct mha_written_file *files,
                    const char *const own[], FILE *err);
void mha_wait_for_other_runs(const char *command, double seconds, FILE *err);
mha_option mha_wait_option(double *seconds);
int mha_write_outputs(const char *dir, const char *label, int want_weights,
                      const mha_shape *shape, const float *output,
                      const float *weights, FILE *out, FILE *err);
int mha_check_directory(const char *dir, FILE *err);
#endif
