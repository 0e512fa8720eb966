/* generated from chapters/16-austen-model.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fast.h"
#include "lm.h"
#include "random.h"

static const double LM_PI = 3.14159265358979323846;

/* <<[[lm.c]] functions>> */
mha_status lm_config_check(const lm_config *c)
{
    if (c == NULL)
        return MHA_ERR_NULL;
    if (c->vocab < 2 || c->context < 2 || c->embed_dim == 0 || c->heads == 0 ||
        c->layers == 0 || c->hidden == 0)
        return MHA_ERR_SHAPE;
    if (c->embed_dim % c->heads != 0)
        return MHA_ERR_HEADS;
    if (c->layers > LM_MAX_LAYERS || c->vocab > (size_t)1 << 30 || c->context > 65536)
        return MHA_ERR_ARG;
    return MHA_OK;
}
static size_t describe(const lm_config *c, lm_tensor *t)
{
    const size_t V = c->vocab, T = c->context, E = c->embed_dim, F = c->hidden;
    size_t n = 0, offset = 0;
    #define ADD(r, a, b, d, ...) do { if (t) { snprintf(t[n].name, LM_NAME_MAX, __VA_ARGS__); \
        t[n].rank = r; t[n].shape[0] = a; t[n].shape[1] = b; t[n].offset = offset; \
        t[n].decay = d; } offset += (a) * ((r) == 2 ? (b) : 1); n++; } while (0)
    ADD(2, V, E, 0, "tok_emb.weight");
    ADD(2, T, E, 0, "pos_emb.weight");
    for (size_t l = 0; l < c->layers; l++) {
        ADD(2, 3 * E, E, 1, "blocks.%zu.self_attn.in_proj_weight", l);
        ADD(1, 3 * E, 0, 0, "blocks.%zu.self_attn.in_proj_bias", l);
        ADD(2, E, E, 1, "blocks.%zu.self_attn.out_proj.weight", l);
        ADD(1, E, 0, 0, "blocks.%zu.self_attn.out_proj.bias", l);
        ADD(2, F, E, 1, "blocks.%zu.linear1.weight", l);
        ADD(1, F, 0, 0, "blocks.%zu.linear1.bias", l);
        ADD(2, E, F, 1, "blocks.%zu.linear2.weight", l);
        ADD(1, E, 0, 0, "blocks.%zu.linear2.bias", l);
        ADD(1, E, 0, 0, "blocks.%zu.norm1.weight", l);
        ADD(1, E, 0, 0, "blocks.%zu.norm1.bias", l);
        ADD(1, E, 0, 0, "blocks.%zu.norm2.weight", l);
        ADD(1, E, 0, 0, "blocks.%zu.norm2.bias", l);
    }
    ADD(1, E, 0, 0, "norm.weight");
    ADD(1, E, 0, 0, "norm.bias");
    #undef ADD
    return n;
}
/* <<[[lm.c]] functions>> */
static mha_status parameter_count(const lm_config *c, size_t *count)
{
    const size_t V = c->vocab, T = c->context, E = c->embed_dim, F = c->hidden;
    size_t a, b, per_block, total;
    if (mha_mul_overflows(V + T, E, &a) || mha_mul_overflows(4 * E + 2 * F, E, &b) ||
        mha_mul_overflows(c->layers, b + 9 * E + F, &per_block) ||
        (total = a + per_block + 2 * E) < a || mha_mul_overflows(total, sizeof(float), &b))
        return MHA_ERR_OVERFLOW;
    *count = total;
    return MHA_OK;
}
mha_status lm_model_alloc(lm_model *m, const lm_config *c)
{
    memset(m, 0, sizeof *m);
    mha_status status = lm_config_check(c);
    size_t count = 0;
    if (status == MHA_OK)
        status = parameter_count(c, &count);
    if (status != MHA_OK)
        return status;
    m->config = *c;
    m->count = count;
    m->tensor_count = describe(c, NULL);
    m->params = calloc(count, sizeof(float));
    m->tensors = calloc(m->tensor_count, sizeof *m->tensors);
    m->head_mask = malloc(c->layers * c->heads * sizeof *m->head_mask);
    if (m->params == NULL || m->tensors == NULL || m->head_mask == NULL) {
        lm_model_free(m);
        return MHA_ERR_NOMEM;
    }
    describe(c, m->tensors);
    lm_heads_restore(m);
    return MHA_OK;
}
void lm_model_free(lm_model *m)
{
    if (m == NULL)
        return;
    free(m->params);
    free(m->tensors);
    free(m->head_mask);
    memset(m, 0, sizeof *m);
}
const lm_tensor *lm_tensor_find(const lm_model *m, const char *name)
{
    for (size_t i = 0; i < m->tensor_count; i++)
        if (strcmp(m->tensors[i].name, name) == 0)
            return &m->tensors[i];
    return NULL;
}
/* <<[[lm.c]] functions>> */
static double normal(uint64_t *state)
{
    const double u = 1.0 - mha_random_unit(state), v = mha_random_unit(state);
    return sqrt(-2.0 * log(u)) * cos(2.0 * LM_PI * v);
}
static int ends_with(const char *s, const char *tail)
{
    const size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}
