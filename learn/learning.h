/* generated from chapters/13-learning.nw; edit the book, not this file */
#ifndef MHA_LEARNING_H
#define MHA_LEARNING_H
/* A two-layer attention-only model that learns induction, and the trainer
   that the mha train command and the viewer share. */
#include <stddef.h>
#include <stdint.h>
#include "mha.h"
#include "random.h"

typedef struct induction_batch {
    size_t batch, length;          /* B, T */
    int *tokens;                   /* (B, T) */
    unsigned char *predictable;    /* (B, T): 1 where token t+1 is a copy's */
    size_t *copy_from, *copy_to, *copy_length;   /* (B): a, c, r */
} induction_batch;
typedef struct learning_streams {
    uint64_t model;                /* the initial weights */
    uint64_t data;                 /* the training batches, one after another */
    uint64_t probe;                /* the probe batch, drawn once */
} learning_streams;
enum { LEARNING_MAX_LAYERS = 2 };

typedef struct model_tensors {
    float *tok_emb;                        /* (V, E) */
    float *pos_emb;                        /* (T, E) */
    float *in_w[LEARNING_MAX_LAYERS];      /* (3E, E) */
    float *in_b[LEARNING_MAX_LAYERS];      /* (3E) */
    float *out_w[LEARNING_MAX_LAYERS];     /* (E, E) */
    float *out_b[LEARNING_MAX_LAYERS];     /* (E) */
    float *unembed;                        /* (V, E) */
} model_tensors;

typedef struct induction_model {
    size_t vocab, length, embed_dim, heads, layers;   /* V, T, E, H, layers */
    size_t count;                          /* number of parameters */
    float *params, *grads, *m, *v;         /* (count) each: weights, gradient, Adam moments */
    size_t steps_taken;
} induction_model;
typedef struct learning_workspace {
    size_t batch;                  /* B */
    float *stream;                 /* (layers + 1, B, T, E): the residual stream */
    float *logits;                 /* (B, T, V), then their gradient */
    float *grad_stream, *grad_input;   /* (B, T, E) each */
    float *weights;                /* (layers, B, H, T, T): every head's attention */
    mha_saved saved[LEARNING_MAX_LAYERS];   /* a training step's forward state, per layer */
    size_t parts;                  /* slices of LEARNING_SLICE sequences, trained on threads */
    struct learning_workspace *part;   /* (parts) workspaces, or NULL for one slice */
    float *part_grads;             /* (parts, parameters): each slice's gradient */
} learning_workspace;
enum { LEARNING_SLICE = 16 };
typedef struct train_stats {
    double loss;                   /* mean cross-entropy over all predictions */
    double accuracy;               /* on the predictable positions */
} train_stats;
typedef struct train_options {
    double learning_rate, weight_decay, beta1, beta2, epsilon;
    size_t warmup;
} train_options;
enum { LEARNING_MAX_HEADS = 16 };
typedef struct head_scores {
    double previous[LEARNING_MAX_LAYERS][LEARNING_MAX_HEADS];    /* [layer][head] */
    double induction[LEARNING_MAX_LAYERS][LEARNING_MAX_HEADS];
} head_scores;
MHA_MUST_CHECK
mha_status induction_batch_init(induction_batch *batch, size_t size, size_t length);
void induction_batch_free(induction_batch *batch);
void induction_batch_fill(induction_batch *batch, size_t vocab, uint64_t *state);
learning_streams learning_streams_from_seed(uint64_t seed);
MHA_MUST_CHECK
mha_status induction_model_init(induction_model *model, size_t vocab, size_t length,
                                size_t embed_dim, size_t heads, size_t layers, uint64_t seed);
void induction_model_free(induction_model *model);
model_tensors induction_model_tensors(const induction_model *model);
MHA_MUST_CHECK
mha_status learning_workspace_init(learning_workspace *ws, const induction_model *model,
                                   size_t batch);
void learning_workspace_free(learning_workspace *ws);
MHA_MUST_CHECK
mha_status induction_forward(const induction_model *model, learning_workspace *ws,
                             const int *tokens);
MHA_MUST_CHECK
mha_status induction_gradients(induction_model *model, learning_workspace *ws,
                               const induction_batch *batch, train_stats *stats);
MHA_MUST_CHECK
mha_status induction_train_step(induction_model *model, learning_workspace *ws,
                                const induction_batch *batch, const train_options *o,
                                train_stats *stats);
void head_scores_from_weights(const float *weights, const induction_batch *batch,
                              size_t heads, size_t layer, head_scores *scores);
typedef struct trainer_config {
    size_t vocab, length, embed_dim, heads, layers;  /* the model: V, T, E, H, layers */
    size_t batch, probe_batch;                       /* sequences per step, in the probe */
    uint64_t seed;                                   /* see learning_streams_from_seed */
    train_options optimiser;
} trainer_config;
extern const trainer_config trainer_defaults;        /* the run of the book's figure */

typedef struct induction_trainer {
    trainer_config config;
    induction_model model;
    learning_workspace ws, probe_ws;                 /* for a training batch, for the probe */
    induction_batch batch, probe;
    uint64_t data_state;                             /* the training batches' stream */
} induction_trainer;
MHA_MUST_CHECK
mha_status induction_trainer_init(induction_trainer *t, const trainer_config *config);
MHA_MUST_CHECK mha_status induction_trainer_restart(induction_trainer *t);
MHA_MUST_CHECK mha_status induction_trainer_step(induction_trainer *t, train_stats *stats);
MHA_MUST_CHECK
mha_status induction_trainer_measure(induction_trainer *t, head_scores *scores);
void induction_trainer_free(induction_trainer *t);
#endif
