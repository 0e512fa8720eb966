/* generated from chapters/09-backward.nw, chapters/39-tests-backward.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "oracle.h"

/* <<[[test_backward.c]] tests>> */
static double loss(const mha_case *c, const mha_mask *mask, const float *grad_out)
{
    const size_t n = c->shape.batch * c->shape.query_len * c->shape.embed_dim;
    double *y = malloc(n * sizeof *y), sum = 0.0;
    cr_assert_eq(mha_forward_reference(&c->shape, &c->params, c->query, c->key, c->value,
                                       mask, y, NULL), MHA_OK);
    for (size_t i = 0; i < n; i++)
        sum += y[i] * grad_out[i];
    free(y);
    return sum;
}
/* <<[[test_backward.c]] tests>> */
/* Compare analytic gradient g (n) of the values x (n) with central differences. */
static void check_gradient(const char *what, mha_case *c, const mha_mask *mask,
                           const float *grad_out, float *x, const float *g, size_t n)
{
    double worst = 0.0, scale = 1.0;
    for (size_t i = 0; i < n; i++) {
        const float keep = x[i];
        x[i] = keep + 0x1p-9f;
        const double up = loss(c, mask, grad_out), step_up = (double)x[i] - keep;
        x[i] = keep - 0x1p-9f;
        const double down = loss(c, mask, grad_out), step_down = keep - (double)x[i];
        x[i] = keep;
        const double fd = (up - down) / (step_up + step_down);
        scale = fmax(scale, fabs(fd));
        const double e = fabs(fd - g[i]);
        worst = (e > worst || isnan(e)) ? e : worst;
    }
    cr_expect(worst <= 2e-4 * scale, "%s: worst difference %.3g from finite differences",
              what, worst);
}
/* <<[[test_backward.c]] tests>> */
static void check_all_gradients(mha_backward_fn *backward, mha_case *c, const mha_mask *mask,
                                uint64_t seed)
{
    const mha_shape *s = &c->shape;
    const size_t B = s->batch, L = s->query_len, S = s->key_len, E = s->embed_dim;
    rng r = rng_seeded(seed);
    float *gy = random_floats(&r, B * L * E, -1, 1);
    float *gq = calloc(B * L * E, sizeof *gq), *gk = calloc(B * S * E, sizeof *gk),
          *gv = calloc(B * S * E, sizeof *gv), *gw = calloc(3 * E * E, sizeof *gw),
          *gb = calloc(3 * E, sizeof *gb), *gow = calloc(E * E, sizeof *gow),
          *gob = calloc(E, sizeof *gob);
    const mha_grads grads = {gq, gk, gv, gw, c->in_b ? gb : NULL, gow, c->out_b ? gob : NULL};
    cr_assert_eq(backward(s, &c->params, c->query, c->key, c->value, mask, gy, &grads),
                 MHA_OK);
    check_gradient("query", c, mask, gy, c->query, gq, B * L * E);
    if (c->key) check_gradient("key", c, mask, gy, c->key, gk, B * S * E);
    if (c->value) check_gradient("value", c, mask, gy, c->value, gv, B * S * E);
    check_gradient("in_proj_weight", c, mask, gy, c->in_w, gw, 3 * E * E);
    check_gradient("out_proj_weight", c, mask, gy, c->out_w, gow, E * E);
    if (c->in_b) check_gradient("in_proj_bias", c, mask, gy, c->in_b, gb, 3 * E);
    if (c->out_b) check_gradient("out_proj_bias", c, mask, gy, c->out_b, gob, E);
    free(gy); free(gq); free(gk); free(gv); free(gw); free(gb); free(gow); free(gob);
}
/* <<[[test_backward.c]] tests>> */
Test(backward, gradients_match_finite_differences) {
    const struct { mha_shape s; int flags; } cases[] = {
        {{2, 3, 3, 4, 2}, CASE_SELF},
        {{1, 3, 4, 6, 3}, CASE_CROSS},
        {{2, 2, 3, 4, 1}, CASE_SHARED_KV | CASE_NO_BIAS},
        {{1, 1, 5, 5, 5}, CASE_CROSS},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        mha_case c = case_random(cases[t].s, 1400 + t, cases[t].flags);
        for (size_t v = 0; v < mha_backward_impl_count; v++)
            check_all_gradients(mha_backward_impls[v].backward, &c, NULL, 1410 + t);
        case_free(&c);
    }
}
/* <<[[test_backward.c]] tests>> */
Test(backward, gradients_with_masks) {
    mha_case c = case_random((mha_shape){2, 3, 3, 4, 2}, 1420, CASE_SELF);
    const unsigned char pad[2 * 3] = {0, 0, 1, 1, 0, 0};
    const unsigned char masked[3 * 3] = {1, 1, 1, 0, 0, 1, 0, 0, 0};   /* row 0: all */
    const float fm[3 * 3] = {0.5f, -1, 0, 2, 0, -0.5f, 0, 1, -2};
    const mha_mask masks[4] = {{.causal = 1}, {.key_padding_mask = pad},
                               {.attn_mask_float = fm}, {1, masked, fm, pad}};
    for (int m = 0; m < 4; m++)
        for (size_t v = 0; v < mha_backward_impl_count; v++)
            check_all_gradients(mha_backward_impls[v].backward, &c, &masks[m], 1430 + m);
    case_free(&c);
}
Test(backward, every_version_refuses_missing_pointers) {
    mha_case c = case_random((mha_shape){1, 2, 2, 4, 2}, 1440, CASE_SELF);
    const size_t E = 4;
    float gy[8] = {1, -1, 2, 0, 0, 1, -2, 1}, gw[3 * 16], gow[16];
    const mha_grads grads = {NULL, NULL, NULL, gw, NULL, gow, NULL};
    mha_grads no_gw = grads, no_gow = grads;
    no_gw.grad_in_proj_weight = NULL, no_gow.grad_out_proj_weight = NULL;
    mha_params no_w = c.params, no_ow = c.params;
    no_w.in_proj_weight = NULL, no_ow.out_proj_weight = NULL;
    const struct { const mha_params *p; const float *gy; const mha_grads *g; } cases[] = {
        {&c.params, NULL, &grads}, {&c.params, gy, NULL}, {&c.params, gy, &no_gw},
        {&c.params, gy, &no_gow}, {&no_w, gy, &grads}, {&no_ow, gy, &grads},
    };
    for (size_t v = 0; v < mha_backward_impl_count; v++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            for (size_t j = 0; j < 3 * E * E; j++) gw[j] = 7;
            for (size_t j = 0; j < E * E; j++) gow[j] = 7;
            const char *name = mha_backward_impls[v].name;
            mha_backward_fn *backward = mha_backward_impls[v].backward;
            cr_expect_eq(backward(&c.shape, cases[i].p, c.query, NULL, NULL, NULL,
                                  cases[i].gy, cases[i].g),
                         MHA_ERR_NULL, "%s, case %zu", name, i);
            int kept = 1;
            for (size_t j = 0; j < 3 * E * E; j++) kept &= gw[j] == 7;
            for (size_t j = 0; j < E * E; j++) kept &= gow[j] == 7;
            cr_expect(kept, "%s, case %zu wrote a gradient", name, i);
        }
    case_free(&c);
}
Test(backward, weight_gradients_do_not_need_the_others) {
    const int flags[3] = {CASE_SELF, CASE_CROSS, CASE_SHARED_KV};
    for (int f = 0; f < 3; f++) {
        mha_case c = case_random((mha_shape){2, 3, 3, 4, 2}, 1450 + f, flags[f]);
        const size_t n = 2 * 3 * 4, E = 4;
        rng r = rng_seeded(1460 + f);
        float *gy = random_floats(&r, n, -1, 1);
        float gq[2 * 3 * 4], gk[2 * 3 * 4], gv[2 * 3 * 4], gb[3 * 4], gob[4];
        float gw[2][3 * 16], gow[2][16];
        const mha_grads all = {gq, gk, gv, gw[0], gb, gow[0], gob};
        const mha_grads weights_only = {NULL, NULL, NULL, gw[1], NULL, gow[1], NULL};
        for (size_t v = 0; v < mha_backward_impl_count; v++) {
            const char *name = mha_backward_impls[v].name;
            mha_backward_fn *backward = mha_backward_impls[v].backward;
            cr_assert_eq(backward(&c.shape, &c.params, c.query, c.key, c.value, NULL, gy,
                                  &all), MHA_OK, "%s", name);
            cr_assert_eq(backward(&c.shape, &c.params, c.query, c.key, c.value, NULL, gy,
                                  &weights_only), MHA_OK, "%s", name);
            size_t differ = 0;
            for (size_t i = 0; i < 3 * E * E; i++) {
                const double a = gw[0][i], b = gw[1][i];
                differ += !(fabs(a - b) <= 1e-6 * (1 + fabs(a)));
            }
            for (size_t i = 0; i < E * E; i++) {
                const double a = gow[0][i], b = gow[1][i];
                differ += !(fabs(a - b) <= 1e-6 * (1 + fabs(a)));
            }
            cr_expect_eq(differ, 0, "%s, flags %d: %zu weight gradients differ",
                         name, flags[f], differ);
        }
        free(gy);
        case_free(&c);
    }
}
