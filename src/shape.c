/* generated from chapters/01-shape.nw, chapters/06-kv-cache.nw, chapters/25-hardening.nw; edit the book, not this file */
#include <stdint.h>
#include "mha_internal.h"

/* <<[[shape.c]] functions>> */
static const char *const status_messages[MHA_STATUS_COUNT] = {
    [MHA_OK]           = "success",
    [MHA_ERR_NULL]     = "a required pointer is NULL",
    [MHA_ERR_SHAPE]    = "a size is zero or two sizes disagree",
    [MHA_ERR_HEADS]    = "the number of heads must be a positive divisor of the model width",
    [MHA_ERR_OVERFLOW] = "the sizes are too large: a byte count overflows size_t",
    [MHA_ERR_NOMEM]    = "out of memory",
    [MHA_ERR_IO]       = "a file could not be opened, read or written",
    [MHA_ERR_FORMAT]   = "the file is not a valid NumPy .npy file of the expected kind",
    [MHA_ERR_ARG]      = "an argument is out of range",
    /* <<messages of the [[mha_status]] codes added by later chapters>> */
    /* <<messages of the [[mha_status]] codes added by later chapters>> */
    [MHA_ERR_CACHE_FULL] = "the KV cache is full: nothing was appended",
    /* <<messages of the [[mha_status]] codes added by later chapters>> */
    [MHA_ERR_RANGE]    = "values overflow float: finite inputs give an infinite or NaN result",
};

const char *mha_status_message(mha_status status)
{
    if ((unsigned)status >= MHA_STATUS_COUNT || status_messages[status] == NULL)
        return "unknown status";
    return status_messages[status];
}
/* <<[[shape.c]] functions>> */
int mha_mul_overflows(size_t a, size_t b, size_t *product)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 1;
    *product = a * b;
    return 0;
}
/* <<[[shape.c]] functions>> */
mha_status mha_shape_check(const mha_shape *shape)
{
    if (shape == NULL)
        return MHA_ERR_NULL;
    if (shape->batch == 0 || shape->query_len == 0 || shape->key_len == 0 ||
        shape->embed_dim == 0)
        return MHA_ERR_SHAPE;
    if (shape->heads == 0 || shape->embed_dim % shape->heads != 0)
        return MHA_ERR_HEADS;
    /* <<refuse [[shape]] if any array it implies overflows [[size_t]]>> */
    size_t n, bytes;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads;
    const size_t longest = L > S ? L : S;
    if (mha_mul_overflows(B, longest, &n) || mha_mul_overflows(n, 3, &n) ||
        mha_mul_overflows(n, E, &n) || mha_mul_overflows(n, sizeof(double), &bytes))
        return MHA_ERR_OVERFLOW;
    if (mha_mul_overflows(3 * E, E, &n) || mha_mul_overflows(n, sizeof(double), &bytes))
        return MHA_ERR_OVERFLOW;
    if (mha_mul_overflows(B * H * L, S, &n) || mha_mul_overflows(n, sizeof(double), &bytes))
        return MHA_ERR_OVERFLOW;
    return MHA_OK;
}
/* <<[[shape.c]] functions>> */
size_t mha_param_count(size_t embed_dim, int with_bias)
{
    size_t weights, count;
    if (mha_mul_overflows(embed_dim, embed_dim, &weights) ||
        mha_mul_overflows(weights, 4, &count))
        return 0;                               /* 0 means "does not fit" */
    return with_bias ? count + 4 * embed_dim : count;       /* fits: see below */
}
/* <<[[shape.c]] functions>> */
mha_flops mha_flop_count(const mha_shape *shape)
{
    MHA_REQUIRE(shape != NULL);
    const double B = (double)shape->batch, L = (double)shape->query_len,
                 S = (double)shape->key_len, E = (double)shape->embed_dim,
                 H = (double)shape->heads;
    mha_flops f;
    f.q_proj   = 2 * B * L * E * E;
    f.kv_proj  = 4 * B * S * E * E;
    f.scores   = 2 * B * L * S * E;
    f.context  = 2 * B * L * S * E;
    f.out_proj = 2 * B * L * E * E;
    f.total    = f.q_proj + f.kv_proj + f.scores + f.context + f.out_proj;
    f.softmax  = 5 * B * H * L * S;
    return f;
}
