/* generated from chapters/49-tests-austen-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "austen.h"

#define MODEL "../models/austen"
static viz_austen *enter(viz_state *s)
{
    cr_assert_eq(viz_init(s, NULL), MHA_OK);
    snprintf(viz_austen_dir, sizeof viz_austen_dir, "%s", MODEL);
    cr_assert_eq(viz_switch_mode(s, &viz_austen_mode), MHA_OK, "%s", s->message);
    return viz_mode_data(s, &viz_austen_mode);
}

static void type(viz_state *s, const char *text)
{
    viz_act(s, &(viz_action){.kind = VIZ_START_TYPING, .key = 1});
    viz_act(s, &(viz_action){.kind = VIZ_TYPE, .text = text});
    viz_act(s, &(viz_action){.kind = VIZ_ACCEPT, .key = 1});
}
Test(austen_viewer, the_grid_has_a_titled_map_for_every_head) {
    viz_state s;
    const viz_austen *a = enter(&s);
    const size_t N = a->model.config.layers, H = a->model.config.heads;
    SDL_Rect maps[512];
    cr_assert_eq(viz_austen_maps(a, 1280, 800, maps, 512), N * H);
    for (size_t k = 0; k < N * H; k++)
        for (size_t m = 0; m < k; m++)
            cr_expect(!SDL_HasIntersection(&maps[k], &maps[m]), "maps %zu and %zu", m, k);
    FILE *f = fopen(MODEL "/heads.tsv", "r");
    cr_assert_not_null(f);
    char line[512];
    size_t rows = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t layer, head;
        if (line[0] == '#' || sscanf(line, "%zu\t%zu\t", &layer, &head) != 2)
            continue;
        line[strcspn(line, "\n")] = '\0';
        char want[128], title[128];
        snprintf(want, sizeof want, "L%zu H%zu %s", layer, head, strrchr(line, '\t') + 1);
        viz_austen_title(a, layer * H + head, title, sizeof title);
        cr_expect_str_eq(title, want);
        rows++;
    }
    fclose(f);
    cr_expect_eq(rows, N * H);
    viz_free(&s);
}
Test(austen_viewer, typed_text_is_shown_as_its_pieces) {
    viz_state s;
    viz_austen *a = enter(&s);
    const char *text = "\xe2\x80\x9c" "Emma,\xe2\x80\x9d said she; caf\xc3\xa9 \xe6\x9d\xb1";
    type(&s, text);
    cr_assert_eq(s.typing, 0, "%s", s.message);
    uint32_t ids[128];
    size_t n = 0;
    cr_assert_eq(bpe_encode(&a->tokenizer, (const unsigned char *)text, strlen(text), ids, &n),
                 MHA_OK);
    cr_assert_eq(a->count, n);
    for (size_t k = 0; k < n; k++)
        cr_expect_eq(a->ids[k], (int)ids[k], "piece %zu", k);
    size_t split = 0;
    for (uint32_t t = 0; t < a->tokenizer.vocab; t++) {
        size_t length;
        const unsigned char *b = bpe_token(&a->tokenizer, t, &length);
        char label[VIZ_AUSTEN_LABEL], want[64] = "<";
        viz_austen_piece_label(&a->tokenizer, (int)t, label, sizeof label);
        cr_expect(strstr(label, "\xef\xbf\xbd") == NULL, "token %u", t);
        const size_t whole = b[0] >= 0xF0 ? 4 : b[0] >= 0xE0 ? 3 : b[0] >= 0xC2 ? 2 : 0;
        int partial = length >= 1 && b[0] >= 0x80 && (whole == 0 || length < whole);
        for (size_t k = 1; k < length; k++)
            partial &= (b[k] & 0xC0) == 0x80;
        if (!partial)
            continue;
        for (size_t k = 0; k < length; k++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%02x", k ? " " : "", b[k]);
        strcat(want, ">");
        cr_expect_str_eq(label, want, "token %u", t);
        split++;
    }
    cr_expect_gt(split, 0, "the vocabulary has a piece of a character");
    const char *last[3] = {"<e6>", "<9d>", "<b1>"};      /* the bytes of the last character */
    for (size_t k = 0; k < 3; k++) {
        char label[VIZ_AUSTEN_LABEL];
        viz_austen_piece_label(&a->tokenizer, a->ids[n - 3 + k], label, sizeof label);
        cr_expect_str_eq(label, last[k]);
    }
    viz_free(&s);
}
static const float *sorted_logits;
static int by_logit(const void *x, const void *y)
{
    const float a = sorted_logits[*(const int *)x], b = sorted_logits[*(const int *)y];
    return a > b ? -1 : a < b;
}

