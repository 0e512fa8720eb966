/* generated from chapters/07-simd.nw, chapters/08-fast-attention.nw, chapters/09-fast-backward.nw, chapters/09-transformer-block.nw, chapters/16-austen-model.nw, chapters/24-measuring.nw; edit the book, not this file */
/* The kernels, written once for any vector width.  No include guard: each of
   kernels_scalar.c, kernels_avx2.c and kernels_avx512.c includes this file
   once, after defining its vector vocabulary (VEC, W, ISA, TARGET, ...). */
/* <<the product kernels, written once for any vector width>> */
/* <<[[kernel_bodies.h]] the matrix-product micro-kernel>> */
static TARGET void ISA(product_tile)(size_t K, const float *Ap, const float *Bp,
                                     float *C, size_t ldc, const float *start)
{
    VEC acc[GMR][GNV];
    UNROLL for (int r = 0; r < GMR; r++) {
        __builtin_prefetch(C + r * ldc, 1);
        __builtin_prefetch(C + r * ldc + GNV * W - 1, 1);
        UNROLL for (int v = 0; v < GNV; v++)
            acc[r][v] = VZERO();
    }
    for (size_t k = 0; k < K; k++) {
        VEC b[GNV];
        UNROLL for (int v = 0; v < GNV; v++)
            b[v] = VLOAD(Bp + k * GNV * W + v * W);
        UNROLL for (int r = 0; r < GMR; r++) {
            const VEC a = VSET1(Ap[k * GMR + r]);
            UNROLL for (int v = 0; v < GNV; v++)
                acc[r][v] = VFMA(a, b[v], acc[r][v]);
        }
    }
    if (start != NULL) {
        UNROLL for (int r = 0; r < GMR; r++)
            UNROLL for (int v = 0; v < GNV; v++)
                VSTORE(C + r * ldc + v * W, VADD(VLOAD(start + v * W), acc[r][v]));
        return;
    }
    UNROLL for (int r = 0; r < GMR; r++)
        UNROLL for (int v = 0; v < GNV; v++)
            VSTORE(C + r * ldc + v * W, VADD(VLOAD(C + r * ldc + v * W), acc[r][v]));
}
/* <<[[kernel_bodies.h]] the packing kernel>> */
static TARGET void ISA(pack_rows)(size_t n, size_t depth, const float *src, size_t rs,
                                  float *dst, size_t ld)
{
    for (size_t r0 = 0; r0 < ld; r0 += W) {
        const size_t lanes = ld - r0 < W ? ld - r0 : W;        /* of dst, in this group */
        size_t k = 0;
        for (; k + W <= depth; k += W) {
            VEC t[W];
            UNROLL for (size_t r = 0; r < W; r++)
                t[r] = r0 + r < n ? VLOAD(src + (r0 + r) * rs + k) : VZERO();
            VTRANSPOSE(t);
            UNROLL for (size_t j = 0; j < W; j++)
                VSTORE_FIRST(dst + (k + j) * ld + r0, t[j], lanes);
        }
        for (; k < depth; k++)                                 /* the last depth % W */
            for (size_t r = r0; r < r0 + lanes; r++)
                dst[k * ld + r] = r < n ? src[r * rs + k] : 0.0f;
    }
}

