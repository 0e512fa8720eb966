/* generated from chapters/07-simd.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#ifndef MHA_FAST_H
#define MHA_FAST_H
/* Internal interface of the fast versions: the kernels of one instruction
   set and their choice, the packed matrix product and the fused attention.
   Not part of mha.h. */
#include <stddef.h>
#include "mha_internal.h"

/* <<[[fast.h]] kernel tables>> */
typedef struct fast_adamw_rule {       /* the constants of one AdamW step, in float */
    float scale;                       /* the gradient's factor: the clipping, 1 for none */
    float beta1, beta2, epsilon;
    float shrink;                      /* 1 - rate weight_decay, or 1 */
    float step;                        /* rate / (1 - beta1^t) */
    float root_fix;                    /* sqrt(1 - beta2^t) */
} fast_adamw_rule;
typedef struct fast_kernels {
    const char *name;                      /* "avx512", "avx2" or "scalar" */
    size_t mr, nr, width;
    /* C (mr, nr) += Ap (K, mr)^T Bp (K, nr): both packed, k-major; with a start row
       (nr floats), C = start + Ap^T Bp in every row instead, C not read */
    void (*product_tile)(size_t K, const float *Ap, const float *Bp, float *C, size_t ldc,
                         const float *start);
    /* dst[k ld + r] = src[r rs + k] for r < n, k < depth, and 0 for n <= r < ld: the
       rows of src become the columns of a k-major panel; n <= ld */
    void (*pack_rows)(size_t n, size_t depth, const float *src, size_t rs, float *dst,
                      size_t ld);
    /* the n rows of a source stored transposed, element (r, k) at src[k cs + r], in panels
       of ld rows one after another, panel p at dst + p ld depth; the last panel's rows
       past n are zeros.  Read along the source's rows: k after k, every panel in turn */
    void (*pack_cols)(size_t n, size_t depth, const float *src, size_t cs, float *dst,
                      size_t ld);
    /* s (rows, cols) = scale * q (rows, D) kt (D, cols); rows % 4 == 0, cols % width == 0 */
    void (*scores)(size_t rows, size_t cols, size_t D, const float *q, size_t ldq,
                   const float *kt, size_t ldk, float scale, float *s, size_t lds);
    /* acc (rows, Dp) += p (rows, n) v (n, Dp); rows % 4 == 0, Dp % width == 0 */
    void (*pv)(size_t rows, size_t n, size_t Dp, const float *p, size_t ldp,
               const float *v, size_t ldv, float *acc, size_t lda);
    float (*row_max)(const float *x, size_t n);           /* n % width == 0 */
    float (*exp_sum)(float *x, size_t n, float shift);    /* x = exp(x - shift); sum */
    void (*scale)(float *x, size_t n, float a);           /* x *= a */
    float (*dot)(const float *x, const float *y, size_t n);         /* any n */
    void (*axpy)(float a, const float *x, float *y, size_t n);      /* y += a x, any n */
    double (*fma_loop)(size_t n);          /* n rounds of 16 vector FMAs; returns the FLOPs */
    float (*stream_sum)(const float *x, size_t n);                  /* n % (4 width) == 0 */
    /* decoding, for query heads h < heads sharing keys and values (n, D), any n and D:
       s[h lds + j] = scale q[h ldq ..] . keys[j]; acc[h lda ..] += sum of p[h ldp + j] values[j] */
    void (*key_dots)(const float *q, size_t ldq, size_t heads, const float *keys, size_t n,
                     size_t D, float scale, float *s, size_t lds);
    void (*weighted_rows)(const float *p, size_t ldp, size_t heads, const float *values,
                          size_t n, size_t D, float *acc, size_t lda);
    /* C (rows, cols) += A B read in place: A's element (i, k) at a[i rs + k cs], B (K, cols)
       with row stride ldb; rows % 4 == 0, any cols */
    void (*direct)(size_t rows, size_t cols, size_t K, const float *a, size_t rs, size_t cs,
                   const float *b, size_t ldb, float *c, size_t ldc);
    /* the backward pass's rows, n % width == 0, step 0 (one shift for the row) or 1 (one per
       element): x = exp((x - shift[i step]) - log_sum[i step]);
       dp = scale p (dp - delta[i step]) */
    void (*exp_shifted)(float *x, size_t n, const float *shift, const float *log_sum,
                        size_t step);
    void (*softmax_grad)(float *dp, const float *p, size_t n, const float *delta, size_t step,
                         float scale);
    /* the block's activation, any n: y = x Phi(x); grad_x = grad_y (Phi(x) + x phi(x)),
       grad_x may be grad_y */
    void (*gelu)(const float *x, float *y, size_t n);
    void (*gelu_backward)(const float *x, const float *grad_y, float *grad_x, size_t n);
    /* one AdamW step of n parameters p with moments m, v from gradients g, any n */
    void (*adamw)(float *p, float *m, float *v, const float *g, size_t n,
                  const fast_adamw_rule *rule);
} fast_kernels;

