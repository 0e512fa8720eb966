/* generated from chapters/03-naive.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "mha_internal.h"
#include "oracle.h"

/* <<[[oracle.c]] functions>> */
static double *project(const float *x, size_t N, size_t E, const float *W,
                       const float *bias, size_t first)
{
    double *y = malloc(N * E * sizeof *y);                      /* (N, E) */
    cr_assert_not_null(y);
    for (size_t n = 0; n < N; n++)
        for (size_t o = 0; o < E; o++) {
            double s = bias ? bias[first + o] : 0.0;
            for (size_t e = 0; e < E; e++)
                s += (double)x[n * E + e] * W[(first + o) * E + e];
            y[n * E + o] = s;
        }
    return y;
}
/* <<[[oracle.c]] functions>> */
static int masked(const mha_mask *m, const mha_shape *s, size_t b, size_t i, size_t j)
{
    if (m == NULL)
        return 0;
    return (m->causal && j > i) ||
           (m->attn_mask_bool && m->attn_mask_bool[i * s->key_len + j]) ||
           (m->key_padding_mask && m->key_padding_mask[b * s->key_len + j]) ||
           (m->attn_mask_float && m->attn_mask_float[i * s->key_len + j] == -INFINITY);
}

static double added(const mha_mask *m, const mha_shape *s, size_t i, size_t j)
{
    return m && m->attn_mask_float ? m->attn_mask_float[i * s->key_len + j] : 0.0;
}
/* <<[[oracle.c]] functions>> */
mha_status mha_forward_reference(const mha_shape *shape, const mha_params *p,
                                 const float *query, const float *key,
                                 const float *value, const mha_mask *mask,
                                 double *out, double *weights)
{
    mha_status status = mha_forward_check(shape, p, query, &key, &value, (const float *)out);
    if (status != MHA_OK)
        return status;
    const size_t B = shape->batch, L = shape->query_len, S = shape->key_len,
                 E = shape->embed_dim, H = shape->heads, D = E / H;
    double *Q = project(query, B * L, E, p->in_proj_weight, p->in_proj_bias, 0);
    double *K = project(key, B * S, E, p->in_proj_weight, p->in_proj_bias, E);
    double *V = project(value, B * S, E, p->in_proj_weight, p->in_proj_bias, 2 * E);
    double *concat = calloc(B * L * E, sizeof *concat), *w = malloc(S * sizeof *w);
    cr_assert(concat && w);
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++)
            for (size_t i = 0; i < L; i++) {
                /* <<[[w]] gets the reference weights of query [[i]], head [[h]]>> */
                double m = -INFINITY, sum = 0.0;
                for (size_t j = 0; j < S; j++) {
                    w[j] = -INFINITY;
                    if (masked(mask, shape, b, i, j))
                        continue;
                    double s = 0.0;
                    for (size_t d = 0; d < D; d++)
                        s += Q[(b * L + i) * E + h * D + d] * K[(b * S + j) * E + h * D + d];
                    w[j] = s / sqrt((double)D) + added(mask, shape, i, j);
                    m = fmax(m, w[j]);
                }
                for (size_t j = 0; j < S; j++)
                    sum += w[j] == -INFINITY ? 0.0 : exp(w[j] - m);
                for (size_t j = 0; j < S; j++) {
                    w[j] = (w[j] == -INFINITY || sum == 0.0) ? 0.0 : exp(w[j] - m) / sum;
                    if (weights)
                        weights[((b * H + h) * L + i) * S + j] = w[j];
                }
                /* <<add the reference context of query [[i]], head [[h]] to [[concat]]>> */
                for (size_t j = 0; j < S; j++)
                    for (size_t d = 0; d < D; d++)
                        if (w[j] != 0.0)
                            concat[(b * L + i) * E + h * D + d] += w[j] * V[(b * S + j) * E + h * D + d];
            }
    /* <<[[out]] gets the reference output projection of [[concat]]>> */
    for (size_t n = 0; n < B * L; n++)
        for (size_t o = 0; o < E; o++) {
            double s = p->out_proj_bias ? p->out_proj_bias[o] : 0.0;
            for (size_t e = 0; e < E; e++)
                s += concat[n * E + e] * p->out_proj_weight[o * E + e];
            out[n * E + o] = s;
        }
    free(Q); free(K); free(V); free(concat); free(w);
    return MHA_OK;
}
/* <<[[oracle.c]] functions>> */
mha_case case_random(mha_shape shape, uint64_t seed, int flags)
{
    rng r = rng_seeded(seed);
    const size_t B = shape.batch, L = shape.query_len, S = shape.key_len, E = shape.embed_dim;
    const float a = 1.0f / sqrtf((float)E);
    mha_case c = {.shape = shape};
    c.query = random_floats(&r, B * L * E, -1, 1);
    if (flags & (CASE_CROSS | CASE_SHARED_KV))
        c.key = random_floats(&r, B * S * E, -1, 1);
    if (flags & CASE_CROSS)
        c.value = random_floats(&r, B * S * E, -1, 1);
    c.in_w = random_floats(&r, 3 * E * E, -a, a);
    c.out_w = random_floats(&r, E * E, -a, a);
    if (!(flags & CASE_NO_BIAS)) {
        c.in_b = random_floats(&r, 3 * E, -a, a);
        c.out_b = random_floats(&r, E, -a, a);
    }
    c.params = (mha_params){c.in_w, c.in_b, c.out_w, c.out_b};
    return c;
}

