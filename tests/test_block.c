/* generated from chapters/09-transformer-block.nw, chapters/39-tests-transformer-block.nw; edit the book, not this file */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "block.h"
#include "check.h"
#include "fast.h"                 /* the activation in every instruction set */
#include "mha_internal.h"         /* mha_mask_bias: the reference mask */
#include "npy.h"
#include "run.h"

/* <<[[test_block.c]] the float64 block reference>> */
typedef struct block_case {
    mha_block_shape shape;
    float *x;                             /* (B, L, E) */
    float *t[MHA_BLOCK_TENSORS];          /* the state dictionary */
    mha_block_params params;
} block_case;

static size_t tensor_count(const mha_block_shape *s, size_t i)
{
    size_t dims[2];
    return mha_block_tensor_shape(s, i, dims) == 2 ? dims[0] * dims[1] : dims[0];
}

static block_case block_case_random(mha_block_shape s, uint64_t seed)
{
    block_case c = {.shape = s};
    rng r = rng_seeded(seed);
    c.x = random_floats(&r, s.batch * s.length * s.embed_dim, -1, 1);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        size_t dims[2];
        const size_t rank = mha_block_tensor_shape(&s, i, dims);
        const float a = rank == 2 ? 1.0f / sqrtf((float)dims[1]) : 0.5f;
        c.t[i] = i >= 8 && i % 2 == 0 ? random_floats(&r, dims[0], 0.5f, 1.5f)  /* norm weights */
                                      : random_floats(&r, tensor_count(&s, i), -a, a);
    }
    c.params = mha_block_params_from((const float *const *)c.t);
    return c;
}

static void block_case_free(block_case *c)
{
    free(c->x);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(c->t[i]);
}
/* <<[[test_block.c]] the float64 block reference>> */
/* y (n, N) = x (n, K) W (N, K)^T + bias */
static void linear64(size_t n, size_t N, size_t K, const double *x, const float *W,
                     const float *bias, double *y)
{
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < N; o++) {
            double s = bias ? bias[o] : 0.0;
            for (size_t e = 0; e < K; e++)
                s += x[i * K + e] * W[o * K + e];
            y[i * N + o] = s;
        }
}

static void layer_norm64(size_t n, size_t E, const double *x, const float *w, const float *b,
                         double *y)
{
    for (size_t i = 0; i < n; i++) {
        double mu = 0.0, var = 0.0;
        for (size_t j = 0; j < E; j++)
            mu += x[i * E + j] / (double)E;
        for (size_t j = 0; j < E; j++)
            var += (x[i * E + j] - mu) * (x[i * E + j] - mu) / (double)E;
        for (size_t j = 0; j < E; j++)
            y[i * E + j] = (x[i * E + j] - mu) / sqrt(var + 1e-5) * w[j] + b[j];
    }
}

static double gelu64(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}
/* <<[[test_block.c]] the float64 block reference>> */
/* out (L, E) = SA(u (L, E)) of sequence b */
static void attention64(const block_case *c, const mha_mask *mask, size_t b, const double *u,
                        double *out)
{
    const size_t L = c->shape.length, E = c->shape.embed_dim, H = c->shape.heads, D = E / H;
    const mha_shape shape = {c->shape.batch, L, L, E, H};
    double *qkv = malloc(L * 3 * E * sizeof *qkv), *ctx = malloc(L * E * sizeof *ctx);
    double *z = malloc(L * sizeof *z);
    float *bias = malloc(L * L * sizeof *bias);
    const int masked = mha_mask_bias(mask, &shape, b, bias);
    linear64(L, 3 * E, E, u, c->params.attn.in_proj_weight, c->params.attn.in_proj_bias, qkv);
    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < L; i++) {
            double top = -INFINITY, sum = 0.0;
            int nan = 0;
            for (size_t j = 0; j < L; j++) {
                double s = 0.0;
                for (size_t d = 0; d < D; d++)
                    s += qkv[i * 3 * E + h * D + d] * qkv[j * 3 * E + E + h * D + d];
                z[j] = s / sqrt((double)D) + (masked == 1 ? bias[i * L + j] : 0.0);
                nan |= isnan(z[j]);
                top = z[j] > top ? z[j] : top;
            }
            for (size_t j = 0; j < L; j++)
                sum += z[j] = top == -INFINITY ? 0.0 : exp(z[j] - top);
            for (size_t d = 0; d < D; d++) {
                double s = 0.0;
                for (size_t j = 0; j < L; j++)
                    s += z[j] == 0.0 ? 0.0 : z[j] / sum * qkv[j * 3 * E + 2 * E + h * D + d];
                ctx[i * E + h * D + d] = nan ? NAN : s;
            }
        }
    linear64(L, E, E, ctx, c->params.attn.out_proj_weight, c->params.attn.out_proj_bias, out);
    free(qkv); free(ctx); free(z); free(bias);
}
/* <<[[test_block.c]] the float64 block reference>> */
static void block64(const block_case *c, const mha_mask *mask, double *y)
{
    const size_t B = c->shape.batch, L = c->shape.length, E = c->shape.embed_dim,
                 F = c->shape.hidden;
    const mha_block_params *p = &c->params;
    double *x = malloc(L * E * sizeof *x), *u = malloc(L * E * sizeof *u);
    double *a = malloc(L * E * sizeof *a), *hidden = malloc(L * F * sizeof *hidden);
    for (size_t b = 0; b < B; b++) {
        double *yb = y + b * L * E;
        for (size_t i = 0; i < L * E; i++)
            x[i] = c->x[b * L * E + i];
        layer_norm64(L, E, x, p->norm1_weight, p->norm1_bias, u);
        attention64(c, mask, b, u, a);
        for (size_t i = 0; i < L * E; i++)
            x[i] += a[i];                                     /* z */
        layer_norm64(L, E, x, p->norm2_weight, p->norm2_bias, u);
        linear64(L, F, E, u, p->linear1_weight, p->linear1_bias, hidden);
        for (size_t i = 0; i < L * F; i++)
            hidden[i] = gelu64(hidden[i]);
        linear64(L, E, F, hidden, p->linear2_weight, p->linear2_bias, yb);
        for (size_t i = 0; i < L * E; i++)
            yb[i] += x[i];
    }
    free(x); free(u); free(a); free(hidden);
}
/* <<[[test_block.c]] the float64 block reference>> */
static double block_loss(const block_case *c, const mha_mask *mask, const float *gy)
{
    const size_t n = c->shape.batch * c->shape.length * c->shape.embed_dim;
    double *y = malloc(n * sizeof *y), sum = 0.0;
    block64(c, mask, y);
    for (size_t i = 0; i < n; i++)
        sum += y[i] * gy[i];
    free(y);
    return sum;
}

