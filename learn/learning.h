/* generated from chapters/13-learning.nw; edit the book, not this file */
#ifndef MHA_LEARNING_H
#define MHA_LEARNING_H
/* A two-layer attention-only model that learns induction, and the trainer
   that the mha train command and the viewer share. */
#include <stddef.h>
#include <stdint.h>
#include "mha.h"
#include "random.h"

/* <<[[learning.h]] types>> */
typedef struct mha_induction_batch {
    size_t batch, length;          /* B, T */
    int *tokens;                   /* (B, T) */
    unsigned char *predictable;    /* (B, T): 1 where token t+1 is a copy's */
    size_t *copy_from, *copy_to, *copy_length;   /* (B): a, c, r */
} mha_induction_batch;
/* <<[[learning.h]] types>> */
typedef struct mha_learning_streams {
    uint64_t model;                /* the initial weights */
    uint64_t data;                 /* the training batches, one after another */
    uint64_t probe;                /* the probe batch, drawn once */
} mha_learning_streams;
/* <<[[learning.h]] types>> */
enum { MHA_LEARNING_MAX_LAYERS = 2 };

typedef struct mha_model_tensors {
    float *tok_emb;                        /* (V, E) */
    float *pos_emb;                        /* (T, E) */
    float *in_w[MHA_LEARNING_MAX_LAYERS];      /* (3E, E) */
    float *in_b[MHA_LEARNING_MAX_LAYERS];      /* (3E) */
    float *out_w[MHA_LEARNING_MAX_LAYERS];     /* (E, E) */
    float *out_b[MHA_LEARNING_MAX_LAYERS];     /* (E) */
    float *unembed;                        /* (V, E) */
} mha_model_tensors;

typedef struct mha_induction_model {
    size_t vocab, length, embed_dim, heads, layers;   /* V, T, E, H, layers */
    size_t count;                          /* number of parameters */
    float *params, *grads, *m, *v;         /* (count) each: weights, gradient, Adam moments */
    size_t steps_taken;
} mha_induction_model;
/* <<[[learning.h]] types>> */
typedef struct mha_learning_workspace {
    size_t batch;                  /* B */
    float *stream;                 /* (layers + 1, B, T, E): the residual stream */
    float *logits;                 /* (B, T, V), then their gradient */
    float *grad_stream, *grad_input;   /* (B, T, E) each */
    float *weights;                /* (layers, B, H, T, T): every head's attention */
    mha_saved saved[MHA_LEARNING_MAX_LAYERS];   /* a training step's forward state, per layer */
    size_t parts;                  /* slices of MHA_LEARNING_SLICE sequences, trained on threads */
    struct mha_learning_workspace *part;   /* (parts) workspaces, or NULL for one slice */
    float *part_grads;             /* (parts, parameters): each slice's gradient */
} mha_learning_workspace;
/* <<[[learning.h]] types>> */
enum { MHA_LEARNING_SLICE = 16 };
/* <<[[learning.h]] types>> */
typedef struct mha_train_stats {
    double loss;                   /* mean cross-entropy over all predictions */
    double accuracy;               /* on the predictable positions */
} mha_train_stats;
/* <<[[learning.h]] types>> */
typedef struct mha_train_options {
    double learning_rate, weight_decay, beta1, beta2, epsilon;
    size_t warmup;
} mha_train_options;
/* <<[[learning.h]] types>> */
enum { MHA_LEARNING_MAX_HEADS = 16 };
typedef struct mha_head_scores {
    double previous[MHA_LEARNING_MAX_LAYERS][MHA_LEARNING_MAX_HEADS];    /* [layer][head] */
    double induction[MHA_LEARNING_MAX_LAYERS][MHA_LEARNING_MAX_HEADS];
} mha_head_scores;
/* <<[[learning.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_induction_batch_init(mha_induction_batch *batch, size_t size, size_t length);
void mha_induction_batch_free(mha_induction_batch *batch);
void mha_induction_batch_fill(mha_induction_batch *batch, size_t vocab, uint64_t *state);
/* <<[[learning.h]] functions>> */
mha_learning_streams mha_learning_streams_from_seed(uint64_t seed);
/* <<[[learning.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_induction_model_init(mha_induction_model *model, size_t vocab, size_t length,
                                    size_t embed_dim, size_t heads, size_t layers, uint64_t seed);
void mha_induction_model_free(mha_induction_model *model);
mha_model_tensors mha_induction_model_tensors(const mha_induction_model *model);
/* <<[[learning.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_learning_workspace_init(mha_learning_workspace *ws, const mha_induction_model *model,
                                       size_t batch);
void mha_learning_workspace_free(mha_learning_workspace *ws);
/* <<[[learning.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_induction_forward(const mha_induction_model *model, mha_learning_workspace *ws,
                                 const int *tokens);
/* <<[[learning.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_induction_gradients(mha_induction_model *model, mha_learning_workspace *ws,
                                   const mha_induction_batch *batch, mha_train_stats *stats);
MHA_MUST_CHECK
mha_status mha_induction_train_step(mha_induction_model *model, mha_learning_workspace *ws,
                                    const mha_induction_batch *batch, const mha_train_options *o,
                                    mha_train_stats *stats);
/* <<[[learning.h]] functions>> */
void mha_head_scores_from_weights(const float *weights, const mha_induction_batch *batch,
                                  size_t heads, size_t layer, mha_head_scores *scores);
/* One head's weights w (T, T) on one sequence: the weights of keys t - 1
   (t >= 1), and of keys a + i + 1 from queries c + i (i + 1 < r) after a
   copy of a..a+r-1 at c, added to *sum, their number to *count. */
void mha_previous_token_add(const float *w, size_t T, double *sum, size_t *count);
void mha_induction_add(const float *w, size_t T, size_t a, size_t c, size_t r, double *sum,
                       size_t *count);
/* <<[[learning.h]] the trainer>> */
typedef struct mha_trainer_config {
    size_t vocab, length, embed_dim, heads, layers;  /* the model: V, T, E, H, layers */
    size_t batch, probe_batch;                       /* sequences per step, in the probe */
    uint64_t seed;                                   /* see mha_learning_streams_from_seed */
    mha_train_options optimiser;
} mha_trainer_config;
extern const mha_trainer_config mha_trainer_defaults;        /* the run of the book's figure */

typedef struct mha_induction_trainer {
    mha_trainer_config config;
    mha_induction_model model;
    mha_learning_workspace ws, probe_ws;                 /* for a training batch, for the probe */
    mha_induction_batch batch, probe;
    uint64_t data_state;                             /* the training batches' stream */
} mha_induction_trainer;
/* <<[[learning.h]] the trainer>> */
MHA_MUST_CHECK
mha_status mha_induction_trainer_init(mha_induction_trainer *t, const mha_trainer_config *config);
MHA_MUST_CHECK mha_status mha_induction_trainer_restart(mha_induction_trainer *t);
MHA_MUST_CHECK
mha_status mha_induction_trainer_step(mha_induction_trainer *t, mha_train_stats *stats);
MHA_MUST_CHECK
mha_status mha_induction_trainer_measure(mha_induction_trainer *t, mha_head_scores *scores);
void mha_induction_trainer_free(mha_induction_trainer *t);
#endif
