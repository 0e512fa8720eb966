/* generated from chapters/09-transformer-block.nw; edit the book, not this file */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block.h"
#include "layer_dir.h"

/* <<[[block.c]] the command's help>> */
static void block_usage(FILE *out)
{
    fputs(
"usage: mha block DIR --heads H [--causal] [--backward] [--wait SECONDS]\n"
"\n"
"Runs torch.nn.TransformerEncoderLayer(E, H, F, dropout=0, activation=\"gelu\",\n"
"batch_first=True, norm_first=True) in eval mode on the NumPy files in DIR,\n"
"named as in its state_dict:  z = x + SA(norm1(x)), out = z + MLP(norm2(z)).\n"
"\n"
"  src.npy                        (B, L, E)  required\n"
"  self_attn.in_proj_weight.npy   (3E, E)    required, and so are all below\n"
"  self_attn.in_proj_bias.npy     (3E)\n"
"  self_attn.out_proj.weight.npy  (E, E)\n"
"  self_attn.out_proj.bias.npy    (E)\n"
"  linear1.weight.npy             (F, E)     F, the MLP's width, is read here\n"
"  linear1.bias.npy               (F)\n"
"  linear2.weight.npy             (E, F)\n"
"  linear2.bias.npy               (E)\n"
"  norm1.weight.npy, norm1.bias.npy, norm2.weight.npy, norm2.bias.npy   (E)\n"
"  src_mask.npy                   (L, L)     optional: bool, True = blocked, or\n"
"                                            float, added to the scores\n"
"  src_key_padding_mask.npy       (B, L)     optional: bool, True = padding\n"
"  grad_out.npy                   (B, L, E)  with --backward: the gradient of\n"
"                                            the loss with respect to out\n"
"\n"
"Inputs may be float32 or float64; masks bool or uint8.  Writes, as float32,\n"
"out.npy (B, L, E), and with --backward grad_src.npy (B, L, E) and\n"
"grad_NAME.npy for each parameter file NAME.npy (grad_linear1.weight.npy ...).\n"
"All files are written, or none; files of an earlier run that this one does\n"
"not write are removed.\n"
"\n"
"Options:\n"
"  --heads H      number of heads, a divisor of E (required)\n"
"  --causal       block key j > query i, as is_causal=True\n"
"  --backward     also compute the gradients from grad_out.npy\n"
"  --wait SECONDS how long to wait for another run writing in DIR (default 30)\n"
"  --help         this text\n", out);
}
/* <<[[block.c]] the command's files>> */
typedef struct block_files {
    mha_npy src, tensor[MHA_BLOCK_TENSORS], mask, padding, grad_out;
} block_files;

static void block_files_free(block_files *in)
{
    mha_npy_free(&in->src); mha_npy_free(&in->mask); mha_npy_free(&in->padding);
    mha_npy_free(&in->grad_out);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        mha_npy_free(&in->tensor[i]);
}