static TARGET void ISA(pack_cols)(size_t n, size_t depth, const float *src, size_t cs,
                                  float *dst, size_t ld)
{
    for (size_t k = 0; k < depth; k++)
        for (size_t p0 = 0; p0 < n; p0 += ld)                   /* a panel's first row */
            for (size_t r0 = p0; r0 < p0 + ld; r0 += W) {
                const size_t lanes = p0 + ld - r0 < W ? p0 + ld - r0 : W;
                const size_t have = n <= r0 ? 0 : n - r0 < W ? n - r0 : W;
                if (k + 8 < depth)                              /* the row eight ahead */
                    __builtin_prefetch(src + (k + 8) * cs + r0);
                VSTORE_FIRST(dst + p0 * depth + k * ld + (r0 - p0),
                             VLOAD_FIRST(src + k * cs + r0, have), lanes);
            }
}
/* <<[[kernel_bodies.h]] the vector kernels>> */
static TARGET float ISA(dot)(const float *x, const float *y, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++)
            acc[u] = VFMA(VLOAD(x + i + u * W), VLOAD(y + i + u * W), acc[u]);
    for (; i + W <= n; i += W)
        acc[0] = VFMA(VLOAD(x + i), VLOAD(y + i), acc[0]);
    float s = VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
    for (; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static TARGET void ISA(axpy)(float a, const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + W <= n; i += W)
        VSTORE(y + i, VFMA(VSET1(a), VLOAD(x + i), VLOAD(y + i)));
    for (; i < n; i++)
        y[i] += a * x[i];
}
/* <<[[kernel_bodies.h]] the vector kernels>> */
static inline __attribute__((always_inline)) TARGET void
ISA(direct_block)(int nv, size_t K, const float *a, size_t rs, size_t cs, const float *b,
                  size_t ldb, float *c, size_t ldc)
{
    VEC acc[4][ANV];
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VLOAD(c + i * ldc + u * W);
    for (size_t k = 0; k < K; k++) {
        VEC row[ANV];
        UNROLL for (int u = 0; u < nv; u++) row[u] = VLOAD(b + k * ldb + u * W);
        UNROLL for (int i = 0; i < 4; i++) {
            const VEC x = VSET1(a[i * rs + k * cs]);
            UNROLL for (int u = 0; u < nv; u++) acc[i][u] = VFMA(x, row[u], acc[i][u]);
        }
    }
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int u = 0; u < nv; u++) VSTORE(c + i * ldc + u * W, acc[i][u]);
}
static inline __attribute__((always_inline)) TARGET void
ISA(direct_rows)(size_t rows, size_t cols, size_t K, const float *a, size_t rs, size_t cs,
                 const float *b, size_t ldb, float *c, size_t ldc)
{
    for (size_t i = 0; i < rows; i += 4) {
        size_t j = 0;
        for (; j + ANV * W <= cols; j += ANV * W)
            ISA(direct_block)(ANV, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; ANV > 2 && j + 2 * W <= cols; j += 2 * W)
            ISA(direct_block)(2, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j + W <= cols; j += W)
            ISA(direct_block)(1, K, a + i * rs, rs, cs, b + j, ldb, c + i * ldc + j, ldc);
        for (; j < cols; j++)                           /* the last columns, one sum each */
            for (size_t r = i; r < i + 4; r++) {
                float sum = c[r * ldc + j];
                for (size_t k = 0; k < K; k++)
                    sum += a[r * rs + k * cs] * b[k * ldb + j];
                c[r * ldc + j] = sum;
            }
    }
}
static TARGET void ISA(direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs,
                               size_t cs, const float *b, size_t ldb, float *c, size_t ldc)
{
    if (cs == 1)                        /* the common case, with its stride a constant */
        ISA(direct_rows)(rows, cols, K, a, rs, 1, b, ldb, c, ldc);
    else
        ISA(direct_rows)(rows, cols, K, a, rs, cs, b, ldb, c, ldc);
}
/* <<[[kernel_bodies.h]] the measuring kernels>> */
static TARGET double ISA(fma_loop)(size_t n)
{
    VEC acc[16];
    UNROLL for (int u = 0; u < 16; u++) acc[u] = VSET1((float)u * 1e-3f);
    const VEC a = VSET1(0.999999f), b = VSET1(1e-6f);
    for (size_t i = 0; i < n; i++)
        UNROLL for (int u = 0; u < 16; u++) acc[u] = VFMA(acc[u], a, b);
    VEC sum = VZERO();
    UNROLL for (int u = 0; u < 16; u++) sum = VADD(sum, acc[u]);
    volatile float sink = VHSUM(sum);
    (void)sink;
    return 2.0 * 16.0 * W * (double)n;
}
/* <<[[kernel_bodies.h]] the measuring kernels>> */
static TARGET float ISA(stream_sum)(const float *x, size_t n)
{
    VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
    for (size_t i = 0; i < n; i += 4 * W)
        UNROLL for (int u = 0; u < 4; u++) acc[u] = VADD(acc[u], VLOAD(x + i + u * W));
    return VHSUM(VADD(VADD(acc[0], acc[1]), VADD(acc[2], acc[3])));
}
/* <<the attention kernels, written once for any vector width>> */
/* <<[[kernel_bodies.h]] the exponential>> */
static inline TARGET VEC ISA(vexp)(VEC x)
{
    const VEC lo = VSET1(-87.0f), hi = VSET1(88.0f);
    const VEC t = VMIN(hi, VMAX(lo, x));                 /* NaN stays NaN */
    const VEC n = VROUND(VMUL(t, VSET1(1.44269504088896341f)));
    VEC r = VFMA(n, VSET1(-0.693359375f), t);            /* exact: few bits */
    r = VFMA(n, VSET1(2.12194440e-4f), r);               /* the rest of ln 2 */
    VEC p = VSET1(1.9875691500e-4f);
    p = VFMA(p, r, VSET1(1.3981999507e-3f));
    p = VFMA(p, r, VSET1(8.3334519073e-3f));
    p = VFMA(p, r, VSET1(4.1665795894e-2f));
    p = VFMA(p, r, VSET1(1.6666665459e-1f));
    p = VFMA(p, r, VSET1(5.0000001201e-1f));
    const VEC y = VADD(VFMA(VMUL(p, r), r, r), VSET1(1.0f));   /* 1 + r + r^2 p(r) */
    return VKEEP_NOT_BELOW(x, lo, VLDEXP(y, n));
}
/* <<[[kernel_bodies.h]] the row operations>> */
static TARGET float ISA(fast_row_max)(const float *x, size_t n)
{
    VEC m = VSET1(-INFINITY);
    for (size_t i = 0; i < n; i += W)
        m = VMAX(m, VLOAD(x + i));
    return VHMAX(m);
}

