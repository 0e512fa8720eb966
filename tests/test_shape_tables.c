/* generated from chapters/31-tests-shape.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "mha.h"
#include "tables.h"

static char *print_to_string(void (*print)(FILE *))
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    cr_assert_not_null(f);
    print(f);
    fclose(f);
    return text;
}

Test(shape, param_table) {
    char *text = print_to_string(mha_print_param_table);
    cr_expect(strstr(text, "4 & 64 & 16 & 80 \\\\") != NULL, "E=4 row:\n%s", text);
    cr_expect(strstr(text, "512 & 1\\,048\\,576 & 2\\,048 & 1\\,050\\,624 \\\\") != NULL,
              "E=512 row:\n%s", text);
    cr_expect(strstr(text, "4096 & 67\\,108\\,864 & 16\\,384 & 67\\,125\\,248 \\\\") != NULL,
              "E=4096 row:\n%s", text);
    free(text);
}
Test(shape, flop_table) {
    char *text = print_to_string(mha_print_flop_table);
    cr_expect(strstr(text, "32 & 10 & 512 & 8 & 168 & 336 & 3.28 & 3.28 & 168 & 0.128 \\\\")
              != NULL, "notebook row:\n%s", text);
    /* 2*2048*768^2 = 2415.9 million; 2*2048^2*768 = 6442.5 million; 5*12*2048^2 = 251.7 million */
    cr_expect(strstr(text, "1 & 2048 & 768 & 12 & 2\\,416 & 4\\,832 & 6\\,442 & 6\\,442"
                           " & 2\\,416 & 252 \\\\") != NULL, "long row:\n%s", text);
    free(text);
    text = print_to_string(mha_print_numbers);
    /* 4 projections of 2LE^2 against scores and context of 2LSE each: 2E/S = 102.4 */
    cr_expect(strstr(text, "\\newcommand{\\NotebookProjOverCore}{102}\n") != NULL, "%s", text);
    free(text);
}
Test(shape, sizes_and_the_temperature_figure) {
    char *text = print_to_string(mha_print_numbers);
    cr_expect(strstr(text, "\\newcommand{\\SizeScoresHead}{16\\,MiB}\n") != NULL, "%s", text);
    cr_expect(strstr(text, "\\newcommand{\\SizeForwardScratch}{50\\,MB}\n") != NULL, "%s", text);
    cr_expect(strstr(text, "\\newcommand{\\SizeDecodeNear}{35\\,MB}\n") != NULL, "%s", text);
    cr_expect(strstr(text, "\\newcommand{\\SizeDecodeMid}{101\\,MB}\n") != NULL, "%s", text);
    free(text);
    text = print_to_string(mha_print_softmax_temperature);
    cr_expect(strstr(text, "coordinates { (0,0.8292) (1,0.1122)") != NULL, "tau 0.5:\n%s", text);
    cr_expect(strstr(text, "coordinates { (0,0.5630) (1,0.2071)") != NULL, "tau 1:\n%s", text);
    free(text);
}
Test(shape, gelu_and_sinusoidal_figures) {
    char *text = print_to_string(mha_print_gelu_curve);
    cr_expect(strstr(text, " (1.00,0.84134)") != NULL, "GELU(1):\n%s", text);
    cr_expect(strstr(text, " (-1.00,-0.15866)") != NULL, "GELU(-1):\n%s", text);
    cr_expect(strstr(text, " (0.00,0.00000)") != NULL, "GELU(0):\n%s", text);
    free(text);
    text = print_to_string(mha_print_sinusoidal_table);
    cr_expect(strstr(text, "\\fill[blue!67!white] (0.00,-0.16)") != NULL, "sin 1:\n%s", text);
    cr_expect(strstr(text, "\\fill[blue!43!white] (0.16,-0.16)") != NULL, "cos 1:\n%s", text);
    cr_expect(strstr(text, "\\fill[blue!72!white] (0.32,-0.32)") != NULL, "t=2:\n%s", text);
    cr_expect(strstr(text, "\\fill[orange!61!white] (0.00,-0.64)") != NULL, "sin 4:\n%s", text);
    free(text);
}
Test(shape, designed_heatmaps_and_sqrt_d_figures) {
    char *text = print_to_string(mha_print_designed_heatmaps);
    cr_expect(strstr(text, "fill=blue!80!white] (0.000,-0.000) rectangle") != NULL, "%s", text);
    cr_expect(strstr(text, "fill=gray!15!white] (0.280,-0.000) rectangle") != NULL, "%s", text);
    cr_expect(strstr(text, "fill=blue!80!white] (2.790,-0.000) rectangle") != NULL, "%s", text);
    free(text);
    text = print_to_string(mha_print_sqrt_d);
    const char *raw = strstr(text, "coordinates {");
    const char *scaled = raw ? strstr(raw + 1, "coordinates {") : NULL;
    cr_assert(raw != NULL && scaled != NULL, "%s", text);
    double first[2], last[2];
    cr_assert_eq(sscanf(raw, "coordinates { (1,%lf)", &first[0]), 1, "%s", text);
    cr_assert_eq(sscanf(scaled, "coordinates { (1,%lf)", &first[1]), 1, "%s", text);
    const char *at[2] = {strstr(raw, " (512,"), strstr(scaled, " (512,")};
    cr_assert(at[0] != NULL && at[1] != NULL, "%s", text);
    cr_assert_eq(sscanf(at[0], " (512,%lf)", &last[0]), 1);
    cr_assert_eq(sscanf(at[1], " (512,%lf)", &last[1]), 1);
    cr_expect_eq(first[0], first[1], "D=1: raw %g, scaled %g", first[0], first[1]);
    cr_expect_gt(last[0], 0.9, "raw scores at D=512: %g", last[0]);
    cr_expect(last[1] > 0.08 && last[1] < 0.25, "scaled scores at D=512: %g", last[1]);
    free(text);
}
