/* generated from chapters/21-decode-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "layer_dir.h"

/* <<[[cmd/decode.c]] functions>> */
struct decode_options {
    struct mha_forward_options common;            /* dir, heads, want_weights, help */
    size_t kv_heads;                          /* H_kv; defaults to H */
    const mha_decode_impl *impl;
};
/* <<[[cmd/decode.c]] functions>> */
static int parse_decode_options(int argc, char **argv, struct decode_options *o, FILE *err)
{
    mha_option options[MHA_LAYER_OPTIONS + 1];
    size_t count = mha_layer_options(&o->common, options);
    o->kv_heads = 0;
    o->impl = &mha_decode_impls[0];
    options[count++] = (mha_option){"--kv-heads", MHA_OPTION_SIZE, &o->kv_heads, 1, SIZE_MAX,
                                    0, 0, NULL};
    int status = mha_parse_layer_options(argc, argv, options, count, &o->common, err);
    if (status == MHA_EXIT_OK && o->common.causal) {
        mha_cli_error(err, "decode: --causal: decoding is always causal; leave it out");
        status = MHA_EXIT_USAGE;
    }
    if (status == MHA_EXIT_OK && o->common.impl_name != NULL &&
        (o->impl = mha_decode_impl_find(o->common.impl_name)) == NULL) {
        /* <<refuse the decoding version [[o->common.impl_name]]>> */
        char known[256] = "";
        for (size_t k = 0, used = 0; k < mha_decode_impl_count && used < sizeof known; k++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "",
                                     mha_decode_impls[k].name);
        mha_cli_error(err, "--impl: unknown decode implementation '%s' (known: %s)",
                      o->common.impl_name, known);
        status = MHA_EXIT_USAGE;
    }
    if (o->kv_heads == 0)                     /* read below even if parsing failed */
        o->kv_heads = o->common.heads;
    return status;
}
/* <<[[cmd/decode.c]] functions>> */
static void decode_usage(FILE *out)
{
    fputs("usage: mha decode DIR --heads H [--kv-heads K] [--impl NAME] [--no-weights]\n", out);
    fputs("NAME is one of:", out);
    for (size_t k = 0; k < mha_decode_impl_count; k++)
        fprintf(out, " %s", mha_decode_impls[k].name);
    fprintf(out, " (default %s).\n", mha_decode_impls[0].name);
    fputs(
        "Runs self-attention causally, one position at a time, through a KV cache.\n"
        "Reads from DIR: query.npy (B,L,E); in_proj_weight.npy (E+2KD, E), which is\n"
        "(3E, E) when K = H; optional in_proj_bias.npy (E+2KD); out_proj_weight.npy (E,E);\n"
        "optional out_proj_bias.npy (E); optional key_padding_mask.npy (B,L) bool.\n"
        "key.npy and value.npy are refused (decoding is self-attention), and so is\n"
        "attn_mask.npy (the mask is causal).  D = E/H; K (default H) must divide H.\n"
        "Writes DIR/out.npy (B,L,E) and, unless --no-weights, DIR/attn_weights.npy\n"
        "(B,H,L,L): row t holds step t's weights, zero after position t.  The result\n"
        "equals 'mha forward DIR --heads H --causal'.  --no-weights removes an old\n"
        "attn_weights.npy; --wait SECONDS (default 30) bounds the wait for another run\n"
        "writing in DIR.\n", out);
}
/* <<[[cmd/decode.c]] functions>> */
static int load_decode_inputs(const struct decode_options *o, mha_layer_files *in,
                              mha_shape *shape, FILE *err)
{
    const char *dir = o->common.dir;
    int status = mha_load_query(dir, in, err);
    if (status != MHA_EXIT_OK)
        return status;
    const size_t B = in->query.shape[0], L = in->query.shape[1], E = in->query.shape[2];
    /* <<refuse key, value and mask files, which decoding does not use>> */
    char path[MHA_PATH_SIZE];
    static const char *const refused[3][2] = {
        {"key.npy", "decoding is self-attention"}, {"value.npy", "decoding is self-attention"},
        {"attn_mask.npy", "decoding applies the causal mask only"}};
    for (int i = 0; i < 3; i++) {
        (void)mha_join_path(path, sizeof path, dir, refused[i][0]);
        if (access(path, F_OK) == 0) {
            mha_cli_error(err, "%s: %s; remove it or use 'mha forward'", path, refused[i][1]);
            return MHA_EXIT_FAILURE;
        }
    }
    *shape = (mha_shape){B, L, L, E, o->common.heads};
    mha_status checked = mha_shape_check(shape);
    if (checked == MHA_OK && (o->kv_heads > o->common.heads || o->common.heads % o->kv_heads != 0)) {
        mha_cli_error(err, "--kv-heads: %zu does not divide --heads %zu (K must divide H)",
                      o->kv_heads, o->common.heads);
        return MHA_EXIT_USAGE;
    }
    if (checked != MHA_OK) {
        mha_cli_error(err, "%s: B=%zu L=%zu E=%zu --heads %zu --kv-heads %zu: %s", dir, B, L, E,
                      o->common.heads, o->kv_heads, mha_status_message(checked));
        return checked == MHA_ERR_HEADS ? MHA_EXIT_USAGE : MHA_EXIT_FAILURE;
    }
    const size_t F = E + 2 * o->kv_heads * (E / o->common.heads);
    const mha_axis padding_axes[] = {{"B", B}, {"L", L}};
    /* <<load the decoder's parameters and padding mask>> */
    if ((status = mha_load_projections(dir, "E+2KD", F, E, in, err)) != MHA_EXIT_OK ||
        (status = mha_load_checked(dir, "key_padding_mask.npy", 0, MHA_WANT_BOOL, &in->key_padding_mask,
                                   2, padding_axes, err)) != MHA_EXIT_OK)
        return status;
    return MHA_EXIT_OK;
}
/* <<[[cmd/decode.c]] functions>> */
static int run_decode(const struct decode_options *o, const mha_layer_files *in,
                      const mha_shape *s, float *output, float *weights, FILE *err)
{
    const size_t B = s->batch, L = s->query_len, E = s->embed_dim, H = s->heads;
    const mha_decoder dec = {E, H, o->kv_heads,
                             {in->in_proj_weight.values, in->in_proj_bias.values,
                              in->out_proj_weight.values, in->out_proj_bias.values}, 0, 0};
    mha_kv_cache cache;
    mha_status status = mha_kv_cache_init(&cache, B, o->kv_heads, L, E / H);
    float *x = malloc(B * E * sizeof *x), *y = malloc(B * E * sizeof *y);
    float *w = malloc(B * H * L * sizeof *w);
    unsigned char *pad = malloc(B);
    if (status == MHA_OK && (!x || !y || !w || !pad))
        status = MHA_ERR_NOMEM;
    for (size_t t = 0; status == MHA_OK && t < L; t++) {
        /* <<decode position [[t]] of every sequence>> */
        for (size_t b = 0; b < B; b++) {
            memcpy(x + b * E, in->query.values + (b * L + t) * E, E * sizeof *x);
            pad[b] = in->key_padding_mask.flags ? in->key_padding_mask.flags[b * L + t] : 0;
        }
        status = o->impl->step(&dec, &cache, 1, x, pad, y, weights ? w : NULL);
        for (size_t b = 0; status == MHA_OK && b < B; b++) {
            memcpy(output + (b * L + t) * E, y + b * E, E * sizeof *y);
            for (size_t h = 0; weights && h < H; h++)                 /* (B, H, 1, L) to row t */
                memcpy(weights + ((b * H + h) * L + t) * L, w + (b * H + h) * L, L * sizeof *w);
        }
    }
    free(x); free(y); free(w); free(pad);
    mha_kv_cache_free(&cache);
    if (status != MHA_OK) {
        mha_cli_error(err, "decode: %s: %s", o->impl->name, mha_status_message(status));
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
/* <<[[cmd/decode.c]] functions>> */
int mha_cmd_decode(int argc, char **argv, FILE *out, FILE *err)
{
    struct decode_options options;
    int status = parse_decode_options(argc, argv, &options, err);
    if (status != MHA_EXIT_OK)
        return status;
    if (options.common.help) {
        decode_usage(out);
        return MHA_EXIT_OK;
    }
    if ((status = mha_check_directory(options.common.dir, err)) != MHA_EXIT_OK)
        return status;
    mha_layer_files in;
    memset(&in, 0, sizeof in);
    mha_shape shape;
    float *output = NULL, *weights = NULL;
    status = load_decode_inputs(&options, &in, &shape, err);
    if (status == MHA_EXIT_OK) {
        /* <<allocate [[output]] and [[weights]], decode, and write them>> */
        const size_t B = shape.batch, L = shape.query_len;
        output = malloc(B * L * shape.embed_dim * sizeof *output);
        const int want_weights = options.common.want_weights;
        if (want_weights)
            weights = malloc(B * shape.heads * L * L * sizeof *weights);
        if (output == NULL || (want_weights && weights == NULL)) {
            mha_cli_error(err, "decode: out of memory for the results");
            status = MHA_EXIT_FAILURE;
        } else if ((status = run_decode(&options, &in, &shape, output, weights, err)) == MHA_EXIT_OK) {
            char label[64];
            snprintf(label, sizeof label, "decode (%s)", options.impl->name);
            status = mha_write_outputs(options.common.dir, label, want_weights, &shape, output,
                                       weights, out, err);
        }
    }
    free(output); free(weights);
    mha_layer_files_free(&in);
    return status;
}