static TARGET float ISA(fast_exp_sum)(float *x, size_t n, float shift)
{
    const VEC s = VSET1(shift);
    VEC sum = VZERO();
    for (size_t i = 0; i < n; i += W) {
        const VEC e = ISA(vexp)(VADD(VLOAD(x + i), VMUL(s, VSET1(-1.0f))));
        VSTORE(x + i, e);
        sum = VADD(sum, e);
    }
    return VHSUM(sum);
}

static TARGET void ISA(fast_scale)(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i += W)
        VSTORE(x + i, VMUL(VLOAD(x + i), VSET1(a)));
}
/* <<[[kernel_bodies.h]] the tile products>> */
static TARGET void ISA(fast_scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                                    const float *kt, size_t ldk, float scale, float *s, size_t lds)
{
    for (size_t r = 0; r < rows; r += 4)
        for (size_t c = 0; c < cols; c += ANV * W) {
            VEC acc[4][ANV];
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VZERO();
            for (size_t d = 0; d < D; d++) {
                VEC key[ANV];
                UNROLL for (int v = 0; v < ANV; v++) key[v] = VLOAD(kt + d * ldk + c + v * W);
                UNROLL for (int i = 0; i < 4; i++) {
                    const VEC a = VSET1(q[(r + i) * ldq + d]);
                    UNROLL for (int v = 0; v < ANV; v++) acc[i][v] = VFMA(a, key[v], acc[i][v]);
                }
            }
            UNROLL for (int i = 0; i < 4; i++)
                UNROLL for (int v = 0; v < ANV; v++)
                    VSTORE(s + (r + i) * lds + c + v * W, VMUL(acc[i][v], VSET1(scale)));
        }
}
/* <<[[kernel_bodies.h]] the tile products>> */
static TARGET void ISA(fast_pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
                                const float *v, size_t ldv, float *acc, size_t lda)
{
    ISA(direct)(rows, Dp, n, p, ldp, 1, v, ldv, acc, lda);
}
/* <<[[kernel_bodies.h]] the decoding sweeps>> */
static TARGET void ISA(fast_key_dots)(const float *q, size_t ldq, size_t heads, const float *keys,
                                      size_t n, size_t D, float scale, float *s, size_t lds)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        for (size_t j = 0; j < n; j++) {
            const float *key = keys + j * D;
            for (size_t e = 0; e < D; e += 64 / sizeof(float))    /* each line, 8 keys ahead */
                __builtin_prefetch(key + 8 * D + e);
            VEC acc[4] = {VZERO(), VZERO(), VZERO(), VZERO()};
            size_t d = 0;
            for (; d + W <= D; d += W) {
                const VEC k = VLOAD(key + d);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn) acc[h] = VFMA(VLOAD(q + (h0 + h) * ldq + d), k, acc[h]);
            }
            UNROLL for (size_t h = 0; h < 4; h++) {
                if (h >= hn) continue;
                const float *qh = q + (h0 + h) * ldq;
                float sum = VHSUM(acc[h]);
                for (size_t e = d; e < D; e++)
                    sum += qh[e] * key[e];
                s[(h0 + h) * lds + j] = sum * scale;
            }
        }
    }
}