static void check_one_gradient(const char *what, block_case *c, const mha_mask *mask,
                               const float *gy, float *x, const float *g, size_t n)
{
    double worst = 0.0, scale = 1.0;
    for (size_t i = 0; i < n; i++) {
        const float keep = x[i];
        x[i] = keep + 0x1p-9f;
        const double up = block_loss(c, mask, gy), step_up = (double)x[i] - keep;
        x[i] = keep - 0x1p-9f;
        const double down = block_loss(c, mask, gy), step_down = keep - (double)x[i];
        x[i] = keep;
        const double fd = (up - down) / (step_up + step_down);
        scale = fmax(scale, fabs(fd));
        const double e = fabs(fd - g[i]);
        worst = (e > worst || isnan(e)) ? e : worst;
    }
    cr_expect(worst <= 2e-4 * scale, "%s: worst difference %.3g from central differences",
              what, worst);
}
/* <<[[test_block.c]] the float64 block reference>> */
static void check_block_gradients(block_case *c, const mha_mask *mask, uint64_t seed)
{
    const mha_block_shape *s = &c->shape;
    const size_t n = s->batch * s->length * s->embed_dim;
    rng r = rng_seeded(seed);
    float *gy = random_floats(&r, n, -1, 1), *gx = malloc(n * sizeof *gx);
    float *g[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        g[i] = malloc(tensor_count(s, i) * sizeof *g[i]);
    const mha_block_grads grads = mha_block_grads_from(g);
    mha_block_saved saved;
    cr_assert_eq(mha_block_saved_init(&saved, s), MHA_OK);
    float *y = malloc(n * sizeof *y);
    cr_assert_eq(mha_block_forward(s, &c->params, c->x, mask, y, &saved), MHA_OK);
    cr_assert_eq(mha_block_backward(s, &c->params, c->x, mask, &saved, gy, gx, &grads), MHA_OK);
    check_one_gradient("x", c, mask, gy, c->x, gx, n);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        check_one_gradient(mha_block_tensor_names[i], c, mask, gy, c->t[i], g[i],
                           tensor_count(s, i));
    mha_block_saved_free(&saved);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(g[i]);
    free(gy); free(gx); free(y);
}
/* <<[[test_block.c]] tests>> */
Test(block, gradients_match_central_differences) {
    const mha_mask causal = {.causal = 1};
    block_case c = block_case_random((mha_block_shape){2, 5, 8, 2, 12}, 2600);
    check_block_gradients(&c, &causal, 2601);
    block_case_free(&c);
}
/* <<[[test_block.c]] tests>> */
static double layer_norm_loss(size_t rows, size_t E, const float *x, const float *w,
                              const float *b, const float *gy)
{
    double *xd = calloc(rows * E, sizeof *xd), *y = calloc(rows * E, sizeof *y), sum = 0.0;
    cr_assert(xd && y);
    for (size_t i = 0; i < rows * E; i++)
        xd[i] = x[i];
    layer_norm64(rows, E, xd, w, b, y);
    for (size_t i = 0; i < rows * E; i++)
        sum += y[i] * gy[i];
    free(xd); free(y);
    return sum;
}

/* The gradient g (n) of the layer norm's loss in v (n), one of x, w, b */
static void check_layer_norm_gradient(const char *what, size_t rows, size_t E, float *x,
                                      float *w, float *b, const float *gy, float *v,
                                      const float *g, size_t n)
{
    double worst = 0.0, scale = 1.0;
    for (size_t i = 0; i < n; i++) {
        const float keep = v[i];
        v[i] = keep + 0x1p-9f;
        const double up = layer_norm_loss(rows, E, x, w, b, gy), step_up = (double)v[i] - keep;
        v[i] = keep - 0x1p-9f;
        const double down = layer_norm_loss(rows, E, x, w, b, gy), step_down = keep - (double)v[i];
        v[i] = keep;
        const double fd = (up - down) / (step_up + step_down);
        scale = fmax(scale, fabs(fd));
        const double e = fabs(fd - g[i]);
        worst = (e > worst || isnan(e)) ? e : worst;
    }
    cr_expect(worst <= 2e-4 * scale, "layer norm %s: worst difference %.3g", what, worst);
}
/* <<[[test_block.c]] tests>> */
Test(block, layer_norm_matches_its_formula_and_central_differences) {
    enum { ROWS = 5, E = 13 };
    rng r = rng_seeded(2610);
    float *x = random_floats(&r, ROWS * E, -2, 2), *w = random_floats(&r, E, 0.5f, 1.5f);
    float *b = random_floats(&r, E, -0.5f, 0.5f), *gy = random_floats(&r, ROWS * E, -1, 1);
    for (size_t j = 0; j < E; j++)
        x[4 * E + j] = 1000.0f + 0x1p-4f * (float)(j % 3);     /* large mean, small spread */
    float y[ROWS * E], mean[ROWS], rstd[ROWS], gx[ROWS * E], gw[E], gb[E];
    double want[ROWS * E], xd[ROWS * E];
    for (size_t i = 0; i < ROWS * E; i++)
        xd[i] = x[i];
    layer_norm64(ROWS, E, xd, w, b, want);
    cr_assert_eq(mha_layer_norm(ROWS, E, x, w, b, y, mean, rstd), MHA_OK);
    expect_close("layer norm", y, want, ROWS * E,
                 tolerance_rule(0x1p-24 * max_abs_value(want, ROWS * E), want, ROWS * E));
    cr_assert_eq(mha_layer_norm_backward(ROWS, E, x, w, mean, rstd, gy, gx, gw, gb), MHA_OK);
    check_layer_norm_gradient("x", 4, E, x, w, b, gy, x, gx, 4 * E);   /* the rows of spread 1 */
    check_layer_norm_gradient("weight", ROWS, E, x, w, b, gy, w, gw, E);
    check_layer_norm_gradient("bias", ROWS, E, x, w, b, gy, b, gb, E);
    free(x); free(w); free(b); free(gy);
}
/* <<[[test_block.c]] tests>> */
Test(block, gelu_matches_its_formula_and_central_differences) {
    enum { N = 41 };
    float x[N], y[N], g[N], ones[N];
    double want[N], worst = 0.0;
    for (size_t i = 0; i < N; i++)
        x[i] = -5.0f + 0.25f * (float)i, ones[i] = 1.0f, want[i] = gelu64(x[i]);
    mha_gelu(N, x, y);
    expect_close("gelu", y, want, N, tolerance_rule(0x1p-24 * max_abs_value(want, N), want, N));
    mha_gelu_backward(N, x, ones, g);
    for (size_t i = 0; i < N; i++) {
        const double fd = (gelu64(x[i] + 1e-5) - gelu64(x[i] - 1e-5)) / 2e-5;
        worst = fmax(worst, fabs(fd - g[i]));
    }
    cr_expect(worst <= 1e-6, "gelu': worst difference %.3g from central differences", worst);
    cr_expect_float_eq(y[20], 0.0f, 0.0f, "gelu(0) = %g", (double)y[20]);
}
/* <<[[test_block.c]] tests>> */
static double gelu_tail64(double x)    /* x Phi(x) through erfc: exact in the tail too */
{
    return 0.5 * x * erfc(-x / sqrt(2.0));
}

static double gelu_slope64(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0)) + x * exp(-0.5 * x * x) / sqrt(2.0 * 3.14159265358979323846);
}