Test(austen_viewer, the_breakdown_is_the_heads_row_and_the_models_top_five) {
    viz_state s;
    viz_austen *a = enter(&s);
    type(&s, "Mr. Darcy looked at her, and she at him.");
    const lm_config *c = &a->model.config;
    const size_t L = a->count, H = c->heads, V = c->vocab;
    float *w = malloc(c->layers * H * L * L * sizeof *w);
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &a->model, 1, L, 0), MHA_OK);
    cr_assert_eq(lm_forward_weights(&a->model, &ws, a->ids, 1, L, w), MHA_OK);
    const size_t cases[3][3] = {{0, 0, L - 1}, {2, H - 1, L / 2}, {c->layers - 1, 3, 1}};
    for (size_t n = 0; n < 3; n++) {
        const size_t l = cases[n][0], h = cases[n][1], i = cases[n][2];
        viz_austen_breakdown b;
        cr_assert_eq(viz_austen_breakdown_of(a, l, h, i, &b), MHA_OK);
        double sum = 0;
        for (size_t j = 0; j <= i; j++) {
            cr_expect(fabs(b.weight[j] - w[((l * H + h) * L + i) * L + j]) < 2e-5,
                      "L%zu H%zu row %zu key %zu: %g and %g", l, h, i, j, b.weight[j],
                      (double)w[((l * H + h) * L + i) * L + j]);
            sum += b.weight[j];
        }
        cr_expect(fabs(sum - 1) < 1e-12);
        int order[4096];
        cr_assert(V <= 4096);
        for (size_t v = 0; v < V; v++)
            order[v] = (int)v;
        sorted_logits = ws.logits + i * V;
        qsort(order, V, sizeof *order, by_logit);
        double z = 0;
        for (size_t v = 0; v < V; v++)
            z += exp((double)sorted_logits[v] - sorted_logits[order[0]]);
        for (size_t k = 0; k < VIZ_AUSTEN_TOP; k++) {
            cr_expect_eq(b.next[k], order[k], "row %zu, place %zu", i, k);
            cr_expect(fabs(b.probability[k] -
                           exp((double)sorted_logits[order[k]] - sorted_logits[order[0]]) / z) <
                      1e-9);
        }
    }
    lm_workspace_free(&ws);
    free(w);
    viz_free(&s);
}
static void generate(viz_state *s, viz_austen *a, int *ids, size_t *n)
{
    for (int k = 0; k < 12; k++)
        viz_act(s, &(viz_action){.kind = VIZ_GENERATE, .key = 1});
    cr_assert_eq(s->message[0], '\0', "%s", s->message);
    *n = a->count;
    memcpy(ids, a->ids, a->count * sizeof *ids);
}

Test(austen_viewer, generation_is_the_same_for_a_seed_and_differs_for_another) {
    viz_state s;
    viz_austen *a = enter(&s);
    int first[128], again[128], other[128];
    size_t n1, n2, n3;
    const size_t prompt = a->count;
    generate(&s, a, first, &n1);
    viz_act(&s, &(viz_action){.kind = VIZ_RESTART, .key = 1});
    cr_expect_eq(a->count, prompt);
    generate(&s, a, again, &n2);
    viz_act(&s, &(viz_action){.kind = VIZ_NEW_SEQUENCE, .key = 1});
    generate(&s, a, other, &n3);
    cr_assert_eq(n1, prompt + 12);
    cr_assert_eq(n2, n1);
    cr_expect_arr_eq(first, again, n1 * sizeof *first);
    cr_expect_neq(memcmp(first, other, n1 * sizeof *first), 0, "another seed, other pieces");
    viz_free(&s);
}
Test(austen_viewer, removing_a_head_changes_the_next_piece_and_restoring_restores_it) {
    viz_state s;
    viz_austen *a = enter(&s);
    const lm_config *c = &a->model.config;
    const size_t L = a->count, V = c->vocab, T = c->context, H = c->heads;
    float *logits = malloc(L * V * sizeof *logits), *maps = malloc(c->layers * H * T * T * 4);
    memcpy(logits, a->ws.logits, L * V * sizeof *logits);
    memcpy(maps, a->maps, c->layers * H * T * T * sizeof *maps);
    viz_austen_breakdown before, removed, after;
    cr_assert_eq(viz_austen_breakdown_of(a, 3, 0, L - 1, &before), MHA_OK);
    a->focus = 1 * H + 2;
    viz_act(&s, &(viz_action){.kind = VIZ_REMOVE_HEAD, .key = 1});
    cr_assert_eq(lm_heads_removed(&a->model), 1);
    cr_assert_eq(viz_austen_breakdown_of(a, 3, 0, L - 1, &removed), MHA_OK);
    cr_expect(fabs(removed.probability[0] - before.probability[0]) > 1e-6 ||
              removed.next[0] != before.next[0], "the next piece's probability moved");
    double base = 0, rise = 0;
    FILE *f = fopen(MODEL "/prune.tsv", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        size_t l, h;
        double importance;
        if (line[0] == '#' && strstr(line, "base=") != NULL)
            base = strtod(strstr(line, "base=") + 5, NULL);
        else if (sscanf(line, "%zu\t%zu\t%lf", &l, &h, &importance) == 3 && l == 1 && h == 2)
            rise = importance;
    }
    cr_assert_not_null(f);
    fclose(f);
    cr_expect_eq(a->loss_kind, 2);
    cr_expect(fabs(a->loss - (base + rise)) < 1e-12 && rise != 0, "%g %g %g", a->loss, base, rise);
    viz_act(&s, &(viz_action){.kind = VIZ_RESTORE_HEADS, .key = 1});
    cr_expect_eq(lm_heads_removed(&a->model), 0);
    cr_assert_eq(viz_austen_breakdown_of(a, 3, 0, L - 1, &after), MHA_OK);
    cr_expect_arr_eq(a->ws.logits, logits, L * V * sizeof *logits);
    cr_expect_arr_eq(a->maps, maps, c->layers * H * T * T * sizeof *maps);
    cr_expect_arr_eq(after.probability, before.probability, sizeof before.probability);
    cr_expect(fabs(a->loss - base) < 1e-12);
    free(logits);
    free(maps);
    viz_free(&s);
}
Test(austen_viewer, the_viewer_starts_with_the_model_when_it_is_there) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_expect_eq(viz_start_austen(&s, "no-such-folder", 0), MHA_OK);
    cr_expect_eq(s.mode, &viz_sentence_mode);
    cr_expect_neq(s.news[0], '\0');
    cr_expect_eq(s.message[0], '\0');
    cr_expect_eq(viz_start_austen(&s, MODEL, 1), MHA_OK, "%s", s.message);
    cr_expect_eq(s.mode, &viz_austen_mode);
    viz_free(&s);
}