static TARGET void ISA(fast_weighted_rows)(const float *p, size_t ldp, size_t heads,
                                           const float *values, size_t n, size_t D, float *acc,
                                           size_t lda)
{
    for (size_t h0 = 0; h0 < heads; h0 += 4, p += 4 * ldp, acc += 4 * lda) {
        const size_t hn = heads - h0 < 4 ? heads - h0 : 4;
        size_t d = 0;
        for (; d + ANV * W <= D; d += ANV * W) {
            VEC a[4][ANV];
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    a[h][u] = h < hn ? VLOAD(acc + h * lda + d + u * W) : VZERO();
            for (size_t j = 0; j < n; j++) {
                VEC v[ANV];
                for (size_t e = 0; e < ANV * W; e += 64 / sizeof(float))   /* 8 rows ahead */
                    __builtin_prefetch(values + (j + 8) * D + d + e);
                UNROLL for (int u = 0; u < ANV; u++) v[u] = VLOAD(values + j * D + d + u * W);
                UNROLL for (size_t h = 0; h < 4; h++)
                    if (h < hn && p[h * ldp + j] != 0.0f) {
                        const VEC w = VSET1(p[h * ldp + j]);
                        UNROLL for (int u = 0; u < ANV; u++) a[h][u] = VFMA(w, v[u], a[h][u]);
                    }
            }
            UNROLL for (size_t h = 0; h < 4; h++)
                UNROLL for (int u = 0; u < ANV; u++)
                    if (h < hn) VSTORE(acc + h * lda + d + u * W, a[h][u]);
        }
        for (size_t h = 0; h < hn; h++)                 /* the last columns, head by head */
            for (size_t e = d; e < D; e++)
                for (size_t j = 0; j < n; j++)
                    if (p[h * ldp + j] != 0.0f)
                        acc[h * lda + e] += p[h * ldp + j] * values[j * D + e];
    }
}
/* <<the attention kernels, written once for any vector width>> */
/* <<[[kernel_bodies.h]] the backward's row operations>> */
static TARGET void ISA(fast_exp_shifted)(float *x, size_t n, const float *shift,
                                         const float *log_sum, size_t step)
{
    const VEC minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC m = step ? VLOAD(shift + i) : VSET1(*shift);
        const VEC g = step ? VLOAD(log_sum + i) : VSET1(*log_sum);
        VSTORE(x + i, ISA(vexp)(VADD(VADD(VLOAD(x + i), VMUL(m, minus)), VMUL(g, minus))));
    }
}