Test(block, gelu_kernels_are_within_eight_units_in_every_instruction_set) {
    const fast_kernels *const isas[] = {&fast_kernels_scalar,
#if defined(__x86_64__)
                                        &fast_kernels_avx2, &fast_kernels_avx512,
#endif
    };
    const float edges[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 14.0f, -14.0f,
                           nextafterf(14.0f, 0.0f), -nextafterf(14.0f, 0.0f), 1e-45f, -1e-45f};
    const size_t n_edges = sizeof edges / sizeof edges[0];
    size_t n = n_edges;
    for (uint32_t bits = 0; bits < 0x41700000u; bits += 4099)
        n += 2;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *g = malloc(n * sizeof *g),
          *ones = malloc(n * sizeof *ones);
    cr_assert(x && y && g && ones);
    memcpy(x, edges, sizeof edges);
    size_t m = n_edges;
    for (uint32_t bits = 0; bits < 0x41700000u; bits += 4099) {
        float v;
        memcpy(&v, &bits, sizeof v);
        x[m++] = v, x[m++] = -v;
    }
    for (size_t i = 0; i < n; i++)
        ones[i] = 1.0f;
    cr_assert(n % 16 != 0);
    for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
        if (!fast_kernels_supported(isas[k]))
            continue;
        isas[k]->gelu(x, y, n);
        isas[k]->gelu_backward(x, ones, g, n);
        double worst = 0.0, worst_slope = 0.0;
        for (size_t i = 0; i < n; i++) {
            const double want = gelu_tail64(x[i]), slope = gelu_slope64(x[i]);
            if (isnan(x[i]) || x[i] == -INFINITY) {
                cr_expect(isnan(y[i]) && isnan(g[i]), "%s: gelu(%g) = %g, slope %g",
                          isas[k]->name, (double)x[i], (double)y[i], (double)g[i]);
                continue;
            }
            if (x[i] == INFINITY) {
                cr_expect(y[i] == INFINITY && isnan(g[i]), "%s: gelu(inf) = %g, slope %g",
                          isas[k]->name, (double)y[i], (double)g[i]);
                continue;
            }
            const double cdf = 0.5 * erfc(-x[i] / sqrt(2.0)), scale = cdf + fabs(slope - cdf);
            const double e = fabs(y[i] - want) / fmax(fabs(want) * 0x1p-24, FLT_MIN / 8);
            const double es = fabs(g[i] - slope) / fmax(scale * 0x1p-24, FLT_MIN);
            cr_expect(e <= 8.0 && es <= 8.0, "%s: at x = %.9g gelu %.9g (want %.9g), slope %.9g "
                      "(want %.9g)", isas[k]->name, (double)x[i], (double)y[i], want,
                      (double)g[i], slope);
            worst = fmax(worst, e), worst_slope = fmax(worst_slope, es);
        }
        cr_log_info("%s: worst %.2f units (gelu), %.2f (slope)", isas[k]->name, worst,
                    worst_slope);
    }
    free(x); free(y); free(g); free(ones);
}
/* <<[[test_block.c]] tests>> */
static const struct { const char *name; const char *heads; int causal_too; } block_golden[] = {
    {"block_plain", "2", 0}, {"block_causal", "2", 1}, {"block_key_padding", "4", 0},
    {"block_float_mask", "3", 0}, {"block_tiles", "3", 1}, {"block_float_mask_tiles", "2", 0},
};
enum { BLOCK_GOLDEN = sizeof block_golden / sizeof block_golden[0] };

