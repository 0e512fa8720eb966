/* generated from chapters/01-shape.nw, chapters/02-sdpa.nw, chapters/03-naive.nw, chapters/04-batched.nw, chapters/05-masking.nw, chapters/06-kv-cache.nw, chapters/07-simd.nw, chapters/08-fast-attention.nw, chapters/09-backward.nw, chapters/09-fast-backward.nw, chapters/25-hardening.nw; edit the book, not this file */
#ifndef MHA_H
#define MHA_H
/* Multi-head attention, the library's one public header.
   Conventions (the chapter on shapes): row-major float32, batch first, shapes written in
   the letters B L S E H D.  Every function that can fail returns an
   mha_status; none prints, exits or aborts on bad input. */
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define MHA_MUST_CHECK __attribute__((warn_unused_result))
#else
#define MHA_MUST_CHECK
#endif
typedef enum mha_status {
    MHA_OK = 0,
    MHA_ERR_NULL,       /* a required pointer is NULL */
    MHA_ERR_SHAPE,      /* a size is zero, or two sizes disagree */
    MHA_ERR_HEADS,      /* H is not a positive divisor of E */
    MHA_ERR_OVERFLOW,   /* a size computation overflows size_t */
    MHA_ERR_NOMEM,      /* malloc failed */
    MHA_ERR_IO,         /* a file could not be opened, read or written */
    MHA_ERR_FORMAT,     /* a file is not what it claims to be */
    MHA_ERR_ARG,        /* an argument is out of its documented range */
    MHA_ERR_CACHE_FULL, /* an append would pass the cache's capacity */
    MHA_ERR_RANGE,      /* finite inputs gave an infinite or NaN result */
    MHA_STATUS_COUNT
} mha_status;
const char *mha_status_message(mha_status status);
typedef struct mha_shape {
    size_t batch;       /* B */
    size_t query_len;   /* L */
    size_t key_len;     /* S (= L for self-attention) */
    size_t embed_dim;   /* E */
    size_t heads;       /* H; the head width is D = E / H */
} mha_shape;
int mha_mul_overflows(size_t a, size_t b, size_t *product);
MHA_MUST_CHECK mha_status mha_shape_check(const mha_shape *shape);
typedef struct mha_params {
    const float *in_proj_weight;   /* (3E, E): rows W^Q, then W^K, then W^V */
    const float *in_proj_bias;     /* (3E) or NULL for no bias */
    const float *out_proj_weight;  /* (E, E) */
    const float *out_proj_bias;    /* (E) or NULL for no bias */
} mha_params;
size_t mha_param_count(size_t embed_dim, int with_bias);
typedef struct mha_flops {
    double q_proj, kv_proj, scores, context, out_proj;  /* matrix products */
    double total;                                       /* sum of the five */
    double softmax;                                     /* not in total */
} mha_flops;
mha_flops mha_flop_count(const mha_shape *shape);
void mha_matmul_nt(size_t M, size_t N, size_t K,
                   const float *A, size_t lda,
                   const float *W, size_t ldw,
                   const float *bias,
                   float *C, size_t ldc);
void mha_softmax_row(float *x, size_t n);
void mha_attend(size_t L, size_t S, size_t D,
                const float *q, size_t ldq,
                const float *k, size_t ldk,
                const float *v, size_t ldv,
                const float *bias,
                float *weights,
                float *context, size_t ldc);
typedef struct mha_mask {
    int causal;                            /* mask key j > query i */
    const unsigned char *attn_mask_bool;   /* (L, S), nonzero = masked, or NULL */
    const float *attn_mask_float;          /* (L, S), added to the scores, or NULL */
    const unsigned char *key_padding_mask; /* (B, S), nonzero = padding, or NULL */
} mha_mask;
/* 1 when the mask removes key j for query i of sequence b, S keys a sequence: a
   causal mask (j > i), the boolean mask, or key j being padding in sequence b;
   0 otherwise, and for a NULL mask.  Unchecked: i < L, j < S and b < B. */
int mha_key_masked(const mha_mask *mask, size_t S, size_t b, size_t i, size_t j);
/* 1: bias (L, S) holds sequence b's additive mask; 0: there is no mask, bias
   untouched; -1: shape or bias is NULL, or b >= B, bias untouched. */
MHA_MUST_CHECK
int mha_mask_bias(const mha_mask *mask, const mha_shape *shape, size_t b, float *bias);
typedef mha_status mha_forward_fn(const mha_shape *shape, const mha_params *params,
                                  const float *query, const float *key,
                                  const float *value, const mha_mask *mask,
                                  float *out, float *weights);
