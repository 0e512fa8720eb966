/* generated from chapters/20-command.nw, chapters/23-writing-results.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layer_dir.h"

/* <<[[forward.c]] functions>> */
static void forward_usage(FILE *out)
{
    fputs(
"usage: mha forward DIR --heads H [--impl NAME] [--causal] [--no-weights]\n"
"                   [--wait SECONDS]\n"
"\n"
"Runs torch.nn.MultiheadAttention(E, H, batch_first=True) in eval mode on the\n"
"NumPy files in DIR.  Shapes: B batch, L query length, S key length, E width.\n"
"\n"
"  query.npy            (B, L, E)  required\n"
"  key.npy              (B, S, E)  optional; without it key = query, S = L\n"
"  value.npy            (B, S, E)  required with key.npy, refused without it\n"
"  in_proj_weight.npy   (3E, E)    required: rows W_Q, then W_K, then W_V\n"
"  in_proj_bias.npy     (3E)       optional; absent means no bias\n"
"  out_proj_weight.npy  (E, E)     required\n"
"  out_proj_bias.npy    (E)        optional; absent means no bias\n"
"  attn_mask.npy        (L, S)     optional: bool, True = blocked, or float,\n"
"                                  added to the scores\n"
"  key_padding_mask.npy (B, S)     optional: bool, True = padding\n"
"\n"
"Inputs may be float32 or float64; masks bool or uint8.  Writes, as float32,\n"
"  out.npy              (B, L, E)\n"
"  attn_weights.npy     (B, H, L, S)  per head, unless --no-weights\n"
"replacing them only if the whole computation succeeds.\n"
"\n"
"Options:\n"
"  --heads H      number of heads, a divisor of E (required)\n", out);
    fputs("  --impl NAME    implementation:", out);
    for (size_t i = 0; i < mha_impl_count; i++)
        fprintf(out, " %s", mha_impls[i].name);
    fprintf(out, " (default %s)\n", mha_impls[0].name);
    fputs(
"  --causal       block key j > query i, as is_causal=True\n"
"  --no-weights   do not write attn_weights.npy (and remove an old one)\n"
"  --wait SECONDS how long to wait for another run writing in DIR (default 30)\n"
"  --help         this text\n", out);
}
/* <<[[forward.c]] functions>> */
static int compute_forward(const struct mha_forward_options *o, const mha_layer_files *in,
                           const mha_shape *shape, float **output, float **weights,
                           FILE *err)
{
    const size_t output_count = in->query.count;                           /* B L E */
    const size_t weight_count = shape->batch * shape->heads *
                                shape->query_len * shape->key_len;         /* B H L S */
    *output = malloc(output_count * sizeof **output);
    if (o->want_weights)
        *weights = malloc(weight_count * sizeof **weights);
    if (*output == NULL || (o->want_weights && *weights == NULL)) {
        mha_cli_error(err, "forward: out of memory for the results (%zu floats)",
                      output_count + (o->want_weights ? weight_count : 0));
        return MHA_EXIT_FAILURE;
    }
    /* <<call [[o->impl]] on the inputs>> */
    const mha_params params = {in->in_proj_weight.values, in->in_proj_bias.values,
                               in->out_proj_weight.values, in->out_proj_bias.values};
    const mha_mask mask = {o->causal, in->attn_mask.flags, in->attn_mask.values,
                           in->key_padding_mask.flags};
    const int masked = o->causal || mha_npy_loaded(&in->attn_mask) ||
                       mha_npy_loaded(&in->key_padding_mask);
    const mha_status status = o->impl->forward(shape, &params, in->query.values,
                                               in->key.values, in->value.values,
                                               masked ? &mask : NULL, *output, *weights);
    if (status != MHA_OK) {
        mha_cli_error(err, "forward: %s: %s", o->impl->name, mha_status_message(status));
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
/* <<[[forward.c]] functions>> */
int mha_cmd_forward(int argc, char **argv, FILE *out, FILE *err)
{
    struct mha_forward_options options;
    int status = mha_parse_forward_options(argc, argv, &options, err);
    if (status != MHA_EXIT_OK)
        return status;
    if (options.help) {
        forward_usage(out);
        return MHA_EXIT_OK;
    }
    if ((status = mha_check_directory(options.dir, err)) != MHA_EXIT_OK)
        return status;
    mha_layer_files in;
    memset(&in, 0, sizeof in);
    mha_shape shape;
    float *output = NULL, *weights = NULL;
    status = mha_load_forward_inputs(&options, &in, &shape, err);
    if (status == MHA_EXIT_OK)
        status = compute_forward(&options, &in, &shape, &output, &weights, err);
    if (status == MHA_EXIT_OK) {
        char label[64];
        snprintf(label, sizeof label, "forward (%s)", options.impl->name);
        status = mha_write_outputs(options.dir, label, options.want_weights, &shape,
                                   output, weights, out, err);
    }
    free(output);
    free(weights);
    mha_layer_files_free(&in);
    return status;
}
