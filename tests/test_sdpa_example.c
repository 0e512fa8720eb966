/* generated from chapters/32-tests-sdpa.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "example.h"
#include "tables.h"

static void example_weights(double w[2][9])
{
    const double s = 1 / sqrt(2.0), e = exp(s);
    const double head1[9] = {1, e, e,  e, 1, e,  e, e, e * e};
    const double head2[9] = {1, e, 1,  e, 1, 1,  1, 1, 1};
    for (int i = 0; i < 3; i++) {
        double n1 = 0, n2 = 0;
        for (int j = 0; j < 3; j++) { n1 += head1[3 * i + j]; n2 += head2[3 * i + j]; }
        for (int j = 0; j < 3; j++) {
            w[0][3 * i + j] = head1[3 * i + j] / n1;
            w[1][3 * i + j] = head2[3 * i + j] / n2;
        }
    }
}

Test(sdpa, worked_example_matches_closed_form) {
    double want[2][9];
    example_weights(want);
    cr_expect(fabs(want[0][0] - 0.198) < 1e-3 && fabs(want[0][1] - 0.401) < 1e-3 &&
              fabs(want[0][8] - 0.504) < 1e-3, "closed form disagrees with the printed values");
    float in_w[48], out_w[16];
    mha_example_params(in_w, out_w);
    for (size_t h = 0; h < 2; h++) {
        float q[6], k[6], v[6], weights[9], context[6];
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (0 * 4 + h * 2) * 4, 4,
                             NULL, q, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (1 * 4 + h * 2) * 4, 4,
                             NULL, k, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (2 * 4 + h * 2) * 4, 4,
                             NULL, v, 2);
        mha_attend(3, 3, 2, q, 2, k, 2, v, 2, NULL, weights, context, 2);
        expect_close(h == 0 ? "head 1 weights" : "head 2 weights", weights, want[h], 9, 1e-6);
        if (h == 1)
            cr_expect(v[4] == 0.0f && v[5] == 2.0f, "V_2's last row is (0, 2), got (%g, %g)",
                      (double)v[4], (double)v[5]);
    }
}

Test(sdpa, erratum_prints_the_softmax_of_the_notes_scores) {
    const double s[3] = {0.71, 0.00, 1.41};
    double sum = exp(s[0]) + exp(s[1]) + exp(s[2]);
    char want[64], *text = NULL;
    size_t size = 0;
    snprintf(want, sizeof want, "$(%.2f, %.2f, %.2f)$", exp(s[0]) / sum, exp(s[1]) / sum,
             exp(s[2]) / sum);
    FILE *f = open_memstream(&text, &size);
    mha_print_erratum(f);
    fclose(f);
    cr_expect_str_eq(text, want);
    free(text);
}

Test(sdpa, worked_example_heatmap_prints_the_true_weights) {
    double want[2][9];
    example_weights(want);
    char *text = NULL, cell[64];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mha_print_example_heatmap(f);
    fclose(f);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 9; i++) {
            snprintf(cell, sizeof cell, "{%.3f}", want[h][i]);
            cr_expect(strstr(text, cell) != NULL, "head %d weight %d: missing %s", h + 1, i, cell);
        }
    free(text);
}

Test(sdpa, worked_example_table_prints_the_true_weights) {
    double want[2][9];
    example_weights(want);
    char *text = NULL, row[128];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mha_print_example_table(f);
    fclose(f);
    for (int h = 0; h < 2; h++) {
        snprintf(row, sizeof row, "%.3f & %.3f & %.3f \\\\ %.3f & %.3f & %.3f",
                 want[h][0], want[h][1], want[h][2], want[h][3], want[h][4], want[h][5]);
        cr_expect(strstr(text, row) != NULL, "head %d: missing '%s' in\n%s", h + 1, row, text);
    }
    free(text);
}