static TARGET void ISA(fast_softmax_grad)(float *dp, const float *p, size_t n, const float *delta,
                                          size_t step, float scale)
{
    const VEC s = VSET1(scale), minus = VSET1(-1.0f);
    for (size_t i = 0; i < n; i += W) {
        const VEC d = step ? VLOAD(delta + i) : VSET1(*delta);
        VSTORE(dp + i, VMUL(VMUL(s, VLOAD(p + i)), VADD(VLOAD(dp + i), VMUL(d, minus))));
    }
}
/* <<the block's kernels, written once for any vector width>> */
/* s and e with Phi(-|x|) = s e: e = exp(-x^2 / 2), s = t exp(f(t)) / 2 */
static inline TARGET VEC ISA(vgaussian_tail)(VEC x, VEC *e)
{
    const VEC a = VMIN(VSET1(14.0f), VMAX(x, VMUL(x, VSET1(-1.0f))));   /* |x|; NaN stays */
    const VEC t = VDIV(VSET1(1.0f), VFMA(a, VSET1(0.35355338f), VSET1(1.0f)));
    const VEC u = VFMA(t, VSET1(2.404061f), VSET1(-1.4040611f));       /* t's range onto [-1, 1] */
    VEC f = VSET1(-2.179657349e-05f);
    f = VFMA(f, u, VSET1(5.513914221e-05f));
    f = VFMA(f, u, VSET1(1.279522548e-04f));
    f = VFMA(f, u, VSET1(-5.294682342e-04f));
    f = VFMA(f, u, VSET1(-2.794150787e-04f));
    f = VFMA(f, u, VSET1(3.675725311e-03f));
    f = VFMA(f, u, VSET1(-1.006917097e-03f));
    f = VFMA(f, u, VSET1(-2.932876907e-02f));
    f = VFMA(f, u, VSET1(1.554287225e-02f));
    f = VFMA(f, u, VSET1(5.693966150e-01f));
    f = VFMA(f, u, VSET1(-5.576319098e-01f));
    const VEC square = VMUL(a, a);
    const VEC error = VFMA_FUSED(a, a, VMUL(square, VSET1(-1.0f)));    /* a a - square, exactly */
    *e = VMUL(ISA(vexp)(VMUL(square, VSET1(-0.5f))), VFMA(error, VSET1(-0.5f), VSET1(1.0f)));
    return VMUL(VMUL(VSET1(0.5f), t), ISA(vexp)(f));
}
/* <<the block's kernels, written once for any vector width>> */
static TARGET void ISA(gelu_vectors)(const float *x, float *y, size_t n)    /* n % W == 0 */
{
    for (size_t i = 0; i < n; i += W) {
        const VEC v = VLOAD(x + i);
        VEC e = VZERO();
        const VEC s = ISA(vgaussian_tail)(v, &e);
        const VEC below = VMUL(VMUL(v, s), e);                          /* x Phi(-|x|) */
        const VEC above = VMUL(v, VFMA(VMUL(s, e), VSET1(-1.0f), VSET1(1.0f)));
        VSTORE(y + i, VSELECT_NEGATIVE(v, below, above));
    }
}

static TARGET void ISA(gelu_backward_vectors)(const float *x, const float *gy, float *gx,
                                              size_t n)                    /* n % W == 0 */
{
    for (size_t i = 0; i < n; i += W) {
        const VEC v = VLOAD(x + i);
        VEC e = VZERO();
        const VEC s = ISA(vgaussian_tail)(v, &e);
        const VEC tail = VMUL(s, e);                                    /* Phi(-|x|) */
        const VEC cdf = VSELECT_NEGATIVE(v, tail, VFMA(tail, VSET1(-1.0f), VSET1(1.0f)));
        const VEC slope = VFMA(VMUL(v, e), VSET1(0.3989422804014327f), cdf);   /* + x phi(x) */
        VSTORE(gx + i, VMUL(VLOAD(gy + i), slope));
    }
}

static TARGET void ISA(fast_gelu)(const float *x, float *y, size_t n)
{
    const size_t whole = n - n % W;
    ISA(gelu_vectors)(x, y, whole);
    if (whole < n) {
        float in[W] = {0}, out[W];
        memcpy(in, x + whole, (n - whole) * sizeof *in);
        ISA(gelu_vectors)(in, out, W);
        memcpy(y + whole, out, (n - whole) * sizeof *out);
    }
}