MHA_MUST_CHECK mha_forward_fn mha_forward_naive;
MHA_MUST_CHECK
mha_status mha_forward_check(const mha_shape *shape, const mha_params *params,
                             const float *query, const float **key,
                             const float **value, const float *out);
typedef struct mha_impl {
    const char *name;
    mha_forward_fn *forward;
} mha_impl;
extern const mha_impl mha_impls[];
extern const size_t mha_impl_count;
const mha_impl *mha_impl_find(const char *name);
/* The entry named name in a table of count entries of size bytes, each of
   which begins with its name (a const char *); NULL if none is. */
const void *mha_version_find(const void *table, size_t count, size_t size, const char *name);
void mha_transpose(size_t rows, size_t cols, const float *src, size_t lds,
                   float *dst, size_t ldd);
void mha_matmul_nn(size_t M, size_t N, size_t K,
                   const float *A, size_t lda,
                   const float *Wt, size_t ldw,
                   const float *bias,
                   float *C, size_t ldc);
MHA_MUST_CHECK mha_forward_fn mha_forward_batched;
typedef struct mha_kv_cache {
    size_t batch, kv_heads, capacity, head_dim;  /* B, H_kv, T_max, D */
    size_t *length;                              /* (B): positions filled */
    float *keys, *values;                        /* (B, H_kv, T_max, D) each */
    unsigned char *padding;                      /* (B, T_max): 1 = padding */
} mha_kv_cache;
MHA_MUST_CHECK
mha_status mha_kv_cache_init(mha_kv_cache *cache, size_t batch, size_t kv_heads,
                             size_t capacity, size_t head_dim);
/* Both do nothing to a NULL cache, or to one that holds no memory. */
void mha_kv_cache_reset(mha_kv_cache *cache);
void mha_kv_cache_free(mha_kv_cache *cache);
/* Unchecked: n is at most every sequence's length. */
void mha_kv_cache_take_back(mha_kv_cache *cache, size_t n);
MHA_MUST_CHECK
mha_status mha_kv_cache_append(mha_kv_cache *cache, size_t b, size_t n,
                               const float *keys, const float *values, size_t ld,
                               const unsigned char *padding);
void mha_rope(float *x, size_t D, size_t position, double base);
typedef struct mha_decoder {
    size_t embed_dim, heads, kv_heads;  /* E, H, H_kv: H_kv divides H */
    mha_params params;                  /* in_proj_weight (E + 2 H_kv D, E) */
    int rope;                           /* rotate q and k by position */
    float rope_base;                    /* 0 means 10000 */
} mha_decoder;
typedef mha_status mha_decode_fn(const mha_decoder *dec, mha_kv_cache *cache,
                                 size_t n, const float *x,
                                 const unsigned char *padding,
                                 float *out, float *weights);
MHA_MUST_CHECK mha_decode_fn mha_decode_step_naive, mha_decode_step_batched;
typedef struct mha_decode_impl {
    const char *name;
    mha_decode_fn *step;
} mha_decode_impl;
extern const mha_decode_impl mha_decode_impls[];
extern const size_t mha_decode_impl_count;
const mha_decode_impl *mha_decode_impl_find(const char *name);
MHA_MUST_CHECK
mha_status mha_decode_check(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out);
/* Rotate the step's new queries and keys (if dec->rope) and append the new
   keys and values to the cache.  qkv: (B, n, F), F = E + 2 H_kv D. */
MHA_MUST_CHECK
mha_status mha_decode_store(const mha_decoder *dec, mha_kv_cache *cache, size_t n, float *qkv,
                            const unsigned char *padding);
double mha_decode_flops(size_t embed_dim, size_t heads, size_t kv_heads, size_t position);
/* mha_set_isa(name) chooses the kernels of the fast versions: "scalar",
   "avx2" or "avx512", never one the processor lacks (the best it has below
   the one named); NULL or "" the best.  MHA_ERR_ARG, and nothing changed,
   for another name.  Not while another thread is inside a call. */
MHA_MUST_CHECK mha_status mha_set_isa(const char *name);
/* The fast versions run on mha_threads() threads, OpenMP's (one per core by
   default).  mha_set_threads(n) sets the number for the calls this thread
   makes from now on; n = 0 restores the default.  Results do not depend on it.
   MHA_ERR_ARG, and nothing changed, if n > mha_threads_max(), which is
   MHA_THREADS_PER_CORE per core. */