void case_free(mha_case *c)
{
    free(c->query); free(c->key); free(c->value);
    free(c->in_w); free(c->in_b); free(c->out_w); free(c->out_b);
}
/* <<[[oracle.c]] functions>> */
static void case_words(char *text, size_t size, const mha_shape *s, const mha_mask *m)
{
    const int none = m == NULL || (!m->causal && !m->attn_mask_bool && !m->attn_mask_float &&
                                   !m->key_padding_mask);
    snprintf(text, size, "B=%zu L=%zu S=%zu E=%zu H=%zu, %s%s%s%s%s", s->batch, s->query_len,
             s->key_len, s->embed_dim, s->heads, none ? "no mask" : "masks:",
             !none && m->causal ? " causal" : "", !none && m->attn_mask_bool ? " boolean" : "",
             !none && m->attn_mask_float ? " float" : "",
             !none && m->key_padding_mask ? " padding" : "");
}

double naive_error_bound(const mha_shape *shape, const double *want, size_t n)
{
    const double terms = 2.0 * shape->embed_dim + 2.0 * shape->key_len;
    return 8.0 * sqrt(terms) * FLT_EPSILON * fmax(1.0, max_abs_value(want, n));
}

double check_against_reference(const mha_impl *impl, const mha_case *c,
                               const mha_mask *mask)
{
    const mha_shape *s = &c->shape;
    const size_t n_out = s->batch * s->query_len * s->embed_dim;
    const size_t n_w = s->batch * s->heads * s->query_len * s->key_len;
    double *want = malloc(n_out * sizeof *want), *want_w = malloc(n_w * sizeof *want_w);
    float *got = malloc(n_out * sizeof *got), *got_w = malloc(n_w * sizeof *got_w);
    float *base = malloc(n_out * sizeof *base), *base_w = malloc(n_w * sizeof *base_w);
    cr_assert(want && want_w && got && got_w && base && base_w);
    cr_assert_eq(mha_forward_naive(s, &c->params, c->query, c->key, c->value, mask,
                                   base, base_w), MHA_OK);
    /* <<run [[impl]] into [[got]] and [[got_w]]>> */
    if (impl->forward != mha_forward_naive) {
        memset(got, 0xff, n_out * sizeof *got);         /* NaN: unwritten output shows */
        memset(got_w, 0xff, n_w * sizeof *got_w);
        cr_assert_eq(impl->forward(s, &c->params, c->query, c->key, c->value, mask,
                                   got, got_w), MHA_OK, "%s failed", impl->name);
    }
    cr_assert_eq(mha_forward_reference(s, &c->params, c->query, c->key, c->value, mask,
                                       want, want_w), MHA_OK);
    /* <<measure the naive version's errors [[naive_out]] and [[naive_w]]>> */
    double naive_out = max_abs_error(base, want, n_out);
    double naive_w = max_abs_error(base_w, want_w, n_w);
    char words[160];
    case_words(words, sizeof words, s, mask);
    cr_expect(naive_out <= naive_error_bound(s, want, n_out),
              "naive out error %.3g exceeds its bound %.3g (%s)", naive_out,
              naive_error_bound(s, want, n_out), words);
    cr_expect(naive_w <= naive_error_bound(s, want_w, n_w),
              "naive weights error %.3g exceeds its bound %.3g (%s)", naive_w,
              naive_error_bound(s, want_w, n_w), words);
    /* <<hold [[impl]] to the tolerance rule>> */
    if (impl->forward != mha_forward_naive) {
        char what[240];
        snprintf(what, sizeof what, "%s out (%s)", impl->name, words);
        expect_close(what, got, want, n_out, tolerance_rule(naive_out, want, n_out));
        snprintf(what, sizeof what, "%s weights (%s)", impl->name, words);
        expect_close(what, got_w, want_w, n_w, tolerance_rule(naive_w, want_w, n_w));
    }
    free(want); free(want_w); free(got); free(got_w); free(base); free(base_w);
    return naive_out;
}
