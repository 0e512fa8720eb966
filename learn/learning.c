/* generated from chapters/13-learning.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fast.h"
#include "learning.h"

/* <<[[learning.c]] functions>> */
static size_t uniform_below(uint64_t *state, size_t n)
{
    return (size_t)(mha_random(state) % n);
}
/* <<[[learning.c]] functions>> */
mha_learning_streams mha_learning_streams_from_seed(uint64_t seed)
{
    return (mha_learning_streams){mha_random_seeded(seed),
                                  mha_random_nonzero(seed * 2654435761u + 7),
                                  mha_random_nonzero(seed * 2654435761u + 99)};
}
/* <<[[learning.c]] functions>> */
mha_status mha_induction_batch_init(mha_induction_batch *b, size_t size, size_t length)
{
    memset(b, 0, sizeof *b);
    if (size == 0 || length < 6 || size > 65536 || length > 4096)
        return MHA_ERR_SHAPE;
    b->batch = size, b->length = length;
    b->tokens = malloc(size * length * sizeof *b->tokens);
    b->predictable = malloc(size * length);
    b->copy_from = malloc(size * sizeof(size_t));
    b->copy_to = malloc(size * sizeof(size_t));
    b->copy_length = malloc(size * sizeof(size_t));
    if (!b->tokens || !b->predictable || !b->copy_from || !b->copy_to || !b->copy_length) {
        mha_induction_batch_free(b);
        return MHA_ERR_NOMEM;
    }
    return MHA_OK;
}

void mha_induction_batch_free(mha_induction_batch *b)
{
    free(b->tokens); free(b->predictable); free(b->copy_from); free(b->copy_to);
    free(b->copy_length);
    memset(b, 0, sizeof *b);
}
/* <<[[learning.c]] functions>> */
void mha_induction_batch_fill(mha_induction_batch *batch, size_t vocab, uint64_t *state)
{
    const size_t T = batch->length;
    for (size_t b = 0; b < batch->batch; b++) {
        int *x = batch->tokens + b * T;
        for (size_t t = 0; t < T; t++)
            x[t] = (int)uniform_below(state, vocab);
        const size_t r = T / 4 + uniform_below(state, T / 2 - T / 4 + 1);  /* T/4 .. T/2 */
        const size_t a = uniform_below(state, T - 2 * r + 1);             /* a + 2r <= T */
        const size_t c = a + r + uniform_below(state, T - r - (a + r) + 1);  /* c + r <= T */
        memcpy(x + c, x + a, r * sizeof *x);
        unsigned char *p = batch->predictable + b * T;
        memset(p, 0, T);
        memset(p + c, 1, r - 1);
        batch->copy_from[b] = a, batch->copy_to[b] = c, batch->copy_length[b] = r;
    }
}
/* <<[[learning.c]] functions>> */
static mha_model_tensors tensors_at(const mha_induction_model *model, float *base)
{
    const size_t V = model->vocab, T = model->length, E = model->embed_dim;
    mha_model_tensors t;
    memset(&t, 0, sizeof t);
    t.tok_emb = base;  base += V * E;
    t.pos_emb = base;  base += T * E;
    for (size_t l = 0; l < model->layers; l++) {
        t.in_w[l] = base;   base += 3 * E * E;
        t.in_b[l] = base;   base += 3 * E;
        t.out_w[l] = base;  base += E * E;
        t.out_b[l] = base;  base += E;
    }
    t.unembed = base;
    return t;
}
/* <<[[learning.c]] functions>> */
mha_status mha_induction_model_init(mha_induction_model *model, size_t vocab, size_t length,
                                    size_t embed_dim, size_t heads, size_t layers, uint64_t seed)
{
    memset(model, 0, sizeof *model);
    if (vocab < 2 || length < 6 || embed_dim == 0 || layers == 0 || layers > MHA_LEARNING_MAX_LAYERS)
        return MHA_ERR_SHAPE;
    if (heads == 0 || embed_dim % heads != 0)
        return MHA_ERR_HEADS;
    if (vocab > 65536 || length > 4096 || embed_dim > 4096)
        return MHA_ERR_OVERFLOW;             /* far beyond a toy, and safe to multiply */
    const size_t E = embed_dim;
    *model = (mha_induction_model){vocab, length, embed_dim, heads, layers, 0,
                                   NULL, NULL, NULL, NULL, 0};
    model->count = 2 * vocab * E + length * E + layers * (4 * E * E + 4 * E);
    model->params = calloc(model->count, sizeof(float));
    model->grads = calloc(model->count, sizeof(float));
    model->m = calloc(model->count, sizeof(float));
    model->v = calloc(model->count, sizeof(float));
    if (!model->params || !model->grads || !model->m || !model->v) {
        mha_induction_model_free(model);
        return MHA_ERR_NOMEM;
    }
    /* <<initialise the model's weights from [[seed]]>> */
    uint64_t state = mha_learning_streams_from_seed(seed).model;
    const mha_model_tensors t = tensors_at(model, model->params);
    const float a = 1.0f / sqrtf((float)E);
    #define FILL(p, n, scale) for (size_t i_ = 0; i_ < (n); i_++) \
        (p)[i_] = (scale) * (float)(mha_random_unit(&state) * 2 - 1)
    FILL(t.tok_emb, vocab * E, 1.0f);
    FILL(t.pos_emb, length * E, 1.0f);
    FILL(t.unembed, vocab * E, a);
    for (size_t l = 0; l < layers; l++) {
        FILL(t.in_w[l], 3 * E * E, a);
        FILL(t.out_w[l], E * E, a);
    }
    #undef FILL
    return MHA_OK;
}