mha_status lm_model_init_with(lm_model *m, const lm_config *c, uint64_t seed,
                              double token_sd, double position_sd)
{
    if (!(token_sd > 0 && token_sd <= 1 && position_sd > 0 && position_sd <= 1)) {
        memset(m, 0, sizeof *m);
        return MHA_ERR_ARG;
    }
    mha_status status = lm_model_alloc(m, c);
    if (status != MHA_OK)
        return status;
    uint64_t state = mha_random_seeded(seed);
    const double residual = LM_INIT_SD / sqrt(2.0 * (double)c->layers);
    for (size_t i = 0; i < m->tensor_count; i++) {
        const lm_tensor *t = &m->tensors[i];
        float *p = m->params + t->offset;
        const size_t n = t->shape[0] * (t->rank == 2 ? t->shape[1] : 1);
        if (t->rank == 2) {
            const double sd = i == 0 ? token_sd : i == 1 ? position_sd :
                              ends_with(t->name, "out_proj.weight") ||
                              ends_with(t->name, "linear2.weight") ? residual : LM_INIT_SD;
            for (size_t k = 0; k < n; k++)
                p[k] = (float)(sd * normal(&state));
        } else if (ends_with(t->name, "norm1.weight") || ends_with(t->name, "norm2.weight") ||
                   strcmp(t->name, "norm.weight") == 0) {
            for (size_t k = 0; k < n; k++)
                p[k] = 1.0f;
        }
    }
    return MHA_OK;
}
mha_status lm_model_init(lm_model *m, const lm_config *c, uint64_t seed)
{
    return lm_model_init_with(m, c, seed, LM_INIT_SD, LM_INIT_SD);
}
/* <<[[lm.c]] functions>> */
static const float *at(const lm_model *m, const float *base, size_t row)
{
    return base + m->tensors[row].offset;
}
mha_block_params lm_block_params(const lm_model *m, size_t layer)
{
    const size_t r = 2 + LM_TENSORS_PER_BLOCK * layer;
    const float *p = m->params;
    mha_block_params b = {
        .norm1_weight = at(m, p, r + 8), .norm1_bias = at(m, p, r + 9),
        .attn = {at(m, p, r + 0), at(m, p, r + 1), at(m, p, r + 2), at(m, p, r + 3)},
        .norm2_weight = at(m, p, r + 10), .norm2_bias = at(m, p, r + 11),
        .linear1_weight = at(m, p, r + 4), .linear1_bias = at(m, p, r + 5),
        .linear2_weight = at(m, p, r + 6), .linear2_bias = at(m, p, r + 7)};
    return b;
}
mha_block_grads lm_block_grads(const lm_model *m, float *g, size_t layer)
{
    const size_t r = 2 + LM_TENSORS_PER_BLOCK * layer;
    #define G(k) (g + m->tensors[r + (k)].offset)
    mha_block_grads b = {
        .norm1_weight = G(8), .norm1_bias = G(9), .in_proj_weight = G(0), .in_proj_bias = G(1),
        .out_proj_weight = G(2), .out_proj_bias = G(3), .norm2_weight = G(10),
        .norm2_bias = G(11), .linear1_weight = G(4), .linear1_bias = G(5),
        .linear2_weight = G(6), .linear2_bias = G(7)};
    #undef G
    return b;
}
/* <<[[lm.c]] functions>> */
static void *alloc_floats(size_t a, size_t b, size_t c, int *failed)
{
    size_t n;
    if (*failed || mha_mul_overflows(a, b, &n) || mha_mul_overflows(n, c, &n) ||
        mha_mul_overflows(n, sizeof(float), &n)) {
        *failed = 1;
        return NULL;
    }
    float *p = calloc(n / sizeof(float), sizeof(float));
    *failed = p == NULL;
    return p;
}
mha_status lm_workspace_init(lm_workspace *ws, const lm_model *m, size_t batch, size_t length,
                             int training)
{
    memset(ws, 0, sizeof *ws);
    const lm_config *c = &m->config;
    if (batch == 0 || length == 0)
        return MHA_ERR_SHAPE;
    if (length > c->context)
        return MHA_ERR_ARG;
    const size_t E = c->embed_dim, N = c->layers;
    size_t rows;
    if (mha_mul_overflows(batch, length, &rows))
        return MHA_ERR_OVERFLOW;
    int failed = 0;
    ws->batch = batch, ws->length = length, ws->training = training;
    ws->stream = alloc_floats(N + 1, rows, E, &failed);
    ws->normed = alloc_floats(rows, E, 1, &failed);
    ws->mean = alloc_floats(rows, 1, 1, &failed);
    ws->rstd = alloc_floats(rows, 1, 1, &failed);
    ws->logits = alloc_floats(rows, c->vocab, 1, &failed);
    ws->out_proj = alloc_floats(E, E, 1, &failed);
    if (training) {
        ws->grad_a = alloc_floats(rows, E, 1, &failed);
        ws->grad_b = alloc_floats(rows, E, 1, &failed);
        ws->grads = alloc_floats(m->count, 1, 1, &failed);
        ws->saved = failed ? NULL : calloc(N, sizeof *ws->saved);
        failed = failed || ws->saved == NULL;
        ws->saved_count = failed ? 0 : N;
        const mha_block_shape shape = {batch, length, E, c->heads, c->hidden};
        for (size_t l = 0; !failed && l < N; l++)
            failed = mha_block_saved_init(&ws->saved[l], &shape) != MHA_OK;
    }
    if (failed) {
        lm_workspace_free(ws);
        return MHA_ERR_NOMEM;
    }
    return MHA_OK;
}
/* <<[[lm.c]] functions>> */
void lm_workspace_free(lm_workspace *ws)
{
    if (ws == NULL)
        return;
    if (ws->saved)
        for (size_t l = 0; l < ws->saved_count; l++)
            mha_block_saved_free(&ws->saved[l]);
    free(ws->saved);
    free(ws->stream); free(ws->normed); free(ws->mean); free(ws->rstd);
    free(ws->logits); free(ws->grad_a); free(ws->grad_b); free(ws->grads);
    free(ws->out_proj);
    memset(ws, 0, sizeof *ws);
}
/* <<[[lm.c]] functions>> */
static mha_status check_tokens(const int *tokens, size_t n, size_t V)
{
    for (size_t i = 0; i < n; i++)
        if (tokens[i] < 0 || (size_t)tokens[i] >= V)
            return MHA_ERR_ARG;
    return MHA_OK;
}
static mha_status forward(const lm_model *m, lm_workspace *ws, const int *tokens, size_t B,
                          size_t L, int saving, float *weights)
{
    const lm_config *c = &m->config;
    const size_t E = c->embed_dim, V = c->vocab, rows = B * L;
    if (m->params == NULL || ws->stream == NULL || tokens == NULL)
        return MHA_ERR_NULL;
    if (B == 0 || L == 0)
        return MHA_ERR_SHAPE;
    if (B > ws->batch || L > ws->length)        /* saving: B, L are the workspace's */
        return MHA_ERR_ARG;
    mha_status status = check_tokens(tokens, rows, V);
    const float *tok = m->params + m->tensors[0].offset, *pos = m->params + m->tensors[1].offset;
    for (size_t r = 0; status == MHA_OK && r < rows; r++)
        for (size_t e = 0; e < E; e++)
            ws->stream[r * E + e] = tok[(size_t)tokens[r] * E + e] + pos[(r % L) * E + e];
    const mha_block_shape shape = {B, L, E, c->heads, c->hidden};
    const mha_mask mask = {.causal = 1};
    for (size_t l = 0; status == MHA_OK && l < c->layers; l++) {
        mha_block_params p = lm_block_params(m, l);
        /* <<take the removed heads of block [[l]] out of [[p]]>> */
        if (m->head_mask != NULL) {
            const size_t H = c->heads, D = E / H;
            const float *keep = m->head_mask + l * H;
            size_t kept = 0;
            for (size_t h = 0; h < H; h++)
                kept += keep[h] == 1.0f;
            if (kept < H) {
                for (size_t o = 0; o < E; o++)
                    for (size_t k = 0; k < E; k++)
                        ws->out_proj[o * E + k] = p.attn.out_proj_weight[o * E + k] * keep[k / D];
                p.attn.out_proj_weight = ws->out_proj;
            }
        }
        const float *in = ws->stream + l * rows * E;
        float *out = ws->stream + (l + 1) * rows * E;
        status = weights ? mha_block_forward_weights(&shape, &p, in, &mask, out,
                                                     weights + l * rows * c->heads * L)
                         : mha_block_forward(&shape, &p, in, &mask, out,
                                             saving ? &ws->saved[l] : NULL);
    }
    const lm_tensor *norm = &m->tensors[m->tensor_count - 2];
    if (status == MHA_OK)
        status = mha_layer_norm(rows, E, ws->stream + c->layers * rows * E,
                                m->params + norm[0].offset, m->params + norm[1].offset,
                                ws->normed, ws->mean, ws->rstd);
    if (status == MHA_OK)
        status = mha_product_nt(rows, V, E, ws->normed, E, tok, E, ws->logits, V);
    return status;
}
mha_status lm_forward(const lm_model *m, lm_workspace *ws, const int *tokens, size_t B, size_t L)
{
    if (m == NULL || ws == NULL)
        return MHA_ERR_NULL;
    return forward(m, ws, tokens, B, L, 0, NULL);
}
/* <<[[lm.c]] functions>> */
static double row_loss_and_gradient(const fast_kernels *k, float *z, size_t V, int target,
                                    double scale)
{
    const size_t whole = V - V % k->width;         /* the kernels' part of the row */
    float top = whole ? k->row_max(z, whole) : -INFINITY;
    for (size_t v = whole; v < V; v++)
        top = z[v] > top ? z[v] : top;
    const float picked = z[target];
    double sum = whole ? k->exp_sum(z, whole, top) : 0.0;     /* z = e^(z - top) */
    for (size_t v = whole; v < V; v++)
        sum += z[v] = expf(z[v] - top);
    const double loss = (double)top + log(sum) - picked;
    const float factor = (float)(scale / sum);
    if (whole)
        k->scale(z, whole, factor);
    for (size_t v = whole; v < V; v++)
        z[v] *= factor;
    z[target] -= (float)scale;
    return loss;
}
mha_status lm_loss(const lm_model *m, lm_workspace *ws, const int *tokens, const int *targets,
                   double *loss)
{
    if (m == NULL || ws == NULL || targets == NULL || loss == NULL)
        return MHA_ERR_NULL;
    const lm_config *c = &m->config;
    const size_t B = ws->batch, L = ws->length, E = c->embed_dim, V = c->vocab, rows = B * L;
    mha_status status = check_tokens(targets, rows, V);
    if (status == MHA_OK && ws->training && lm_heads_removed(m) > 0)
        status = MHA_ERR_ARG;                      /* no gradient through a removed head */
    if (status == MHA_OK)
        status = forward(m, ws, tokens, B, L, ws->training, NULL);
    if (status != MHA_OK)
        return status;
    enum { PIECES = 64 };                          /* of rows, whatever the threads */
    const fast_kernels *kernels = fast_kernels_select();
    double piece[PIECES] = {0}, total = 0;
    const size_t per = (rows + PIECES - 1) / PIECES;
    #pragma omp parallel for schedule(static)
    for (size_t k = 0; k < PIECES; k++)
        for (size_t r = k * per; r < rows && r < (k + 1) * per; r++)
            piece[k] += row_loss_and_gradient(kernels, ws->logits + r * V, V, targets[r],
                                              1.0 / (double)rows);
    for (size_t k = 0; k < PIECES; k++)
        total += piece[k];
    *loss = total / (double)rows;
    if (!isfinite(*loss))
        return MHA_ERR_RANGE;
    if (!ws->training)
        return MHA_OK;
    /* <<backward through the head, the blocks and the embeddings>> */
    float *g = ws->grads, *tok_grad = g + m->tensors[0].offset, *pos_grad = g + m->tensors[1].offset;
    const float *tok = m->params + m->tensors[0].offset;
    const lm_tensor *norm = &m->tensors[m->tensor_count - 2];
    status = mha_product_tn(V, E, rows, ws->logits, V, ws->normed, E, tok_grad, E);
    if (status == MHA_OK)
        status = mha_product_nn(rows, E, V, ws->logits, V, tok, E, ws->grad_a, E);
    if (status == MHA_OK)
        status = mha_layer_norm_backward(rows, E, ws->stream + c->layers * rows * E,
                                         m->params + norm[0].offset, ws->mean, ws->rstd, ws->grad_a,
                                         ws->grad_b, g + norm[0].offset, g + norm[1].offset);
    const mha_block_shape shape = {B, L, E, c->heads, c->hidden};
    const mha_mask mask = {.causal = 1};
    for (size_t l = c->layers; status == MHA_OK && l-- > 0;) {
        const mha_block_params p = lm_block_params(m, l);
        const mha_block_grads bg = lm_block_grads(m, g, l);
        status = mha_block_backward(&shape, &p, ws->stream + l * rows * E, &mask, &ws->saved[l],
                                    ws->grad_b, ws->grad_a, &bg);
        float *swap = ws->grad_a;
        ws->grad_a = ws->grad_b, ws->grad_b = swap;
    }
    if (status == MHA_OK) {
        memset(pos_grad, 0, c->context * E * sizeof(float));
        #pragma omp parallel for schedule(static)
        for (size_t e0 = 0; e0 < E; e0 += 16)
            for (size_t r = 0; r < rows; r++)
                for (size_t e = e0; e < E && e < e0 + 16; e++) {
                    tok_grad[(size_t)tokens[r] * E + e] += ws->grad_b[r * E + e];
                    pos_grad[(r % L) * E + e] += ws->grad_b[r * E + e];
                }
    }
    return status;
}
/* <<[[lm.c]] functions>> */
mha_status lm_adamw_init(lm_adamw *opt, const lm_model *model)
{
    *opt = (lm_adamw){0.9, 0.95, 1e-8, 0.1, 0, NULL, NULL};
    opt->m = calloc(model->count, sizeof(float));
    opt->v = calloc(model->count, sizeof(float));
    if (opt->m == NULL || opt->v == NULL) {
        lm_adamw_free(opt);
        return MHA_ERR_NOMEM;
    }
    return MHA_OK;
}
void lm_adamw_free(lm_adamw *opt)
{
    free(opt->m);
    free(opt->v);
    opt->m = opt->v = NULL;
}
void lm_adamw_step(lm_adamw *opt, lm_model *model, const float *grads, double scale,
                   double rate)
{
    enum { PIECE = 4096 };
    const fast_kernels *k = fast_kernels_select();
    const double t = (double)(++opt->step);
    const double fix1 = 1 - pow(opt->beta1, t), fix2 = sqrt(1 - pow(opt->beta2, t));
    #pragma omp parallel
    for (size_t i = 0; i < model->tensor_count; i++) {
        const lm_tensor *tensor = &model->tensors[i];
        const size_t n = tensor->shape[0] * (tensor->rank == 2 ? tensor->shape[1] : 1);
        const fast_adamw_rule rule = {
            (float)scale, (float)opt->beta1, (float)opt->beta2, (float)opt->epsilon,
            (float)(tensor->decay ? 1 - rate * opt->weight_decay : 1), (float)(rate / fix1),
            (float)fix2};
        float *p = model->params + tensor->offset, *m = opt->m + tensor->offset,
              *v = opt->v + tensor->offset;
        const float *g = grads + tensor->offset;
        #pragma omp for schedule(static) nowait
        for (size_t at = 0; at < n; at += PIECE)
            k->adamw(p + at, m + at, v + at, g + at, n - at < PIECE ? n - at : PIECE, &rule);
    }
}
double lm_learning_rate(size_t step, size_t warmup, size_t steps, double peak)
{
    /* <<the rate at [[step]]: up a line for [[warmup]] steps, then half a cosine down to a tenth>> */
    if (step <= warmup)
        return peak * (double)step / (double)(warmup ? warmup : 1);
    if (step >= steps)
        return 0.1 * peak;
    const double f = (double)(step - warmup) / (double)(steps - warmup);
    return peak * (0.1 + 0.45 * (1 + cos(LM_PI * f)));
}
/* <<[[lm.c]] functions>> */
double lm_gradient_norm(const float *grads, size_t n)
{
    enum { PIECES = 64, PIECE = 4096 };
    const fast_kernels *k = fast_kernels_select();
    double part[PIECES] = {0}, sum = 0;
    const size_t per = (n + PIECES - 1) / PIECES;
    #pragma omp parallel for schedule(static)
    for (size_t p = 0; p < PIECES; p++) {
        const size_t end = (p + 1) * per < n ? (p + 1) * per : n;
        for (size_t at = p * per; at < end; at += PIECE)
            part[p] += k->dot(grads + at, grads + at, end - at < PIECE ? end - at : PIECE);
    }
    for (size_t p = 0; p < PIECES; p++)
        sum += part[p];
    return sqrt(sum);
}
double lm_clip_scale(double norm, double limit)
{
    return norm > limit ? limit / norm : 1.0;
}
/* <<[[lm.c]] functions>> */
static size_t below(uint64_t *state, size_t n)
{
    return (size_t)(mha_random(state) % n);
}
void lm_repeat_span(uint64_t *state, size_t T, size_t least, size_t most, size_t span[3])
{
    const size_t r = least + below(state, most - least + 1);
    const size_t a = below(state, T - 2 * r + 1);
    span[0] = a, span[2] = r;
    span[1] = a + r + below(state, T - r - (a + r) + 1);
}
mha_status lm_batch(const int *text, size_t n, size_t B, size_t T, double repeat,
                    uint64_t *state, int *inputs, int *targets)
{
    if (text == NULL || state == NULL || inputs == NULL || targets == NULL)
        return MHA_ERR_NULL;
    if (n <= T || T == 0 || B == 0)
        return MHA_ERR_SHAPE;
    if (!(repeat >= 0 && repeat <= 1))
        return MHA_ERR_ARG;
    const size_t most = (T + 1) / 2, least = most < 20 ? most : 20;
    for (size_t b = 0; b < B; b++) {
        const int *window = text + (size_t)(mha_random(state) % (uint64_t)(n - T));
        size_t span[3] = {0, 0, 0};                /* no copy: r = 0 */
        if (repeat > 0 && mha_random_unit(state) < repeat)
            lm_repeat_span(state, T + 1, least, most, span);
        for (size_t j = 0; j <= T; j++) {          /* token j of the window, after the copy */
            const int token = window[j >= span[1] && j < span[1] + span[2]
                                     ? j - span[1] + span[0] : j];
            if (j < T)
                inputs[b * T + j] = token;
            if (j > 0)
                targets[b * T + j - 1] = token;
        }
    }
    return MHA_OK;
}
/* <<[[lm.c]] functions>> */
mha_status lm_decoder_init(lm_decoder *d, const lm_model *model)
{
    memset(d, 0, sizeof *d);
    const lm_config *c = &model->config;
    const size_t E = c->embed_dim, F = c->hidden;
    d->model = model;
    int failed = 0;
    d->x = alloc_floats(E, 1, 1, &failed);
    d->h = alloc_floats(E, 1, 1, &failed);
    d->attn = alloc_floats(E, 1, 1, &failed);
    d->hidden = alloc_floats(F, 1, 1, &failed);
    d->act = alloc_floats(F, 1, 1, &failed);
    d->logits = alloc_floats(c->vocab, 1, 1, &failed);
    d->caches = failed ? NULL : calloc(c->layers, sizeof *d->caches);
    failed = failed || d->caches == NULL;
    for (size_t l = 0; !failed && l < c->layers; l++)
        failed = mha_kv_cache_init(&d->caches[l], 1, c->heads, c->context,
                                   E / c->heads) != MHA_OK;
    if (failed) {
        lm_decoder_free(d);
        return MHA_ERR_NOMEM;
    }
    return MHA_OK;
}
void lm_decoder_reset(lm_decoder *d)
{
    for (size_t l = 0; l < d->model->config.layers; l++)
        mha_kv_cache_reset(&d->caches[l]);
    d->position = 0;
}
void lm_decoder_free(lm_decoder *d)
{
    if (d == NULL)
        return;
    for (size_t l = 0; d->caches && l < d->model->config.layers; l++)
        mha_kv_cache_free(&d->caches[l]);
    free(d->caches);
    free(d->x); free(d->h); free(d->attn); free(d->hidden); free(d->act); free(d->logits);
    memset(d, 0, sizeof *d);
}
/* <<[[lm.c]] functions>> */
mha_status lm_decoder_step(lm_decoder *d, int token)
{
    const lm_model *m = d->model;
    const lm_config *c = &m->config;
    const size_t E = c->embed_dim, F = c->hidden, V = c->vocab;
    if (token < 0 || (size_t)token >= V)
        return MHA_ERR_ARG;
    if (d->position >= c->context)
        return MHA_ERR_CACHE_FULL;
    if (lm_heads_removed(m) > 0)
        return MHA_ERR_ARG;                        /* the decoder runs every head */
    const float *tok = m->params + m->tensors[0].offset, *pos = m->params + m->tensors[1].offset;
    for (size_t e = 0; e < E; e++)
        d->x[e] = tok[(size_t)token * E + e] + pos[d->position * E + e];
    mha_status status = MHA_OK;
    for (size_t l = 0; status == MHA_OK && l < c->layers; l++) {
        const mha_block_params p = lm_block_params(m, l);
        const mha_decoder dec = {E, c->heads, c->heads, p.attn, 0, 0};
        status = mha_layer_norm(1, E, d->x, p.norm1_weight, p.norm1_bias, d->h, NULL, NULL);
        if (status == MHA_OK)
            status = mha_decode_step_blocked(&dec, &d->caches[l], 1, d->h, NULL, d->attn, NULL);
        if (status == MHA_OK) {
            for (size_t e = 0; e < E; e++)
                d->x[e] += d->attn[e];
            status = mha_layer_norm(1, E, d->x, p.norm2_weight, p.norm2_bias, d->h, NULL, NULL);
        }
        if (status == MHA_OK) {
            mha_product_nt_plain(1, F, E, d->h, E, p.linear1_weight, E, p.linear1_bias, d->hidden, F);
            mha_gelu(F, d->hidden, d->act);
            mha_product_nt_plain(1, E, F, d->act, F, p.linear2_weight, F, p.linear2_bias, d->attn, E);
            for (size_t e = 0; e < E; e++)
                d->x[e] += d->attn[e];
        }
    }
    const lm_tensor *norm = &m->tensors[m->tensor_count - 2];
    if (status == MHA_OK)
        status = mha_layer_norm(1, E, d->x, m->params + norm[0].offset,
                                m->params + norm[1].offset, d->h, NULL, NULL);
    if (status == MHA_OK) {
        mha_product_nt_plain(1, V, E, d->h, E, tok, E, NULL, d->logits, V);
        d->position++;
        for (size_t v = 0; v < V && status == MHA_OK; v++)
            status = isfinite(d->logits[v]) ? MHA_OK : MHA_ERR_RANGE;
    }
    return status;
}
/* <<[[lm.c]] functions>> */
double lm_row_loss(const float *z, size_t V, int target)
{
    double top = z[0], sum = 0;
    for (size_t v = 1; v < V; v++)
        top = z[v] > top ? z[v] : top;
    for (size_t v = 0; v < V; v++)
        sum += exp(z[v] - top);
    return top + log(sum) - z[target];
}
static int descending(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}
int lm_sample(const float *logits, size_t V, double temperature, size_t top_k, uint64_t *state,
              float *scratch)
{
    size_t best = 0;
    for (size_t v = 1; v < V; v++)
        best = logits[v] > logits[best] ? v : best;
    if (temperature <= 0)
        return (int)best;
    float floor = -INFINITY;
    if (top_k > 0 && top_k < V) {
        memcpy(scratch, logits, V * sizeof *scratch);
        qsort(scratch, V, sizeof *scratch, descending);
        floor = scratch[top_k - 1];
    }
    double sum = 0;
    for (size_t v = 0; v < V; v++)
        sum += logits[v] >= floor ? exp((logits[v] - logits[best]) / temperature) : 0;
    const double u = mha_random_unit(state) * sum;
    double run = 0;
    size_t last = best;
    for (size_t v = 0; v < V; v++) {
        if (logits[v] < floor)
            continue;
        run += exp((logits[v] - logits[best]) / temperature);
        last = v;
        if (run > u)
            return (int)v;
    }
    return (int)last;
}
/* <<[[lm.c]] functions>> */
mha_status lm_forward_weights(const lm_model *m, lm_workspace *ws, const int *tokens, size_t B,
                              size_t L, float *weights)
{
    if (m == NULL || ws == NULL || weights == NULL)
        return MHA_ERR_NULL;
    return forward(m, ws, tokens, B, L, 0, weights);
}
/* <<[[lm.c]] functions>> */
mha_status lm_head_keep(lm_model *m, size_t layer, size_t head, int keep)
{
    if (m == NULL || m->head_mask == NULL)
        return MHA_ERR_NULL;
    if (layer >= m->config.layers || head >= m->config.heads)
        return MHA_ERR_ARG;
    m->head_mask[layer * m->config.heads + head] = keep ? 1.0f : 0.0f;
    return MHA_OK;
}
void lm_heads_restore(lm_model *m)
{
    for (size_t k = 0; m->head_mask && k < m->config.layers * m->config.heads; k++)
        m->head_mask[k] = 1.0f;
}
size_t lm_heads_removed(const lm_model *m)
{
    size_t removed = 0;
    for (size_t k = 0; m->head_mask && k < m->config.layers * m->config.heads; k++)
        removed += lm_head_removed(m, k);
    return removed;
}
int lm_head_removed(const lm_model *m, size_t k)
{
    return m->head_mask != NULL && k < m->config.layers * m->config.heads &&
           m->head_mask[k] != 1.0f;
}
