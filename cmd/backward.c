/* generated from chapters/22-backward-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "layer_dir.h"

/* <<[[cmd/backward.c]] functions>> */
static void backward_usage(FILE *out)
{
    fprintf(out,
        "usage: mha backward DIR --heads H [--impl NAME] [--causal]\n"
        "Reads the files of 'mha forward' (see 'mha forward --help') and grad_out.npy\n"
        "(B,L,E), the gradient of the loss with respect to the layer's output.  Writes\n"
        "grad_query.npy (B,L,E); grad_key.npy and grad_value.npy (B,S,E) when key.npy\n"
        "and value.npy were given; grad_in_proj_weight.npy (3E,E); grad_in_proj_bias.npy\n"
        "(3E) when in_proj_bias.npy was given; grad_out_proj_weight.npy (E,E);\n"
        "grad_out_proj_bias.npy (E) when out_proj_bias.npy was given.  In\n"
        "self-attention grad_query.npy is the gradient of the one input through all\n"
        "three of its uses.  All files are written, or none; gradient files of an\n"
        "earlier run that this one does not write are removed.\n"
        "  --wait SECONDS how long to wait for another run writing in DIR (default 30)\n"
        "  --impl NAME    implementation:");
    for (size_t i = 0; i < mha_backward_impl_count; i++)
        fprintf(out, " %s", mha_backward_impls[i].name);
    fprintf(out, " (default %s)\n", mha_backward_impls[0].name);
}
/* <<[[cmd/backward.c]] functions>> */
static int parse_backward_options(int argc, char **argv, struct mha_forward_options *o,
                                  const mha_backward_impl **impl, FILE *err)
{
    mha_option options[MHA_LAYER_OPTIONS];
    const size_t count = mha_layer_options(o, options) - 1;          /* no --no-weights */
    *impl = &mha_backward_impls[0];
    const int status = mha_parse_layer_options(argc, argv, options, count, o, err);
    if (status != MHA_EXIT_OK || o->help || o->impl_name == NULL)
        return status;
    if ((*impl = mha_backward_impl_find(o->impl_name)) == NULL) {
        mha_cli_error(err, "backward: --impl: unknown implementation '%s' (known: naive, blocked)",
                      o->impl_name);
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
/* <<[[cmd/backward.c]] functions>> */
int mha_cmd_backward(int argc, char **argv, FILE *out, FILE *err)
{
    struct mha_forward_options options;
    const mha_backward_impl *impl;
    int status = parse_backward_options(argc, argv, &options, &impl, err);
    if (status != MHA_EXIT_OK)
        return status;                  /* options may be unset: do not read them */
    if (options.help) {
        backward_usage(out);
        return MHA_EXIT_OK;
    }
    if ((status = mha_check_directory(options.dir, err)) != MHA_EXIT_OK)
        return status;
    mha_layer_files in;
    memset(&in, 0, sizeof in);
    mha_npy grad_out;
    memset(&grad_out, 0, sizeof grad_out);
    mha_shape shape;
    float *memory = NULL;
    status = mha_load_forward_inputs(&options, &in, &shape, err);
    if (status == MHA_EXIT_OK) {
        /* <<load [[grad_out.npy]], compute the gradients and write them>> */
        const size_t B = shape.batch, L = shape.query_len, S = shape.key_len, E = shape.embed_dim;
        const mha_axis grad_axes[] = {{"B", B}, {"L", L}, {"E", E}};
        status = mha_load_checked(options.dir, "grad_out.npy", 1, MHA_WANT_FLOAT, &grad_out, 3,
                                  grad_axes, err);
        /* <<allocate one block [[memory]] for the seven gradients, [[counts]] floats each>> */
        const size_t counts[7] = {B * L * E, B * S * E, B * S * E, 3 * E * E, 3 * E, E * E, E};
        size_t total = 0;
        for (int i = 0; i < 7; i++)
            total += counts[i];
        if (status == MHA_EXIT_OK && (memory = calloc(total, sizeof *memory)) == NULL) {
            mha_cli_error(err, "backward: out of memory for the gradients (%zu floats)", total);
            status = MHA_EXIT_FAILURE;
        }
        if (status == MHA_EXIT_OK) {
            /* <<call [[impl]] and write the gradient files>> */
            const int cross = mha_npy_loaded(&in.key);
            const int in_bias = mha_npy_loaded(&in.in_proj_bias), out_bias = mha_npy_loaded(&in.out_proj_bias);
            float *part[7] = {memory};
            for (int i = 1; i < 7; i++)
                part[i] = part[i - 1] + counts[i - 1];
            const mha_grads grads = {part[0], part[1], part[2], part[3], in_bias ? part[4] : NULL,
                                     part[5], out_bias ? part[6] : NULL};
            const mha_params params = {in.in_proj_weight.values, in.in_proj_bias.values,
                                       in.out_proj_weight.values, in.out_proj_bias.values};
            const mha_mask mask = {options.causal, in.attn_mask.flags, in.attn_mask.values,
                                   in.key_padding_mask.flags};
            mha_status computed = impl->backward(&shape, &params, in.query.values, in.key.values,
                                                 in.value.values, &mask, grad_out.values, &grads);
            if (computed != MHA_OK) {
                mha_cli_error(err, "backward: %s: %s", impl->name, mha_status_message(computed));
                status = MHA_EXIT_FAILURE;
            } else {
                /* <<write the gradients that exist>> */
                const size_t qs[3] = {B, L, E}, ks[3] = {B, S, E}, ws[2] = {3 * E, E}, bs[1] = {3 * E};
                const size_t os[2] = {E, E}, obs[1] = {E};
                struct mha_written_file files[7];
                int n = 0;
                files[n++] = (struct mha_written_file){"grad_query.npy", grads.grad_query, 3, qs};
                if (cross) {
                    files[n++] = (struct mha_written_file){"grad_key.npy", grads.grad_key, 3, ks};
                    files[n++] = (struct mha_written_file){"grad_value.npy", grads.grad_value, 3, ks};
                }
                files[n++] = (struct mha_written_file){"grad_in_proj_weight.npy", grads.grad_in_proj_weight, 2, ws};
                if (in_bias)
                    files[n++] = (struct mha_written_file){"grad_in_proj_bias.npy", grads.grad_in_proj_bias, 1, bs};
                files[n++] = (struct mha_written_file){"grad_out_proj_weight.npy", grads.grad_out_proj_weight, 2, os};
                if (out_bias)
                    files[n++] = (struct mha_written_file){"grad_out_proj_bias.npy", grads.grad_out_proj_bias, 1,
                                                           obs};
                static const char *const own[] = {"grad_query.npy", "grad_key.npy", "grad_value.npy",
                                                  "grad_in_proj_weight.npy", "grad_in_proj_bias.npy",
                                                  "grad_out_proj_weight.npy", "grad_out_proj_bias.npy", NULL};
                status = mha_write_files(options.dir, n, files, own, err);
                if (status == MHA_EXIT_OK)
                    fprintf(out, "mha backward: wrote %d gradient files to %s\n", n, options.dir);
            }
        }
    }
    free(memory);
    mha_npy_free(&grad_out);
    mha_layer_files_free(&in);
    return status;
}