void mha_induction_model_free(mha_induction_model *model)
{
    free(model->params); free(model->grads); free(model->m); free(model->v);
    memset(model, 0, sizeof *model);
}

mha_model_tensors mha_induction_model_tensors(const mha_induction_model *model)
{
    return tensors_at(model, model->params);
}
/* <<[[learning.c]] functions>> */
mha_status mha_learning_workspace_init(mha_learning_workspace *ws, const mha_induction_model *model,
                                       size_t batch)
{
    const size_t T = model->length, E = model->embed_dim, H = model->heads;
    const size_t n = batch * T * E;
    memset(ws, 0, sizeof *ws);
    if (batch == 0 || batch > 65536)
        return MHA_ERR_SHAPE;
    ws->batch = batch;
    ws->stream = malloc((model->layers + 1) * n * sizeof(float));
    ws->logits = malloc(batch * T * model->vocab * sizeof(float));
    ws->grad_stream = malloc(n * sizeof(float));
    ws->grad_input = malloc(n * sizeof(float));
    ws->weights = malloc(model->layers * batch * H * T * T * sizeof(float));
    if (!ws->stream || !ws->logits || !ws->grad_stream || !ws->grad_input || !ws->weights) {
        mha_learning_workspace_free(ws);
        return MHA_ERR_NOMEM;
    }
    /* <<give a batch of more than one slice a workspace per slice>> */
    ws->parts = (batch + MHA_LEARNING_SLICE - 1) / MHA_LEARNING_SLICE;
    if (ws->parts > 1) {
        ws->part = calloc(ws->parts, sizeof *ws->part);
        ws->part_grads = malloc(ws->parts * model->count * sizeof(float));
        mha_status status = ws->part && ws->part_grads ? MHA_OK : MHA_ERR_NOMEM;
        for (size_t p = 0; p < ws->parts && status == MHA_OK; p++) {
            const size_t size = batch - p * MHA_LEARNING_SLICE;
            status = mha_learning_workspace_init(&ws->part[p], model,
                                                 size < MHA_LEARNING_SLICE ? size : MHA_LEARNING_SLICE);
        }
        if (status != MHA_OK) {
            mha_learning_workspace_free(ws);
            return status;
        }
    }
    return MHA_OK;
}

