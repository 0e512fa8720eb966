/* generated from chapters/01-shape.nw; edit the book, not this file */
#ifndef CHECK_H
#define CHECK_H
#include <stddef.h>
#include <stdint.h>
#include "mha.h"
#include "random.h"

/* <<[[check.h]] declarations>> */
typedef struct { uint64_t state; } rng;
rng rng_seeded(uint64_t seed);
float rng_uniform(rng *r, float lo, float hi);
float *random_floats(rng *r, size_t n, float lo, float hi);   /* malloc'd */
/* <<[[check.h]] declarations>> */
double max_abs_error(const float *got, const double *want, size_t n);
double max_abs_value(const double *x, size_t n);
/* <<[[check.h]] declarations>> */
double tolerance_rule(double naive_error, const double *want, size_t n);
void expect_close(const char *what, const float *got, const double *want,
                  size_t n, double tolerance);
#endif