static int block_dir(const struct dirent *e)
{
    return strncmp(e->d_name, "block_", 6) == 0;
}

Test(block, every_golden_case_is_tested) {
    struct dirent **entries;
    const int n = scandir("golden", &entries, block_dir, alphasort);
    cr_assert(n >= 0, "golden/: %s", strerror(errno));
    cr_expect_eq((size_t)n, (size_t)BLOCK_GOLDEN);
    for (int i = 0; i < n; i++) {
        int listed = 0;
        for (size_t k = 0; k < BLOCK_GOLDEN; k++)
            listed |= strcmp(entries[i]->d_name, block_golden[k].name) == 0;
        cr_expect(listed, "golden/%s is not in block_golden", entries[i]->d_name);
        free(entries[i]);
    }
    free(entries);
}
/* <<[[test_block.c]] tests>> */
typedef struct golden_block {
    block_case c;
    mha_npy mask, padding;                /* not loaded when absent */
    float *grad_out;
} golden_block;

static float *golden_floats(const char *dir, const char *name, size_t want)
{
    char path[512];
    size_t count;
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    float *values = read_npy_floats(path, &count);
    cr_assert_eq(count, want, "%s: %zu values, expected %zu", path, count, want);
    return values;
}

static void golden_optional(const char *dir, const char *name, mha_npy *array)
{
    char path[512], message[256];
    memset(array, 0, sizeof *array);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, F_OK) == 0)
        cr_assert_eq(mha_npy_read(path, array, message, sizeof message), MHA_OK, "%s", message);
}
/* <<[[test_block.c]] tests>> */
static golden_block golden_block_load(const char *name, size_t heads)
{
    char dir[256], path[300], message[256];
    snprintf(dir, sizeof dir, "golden/%s", name);
    snprintf(path, sizeof path, "%s/src.npy", dir);
    golden_block g;
    mha_npy src, linear1;
    cr_assert_eq(mha_npy_read(path, &src, message, sizeof message), MHA_OK, "%s", message);
    snprintf(path, sizeof path, "%s/linear1.weight.npy", dir);
    cr_assert_eq(mha_npy_read(path, &linear1, message, sizeof message), MHA_OK, "%s", message);
    g.c.shape = (mha_block_shape){src.shape[0], src.shape[1], src.shape[2], heads,
                                  linear1.shape[0]};
    mha_npy_free(&linear1);
    g.c.x = src.values;
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        g.c.t[i] = golden_floats(dir, mha_block_tensor_names[i], tensor_count(&g.c.shape, i));
    g.c.params = mha_block_params_from((const float *const *)g.c.t);
    golden_optional(dir, "src_mask.npy", &g.mask);
    golden_optional(dir, "src_key_padding_mask.npy", &g.padding);
    g.grad_out = golden_floats(dir, "grad_out", src.count);
    return g;
}

static void golden_block_free(golden_block *g)
{
    block_case_free(&g->c);
    mha_npy_free(&g->mask); mha_npy_free(&g->padding);
    free(g->grad_out);
}
/* <<[[test_block.c]] tests>> */
static void expect_like_pytorch(const char *what, const char *name, const char *file,
                                const float *got, size_t n)
{
    char dir[256], expected[300];
    snprintf(dir, sizeof dir, "golden/%s", name);
    snprintf(expected, sizeof expected, "expected_%s", file);
    float *want32 = golden_floats(dir, expected, n);
    snprintf(expected, sizeof expected, "expected64_%s", file);
    float *want64 = golden_floats(dir, expected, n);
    double *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++)
        want[i] = want64[i];
    const double pytorch_error = max_abs_error(want32, want, n);
    expect_close(what, got, want, n, tolerance_rule(pytorch_error, want, n));
    free(want32); free(want64); free(want);
}
/* <<[[test_block.c]] tests>> */
static void check_golden_block(size_t k, int causal_flag)
{
    golden_block g = golden_block_load(block_golden[k].name,
                                       (size_t)atoi(block_golden[k].heads));
    const mha_block_shape *s = &g.c.shape;
    const size_t n = s->batch * s->length * s->embed_dim;
    const mha_mask mask = {causal_flag, causal_flag ? NULL : g.mask.flags, g.mask.values,
                           g.padding.flags};
    float *y = malloc(n * sizeof *y), *gx = malloc(n * sizeof *gx), *gr[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        gr[i] = malloc(tensor_count(s, i) * sizeof *gr[i]);
    const mha_block_grads grads = mha_block_grads_from(gr);
    mha_block_saved saved;
    cr_assert_eq(mha_block_saved_init(&saved, s), MHA_OK);
    cr_assert_eq(mha_block_forward(s, &g.c.params, g.c.x, &mask, y, &saved), MHA_OK);
    cr_assert_eq(mha_block_backward(s, &g.c.params, g.c.x, &mask, &saved, g.grad_out, gx,
                                    &grads), MHA_OK);
    char what[128], file[96];
    const char *name = block_golden[k].name, *how = causal_flag ? "causal flag" : "files";
    snprintf(what, sizeof what, "%s (%s) out", name, how);
    expect_like_pytorch(what, name, "out", y, n);
    snprintf(what, sizeof what, "%s (%s) grad_src", name, how);
    expect_like_pytorch(what, name, "grad_src", gx, n);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        snprintf(file, sizeof file, "grad_%s", mha_block_tensor_names[i]);
        snprintf(what, sizeof what, "%s (%s) %s", name, how, file);
        expect_like_pytorch(what, name, file, gr[i], tensor_count(s, i));
    }
    mha_block_saved_free(&saved);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(gr[i]);
    free(y); free(gx);
    golden_block_free(&g);
}