void mha_learning_workspace_free(mha_learning_workspace *ws)
{
    free(ws->stream); free(ws->logits); free(ws->grad_stream); free(ws->grad_input);
    free(ws->weights);
    for (size_t l = 0; l < MHA_LEARNING_MAX_LAYERS; l++)
        mha_saved_free(&ws->saved[l]);
    for (size_t p = 0; ws->part && p < ws->parts; p++)
        mha_learning_workspace_free(&ws->part[p]);
    free(ws->part); free(ws->part_grads);
    memset(ws, 0, sizeof *ws);
}
/* <<[[learning.c]] functions>> */
static mha_params layer_params(const mha_model_tensors *t, size_t l)
{
    return (mha_params){t->in_w[l], t->in_b[l], t->out_w[l], t->out_b[l]};
}

static mha_status forward_layers(const mha_induction_model *model, mha_learning_workspace *ws,
                                 const int *tokens, int keep_state)
{
    const size_t B = ws->batch, T = model->length, E = model->embed_dim, H = model->heads,
                 V = model->vocab, n = B * T * E;
    const mha_model_tensors t = tensors_at(model, model->params);
    const mha_shape shape = {B, T, T, E, H};
    const mha_mask causal = {.causal = 1};
    for (size_t b = 0; b < B; b++)                        /* stream[0] = embeddings */
        for (size_t i = 0; i < T; i++)
            for (size_t e = 0; e < E; e++)
                ws->stream[(b * T + i) * E + e] =
                    t.tok_emb[(size_t)tokens[b * T + i] * E + e] + t.pos_emb[i * E + e];
    mha_status status = MHA_OK;
    for (size_t l = 0; l < model->layers && status == MHA_OK; l++) {
        const mha_params p = layer_params(&t, l);
        float *in = ws->stream + l * n, *out = ws->stream + (l + 1) * n;
        if (keep_state)
            status = mha_forward_saving(&shape, &p, in, NULL, NULL, &causal, out,
                                        &ws->saved[l]);
        else
            status = mha_forward_batched(&shape, &p, in, NULL, NULL, &causal, out,
                                         ws->weights + l * B * H * T * T);
        for (size_t i = 0; status == MHA_OK && i < n; i++)
            out[i] += in[i];                              /* the residual connection */
    }
    if (status == MHA_OK)
        status = mha_product_nt(B * T, V, E, ws->stream + model->layers * n, E, t.unembed, E,
                                ws->logits, V);           /* (B, T, V) */
    for (size_t l = 0; status != MHA_OK && keep_state && l < model->layers; l++)
        mha_saved_free(&ws->saved[l]);                    /* nothing is left half made */
    return status;
}

mha_status mha_induction_forward(const mha_induction_model *model, mha_learning_workspace *ws,
                                 const int *tokens)
{
    return forward_layers(model, ws, tokens, 0);
}
/* <<[[learning.c]] functions>> */
static void softmax_in_place(float *z, size_t V)
{
    const fast_kernels *k = fast_kernels_select();
    const float top = V % k->width == 0 ? k->row_max(z, V) : NAN;
    if (!isfinite(top)) {
        mha_softmax_row(z, V);
        return;
    }
    k->scale(z, V, 1.0f / k->exp_sum(z, V, top));
}
/* <<[[learning.c]] functions>> */
typedef struct loss_sums {
    double loss;                   /* summed over the predictions */
    size_t right, predictable;
} loss_sums;

