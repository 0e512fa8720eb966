/* generated from chapters/11-designed-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "designed.h"

/* <<[[designed.c]] data>> */
enum { E = MHA_DESIGNED_EMBED, D = MHA_DESIGNED_HEAD_DIM, P = MHA_DESIGNED_POSITIONS,
       POS = MHA_DESIGNED_POSITION_FEATURES, TOK = MHA_DESIGNED_TOKEN_FEATURES,
       ONE = MHA_DESIGNED_CONSTANT_FEATURE };
enum projection { QUERY = 0, KEY = 1, VALUE = 2 };
static const float margin = 10.0f;    /* score of a wanted key over the others */
/* <<[[designed.c]] data>> */
enum { WINDOW = 3 };
/* <<[[designed.c]] functions>> */
/* Row d of head h's slice of W_Q, W_K or W_V, column `feature`. */
static void set_weight(float *in_proj_weight, enum projection which, size_t h, size_t d,
                       size_t feature, float score)
{
    const float sqrt_d = sqrtf((float)D);
    in_proj_weight[((size_t)which * E + h * D + d) * E + feature] =
        which == QUERY ? score * sqrt_d : score;
}
/* <<[[designed.c]] functions>> */
static void keys_announce_position(float *w, size_t h)
{
    for (size_t d = 0; d < P; d++)
        set_weight(w, KEY, h, d, POS + d, 1.0f);
}
/* <<[[designed.c]] functions>> */
static void design_previous_token(float *w, size_t h)
{
    /* <<make head [[h]] of [[w]] attend to the previous token>> */
    keys_announce_position(w, h);
    for (size_t p = 1; p < P; p++)
        set_weight(w, QUERY, h, p - 1, POS + p, margin);
}
/* <<[[designed.c]] functions>> */
static void design_same_token(float *w, size_t h)
{
    for (size_t t = 0; t < P; t++) {
        set_weight(w, QUERY, h, t, TOK + t, 150.0f);    /* token block: match */
        set_weight(w, KEY, h, t, TOK + t, 1.0f);
    }
    for (size_t p = 0; p < P; p++) {                    /* position block: recency */
        set_weight(w, KEY, h, P + p, POS + p, 1.0f);
        for (size_t d = 0; d < P; d++)
            set_weight(w, QUERY, h, P + d, POS + p, d == p ? -40.0f : 3.0f * (float)d);
    }
}
/* <<[[designed.c]] functions>> */
static void design_first_token(float *w, size_t h)
{
    set_weight(w, QUERY, h, 0, ONE, margin);
    set_weight(w, KEY, h, 0, POS + 0, 1.0f);
}
/* <<[[designed.c]] functions>> */
static void design_local_window(float *w, size_t h)
{
    keys_announce_position(w, h);
    for (size_t p = 0; p < P; p++)
        for (size_t d = p + 1 >= WINDOW ? p + 1 - WINDOW : 0; d <= p; d++)
            set_weight(w, QUERY, h, d, POS + p, margin);
}
/* <<[[designed.c]] functions>> */
static void design_average(float *w, size_t h)
{
    (void)w;
    (void)h;
}
/* <<[[designed.c]] functions>> */
static void design_values(float *w, size_t h)
{
    for (size_t d = 0; d < P; d++) {
        set_weight(w, VALUE, h, d, TOK + d, 1.0f);
        set_weight(w, VALUE, h, P + d, POS + d, 1.0f);
    }
}
/* <<[[designed.c]] functions>> */
static void (*const designs[MHA_DESIGNED_HEADS])(float *, size_t) = {
    design_previous_token, design_same_token, design_first_token,
    design_local_window, design_average,
};
const char *const mha_designed_head_names[MHA_DESIGNED_HEADS] = {
    "previous token", "same token", "first token", "local window", "average",
};
/* <<[[designed.c]] functions>> */
void mha_designed_params(float *in_proj_weight, float *out_proj_weight)
{
    memset(in_proj_weight, 0, 3 * (size_t)E * E * sizeof *in_proj_weight);
    for (size_t h = 0; h < MHA_DESIGNED_HEADS; h++) {
        designs[h](in_proj_weight, h);
        design_values(in_proj_weight, h);
    }
    for (size_t i = 0; i < (size_t)E * E; i++)
        out_proj_weight[i] = i / E == i % E;
}
/* <<[[designed.c]] functions>> */
mha_status mha_designed_embed(const char *const *tokens, size_t L, float *x)
{
    if (tokens == NULL || x == NULL)
        return MHA_ERR_NULL;
    if (L == 0 || L > P)
        return MHA_ERR_SHAPE;
    for (size_t p = 0; p < L; p++)
        if (tokens[p] == NULL)
            return MHA_ERR_NULL;
    memset(x, 0, L * E * sizeof *x);
    size_t distinct = 0, first_of[P];          /* first_of[t]: position of word t */
    for (size_t p = 0; p < L; p++) {
        /* <<find the number [[t]] of [[tokens[p]]], numbering it if new>> */
        size_t t = 0;
        while (t < distinct && strcmp(tokens[first_of[t]], tokens[p]) != 0)
            t++;
        if (t == distinct)
            first_of[distinct++] = p;
        x[p * E + POS + p] = 1.0f;
        x[p * E + TOK + t] = 1.0f;
        x[p * E + ONE] = 1.0f;
    }
    return MHA_OK;
}
/* <<[[designed.c]] functions>> */
static void wanted_keys(size_t h, const char *const *tokens, size_t p, size_t *lo, size_t *hi)
{
    *lo = 0;
    *hi = p;
    if (h == 0) {                                        /* previous token */
        *lo = *hi = p ? p - 1 : 0;
    } else if (h == 1) {                                 /* same token, most recent */
        *lo = p;
        for (size_t j = p; j-- > 0 && *lo == p;)
            if (strcmp(tokens[j], tokens[p]) == 0)
                *lo = *hi = j;
    } else if (h == 2) {                                 /* first token */
        *hi = 0;
    } else if (h == 3) {                                 /* local window */
        *lo = p + 1 >= WINDOW ? p + 1 - WINDOW : 0;
    }
}
/* <<[[designed.c]] functions>> */
static double missed_share(size_t h, const float *row, size_t L, size_t lo, size_t hi)
{
    double elsewhere = 0, uneven = 0;
    for (size_t j = 0; j < L; j++) {
        if (j < lo || j > hi)
            elsewhere += row[j];
        else
            uneven = fmax(uneven, fabs(row[j] - 1.0 / (double)(hi - lo + 1)));
    }
    return h == MHA_DESIGNED_HEADS - 1 ? uneven : elsewhere;
}
/* <<[[designed.c]] functions>> */
mha_status mha_designed_worst_miss(const char *sentence, double worst[MHA_DESIGNED_HEADS])
{
    if (sentence == NULL || worst == NULL)
        return MHA_ERR_NULL;
    const char *tokens[P];
    size_t L = 0;
    char *words = malloc(strlen(sentence) + 1);
    if (words == NULL)
        return MHA_ERR_NOMEM;
    strcpy(words, sentence);
    /* <<split [[words]] at spaces into at most [[P]] [[tokens]], or fail with [[MHA_ERR_SHAPE]]>> */
    char *rest = NULL;
    int too_long = 0;
    for (char *w = strtok_r(words, " ", &rest); w != NULL && !too_long;
         w = strtok_r(NULL, " ", &rest)) {
        if (L == P)
            too_long = 1;
        else
            tokens[L++] = w;
    }
    if (L == 0 || too_long) {
        free(words);
        return MHA_ERR_SHAPE;
    }
    float *in_w = malloc(3 * (size_t)E * E * sizeof *in_w),
          *out_w = malloc((size_t)E * E * sizeof *out_w), *x = malloc(L * E * sizeof *x),
          *out = malloc(L * E * sizeof *out),
          *weights = malloc(MHA_DESIGNED_HEADS * L * L * sizeof *weights);
    mha_status status = in_w && out_w && x && out && weights ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK) {
        /* <<run the designed layer on [[tokens]] and fill [[worst]]>> */
        const mha_shape shape = {1, L, L, E, MHA_DESIGNED_HEADS};
        const mha_params params = {in_w, NULL, out_w, NULL};
        const mha_mask causal = {1, NULL, NULL, NULL};
        mha_designed_params(in_w, out_w);
        status = mha_designed_embed(tokens, L, x);
        if (status == MHA_OK)
            status = mha_forward_naive(&shape, &params, x, NULL, NULL, &causal, out, weights);
        for (size_t h = 0; status == MHA_OK && h < MHA_DESIGNED_HEADS; h++) {
            worst[h] = 0;
            for (size_t p = 0; p < L; p++) {
                size_t lo, hi;
                wanted_keys(h, tokens, p, &lo, &hi);
                worst[h] = fmax(worst[h], missed_share(h, weights + (h * L + p) * L, L, lo, hi));
            }
        }
    }
    free(words); free(in_w); free(out_w); free(x); free(out); free(weights);
    return status;
}
