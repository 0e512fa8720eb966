/* generated from chapters/26-exercises.nw; edit the book, not this file */
/* The held-out tests of the exercises: the grader runs them, the workspaces
   do not hold them.  Each test's name starts with its exercise's name. */
#include <math.h>
#include <criterion/criterion.h>
#include "mha.h"

static void check_pair(float a, float b)
{
    float x[2] = {a, b};
    double first = 1.0 / (1.0 + exp((double)b - (double)a));
    mha_softmax_row(x, 2);
    cr_assert(fabs(x[0] - first) < 1e-6 && fabs(x[1] - (1.0 - first)) < 1e-6,
              "softmax(%g, %g) is (%g, %g), not (%g, %g)", a, b, x[0], x[1], first, 1.0 - first);
}

Test(held_out, softmax_stable_large_scores) {
    check_pair(1000.0f, 999.0f);
    check_pair(88.0f, 89.0f);
}

Test(held_out, softmax_stable_very_negative_scores) {
    check_pair(-1000.0f, -1001.0f);
    check_pair(-200.0f, -200.0f);
}

Test(held_out, softmax_stable_tiny_scores) {
    check_pair(1e-30f, -1e-30f);
    check_pair(0.0f, 1e-38f);
}