extern const fast_kernels fast_kernels_scalar;
#if defined(__x86_64__)
extern const fast_kernels fast_kernels_avx2, fast_kernels_avx512;
#endif
/* <<[[fast.h]] choosing the kernels>> */
const fast_kernels *fast_kernels_select(void);    /* chosen at start-up or by mha_set_isa */
int fast_kernels_supported(const fast_kernels *k);
/* <<[[fast.h]] the packed product>> */
typedef struct fast_blocking {
    size_t l1, l2;            /* bytes of L1 data cache and of L2, per core */
    size_t kc, mc;            /* product: depth of a block, rows of A per block */
    size_t bq, bk;            /* attention: queries and keys per tile */
} fast_blocking;

fast_blocking fast_blocking_for(const fast_kernels *k, size_t head_dim);
/* <<[[fast.h]] the packed product>> */
typedef struct fast_packed {
    size_t N, K, kc, nr, panels;   /* W is (N, K); panels = ceil(N / nr) */
    float *data;                   /* [K block][panel][k in block][nr] */
} fast_packed;

MHA_MUST_CHECK
mha_status fast_pack(const fast_kernels *k, const fast_blocking *b,
                     size_t N, size_t K, const float *W, size_t ldw, fast_packed *p);
void fast_packed_free(fast_packed *p);
MHA_MUST_CHECK
mha_status fast_product(const fast_kernels *k, const fast_blocking *b, size_t M,
                        const float *A, size_t lda, const fast_packed *Wp,
                        const float *bias, float *C, size_t ldc);
/* The same with each operand's element (row i, column k) at X[i rs + k cs]:
   cs = 1 is the row-major case above, rs = 1 a transposed operand read in place. */
MHA_MUST_CHECK
mha_status fast_pack_strided(const fast_kernels *k, const fast_blocking *b, size_t N,
                             size_t K, const float *W, size_t rs, size_t cs, fast_packed *p);
MHA_MUST_CHECK
mha_status fast_product_strided(const fast_kernels *k, const fast_blocking *b, size_t M,
                                const float *A, size_t rs, size_t cs, const fast_packed *Wp,
                                const float *bias, float *C, size_t ldc);
/* <<[[fast.h]] the packed product>> */
void fast_product_vector(const fast_kernels *k, size_t M, const float *X, size_t ldx,
                         const float *W, size_t N, size_t K, const float *bias, float *Y,
                         size_t ldy);
/* <<[[fast.h]] the packed product>> */
/* C (M, N) = A B + bias: A's element (i, k) at A[i rs + k cs], B (K, N) with row
   stride ldb, bias NULL or (N); for B small enough to stay in cache */
void fast_product_direct(const fast_kernels *k, size_t M, size_t N, size_t K, const float *A,
                         size_t rs, size_t cs, const float *B, size_t ldb, const float *bias,
                         float *C, size_t ldc);
/* <<[[fast.h]] scratch kept between calls>> */
/* Scratch that outlives a call.  fast_scratch_take(n) returns n bytes (64-byte
   aligned, contents undefined) or NULL; fast_scratch_give(p) hands a block back
   (NULL is ignored), where the next take of at most its size may find it.
   fast_scratch_release() frees every block kept.  Thread-safe. */
void *fast_scratch_take(size_t bytes);
void fast_scratch_give(void *block);
void fast_scratch_release(void);
/* <<[[fast.h]] fused attention>> */
typedef struct fast_attention {
    size_t B, H, L, S, D;                  /* the shape; E = H D */
    const float *q, *k, *v;                /* head h of sequence b at column h D */
    size_t ldq, ldk, ldv;                  /* row strides */
    const mha_mask *mask;                  /* or NULL */
    float *context;                        /* (B, L, E) out */
    float *weights;                        /* (B, H, L, S) out, or NULL */
} fast_attention;

/* The fused core, in tiles of b->bq queries and b->bk keys.  Unless lse is
   NULL, lse (B, H, L, 2) receives each row's m and log l: m is -inf for a row
   whose keys are all masked (then log l is 0), NaN for a row that met a NaN. */
MHA_MUST_CHECK
mha_status fast_attend(const fast_kernels *k, const fast_blocking *b,
                       const fast_attention *a, float *lse);
/* One row's online softmax: fold the scores p (cols) of one tile into the running
   maximum m, sum l and context acc (Dp); p becomes the tile's weights e^(p - m). */
void fast_online_update(const fast_kernels *k, float *p, size_t cols, float *m, float *l,
                        float *acc, size_t Dp);
#endif