/* The axes' letters of tensor i: its rows, then its columns. */
static const char *const block_letters[MHA_BLOCK_TENSORS][2] = {
    {"3E", "E"}, {"3E", ""}, {"E", "E"}, {"E", ""}, {"F", "E"}, {"F", ""},
    {"E", "F"}, {"E", ""}, {"E", ""}, {"E", ""}, {"E", ""}, {"E", ""},
};
/* <<[[block.c]] the command's files>> */
static int load_block_files(const struct mha_forward_options *o, int backward, block_files *in,
                            mha_block_shape *shape, FILE *err)
{
    const mha_axis src_axes[] = {{"B", 0}, {"L", 0}, {"E", 0}};
    int status = mha_load_checked(o->dir, "src.npy", 1, MHA_WANT_FLOAT, &in->src, 3, src_axes, err);
    if (status != MHA_EXIT_OK)
        return status;
    const size_t B = in->src.shape[0], L = in->src.shape[1], E = in->src.shape[2];
    if (E % o->heads != 0) {
        mha_cli_error(err, "--heads: %zu does not divide the model width E = %zu of %s/src.npy",
                      o->heads, E, o->dir);
        return MHA_EXIT_USAGE;
    }
    const mha_axis linear1_axes[] = {{"F", 0}, {"E", E}};
    if ((status = mha_load_checked(o->dir, "linear1.weight.npy", 1, MHA_WANT_FLOAT, &in->tensor[4],
                               2, linear1_axes, err)) != MHA_EXIT_OK)
        return status;
    *shape = (mha_block_shape){B, L, E, o->heads, in->tensor[4].shape[0]};
    /* <<load the other tensors, each checked against [[shape]]>> */
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        if (i == 4)
            continue;                                   /* linear1.weight, read above */
        char name[64];
        size_t dims[2];
        const size_t rank = mha_block_tensor_shape(shape, i, dims);
        const mha_axis axes[2] = {{block_letters[i][0], dims[0]}, {block_letters[i][1], dims[1]}};
        snprintf(name, sizeof name, "%s.npy", mha_block_tensor_names[i]);
        if ((status = mha_load_checked(o->dir, name, 1, MHA_WANT_FLOAT, &in->tensor[i], rank, axes,
                                   err)) != MHA_EXIT_OK)
            return status;
    }
    const mha_axis mask_axes[] = {{"L", L}, {"L", L}}, padding_axes[] = {{"B", B}, {"L", L}};
    if ((status = mha_load_checked(o->dir, "src_mask.npy", 0, MHA_WANT_FLOAT | MHA_WANT_BOOL,
                               &in->mask, 2, mask_axes, err)) != MHA_EXIT_OK ||
        (status = mha_load_checked(o->dir, "src_key_padding_mask.npy", 0, MHA_WANT_BOOL,
                               &in->padding, 2, padding_axes, err)) != MHA_EXIT_OK)
        return status;
    const mha_axis stream_axes[] = {{"B", B}, {"L", L}, {"E", E}};
    if (backward)
        status = mha_load_checked(o->dir, "grad_out.npy", 1, MHA_WANT_FLOAT, &in->grad_out, 3,
                              stream_axes, err);
    return status;
}
/* <<[[block.c]] the command's files>> */
static int write_block_files(const char *dir, int backward, const mha_block_shape *s,
                             const float *memory, float *const g[MHA_BLOCK_TENSORS],
                             FILE *out, FILE *err)
{
    const size_t n = s->batch * s->length * s->embed_dim;
    const size_t stream[3] = {s->batch, s->length, s->embed_dim};
    char names[MHA_BLOCK_TENSORS + 2][64];
    const char *own[MHA_BLOCK_TENSORS + 3];
    size_t dims[MHA_BLOCK_TENSORS][2];
    struct mha_written_file files[MHA_BLOCK_TENSORS + 2];
    snprintf(names[0], sizeof names[0], "out.npy");
    snprintf(names[1], sizeof names[1], "grad_src.npy");
    files[0] = (struct mha_written_file){names[0], memory, 3, stream};
    files[1] = (struct mha_written_file){names[1], memory + n, 3, stream};
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        snprintf(names[i + 2], sizeof names[i + 2], "grad_%s.npy", mha_block_tensor_names[i]);
        const size_t rank = mha_block_tensor_shape(s, i, dims[i]);
        files[i + 2] = (struct mha_written_file){names[i + 2], g[i], rank, dims[i]};
    }
    for (size_t i = 0; i < MHA_BLOCK_TENSORS + 2; i++)
        own[i] = names[i];
    own[MHA_BLOCK_TENSORS + 2] = NULL;
    const int n_files = backward ? MHA_BLOCK_TENSORS + 2 : 1;
    const int status = mha_write_files(dir, n_files, files, own, err);
    if (status == MHA_EXIT_OK)
        fprintf(out, "mha block: wrote %d file%s to %s\n", n_files, n_files > 1 ? "s" : "", dir);
    return status;
}
/* <<[[block.c]] the command>> */
static int parse_block_options(int argc, char **argv, struct mha_forward_options *o,
                               int *backward, FILE *err)
{
    mha_option layer[MHA_LAYER_OPTIONS];
    mha_layer_options(o, layer);
    *backward = 0;
    const mha_option options[] = {
        layer[0], layer[2], layer[3],                /* --heads, --causal, --wait */
        {"--backward", MHA_OPTION_FLAG, backward, 0, 0, 0, 0, NULL},
    };
    return mha_parse_layer_options(argc, argv, options, sizeof options / sizeof options[0], o, err);
}
/* <<[[block.c]] the command>> */
static int run_block(const struct mha_forward_options *o, int backward, const block_files *in,
                     const mha_block_shape *s, FILE *out, FILE *err)
{
    const size_t n = s->batch * s->length * s->embed_dim;
    size_t total = 2 * n, count[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        total += count[i] = in->tensor[i].count;
    float *memory = malloc(total * sizeof *memory), *g[MHA_BLOCK_TENSORS];
    if (memory == NULL) {
        mha_cli_error(err, "block: out of memory for the results (%zu floats)", total);
        return MHA_EXIT_FAILURE;
    }
    const float *t[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        t[i] = in->tensor[i].values, g[i] = (i ? g[i - 1] + count[i - 1] : memory + 2 * n);
    const mha_block_params params = mha_block_params_from(t);
    const mha_block_grads grads = mha_block_grads_from(g);
    const mha_mask mask = {o->causal, in->mask.flags, in->mask.values, in->padding.flags};
    mha_block_saved saved;
    mha_status computed = backward ? mha_block_saved_init(&saved, s) : MHA_OK;
    if (computed == MHA_OK)
        computed = mha_block_forward(s, &params, in->src.values, &mask, memory,
                                     backward ? &saved : NULL);
    if (computed == MHA_OK && backward)
        computed = mha_block_backward(s, &params, in->src.values, &mask, &saved,
                                      in->grad_out.values, memory + n, &grads);
    if (backward)
        mha_block_saved_free(&saved);
    int status = MHA_EXIT_OK;
    if (computed != MHA_OK) {
        mha_cli_error(err, "block: %s", mha_status_message(computed));
        status = MHA_EXIT_FAILURE;
    } else
        status = write_block_files(o->dir, backward, s, memory, g, out, err);
    free(memory);
    return status;
}
/* <<[[block.c]] the command's entry>> */
int mha_cmd_block(int argc, char **argv, FILE *out, FILE *err)
{
    struct mha_forward_options options;
    int backward, status = parse_block_options(argc, argv, &options, &backward, err);
    if (status != MHA_EXIT_OK)
        return status;
    if (options.help) {
        block_usage(out);
        return MHA_EXIT_OK;
    }
    if ((status = mha_check_directory(options.dir, err)) != MHA_EXIT_OK)
        return status;
    block_files in;
    memset(&in, 0, sizeof in);
    mha_block_shape shape;
    status = load_block_files(&options, backward, &in, &shape, err);
    mha_status computed = MHA_OK;
    if (status == MHA_EXIT_OK && (computed = mha_block_shape_check(&shape)) != MHA_OK) {
        mha_cli_error(err, "%s: B=%zu L=%zu E=%zu H=%zu F=%zu: %s", options.dir, shape.batch,
                      shape.length, shape.embed_dim, shape.heads, shape.hidden,
                      mha_status_message(computed));
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK)
        status = run_block(&options, backward, &in, &shape, out, err);
    block_files_free(&in);
    return status;
}
