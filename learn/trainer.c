/* generated from chapters/13-learning.nw; edit the book, not this file */
#include <string.h>
#include "learning.h"

const mha_trainer_config mha_trainer_defaults = {
    .vocab = 64, .length = 32, .embed_dim = 32, .heads = 2, .layers = 2,
    .batch = 32, .probe_batch = 64, .seed = 1,
    .optimiser = {.learning_rate = 1e-2, .weight_decay = 0.01, .beta1 = 0.9, .beta2 = 0.98,
                  .epsilon = 1e-8, .warmup = 100},
};

/* <<[[trainer.c]] functions>> */
mha_status mha_induction_trainer_init(mha_induction_trainer *t, const mha_trainer_config *c)
{
    memset(t, 0, sizeof *t);
    t->config = *c;
    if (c->heads > MHA_LEARNING_MAX_HEADS)
        return MHA_ERR_HEADS;
    mha_status status = mha_induction_model_init(&t->model, c->vocab, c->length, c->embed_dim,
                                                 c->heads, c->layers, c->seed);
    /* <<make the trainer's workspaces and batches, while [[status]] is [[MHA_OK]]>> */
    if (status == MHA_OK)
        status = mha_learning_workspace_init(&t->ws, &t->model, c->batch);
    if (status == MHA_OK)
        status = mha_learning_workspace_init(&t->probe_ws, &t->model, c->probe_batch);
    if (status == MHA_OK)
        status = mha_induction_batch_init(&t->batch, c->batch, c->length);
    if (status == MHA_OK)
        status = mha_induction_batch_init(&t->probe, c->probe_batch, c->length);
    if (status != MHA_OK) {
        mha_induction_trainer_free(t);
        return status;
    }
    mha_learning_streams streams = mha_learning_streams_from_seed(c->seed);
    t->data_state = streams.data;
    mha_induction_batch_fill(&t->probe, c->vocab, &streams.probe);
    return MHA_OK;
}
/* <<[[trainer.c]] functions>> */
mha_status mha_induction_trainer_restart(mha_induction_trainer *t)
{
    const mha_trainer_config *c = &t->config;
    mha_induction_model_free(&t->model);
    t->data_state = mha_learning_streams_from_seed(c->seed).data;
    return mha_induction_model_init(&t->model, c->vocab, c->length, c->embed_dim, c->heads,
                                    c->layers, c->seed);
}

mha_status mha_induction_trainer_step(mha_induction_trainer *t, mha_train_stats *stats)
{
    mha_induction_batch_fill(&t->batch, t->config.vocab, &t->data_state);
    return mha_induction_train_step(&t->model, &t->ws, &t->batch, &t->config.optimiser, stats);
}
/* <<[[trainer.c]] functions>> */
mha_status mha_induction_trainer_measure(mha_induction_trainer *t, mha_head_scores *scores)
{
    const size_t P = t->config.probe_batch, H = t->config.heads, T = t->config.length;
    memset(scores, 0, sizeof *scores);
    const mha_status status = mha_induction_forward(&t->model, &t->probe_ws, t->probe.tokens);
    for (size_t l = 0; status == MHA_OK && l < t->model.layers; l++)
        mha_head_scores_from_weights(t->probe_ws.weights + l * P * H * T * T, &t->probe, H, l,
                                     scores);
    return status;
}

void mha_induction_trainer_free(mha_induction_trainer *t)
{
    mha_induction_batch_free(&t->batch); mha_induction_batch_free(&t->probe);
    mha_learning_workspace_free(&t->ws); mha_learning_workspace_free(&t->probe_ws);
    mha_induction_model_free(&t->model);
    memset(t, 0, sizeof *t);
}