/* Sequences b0.. of batch, in ws; count: the predictions of the whole batch. */
static loss_sums loss_and_gradient(const mha_induction_model *model, mha_learning_workspace *ws,
                                   const mha_induction_batch *batch, size_t b0, double count)
{
    const size_t B = ws->batch, T = model->length, V = model->vocab;
    double loss = 0;
    size_t right = 0, predictable = 0;
    for (size_t b = b0; b < b0 + B; b++)
        for (size_t i = 0; i < T; i++) {
            float *z = ws->logits + ((b - b0) * T + i) * V;
            if (i == T - 1) { memset(z, 0, V * sizeof *z); continue; }
            const int target = batch->tokens[b * T + i + 1];
            /* <<count whether [[z]] predicts [[target]], at a predictable position>> */
            if (batch->predictable[b * T + i]) {
                size_t best = 0;
                for (size_t v = 1; v < V; v++)
                    if (z[v] > z[best])
                        best = v;
                right += best == (size_t)target;
                predictable++;
            }
            softmax_in_place(z, V);
            loss -= log(fmax((double)z[target], 1e-30));
            for (size_t v = 0; v < V; v++)
                z[v] = (z[v] - (v == (size_t)target)) / (float)count;
        }
    return (loss_sums){loss, right, predictable};
}
/* <<[[learning.c]] functions>> */
static mha_status induction_backward(mha_induction_model *model, mha_learning_workspace *ws,
                                     const int *tokens, float *gradient)
{
    const size_t B = ws->batch, T = model->length, E = model->embed_dim, V = model->vocab,
                 n = B * T * E;
    const mha_model_tensors t = tensors_at(model, model->params);
    const mha_model_tensors g = tensors_at(model, gradient);
    const mha_mask causal = {.causal = 1};
    memset(gradient, 0, model->count * sizeof(float));
    /* <<back through the unembedding into [[ws->grad_stream]]>> */
    const float *top = ws->stream + model->layers * n;               /* (B T, E) */
    mha_status status = mha_product_tn(V, E, B * T, ws->logits, V, top, E, g.unembed, E);
    if (status == MHA_OK)                                            /* (V, E), then (B T, E) */
        status = mha_product_nn(B * T, E, V, ws->logits, V, t.unembed, E, ws->grad_stream, E);
    for (size_t l = model->layers; l-- > 0;) {
        const mha_params p = layer_params(&t, l);
        const mha_grads grads = {ws->grad_input, NULL, NULL, g.in_w[l], g.in_b[l],
                                 g.out_w[l], g.out_b[l]};
        if (status == MHA_OK)
            status = mha_backward_saved(&p, ws->stream + l * n, NULL, NULL, &causal,
                                        &ws->saved[l], ws->grad_stream, &grads);
        mha_saved_free(&ws->saved[l]);                    /* every layer's, even on failure */
        for (size_t i = 0; status == MHA_OK && i < n; i++)
            ws->grad_stream[i] += ws->grad_input[i];      /* through the residual */
    }
    if (status != MHA_OK)
        return status;
    for (size_t b = 0; b < B; b++)
        for (size_t i = 0; i < T; i++)
            for (size_t e = 0; e < E; e++) {
                const float d = ws->grad_stream[(b * T + i) * E + e];
                g.tok_emb[(size_t)tokens[b * T + i] * E + e] += d;
                g.pos_emb[i * E + e] += d;
            }
    return MHA_OK;
}
/* <<[[learning.c]] functions>> */
static void adamw_step(mha_induction_model *model, const mha_train_options *o)
{
    const double t = (double)(++model->steps_taken);
    const double rate = o->learning_rate * fmin(1.0, t / (double)(o->warmup + 1));
    const double fix1 = 1 - pow(o->beta1, t), fix2 = 1 - pow(o->beta2, t);
    #pragma omp parallel for schedule(static)      /* each parameter on its own */
    for (size_t i = 0; i < model->count; i++) {
        const double grad = model->grads[i];
        model->m[i] = (float)(o->beta1 * model->m[i] + (1 - o->beta1) * grad);
        model->v[i] = (float)(o->beta2 * model->v[i] + (1 - o->beta2) * grad * grad);
        const double step = (model->m[i] / fix1) / (sqrt(model->v[i] / fix2) + o->epsilon);
        model->params[i] -= (float)(rate * (step + o->weight_decay * model->params[i]));
    }
}
/* <<[[learning.c]] functions>> */
mha_status mha_induction_gradients(mha_induction_model *model, mha_learning_workspace *ws,
                                   const mha_induction_batch *batch, mha_train_stats *stats)
{
    const size_t T = model->length, parts = ws->parts;
    const double count = (double)(batch->batch * (T - 1));
    loss_sums total = {0, 0, 0};
    mha_status status = MHA_OK;
    if (parts <= 1) {
        status = forward_layers(model, ws, batch->tokens, 1);
        if (status == MHA_OK) {
            total = loss_and_gradient(model, ws, batch, 0, count);
            status = induction_backward(model, ws, batch->tokens, model->grads);
        }
    } else {
        /* <<run each slice of the batch on a thread, and add up the slices>> */
        loss_sums *sums = calloc(parts, sizeof *sums);
        mha_status *statuses = calloc(parts, sizeof *statuses);        /* MHA_OK is 0 */
        if (sums == NULL || statuses == NULL) {
            free(sums); free(statuses);
            return MHA_ERR_NOMEM;
        }
        #pragma omp parallel for schedule(dynamic)
        for (size_t p = 0; p < parts; p++) {
            mha_learning_workspace *w = &ws->part[p];
            const int *tokens = batch->tokens + p * MHA_LEARNING_SLICE * T;
            statuses[p] = forward_layers(model, w, tokens, 1);
            if (statuses[p] == MHA_OK) {
                sums[p] = loss_and_gradient(model, w, batch, p * MHA_LEARNING_SLICE, count);
                statuses[p] = induction_backward(model, w, tokens, ws->part_grads + p * model->count);
            }
        }
        for (size_t p = 0; p < parts; p++)
            status = status != MHA_OK ? status : statuses[p];
        free(statuses);
        if (status != MHA_OK) {
            free(sums);
            return status;
        }
        #pragma omp parallel for schedule(static)
        for (size_t i = 0; i < model->count; i++) {
            float g = 0.0f;
            for (size_t p = 0; p < parts; p++)
                g += ws->part_grads[p * model->count + i];
            model->grads[i] = g;
        }
        for (size_t p = 0; p < parts; p++) {
            total.loss += sums[p].loss;
            total.right += sums[p].right;
            total.predictable += sums[p].predictable;
        }
        free(sums);
    }
    *stats = (mha_train_stats){total.loss / count,
                           total.predictable ? (double)total.right / total.predictable : 0.0};
    return status;
}
/* <<[[learning.c]] functions>> */
mha_status mha_induction_train_step(mha_induction_model *model, mha_learning_workspace *ws,
                                    const mha_induction_batch *batch, const mha_train_options *o,
                                    mha_train_stats *stats)
{
    const mha_status status = mha_induction_gradients(model, ws, batch, stats);
    if (status == MHA_OK)
        adamw_step(model, o);
    return status;
}
/* <<[[learning.c]] functions>> */
void mha_previous_token_add(const float *w, size_t T, double *sum, size_t *count)
{
    for (size_t t = 1; t < T; t++, (*count)++)
        *sum += w[t * T + t - 1];
}
void mha_induction_add(const float *w, size_t T, size_t a, size_t c, size_t r, double *sum,
                       size_t *count)
{
    for (size_t i = 0; i + 1 < r; i++, (*count)++)
        *sum += w[(c + i) * T + a + i + 1];
}
/* weights: (B, H, T, T) of one layer. */
void mha_head_scores_from_weights(const float *weights, const mha_induction_batch *batch,
                                  size_t heads, size_t layer, mha_head_scores *scores)
{
    const size_t B = batch->batch, T = batch->length;
    for (size_t h = 0; h < heads && h < MHA_LEARNING_MAX_HEADS; h++) {
        double previous = 0, induction = 0;
        size_t n_previous = 0, n_induction = 0;
        for (size_t b = 0; b < B; b++) {
            const float *w = weights + (b * heads + h) * T * T;          /* (T, T) */
            mha_previous_token_add(w, T, &previous, &n_previous);
            mha_induction_add(w, T, batch->copy_from[b], batch->copy_to[b],
                              batch->copy_length[b], &induction, &n_induction);
        }
        scores->previous[layer][h] = n_previous ? previous / n_previous : 0;
        scores->induction[layer][h] = n_induction ? induction / n_induction : 0;
    }
}