static TARGET void ISA(fast_gelu_backward)(const float *x, const float *gy, float *gx, size_t n)
{
    const size_t whole = n - n % W;
    ISA(gelu_backward_vectors)(x, gy, gx, whole);
    if (whole < n) {
        float in[W] = {0}, grad[W] = {0}, out[W];
        memcpy(in, x + whole, (n - whole) * sizeof *in);
        memcpy(grad, gy + whole, (n - whole) * sizeof *grad);
        ISA(gelu_backward_vectors)(in, grad, out, W);
        memcpy(gx + whole, out, (n - whole) * sizeof *out);
    }
}
/* <<the optimiser's kernel, written once for any vector width>> */
static TARGET void ISA(adamw_vectors)(float *p, float *m, float *v, const float *g, size_t n,
                                      const fast_adamw_rule *r)         /* n % W == 0 */
{
    const VEC scale = VSET1(r->scale), beta1 = VSET1(r->beta1), beta2 = VSET1(r->beta2);
    const VEC rest1 = VSET1(1.0f - r->beta1), rest2 = VSET1(1.0f - r->beta2);
    const VEC shrink = VSET1(r->shrink), step = VSET1(-r->step);
    const VEC root_fix = VSET1(r->root_fix), epsilon = VSET1(r->epsilon);
    for (size_t i = 0; i < n; i += W) {
        const VEC grad = VMUL(VLOAD(g + i), scale);
        const VEC mean = VFMA(grad, rest1, VMUL(VLOAD(m + i), beta1));
        const VEC square = VFMA(VMUL(grad, grad), rest2, VMUL(VLOAD(v + i), beta2));
        const VEC denom = VADD(VDIV(VSQRT(square), root_fix), epsilon);
        VSTORE(m + i, mean);
        VSTORE(v + i, square);
        VSTORE(p + i, VFMA(VDIV(mean, denom), step, VMUL(VLOAD(p + i), shrink)));
    }
}

static TARGET void ISA(fast_adamw)(float *p, float *m, float *v, const float *g, size_t n,
                                   const fast_adamw_rule *r)
{
    const size_t whole = n - n % W;
    ISA(adamw_vectors)(p, m, v, g, whole, r);
    if (whole < n) {
        float tp[W] = {0}, tm[W] = {0}, tv[W] = {0}, tg[W] = {0};
        const size_t rest = (n - whole) * sizeof(float);
        memcpy(tp, p + whole, rest), memcpy(tm, m + whole, rest);
        memcpy(tv, v + whole, rest), memcpy(tg, g + whole, rest);
        ISA(adamw_vectors)(tp, tm, tv, tg, W, r);
        memcpy(p + whole, tp, rest), memcpy(m + whole, tm, rest), memcpy(v + whole, tv, rest);
    }
}
/* <<the kernel table of this instruction set>> */
const fast_kernels ISA(fast_kernels) = {
    .name = ISA_NAME, .mr = GMR, .nr = GNV * W, .width = ANV * W,
    .product_tile = ISA(product_tile), .pack_rows = ISA(pack_rows),
    .pack_cols = ISA(pack_cols),
    .scores = ISA(fast_scores), .pv = ISA(fast_pv),
    .row_max = ISA(fast_row_max), .exp_sum = ISA(fast_exp_sum), .scale = ISA(fast_scale),
    .dot = ISA(dot), .axpy = ISA(axpy), .fma_loop = ISA(fma_loop),
    .stream_sum = ISA(stream_sum), .key_dots = ISA(fast_key_dots),
    .weighted_rows = ISA(fast_weighted_rows), .direct = ISA(direct),
    .exp_shifted = ISA(fast_exp_shifted), .softmax_grad = ISA(fast_softmax_grad),
    .gelu = ISA(fast_gelu), .gelu_backward = ISA(fast_gelu_backward),
    .adamw = ISA(fast_adamw),
};
