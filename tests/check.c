/* generated from chapters/01-shape.nw, chapters/30-tests.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "check.h"

/* <<[[check.c]] functions>> */
rng rng_seeded(uint64_t seed)
{
    rng r = {mha_random_seeded(seed)};
    return r;
}

float rng_uniform(rng *r, float lo, float hi)
{
    return (float)mha_random_between(&r->state, lo, hi);
}

float *random_floats(rng *r, size_t n, float lo, float hi)
{
    float *x = malloc((n ? n : 1) * sizeof *x);
    cr_assert_not_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_uniform(r, lo, hi);
    return x;
}
/* <<[[check.c]] functions>> */
double max_abs_error(const float *got, const double *want, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(got[i]) != isnan(want[i]))
            return INFINITY;
        if (isnan(want[i]))
            continue;
        double e = fabs((double)got[i] - want[i]);
        if (!(e <= worst))
            worst = e;
    }
    return worst;
}

double max_abs_value(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    return m;
}
/* <<[[check.c]] functions>> */
double tolerance_rule(double naive_error, const double *want, size_t n)
{
    return 2.0 * naive_error + 4.0 * FLT_EPSILON * fmax(max_abs_value(want, n), 1e-3);
}

void expect_close(const char *what, const float *got, const double *want,
                  size_t n, double tolerance)
{
    double worst = max_abs_error(got, want, n);
    if (worst <= tolerance)
        return;
    int shown = 0;
    for (size_t i = 0; i < n && shown < 5; i++) {
        double e = fabs((double)got[i] - want[i]);
        if (!(e <= tolerance)) {
            cr_log_error("%s[%zu] = %.9g, want %.9g", what, i, (double)got[i], want[i]);
            shown++;
        }
    }
    cr_expect(worst <= tolerance, "%s: worst error %.3g exceeds tolerance %.3g",
              what, worst, tolerance);
}
/* <<[[check.c]] functions>> */
__attribute__((constructor)) static void isa_from_the_environment(void)
{
    const char *isa = getenv("MHA_ISA");
    if (isa != NULL && mha_set_isa(isa) != MHA_OK) {
        fprintf(stderr, "MHA_ISA: unknown instruction set '%s'\n", isa);
        exit(2);
    }
}
