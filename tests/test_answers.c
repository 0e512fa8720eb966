/* generated from chapters/95-answers.nw; edit the book, not this file */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "tables.h"

static void expect_macro(const char *text, const char *name, const char *value)
{
    char want[128];
    snprintf(want, sizeof want, "\\newcommand{\\%s}{%s}\n", name, value);
    cr_expect(strstr(text, want) != NULL, "missing %s", want);
}
Test(answers, numbers_the_answers_quote) {
    char *text = NULL, v[64];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mha_print_numbers(f);
    fclose(f);
    snprintf(v, sizeof v, "%.0f", ceil(log(FLT_MAX)));
    expect_macro(text, "AnsExpOverflow", v);
    snprintf(v, sizeof v, "%.0f", floor(log(ldexp(1.0, -150))));
    expect_macro(text, "AnsExpUnderflow", v);
    snprintf(v, sizeof v, "%.0f", floor(log(FLT_MIN)));
    expect_macro(text, "AnsExpUnderflowNormal", v);
    expect_macro(text, "AnsRootDStd", "8");
    expect_macro(text, "AnsRootDRatio", "2981");
    expect_macro(text, "AnsParams", "1\\,050\\,624");
    expect_macro(text, "AnsHeadParams", "131\\,264");
    expect_macro(text, "AnsHeadMacs", "12\\,582\\,912");
    expect_macro(text, "AnsBalanceLength", "1536");
    expect_macro(text, "AnsWeightsMiB", "192");
    free(text);
}