Test(block, forward_and_backward_match_pytorch) {
    for (size_t k = 0; k < BLOCK_GOLDEN; k++) {
        check_golden_block(k, 0);
        if (block_golden[k].causal_too)
            check_golden_block(k, 1);
    }
}
/* <<[[test_block.c]] tests>> */
static char *block_case_dir(const char *name, int causal_flag)
{
    static char dir[64];
    char cmd[512];
    snprintf(dir, sizeof dir, "/tmp/mha-block-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp golden/%s/*.npy %s && rm -f %s/expected*%s%s%s", name, dir,
             dir, causal_flag ? " " : "", causal_flag ? dir : "", causal_flag ? "/src_mask.npy" : "");
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return dir;
}

static void remove_block_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}
/* <<[[test_block.c]] tests>> */
static void check_command_on(size_t k, int causal_flag)
{
    const char *name = block_golden[k].name;
    const char *dir = block_case_dir(name, causal_flag);
    struct cli_result r = run_mha("block", dir, "--heads", block_golden[k].heads, "--backward",
                                  causal_flag ? "--causal" : NULL, NULL);
    cr_assert_eq(r.status, 0, "%s: %s", name, r.err);
    cr_expect_str_eq(r.err, "");
    free_result(&r);
    const char *files[MHA_BLOCK_TENSORS + 2] = {"out", "grad_src"};
    char names[MHA_BLOCK_TENSORS][64], path[256], what[160];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        snprintf(names[i], sizeof names[i], "grad_%s", mha_block_tensor_names[i]);
        files[i + 2] = names[i];
    }
    for (size_t f = 0; f < MHA_BLOCK_TENSORS + 2; f++) {
        size_t count;
        snprintf(path, sizeof path, "%s/%s.npy", dir, files[f]);
        float *got = read_npy_floats(path, &count);
        snprintf(what, sizeof what, "mha block %s%s: %s", name, causal_flag ? " --causal" : "",
                 files[f]);
        expect_like_pytorch(what, name, files[f], got, count);
        free(got);
    }
    remove_block_dir(dir);
}

