/* generated from chapters/11-designed-heads.nw, chapters/41-tests-designed.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "designed.h"
#include "oracle.h"
#include "tables.h"

/* <<[[test_designed.c]] helpers>> */
static const char *const sentences[] = {
    "the cat sat on the mat because the cat was tired",
    "a rose is a rose is a rose",
    "one two three four five six seven eight nine ten eleven twelve",
    ("to be or not to be that is the question whether tis nobler in the mind "
     "to suffer the slings and arrows of outrageous fortune or to take arms against a sea"),
};
enum { SENTENCES = sizeof sentences / sizeof sentences[0], H = MHA_DESIGNED_HEADS,
       E = MHA_DESIGNED_EMBED };
/* <<[[test_designed.c]] helpers>> */
struct run { char words[512]; const char *tokens[64]; size_t L; float *weights; };

static void run_sentence(struct run *r, const char *sentence, int causal)
{
    static float in_w[3 * E * E], out_w[E * E];
    mha_designed_params(in_w, out_w);
    strcpy(r->words, sentence);
    r->L = 0;
    for (char *w = strtok(r->words, " "); w != NULL; w = strtok(NULL, " "))
        r->tokens[r->L++] = w;
    cr_assert(r->L <= MHA_DESIGNED_POSITIONS, "%zu words", r->L);
    float *x = malloc(r->L * E * sizeof *x), *out = malloc(r->L * E * sizeof *out);
    r->weights = malloc(H * r->L * r->L * sizeof *r->weights);
    cr_assert(x && out && r->weights);
    cr_assert_eq(mha_designed_embed(r->tokens, r->L, x), MHA_OK);
    const mha_shape shape = {1, r->L, r->L, E, H};
    const mha_params params = {in_w, NULL, out_w, NULL};
    const mha_mask mask = {causal, NULL, NULL, NULL};
    cr_assert_eq(mha_forward_naive(&shape, &params, x, NULL, NULL, &mask, out, r->weights),
                 MHA_OK);
    free(x);
    free(out);
}
/* <<[[test_designed.c]] helpers>> */
static void expect_focus(const struct run *r, size_t h, size_t p, size_t lo, size_t hi,
                         const char *sentence)
{
    const float *row = r->weights + (h * r->L + p) * r->L;
    double sum = 0;
    for (size_t j = lo; j <= hi; j++)
        sum += row[j];
    cr_expect(sum >= 0.9, "%s head, query %zu ('%s'): %.3f on keys %zu..%zu in \"%s\"",
              mha_designed_head_names[h], p, r->tokens[p], sum, lo, hi, sentence);
}
/* <<[[test_designed.c]] tests>> */
Test(designed, previous_first_and_window_heads) {
    for (size_t s = 0; s < SENTENCES; s++) {
        struct run r;
        run_sentence(&r, sentences[s], 1);
        for (size_t p = 0; p < r.L; p++) {
            expect_focus(&r, 0, p, p ? p - 1 : 0, p ? p - 1 : 0, sentences[s]);
            expect_focus(&r, 2, p, 0, 0, sentences[s]);
            expect_focus(&r, 3, p, p >= 2 ? p - 2 : 0, p, sentences[s]);
        }
        free(r.weights);
    }
}
/* <<[[test_designed.c]] tests>> */
Test(designed, same_token_head) {
    size_t repeats = 0, fresh = 0;
    for (size_t s = 0; s < SENTENCES; s++) {
        struct run r;
        run_sentence(&r, sentences[s], 1);
        for (size_t p = 0; p < r.L; p++) {
            size_t want = p;
            for (size_t j = 0; j < p; j++)
                if (strcmp(r.tokens[j], r.tokens[p]) == 0)
                    want = j;
            want == p ? fresh++ : repeats++;
            expect_focus(&r, 1, p, want, want, sentences[s]);
        }
        free(r.weights);
    }
    cr_expect(repeats >= 10 && fresh >= 10, "%zu repeats, %zu new words", repeats, fresh);
}
/* <<[[test_designed.c]] tests>> */
Test(designed, every_implementation_agrees_with_the_reference) {
    struct run r;
    run_sentence(&r, sentences[3], 1);
    static float in_w[3 * E * E], out_w[E * E];
    mha_designed_params(in_w, out_w);
    float *x = malloc(r.L * E * sizeof *x);
    cr_assert(x && mha_designed_embed(r.tokens, r.L, x) == MHA_OK);
    mha_case c = {.shape = {1, r.L, r.L, E, H}, .query = x,
                  .params = {in_w, NULL, out_w, NULL}};
    const mha_mask causal = {1, NULL, NULL, NULL};
    for (size_t i = 0; i < mha_impl_count; i++)
        check_against_reference(&mha_impls[i], &c, &causal);
    free(x);
    free(r.weights);
}
/* <<test the averaging head and the heads without the causal mask>> */
Test(designed, average_head) {
    struct run r;
    run_sentence(&r, sentences[0], 1);
    for (size_t p = 0; p < r.L; p++)
        for (size_t j = 0; j < r.L; j++) {
            const float got = r.weights[(4 * r.L + p) * r.L + j];
            cr_expect(fabsf(got - (j <= p ? 1.0f / (float)(p + 1) : 0.0f)) < 1e-6f,
                      "query %zu key %zu: %g", p, j, got);
        }
    free(r.weights);
}
/* <<test the averaging head and the heads without the causal mask>> */
Test(designed, without_the_causal_mask) {
    struct run r;
    run_sentence(&r, sentences[1], 0);                   /* a rose is a rose is a rose */
    for (size_t p = 1; p < r.L; p++) {
        expect_focus(&r, 0, p, p - 1, p - 1, sentences[1]);
        expect_focus(&r, 2, p, 0, 0, sentences[1]);
    }
    expect_focus(&r, 1, 0, 6, 6, sentences[1]);             /* the first a: the last a */
    expect_focus(&r, 1, 1, 7, 7, sentences[1]);             /* the first rose: the last */
    free(r.weights);
}
/* <<test the table of the heads' worst rows>> */
static double worst_miss(const char *sentence, size_t h)
{
    struct run r;
    run_sentence(&r, sentence, 1);
    double worst = 0;
    for (size_t p = 0; p < r.L; p++) {
        const float *row = r.weights + (h * r.L + p) * r.L;
        size_t want = h == 0 ? (p ? p - 1 : 0) : h == 1 ? p : 0;
        for (size_t j = 0; h == 1 && j < p; j++)
            if (strcmp(r.tokens[j], r.tokens[p]) == 0)
                want = j;
        double wanted = 0, uneven = 0;
        for (size_t j = 0; j <= p; j++) {
            const int in = h == 3 ? j + 2 >= p : h == 4 ? 1 : j == want;
            wanted += in ? row[j] : 0;
            uneven = fmax(uneven, fabs(row[j] - 1.0 / (double)(p + 1)));
        }
        worst = fmax(worst, h == 4 ? uneven : 1 - wanted);
    }
    free(r.weights);
    return worst;
}
/* <<test the table of the heads' worst rows>> */
Test(designed, the_table_prints_what_the_heads_do) {
    static const char *const table[] = {
        "the cat sat on the mat because the cat was tired", "a rose is a rose is a rose",
        "to be or not to be that is the question",
    };
    char *text;
    size_t size;
    FILE *out = open_memstream(&text, &size);
    cr_assert_not_null(out);
    mha_print_designed_table(out);
    fclose(out);
    for (size_t h = 0; h < H; h++) {
        double want = 0;
        for (size_t s = 0; s < 3; s++)
            want = fmax(want, worst_miss(table[s], h));
        const char *row = strstr(text, mha_designed_head_names[h]);
        cr_assert_not_null(row, "no row for %s in\n%s", mha_designed_head_names[h], text);
        const char *amp = strstr(row, "\\\\");          /* the row's end, then its last & */
        cr_assert_not_null(amp);
        while (amp > row && *amp != '&')
            amp--;
        const double printed = strtod(amp + 1, NULL);
        cr_expect(fabs(printed - want) <= 0.051 * want + 1e-12 && want < 1e-3,
                  "%s: table %.2g, test %.2g", mha_designed_head_names[h], printed, want);
    }
    free(text);
}
/* <<test that bad sentences are refused>> */
Test(designed, embed_refuses_bad_input) {
    static float x[(MHA_DESIGNED_POSITIONS + 1) * E];
    const char *tokens[MHA_DESIGNED_POSITIONS + 1];
    for (size_t i = 0; i <= MHA_DESIGNED_POSITIONS; i++)
        tokens[i] = "w";
    cr_expect_eq(mha_designed_embed(tokens, 0, x), MHA_ERR_SHAPE);
    cr_expect_eq(mha_designed_embed(tokens, MHA_DESIGNED_POSITIONS + 1, x), MHA_ERR_SHAPE);
    cr_expect_eq(mha_designed_embed(NULL, 3, x), MHA_ERR_NULL);
    cr_expect_eq(mha_designed_embed(tokens, 3, NULL), MHA_ERR_NULL);
    tokens[1] = NULL;
    cr_expect_eq(mha_designed_embed(tokens, 3, x), MHA_ERR_NULL);
    cr_expect_eq(mha_designed_embed(tokens, MHA_DESIGNED_POSITIONS, x), MHA_ERR_NULL);
}
/* <<test that bad sentences are refused>> */
Test(designed, worst_miss_refuses_bad_sentences) {
    double worst[H];
    char many[33 * 2 + 1] = "";
    for (int i = 0; i < 33; i++)
        strcat(many, "w ");
    cr_expect_eq(mha_designed_worst_miss(NULL, worst), MHA_ERR_NULL);
    cr_expect_eq(mha_designed_worst_miss("a b", NULL), MHA_ERR_NULL);
    cr_expect_eq(mha_designed_worst_miss("   ", worst), MHA_ERR_SHAPE);
    cr_expect_eq(mha_designed_worst_miss(many, worst), MHA_ERR_SHAPE, "33 words");
    many[32 * 2] = '\0';                                  /* 32 words fit */
    cr_expect_eq(mha_designed_worst_miss(many, worst), MHA_OK);
    for (size_t h = 0; h < H; h++)
        cr_expect(worst[h] >= 0 && worst[h] <= 1, "%s: %g", mha_designed_head_names[h], worst[h]);
}
