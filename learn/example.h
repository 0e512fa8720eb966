/* generated from chapters/02-sdpa.nw; edit the book, not this file */
#ifndef MHA_EXAMPLE_H
#define MHA_EXAMPLE_H
extern const float mha_example_x[3 * 4];
void mha_example_params(float in_proj_weight[3 * 4 * 4], float out_proj_weight[4 * 4]);
#endif