Test(block, command_matches_pytorch) {
    for (size_t k = 0; k < BLOCK_GOLDEN; k++) {
        check_command_on(k, 0);
        if (block_golden[k].causal_too)
            check_command_on(k, 1);
    }
}
/* <<[[test_block.c]] tests>> */
static void write_floats(const char *dir, const char *name, const float *values, size_t rank,
                         const size_t *shape)
{
    char path[256], message[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(mha_npy_write(path, values, rank, shape, message, sizeof message), MHA_OK,
                 "%s", message);
}

static void expect_refused(const char *dir, const char *culprit, const char *heads,
                           const char *option)
{
    struct cli_result r = run_mha("block", dir, "--heads", heads, "--backward", option, NULL);
    const char *nl = strchr(r.err, '\n');
    cr_expect_neq(r.status, 0, "%s: exit status 0", culprit);
    cr_expect(strncmp(r.err, "mha: ", 5) == 0, "%s: stderr '%s'", culprit, r.err);
    cr_expect(nl != NULL && nl[1] == '\0', "%s: not one line: '%s'", culprit, r.err);
    cr_expect(strstr(r.err, culprit) != NULL, "stderr does not name '%s': '%s'", culprit, r.err);
    char path[256];
    snprintf(path, sizeof path, "%s/out.npy", dir);
    cr_expect_neq(access(path, F_OK), 0, "%s: out.npy was written", culprit);
    snprintf(path, sizeof path, "%s/grad_src.npy", dir);
    cr_expect_neq(access(path, F_OK), 0, "%s: grad_src.npy was written", culprit);
    free_result(&r);
}
/* <<[[test_block.c]] tests>> */
Test(block, command_refuses_bad_input) {
    char *dir = block_case_dir("block_plain", 0), path[256];      /* B 2, L 5, E 8, F 12 */
    float values[8 * 12];
    for (size_t i = 0; i < 8 * 12; i++)
        values[i] = 0.01f * (float)i;
    expect_refused(dir, "--heads", "3", NULL);                   /* 3 does not divide 8 */
    snprintf(path, sizeof path, "%s/norm2.bias.npy", dir);
    cr_assert_eq(rename(path, "/tmp/mha-block-norm2.bias.npy"), 0);
    expect_refused(dir, "norm2.bias.npy", "2", NULL);            /* missing */
    cr_assert_eq(rename("/tmp/mha-block-norm2.bias.npy", path), 0);
    write_floats(dir, "norm1.weight.npy", values, 1, (size_t[]){7});
    expect_refused(dir, "norm1.weight.npy", "2", NULL);          /* wrong shape */
    write_floats(dir, "norm1.weight.npy", values, 1, (size_t[]){8});
    write_floats(dir, "linear2.weight.npy", values, 2, (size_t[]){8, 10});
    expect_refused(dir, "linear2.weight.npy", "2", NULL);        /* F 10, linear1's is 12 */
    write_floats(dir, "linear2.weight.npy", values, 2, (size_t[]){8, 12});
    write_floats(dir, "src_mask.npy", values, 2, (size_t[]){5, 4});
    expect_refused(dir, "src_mask.npy", "2", NULL);
    snprintf(path, sizeof path, "%s/src_mask.npy", dir);
    cr_assert_eq(remove(path), 0);
    snprintf(path, sizeof path, "%s/grad_out.npy", dir);
    cr_assert_eq(rename(path, "/tmp/mha-block-grad_out.npy"), 0);
    expect_refused(dir, "grad_out.npy", "2", NULL);              /* --backward needs it */
    cr_assert_eq(rename("/tmp/mha-block-grad_out.npy", path), 0);
    /* <<put a NaN into [[src.npy]] and expect it refused>> */
    size_t count;
    snprintf(path, sizeof path, "%s/src.npy", dir);
    float *src = read_npy_floats(path, &count);
    src[7] = NAN;
    write_floats(dir, "src.npy", src, 3, (size_t[]){2, 5, 8});
    expect_refused(dir, "src.npy", "2", NULL);
    free(src);
    remove_block_dir(dir);
}
/* <<[[test_block.c]] tests>> */
Test(block, command_runs_and_explains_itself) {
    char *dir = block_case_dir("block_plain", 0);
    struct cli_result r = run_mha("block", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    r = run_mha("help", "block", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: mha block DIR --heads H") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "linear1.weight.npy") != NULL, "%s", r.out);
    free_result(&r);
    remove_block_dir(dir);
}
/* <<[[test_block.c]] tests>> */
Test(block, nan_is_never_passed_silently) {
    block_case c = block_case_random((mha_block_shape){1, 4, 8, 2, 12}, 2620);
    const size_t n = 4 * 8;
    float y[4 * 8];
    c.x[2 * 8 + 3] = NAN;                                   /* row 2 */
    cr_assert_eq(mha_block_forward(&c.shape, &c.params, c.x, NULL, y, NULL), MHA_OK);
    for (size_t i = 0; i < n; i++)
        cr_expect(isnan(y[i]), "y[%zu] = %g: the NaN of row 2 reaches every row", i, (double)y[i]);
    c.x[2 * 8 + 3] = 0.5f;
    c.t[6][0] = 3e38f;                                      /* linear2.weight */
    c.t[6][1] = 3e38f;
    cr_expect_eq(mha_block_forward(&c.shape, &c.params, c.x, NULL, y, NULL), MHA_ERR_RANGE);
    block_case_free(&c);
}
/* <<[[test_block.c]] tests>> */
Test(block, shapes_are_checked) {
    mha_block_saved saved;
    cr_expect_eq(mha_block_saved_init(&saved, &(mha_block_shape){1, 4, 8, 3, 12}), MHA_ERR_HEADS);
    cr_expect_eq(mha_block_saved_init(&saved, &(mha_block_shape){1, 4, 8, 2, 0}), MHA_ERR_SHAPE);
    cr_expect_eq(mha_block_saved_init(&saved, &(mha_block_shape){SIZE_MAX / 2, 4, 8, 2, 12}),
                 MHA_ERR_OVERFLOW);
    cr_expect_eq(mha_block_saved_init(NULL, &(mha_block_shape){1, 4, 8, 2, 12}), MHA_ERR_NULL);
    block_case c = block_case_random((mha_block_shape){1, 4, 8, 2, 12}, 2630);
    float y[4 * 8];
    cr_assert_eq(mha_block_saved_init(&saved, &(mha_block_shape){1, 5, 8, 2, 12}), MHA_OK);
    cr_expect_eq(mha_block_forward(&c.shape, &c.params, c.x, NULL, y, &saved), MHA_ERR_SHAPE);
    mha_block_saved_free(&saved);
    mha_block_saved_free(&saved);                           /* twice: nothing */
    mha_block_params missing = c.params;
    missing.linear1_bias = NULL;
    cr_expect_eq(mha_block_forward(&c.shape, &missing, c.x, NULL, y, NULL), MHA_ERR_NULL);
    block_case_free(&c);
}
/* <<[[test_block.c]] tests>> */
Test(block, threads_do_not_change_the_bits) {
    block_case c = block_case_random((mha_block_shape){3, 70, 16, 4, 40}, 2640);
    const size_t n = 3 * 70 * 16;
    const mha_mask causal = {.causal = 1};
    float *y[2] = {malloc(n * sizeof(float)), malloc(n * sizeof(float))};
    float *gx[2] = {malloc(n * sizeof(float)), malloc(n * sizeof(float))};
    float *g[2][MHA_BLOCK_TENSORS];
    rng r = rng_seeded(2641);
    float *gy = random_floats(&r, n, -1, 1), *inference = malloc(n * sizeof *inference);
    for (int run = 0; run < 2; run++) {
        cr_assert_eq(mha_set_threads(run ? 1 : 0), MHA_OK);
        for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
            g[run][i] = malloc(tensor_count(&c.shape, i) * sizeof(float));
        const mha_block_grads grads = mha_block_grads_from(g[run]);
        mha_block_saved saved;
        cr_assert_eq(mha_block_saved_init(&saved, &c.shape), MHA_OK);
        cr_assert_eq(mha_block_forward(&c.shape, &c.params, c.x, &causal, y[run], &saved), MHA_OK);
        cr_assert_eq(mha_block_backward(&c.shape, &c.params, c.x, &causal, &saved, gy, gx[run],
                                        &grads), MHA_OK);
        mha_block_saved_free(&saved);
    }
    cr_assert_eq(mha_set_threads(0), MHA_OK);
    cr_expect_arr_eq(y[0], y[1], n * sizeof(float));
    cr_expect_arr_eq(gx[0], gx[1], n * sizeof(float));
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        cr_expect_arr_eq(g[0][i], g[1][i], tensor_count(&c.shape, i) * sizeof(float), "%s",
                         mha_block_tensor_names[i]);
    cr_assert_eq(mha_block_forward(&c.shape, &c.params, c.x, &causal, inference, NULL), MHA_OK);
    double *want = malloc(n * sizeof *want);
    block64(&c, &causal, want);
    expect_close("inference pass", inference, want, n, 2 * max_abs_error(y[0], want, n) + 1e-6);
    free(want); free(inference); free(gy);
    for (int run = 0; run < 2; run++) {
        free(y[run]); free(gx[run]);
        for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
            free(g[run][i]);
    }
    block_case_free(&c);
}
/* <<[[test_block.c]] tests>> */
Test(block, sinusoidal_positions_turn_by_offsets) {
    enum { T = 40, E = 10 };
    float P[T * E];
    mha_positions_sinusoidal(T, E, P);
    for (size_t e = 0; e < E; e++)
        cr_expect_float_eq(P[e], e % 2 ? 1.0f : 0.0f, 0.0f);
    for (size_t i = 0; 2 * i < E; i++) {
        const double w = pow(10000.0, -2.0 * (double)i / E), k = 7;
        for (size_t t = 0; t + 7 < T; t++) {
            const double s = P[t * E + 2 * i], c = P[t * E + 2 * i + 1];
            cr_expect(fabs(P[(t + 7) * E + 2 * i] - (s * cos(k * w) + c * sin(k * w))) < 1e-6);
            cr_expect(fabs(P[(t + 7) * E + 2 * i + 1] - (c * cos(k * w) - s * sin(k * w))) < 1e-6);
        }
    }
}

Test(block, rotary_positions_see_only_offsets) {
    enum { B = 2, T = 9, H = 2, D = 6 };
    rng r = rng_seeded(2650);
    float *q = random_floats(&r, B * T * H * D, -1, 1), *k = random_floats(&r, B * T * H * D, -1, 1);
    float q1[H * D], k1[H * D];
    memcpy(q1, q + (T + 3) * H * D, sizeof q1);                 /* sequence 1, position 3 */
    mha_rope(q1 + D, D, 3, 10000.0);                             /* head 1 */
    mha_rotary_apply(B * T, T, H, D, q, H * D, 0.0);
    cr_expect_arr_eq(q1 + D, q + (T + 3) * H * D + D, D * sizeof(float));
    for (size_t i = 0; i < H * D; i++)                           /* one vector at every place */
        q1[i] = q[i], k1[i] = k[i];
    float a[T * H * D], b[T * H * D];
    for (size_t t = 0; t < T; t++)
        memcpy(a + t * H * D, q1, sizeof q1), memcpy(b + t * H * D, k1, sizeof k1);
    mha_rotary_apply(T, T, H, D, a, H * D, 0.0);
    mha_rotary_apply(T, T, H, D, b, H * D, 0.0);
    double dot[T][T];
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            dot[i][j] = 0.0;
            for (size_t d = 0; d < D; d++)
                dot[i][j] += (double)a[i * H * D + d] * b[j * H * D + d];
        }
    for (size_t i = 1; i < T; i++)
        for (size_t j = 1; j < T; j++)
            cr_expect(fabs(dot[i][j] - dot[i - 1][j - 1]) < 1e-5, "(%zu, %zu)", i, j);
    free(q); free(k);
}
/* <<[[test_block.c]] tests>> */
Test(block, every_missing_argument_is_refused) {
    const mha_block_shape s = {1, 4, 8, 2, 12};
    block_case c = block_case_random(s, 2650);
    const size_t n = 4 * 8;
    float y[4 * 8], gx[4 * 8], gy[4 * 8], *g[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < n; i++)
        gy[i] = 0.01f * (float)i;
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        size_t dims[2];
        const size_t count = mha_block_tensor_shape(&s, i, dims) == 2 ? dims[0] * dims[1] : dims[0];
        g[i] = calloc(count, sizeof(float));
    }
    const mha_block_grads grads = mha_block_grads_from(g);
    mha_block_saved saved;
    cr_assert_eq(mha_block_saved_init(&saved, &s), MHA_OK);
    cr_assert_eq(mha_block_forward(&s, &c.params, c.x, NULL, y, &saved), MHA_OK);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        const char *name = mha_block_tensor_names[i];
        const int optional = strcmp(name, "self_attn.in_proj_bias") == 0 ||
                             strcmp(name, "self_attn.out_proj.bias") == 0;
        const float *t[MHA_BLOCK_TENSORS];
        float *gt[MHA_BLOCK_TENSORS];
        for (size_t j = 0; j < MHA_BLOCK_TENSORS; j++)
            t[j] = c.t[j], gt[j] = g[j];
        t[i] = NULL, gt[i] = NULL;
        const mha_block_params p = mha_block_params_from(t);
        cr_expect_eq(mha_block_forward(&s, &p, c.x, NULL, y, NULL),
                     optional ? MHA_OK : MHA_ERR_NULL, "without %s", name);
        if (!optional) {
            const mha_block_grads missing = mha_block_grads_from(gt);
            cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, gy, gx, &missing),
                         MHA_ERR_NULL, "without the gradient of %s", name);
        }
    }
    cr_expect_eq(mha_block_forward(&s, NULL, c.x, NULL, y, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_block_forward(&s, &c.params, NULL, NULL, y, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_block_forward(&s, &c.params, c.x, NULL, NULL, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_block_forward_weights(&s, &c.params, c.x, NULL, y, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, NULL, gy, gx, &grads), MHA_ERR_NULL);
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, NULL, gx, &grads),
                 MHA_ERR_NULL);
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, gy, gx, NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, gy, NULL, &grads),
                 MHA_ERR_NULL);
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, gy, gx, &grads), MHA_OK);
    float mean[4], rstd[4];
    const float *w = c.params.norm1_weight, *b = c.params.norm1_bias;
    for (size_t i = 0; i < 4; i++) {
        const float *a[4] = {c.x, w, b, y};
        a[i] = NULL;
        cr_expect_eq(mha_layer_norm(4, 8, a[0], a[1], a[2], (float *)a[3], mean, rstd),
                     MHA_ERR_NULL, "layer norm without argument %zu", i);
    }
    cr_expect_eq(mha_layer_norm(0, 8, c.x, w, b, y, mean, rstd), MHA_ERR_SHAPE);
    cr_expect_eq(mha_layer_norm(4, 0, c.x, w, b, y, mean, rstd), MHA_ERR_SHAPE);
    cr_assert_eq(mha_layer_norm(4, 8, c.x, w, b, y, mean, rstd), MHA_OK);
    for (size_t i = 0; i < 6; i++) {
        const float *a[6] = {c.x, w, mean, rstd, gy, gx};
        a[i] = NULL;
        cr_expect_eq(mha_layer_norm_backward(4, 8, a[0], a[1], a[2], a[3], a[4], (float *)a[5],
                                             grads.norm1_weight, grads.norm1_bias),
                     MHA_ERR_NULL, "layer norm backward without argument %zu", i);
    }
    cr_expect_eq(mha_layer_norm_backward(0, 8, c.x, w, mean, rstd, gy, gx, grads.norm1_weight,
                                         grads.norm1_bias), MHA_ERR_SHAPE);
    cr_expect_eq(mha_layer_norm_backward(4, 0, c.x, w, mean, rstd, gy, gx, grads.norm1_weight,
                                         grads.norm1_bias), MHA_ERR_SHAPE);
    mha_block_saved_free(&saved);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(g[i]);
    block_case_free(&c);
}
/* <<[[test_block.c]] tests>> */
Test(block, impossible_shapes_and_mismatched_states_are_refused) {
    const size_t M = SIZE_MAX;
    const mha_block_shape huge[] = {
        {2, 1, 1, 1, M / 2 + 1}, {1, 1, 1, 1, M / 16 + 1},
        {1, 1, 64, 1, M / 64 + 1}, {1, 1, 8, 1, M / 32 + 1}};
    for (size_t i = 0; i < sizeof huge / sizeof *huge; i++) {
        mha_block_saved saved;
        cr_expect_eq(mha_block_shape_check(&huge[i]), MHA_ERR_OVERFLOW, "case %zu", i);
        cr_expect_eq(mha_block_saved_init(&saved, &huge[i]), MHA_ERR_OVERFLOW,
                     "case %zu", i);
        cr_expect_null(saved.memory);
    }
    cr_expect_eq(mha_block_shape_check(NULL), MHA_ERR_NULL);
    const mha_block_shape s = {1, 4, 8, 2, 12};
    const mha_block_shape other[] = {
        {2, 4, 8, 2, 12}, {1, 3, 8, 2, 12}, {1, 4, 4, 2, 12},
        {1, 4, 8, 4, 12}, {1, 4, 8, 2, 6}};
    block_case c = block_case_random(s, 2651);
    float y[4 * 8], gx[4 * 8], gy[4 * 8] = {0}, *g[MHA_BLOCK_TENSORS];
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        size_t dims[2];
        const size_t count = mha_block_tensor_shape(&s, i, dims) == 2 ? dims[0] * dims[1]
                                                                       : dims[0];
        g[i] = calloc(count, sizeof(float));
    }
    const mha_block_grads grads = mha_block_grads_from(g);
    mha_block_saved saved, wrong;
    cr_assert_eq(mha_block_saved_init(&saved, &s), MHA_OK);
    for (size_t i = 0; i < 4 * 8; i++)
        y[i] = gx[i] = -7.0f;
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, gy, gx, &grads),
                 MHA_ERR_NULL, "a state no forward pass has filled");
    cr_assert_eq(mha_block_forward(&s, &c.params, c.x, NULL, y, &saved), MHA_OK);
    for (size_t i = 0; i < 4 * 8; i++)
        y[i] = -7.0f;
    for (size_t k = 0; k < sizeof other / sizeof *other; k++) {
        cr_assert_eq(mha_block_saved_init(&wrong, &other[k]), MHA_OK);
        cr_expect_eq(mha_block_forward(&s, &c.params, c.x, NULL, y, &wrong),
                     MHA_ERR_SHAPE, "a state of shape %zu", k);
        mha_block_saved_free(&wrong);
        const mha_block_shape *o = &other[k];
        cr_expect_eq(mha_block_backward(o, &c.params, c.x, NULL, &saved, gy, gx, &grads),
                     MHA_ERR_SHAPE, "a pass of shape %zu", k);
    }
    mha_block_saved_free(&saved);
    cr_expect_eq(mha_block_backward(&s, &c.params, c.x, NULL, &saved, gy, gx, &grads),
                 MHA_ERR_NULL, "a freed state");
    for (size_t i = 0; i < 4 * 8; i++)
        cr_expect(y[i] == -7.0f && gx[i] == -7.0f, "output %zu was written", i);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++)
        free(g[i]);
    block_case_free(&c);
}
