/* generated from chapters/02-sdpa.nw; edit the book, not this file */
#include <string.h>
#include "example.h"

/* The worked example: B = 1, L = S = 3, E = 4, H = 2, D = 2. */
const float mha_example_x[3 * 4] = {
    1, 0, 1, 0,
    0, 1, 0, 1,
    1, 1, 0, 0,
};

/* <<the example's per-head projections, as the formula writes them>> */
/* example_w[p][i] is W_i^p for p = Q, K, V and head i: (E, D) = (4, 2). */
static const float example_w[3][2][4][2] = {
    { {{1,0},{0,1},{0,0},{0,0}},  {{0,0},{0,0},{1,0},{0,1}} },   /* W^Q */
    { {{0,1},{1,0},{0,0},{0,0}},  {{0,0},{0,0},{0,1},{1,0}} },   /* W^K */
    { {{1,0},{0,0},{1,0},{0,0}},  {{0,1},{0,1},{0,0},{0,0}} },   /* W^V */
};
/* <<[[example.c]] functions>> */
void mha_example_params(float in_proj_weight[3 * 4 * 4], float out_proj_weight[4 * 4])
{
    const size_t E = 4, D = 2;
    for (size_t p = 0; p < 3; p++)              /* Q, K, V */
        for (size_t i = 0; i < 2; i++)          /* head */
            for (size_t r = 0; r < E; r++)      /* input feature */
                for (size_t c = 0; c < D; c++)  /* head feature */
                    in_proj_weight[(p * E + i * D + c) * E + r] = example_w[p][i][r][c];
    memset(out_proj_weight, 0, E * E * sizeof *out_proj_weight);
    for (size_t r = 0; r < E; r++)
        out_proj_weight[r * E + r] = 1.0f;
}