enum { MHA_THREADS_PER_CORE = 8 };
MHA_MUST_CHECK mha_status mha_set_threads(size_t threads);
size_t mha_threads(void);
size_t mha_threads_max(void);
MHA_MUST_CHECK mha_forward_fn mha_forward_blocked;
MHA_MUST_CHECK mha_decode_fn mha_decode_step_blocked;
typedef struct mha_grads {
    float *grad_query;             /* (B, L, E), or NULL */
    float *grad_key;               /* (B, S, E), or NULL (ignored in self-attention) */
    float *grad_value;             /* (B, S, E), or NULL (ignored when value = key) */
    float *grad_in_proj_weight;    /* (3E, E) */
    float *grad_in_proj_bias;      /* (3E), or NULL */
    float *grad_out_proj_weight;   /* (E, E) */
    float *grad_out_proj_bias;     /* (E), or NULL */
} mha_grads;
MHA_MUST_CHECK
mha_status mha_backward_naive(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads);
typedef struct mha_saved {
    mha_shape shape;
    int self;                  /* the projections are one (B, L, 3E) block */
    float *q, *k, *v;          /* head h of a row at column h D: into projections */
    size_t ldq, ldkv;          /* their row strides */
    float *projections;        /* (B, L, 3E); or (B, L, E) then (B, S, 2E) */
    float *context;            /* (B, L, E): the heads before the output projection */
    float *lse;                /* (B, H, L, 2): each row's m and log l, apart */
} mha_saved;
MHA_MUST_CHECK
mha_status mha_forward_saving(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, float *out, mha_saved *saved);
MHA_MUST_CHECK
mha_status mha_backward_saved(const mha_params *params, const float *query,
                              const float *key, const float *value, const mha_mask *mask,
                              const mha_saved *saved, const float *grad_out,
                              const mha_grads *grads);
void mha_saved_free(mha_saved *saved);
MHA_MUST_CHECK
mha_status mha_backward_blocked(const mha_shape *shape, const mha_params *params,
                                const float *query, const float *key, const float *value,
                                const mha_mask *mask, const float *grad_out,
                                const mha_grads *grads);
typedef mha_status mha_backward_fn(const mha_shape *shape, const mha_params *params,
                                   const float *query, const float *key, const float *value,
                                   const mha_mask *mask, const float *grad_out,
                                   const mha_grads *grads);
typedef struct mha_backward_impl {
    const char *name;
    mha_backward_fn *backward;
} mha_backward_impl;
extern const mha_backward_impl mha_backward_impls[];
extern const size_t mha_backward_impl_count;
const mha_backward_impl *mha_backward_impl_find(const char *name);
/* With the packed product: C (M, N) = A (M, K) W (N, K)^T; = A (M, K) B (K, N);
   = A (K, M)^T B (K, N).  Row strides lda, ldw or ldb, ldc.  MHA_ERR_NULL for
   a NULL matrix; MHA_ERR_SHAPE for a zero size or a stride below its row's
   length; MHA_ERR_OVERFLOW if a matrix's extent does not fit in size_t. */
MHA_MUST_CHECK
mha_status mha_product_nt(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *W, size_t ldw, float *C, size_t ldc);
MHA_MUST_CHECK
mha_status mha_product_nn(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc);
MHA_MUST_CHECK
mha_status mha_product_tn(size_t M, size_t N, size_t K, const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc);
size_t mha_first_nonfinite(const float *x, size_t n, int allow_minus_infinity);
typedef struct mha_span {
    const float *x;                /* NULL: an absent optional array */
    size_t n;
    int allow_minus_infinity;      /* a float mask's -inf masks the key */
} mha_span;
/* MHA_ERR_RANGE when one of the results holds a NaN or an infinity while every
   input is finite; MHA_OK otherwise. */
MHA_MUST_CHECK
mha_status mha_range_check(const mha_span *inputs, size_t n_inputs, const mha_span *results,
                           size_t n_results);
/* The rule for a forward pass of a checked shape (out: (B, L, E)). */
MHA_MUST_CHECK
mha_status mha_forward_range(const mha_shape *shape, const mha_params *params,
                             const float *query, const float *key, const float *value,
                             const mha_mask *mask, const float *out);
/* The rule for a backward pass of a checked shape. */
MHA_MUST_CHECK
mha_status mha_backward_range(const mha_shape *shape, const mha_params *params,
                              const float *query, const float *key, const float *value,
                              const mha_mask *mask, const float *grad_out,
                              const mha_grads *grads);
/* The rule for a decoding step of n new positions, after their append
   (x, out: (B, n, E)). */
MHA_MUST_CHECK
mha_status mha_decode_range(const mha_decoder *dec, const mha_kv_cache *cache, size_t n,
                            const float *x, const float *out);

#endif
