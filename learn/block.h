/* generated from chapters/09-transformer-block.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#ifndef MHA_BLOCK_H
#define MHA_BLOCK_H
/* The transformer block (the chapter of that name): PyTorch's
   TransformerEncoderLayer(E, H, F, dropout=0, activation="gelu",
   batch_first=True, norm_first=True): y = z + MLP(N2(z)), z = x + SA(N1(x)).
   LayerNorm eps 1e-5 with the biased variance; exact (erf) GELU.  Row-major
   float32, batch first; shapes in the letters B L E H F. */
#include <stddef.h>
#include "mha.h"

#define MHA_LAYER_NORM_EPS 1e-5
/* <<[[block.h]] types>> */
typedef struct mha_block_shape {
    size_t batch, length, embed_dim, heads, hidden;   /* B, L, E, H, F */
} mha_block_shape;

typedef struct mha_block_params {              /* names of the PyTorch state_dict */
    const float *norm1_weight, *norm1_bias;    /* (E) */
    mha_params attn;                           /* self_attn.in_proj_weight (3E,E), in_proj_bias (3E),
                                                  out_proj.weight (E,E), out_proj.bias (E) */
    const float *norm2_weight, *norm2_bias;    /* (E) */
    const float *linear1_weight, *linear1_bias;/* (F,E), (F) */
    const float *linear2_weight, *linear2_bias;/* (E,F), (E) */
} mha_block_params;

typedef struct mha_block_grads {               /* same shapes; written, not accumulated */
    float *norm1_weight, *norm1_bias, *in_proj_weight, *in_proj_bias,
          *out_proj_weight, *out_proj_bias, *norm2_weight, *norm2_bias,
          *linear1_weight, *linear1_bias, *linear2_weight, *linear2_bias;
} mha_block_grads;
/* <<[[block.h]] types>> */
typedef struct mha_block_saved {
    mha_block_shape shape;
    float *norm1, *mean1, *rstd1;  /* (B L, E), (B L), (B L): N1(x) and its statistics */
    mha_saved attn;                /* the attention's state (mha_forward_saving) */
    float *stream;                 /* (B L, E): z = x + SA(N1(x)) */
    float *norm2, *mean2, *rstd2;  /* N2(z), as for N1 */
    float *hidden;                 /* (B L, F): N2(z) W1^T + b1 */
    float *activated;              /* (B L, F): GELU of hidden */
    float *memory;                 /* the one allocation behind every array above but attn */
} mha_block_saved;
/* <<[[block.h]] layer normalisation and GELU>> */
/* Each of rows rows of x (rows, E) normalised: y = (x - mean) rstd weight + bias,
   rstd = 1 / sqrt(biased variance + 1e-5).  mean and rstd (rows) are written
   when not NULL.  MHA_ERR_NULL for a NULL x, weight, bias or y; MHA_ERR_SHAPE
   for a zero size.  y may be x. */
MHA_MUST_CHECK mha_status mha_layer_norm(size_t rows, size_t E, const float *x,
                                         const float *weight, const float *bias, float *y,
                                         float *mean, float *rstd);
/* From grad_y (rows, E), the gradients of a layer norm whose forward pass on x
   saved mean and rstd: grad_x (rows, E) and, unless NULL, grad_weight and
   grad_bias (E), written (not added to). */
MHA_MUST_CHECK mha_status mha_layer_norm_backward(size_t rows, size_t E, const float *x,
        const float *weight, const float *mean, const float *rstd, const float *grad_y,
        float *grad_x, float *grad_weight, float *grad_bias);
/* <<[[block.h]] layer normalisation and GELU>> */
void mha_gelu(size_t n, const float *x, float *y);     /* y = x Phi(x); y may be x */
/* grad_x = grad_y GELU'(x), (n) each; grad_x may be grad_y. */
void mha_gelu_backward(size_t n, const float *x, const float *grad_y, float *grad_x);
/* <<[[block.h]] the block>> */
MHA_MUST_CHECK mha_status mha_block_shape_check(const mha_block_shape *shape);
MHA_MUST_CHECK mha_status mha_block_saved_init(mha_block_saved *saved, const mha_block_shape *shape);
void mha_block_saved_free(mha_block_saved *saved);       /* NULL, or freed twice: nothing */

/* y (B,L,E) = block(x); mask as in mha.h (causal flag, float/bool attn mask, key padding).
   saved NULL: inference only.  Runs on the fast (blocked) kernels: mha_forward_saving /
   mha_backward_saved for attention and the packed products for the linear layers. */
MHA_MUST_CHECK mha_status mha_block_forward(const mha_block_shape *shape, const mha_block_params *p,
        const float *x, const mha_mask *mask, float *y, mha_block_saved *saved);
/* grad_x (B,L,E) and every parameter gradient from grad_y, given the saved state of the forward
   pass on the same x, mask and params. */
MHA_MUST_CHECK mha_status mha_block_backward(const mha_block_shape *shape, const mha_block_params *p,
        const float *x, const mha_mask *mask, const mha_block_saved *saved,
        const float *grad_y, float *grad_x, const mha_block_grads *grads);
/* <<[[block.h]] the block>> */
enum { MHA_BLOCK_TENSORS = 12 };
extern const char *const mha_block_tensor_names[MHA_BLOCK_TENSORS];
/* The rank (1 or 2) and shape of tensor i of the state dictionary. */
size_t mha_block_tensor_shape(const mha_block_shape *shape, size_t i, size_t dims[2]);
/* The params and grads whose tensor i is t[i], in mha_block_tensor_names' order. */
mha_block_params mha_block_params_from(const float *const t[MHA_BLOCK_TENSORS]);
mha_block_grads mha_block_grads_from(float *const t[MHA_BLOCK_TENSORS]);
/* <<[[block.h]] the block>> */
/* mha_block_forward for inference, with each head's attention weights
   (B, H, L, L) written into weights; y as mha_block_forward's, bit for bit.
   MHA_ERR_NULL for a NULL weights, else mha_block_forward's errors. */
MHA_MUST_CHECK mha_status mha_block_forward_weights(const mha_block_shape *shape,
        const mha_block_params *p, const float *x, const mha_mask *mask, float *y,
        float *weights);
/* <<[[block.h]] positions>> */
/* out (T, E): the sinusoidal table, sin in even columns, cos in odd ones. */
void mha_positions_sinusoidal(size_t T, size_t E, float *out);
/* Rotate, in place, every head of x (rows, ld): row r holds position
   r % length, its head h in columns h D .. h D + D - 1 (heads H, head_dim D).
   Rotary positions (Su et al. 2021) with mha_rope's pairs; base 0 is 10000. */
void mha_rotary_apply(size_t rows, size_t length, size_t heads, size_t head_dim,
                      float *x, size_t ld, double base);
#endif
