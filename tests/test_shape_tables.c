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
