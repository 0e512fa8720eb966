/* generated from chapters/01-shape.nw; edit the book, not this file */
#ifndef MHA_RANDOM_H
#define MHA_RANDOM_H
/* The one seeded generator: Marsaglia's 64-bit xorshift (shifts 13, 7, 17).
   A state must never be zero; mha_random_seeded gives one for any seed, and
   mha_random_nonzero makes a state computed from a seed non-zero. */
#include <stdint.h>
static inline uint64_t mha_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}
static inline double mha_random_unit(uint64_t *state)         /* in [0, 1), 53 bits */
{
    return (double)(mha_random(state) >> 11) / (double)(1ull << 53);
}
static inline double mha_random_between(uint64_t *state, double lo, double hi)
{                                                             /* in [lo, hi) */
    return lo + (hi - lo) * mha_random_unit(state);
}
static inline uint64_t mha_random_nonzero(uint64_t state)     /* 0 becomes 1 */
{
    return state + (state == 0);
}
static inline uint64_t mha_random_seeded(uint64_t seed)
{
    return mha_random_nonzero(seed * 0x9E3779B97F4A7C15ull + 1);
}
#endif
