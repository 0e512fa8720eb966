/* generated from chapters/49-tests-austen-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include "austen.h"
#include "frame.h"
#include "head_roles.h"
#include "lm_files.h"
#include "output.h"

#define MODEL "../models/austen"
static viz_austen *enter(viz_state *s)
{
    cr_assert_eq(viz_init(s, NULL), MHA_OK);
    snprintf(viz_austen_dir, sizeof viz_austen_dir, "%s", MODEL);
    cr_assert_eq(viz_switch_mode(s, &viz_austen_mode), MHA_OK, "%s", s->message);
    return viz_mode_data(s, &viz_austen_mode);
}

static void press(viz_state *s, SDL_Keycode sym)
{
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = sym;
    viz_handle_event(s, &e, NULL);
}

static void type(viz_state *s, const char *text)
{
    viz_act(s, &(viz_action){.kind = VIZ_START_TYPING, .key = 1});
    viz_act(s, &(viz_action){.kind = VIZ_TYPE, .text = text});
    viz_act(s, &(viz_action){.kind = VIZ_ACCEPT, .key = 1});
}
/* <<austen viewer tests>> */
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
        double prev, induction;
        cr_assert_eq(sscanf(line, "%*u\t%*u\t%lf\t%lf", &prev, &induction), 2);
        snprintf(want, sizeof want, "prev %.2f ind %.2f", prev, induction);
        viz_austen_scores(a, layer * H + head, 1, title, sizeof title);
        cr_expect_str_eq(title, want);
        snprintf(want, sizeof want, "p.%02d i.%02d", (int)lround(prev * 100),
                 (int)lround(induction * 100));
        viz_austen_scores(a, layer * H + head, 0, title, sizeof title);
        cr_expect_str_eq(title, prev < 0.995 && induction < 0.995 ? want : title);
        rows++;
    }
    fclose(f);
    cr_expect_eq(rows, N * H);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, a_click_on_a_piece_makes_it_the_query) {
    viz_state s;
    viz_austen *a = enter(&s);
    type(&s, "When Mr. Elton called on Harriet, and then Mr.");
    SDL_FreeSurface(frame_draw(&s, 1280, 800));         /* the strip as drawn */
    viz_layout sentence;
    viz_layout_compute(&s, 1280, 800, &sentence);
    cr_assert_gt(a->count, 4);
    for (size_t k = 1; k < 4; k++) {
        const SDL_Rect b = a->strip[k];
        cr_assert_gt(b.w, 0, "piece %zu is not in sight", k);
        SDL_Event e = {.type = SDL_MOUSEBUTTONDOWN};
        e.button.x = b.x + b.w / 2, e.button.y = b.y + b.h / 2;
        viz_handle_event(&s, &e, &sentence);
        cr_expect_eq(viz_austen_query(a), k, "a click on piece %zu", k);
    }
    SDL_Event e = {.type = SDL_MOUSEBUTTONDOWN};
    e.button.x = 1270, e.button.y = 790;
    viz_handle_event(&s, &e, &sentence);
    cr_expect_eq(viz_austen_query(a), a->count - 1, "a click beside everything");
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, w_scales_each_row_to_its_largest_weight) {
    viz_state s;
    viz_austen *a = enter(&s);
    type(&s, "It was a fine morning, and she walked out along the lane to the village.");
    const size_t T = a->model.config.context, L = a->count;
    austen_layout l;
    viz_austen_layout(a, 1280, 800, 1, &l);
    for (int pass = 0; pass < 3; pass++) {
        SDL_Surface *f = frame_draw(&s, 1280, 800);
        size_t differ = 0;
        for (size_t i = 0; i < L; i++) {
            const float *w = a->maps + a->focus * T * T + i * T;
            size_t top = 0;
            for (size_t j = 1; j <= i; j++)
                top = w[j] > w[top] ? j : top;
            for (size_t j = 0; j <= i; j++) {
                const SDL_Rect c = viz_cell(&l.big, L, i, j);
                const double t = pass == 1 ? w[j] / w[top] : w[j];
                const SDL_Color want = viz_colour(s.colour_map, t);
                differ += !frame_same(frame_pixel(f, c.x + c.w / 2, c.y + c.h / 2), want) &&
                          i != viz_austen_query(a);     /* the query's row is outlined */
            }
        }
        cr_expect_eq(differ, 0, "pass %d: %zu cells not in the colour of their weight%s", pass,
                     differ, pass == 1 ? " over their row's largest" : "");
        const SDL_Rect top = {l.legend.x, l.legend.y - 18, VIZ_AUSTEN_LEGEND_ROOM, 16};
        cr_expect_gt(frame_count(f, top, viz_ink), 5, "the legend's top is not named");
        SDL_FreeSurface(f);
        cr_expect_eq(a->row_scaled, pass == 1, "pass %d", pass);
        press(&s, SDLK_w);
    }
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, every_small_map_shows_its_scores_in_its_empty_corner) {
    viz_state s;
    viz_austen *a = enter(&s);
    austen_layout l;
    viz_austen_layout(a, 1280, 800, 1, &l);
    SDL_Surface *f = frame_draw(&s, 1280, 800);
    const size_t maps = a->model.config.layers * a->model.config.heads;
    for (size_t k = 0; k < maps; k++) {
        const SDL_Rect r = l.maps[k], up = {r.x + r.w / 2, r.y, r.w / 2, r.h / 4},
                       down = {r.x, r.y + r.h / 2, r.w / 2, r.h / 2};
        const SDL_Color ink = k == a->focus ? viz_emphasis : viz_dim;
        cr_expect_gt(frame_count(f, up, ink), 5, "map %zu: no scores in its corner", k);
        cr_expect_eq(frame_count(f, down, ink), 0, "map %zu: text over its weights", k);
    }
    SDL_FreeSurface(f);
    char text[32];
    a->prev_token[0] = 0.996, a->induction[0] = 0.004;
    viz_austen_scores(a, 0, 0, text, sizeof text);
    cr_expect_str_eq(text, "p1.0 i.00");
    a->induction[0] = NAN;
    viz_austen_scores(a, 0, 1, text, sizeof text);
    cr_expect_str_eq(text, "", "a head without its induction score");
    viz_free(&s);
}
/* <<austen viewer tests>> */
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
/* <<austen viewer tests>> */
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
            const double lengths = b.query_norm * b.key_norm[j] / sqrt((double)(c->embed_dim / H));
            cr_expect(fabs(b.score[j]) <= lengths * (1 + 1e-12) && b.key_norm[j] > 0,
                      "L%zu H%zu key %zu: score %g beyond |q| |k| / sqrt(D) = %g", l, h, j,
                      b.score[j], lengths);
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
/* <<austen viewer tests>> */
Test(austen_viewer, the_readout_of_a_cell_makes_its_weight) {
    viz_state s;
    viz_austen *a = enter(&s);
    type(&s, "When Mr. Elton called on Harriet, and then Mr.");
    const lm_config *c = &a->model.config;
    const size_t L = a->count, H = c->heads, D = c->embed_dim / H;
    float *w = malloc(c->layers * H * L * L * sizeof *w);
    lm_workspace ws;
    cr_assert(w != NULL);
    cr_assert_eq(lm_workspace_init(&ws, &a->model, 1, L, 0), MHA_OK);
    cr_assert_eq(lm_forward_weights(&a->model, &ws, a->ids, 1, L, w), MHA_OK);
    char lines[VIZ_AUSTEN_CELL_LINES][VIZ_AUSTEN_CELL_LINE];
    const size_t cells[3][4] = {{0, 0, L - 1, 3}, {1, 2, L - 1, L - 1}, {3, 7, 4, 0}};
    for (size_t n = 0; n < 3; n++) {
        const size_t l = cells[n][0], h = cells[n][1], i = cells[n][2], j = cells[n][3];
        viz_austen_breakdown b;
        cr_assert_eq(viz_austen_breakdown_of(a, l, h, i, &b), MHA_OK);
        cr_assert_eq(viz_austen_cell_lines(a, &b, j, lines), 4);
        double q[5], k[5], dot, cosine, score, top, total, weight, again;
        size_t d, keys;
        cr_assert_eq(sscanf(lines[1], "q[0..3] %lf %lf %lf %lf |q| %lf k[0..3] %lf %lf %lf %lf "
                            "|k| %lf", &q[0], &q[1], &q[2], &q[3], &q[4], &k[0], &k[1], &k[2],
                            &k[3], &k[4]), 10, "%s", lines[1]);
        cr_assert_eq(sscanf(lines[2], "q.k %lf = |q| |k| cos, cos %lf; score = q.k / sqrt(%zu) = "
                            "%lf", &dot, &cosine, &d, &score), 4, "%s", lines[2]);
        cr_assert_eq(sscanf(lines[3], "weight = exp(score - max) / sum = exp(%lf - (%lf)) / %lf, "
                            "over the row's %zu keys, = %lf", &again, &top, &total, &keys,
                            &weight), 5, "%s", lines[3]);
        double most = -INFINITY, sum = 0;
        for (size_t m = 0; m <= i; m++)
            most = fmax(most, b.score[m]);
        for (size_t m = 0; m <= i; m++)
            sum += exp(b.score[m] - most);
        const double want = w[((l * H + h) * L + i) * L + j];
        cr_expect(d == D && keys == i + 1 && fabs(again - score) < 1e-9, "%s\n%s", lines[2],
                  lines[3]);
        cr_expect(fabs(dot - score * sqrt((double)D)) < 3e-3 &&
                  fabs(cosine - dot / (q[4] * k[4])) < 3e-3 && fabs(cosine) <= 1,
                  "L%zu H%zu (%zu, %zu): %s", l, h, i, j, lines[2]);
        cr_expect(fabs(top - most) < 1e-3 && fabs(total - sum) < 1e-3, "%s: want %g and %g",
                  lines[3], most, sum);
        cr_expect(fabs(weight - exp(score - top) / total) < 2e-3 && fabs(weight - want) < 1e-3,
                  "%s: the forward pass's weight is %g", lines[3], want);
    }
    viz_austen_breakdown b;
    cr_assert_eq(viz_austen_breakdown_of(a, 0, 0, 2, &b), MHA_OK);
    cr_expect(viz_austen_cell_lines(a, &b, 5, lines) == 1 && strstr(lines[0], ": masked"),
              "%s", lines[0]);
    lm_workspace_free(&ws);
    free(w);
    viz_free(&s);
}
/* <<austen viewer tests>> */
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
/* <<austen viewer tests>> */
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
/* <<austen viewer tests>> */
Test(austen_viewer, the_viewer_starts_with_the_model_when_it_is_there) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_expect_eq(viz_start_austen(&s, "no-such-folder", 0), MHA_OK);
    cr_expect_eq(s.mode, &viz_sentence_mode);
    cr_expect_neq(s.news[0], '\0');
    cr_expect_eq(s.message[0], '\0');
    cr_expect_eq(viz_start_austen(&s, MODEL, 1), MHA_OK, "%s", s.message);
    cr_expect_eq(s.mode, &viz_austen_mode);
    const viz_start window = {0, 0, 0};
    cr_expect_eq(viz_mode_start(&s, &window), MHA_OK, "%s", s.message);
    const viz_austen *a = viz_mode_data(&s, &viz_austen_mode);
    const size_t pieces = a->count;
    viz_tick(&s, 10.0), viz_tick(&s, 10.0);
    cr_expect(!s.playing && a->count == pieces, "the view wrote by itself: %zu pieces, then "
              "%zu", pieces, a->count);
    viz_free(&s);
}
/* <<austen viewer tests>> */
static const char passage[] =
    "It is a truth universally acknowledged, that a single man in possession of a good "
    "fortune, must be in want of a wife. However little known the feelings or views of such "
    "a man may be on his first entering a neighbourhood, this truth is so well fixed in the "
    "minds of the surrounding families, that he is considered the rightful property of some "
    "one or other of their daughters.\n";

static double loss_without(viz_austen *a, const size_t *heads, size_t n)
{
    const size_t H = a->model.config.heads;
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(lm_head_keep(&a->model, heads[k] / H, heads[k] % H, 0), MHA_OK);
    double loss = NAN;
    cr_assert_eq(lm_sample_loss(&a->model, a->valid, a->valid_count, VIZ_AUSTEN_WINDOWS, &loss),
                 MHA_OK);
    lm_heads_restore(&a->model);
    return loss;
}

static int shown_until_measured(viz_state *s, viz_austen *a, double never)
{
    int seen = 0;
    for (size_t frame = 0; a->updating && frame < 60000; frame++) {
        viz_tick(s, 0.002);
        seen |= a->loss == never;
        SDL_Delay(2);
    }
    cr_assert(!a->updating, "the loss never arrived");
    return seen;
}

/* Enters the view with a held-out text of four copies of the passage, in a
   file removed once read. */
static viz_austen *enter_with_held_out_passage(viz_state *s)
{
    char path[] = "/tmp/mha-valid-XXXXXX";
    const int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    cr_assert_not_null(f);
    for (int k = 0; k < 4; k++)
        fputs(passage, f);
    fclose(f);
    snprintf(viz_austen_valid, sizeof viz_austen_valid, "%s", path);
    viz_austen *a = enter(s);
    unlink(path);
    return a;
}
Test(austen_viewer, the_held_out_loss_is_measured_in_the_background) {
    viz_state s;
    viz_austen *a = enter_with_held_out_passage(&s);
    s.playing = 0;                             /* no pieces generated meanwhile */
    cr_assert_not_null(a->valid, "the held-out text was read");
    char line[256];
    viz_austen_loss_line(a, line, sizeof line);
    cr_expect(a->updating && strstr(line, "(updating)") != NULL, "%s", line);
    cr_expect(viz_busy(&s), "time moves while the loss is measured");
    shown_until_measured(&s, a, NAN);
    const double base = loss_without(a, NULL, 0);
    cr_expect(a->loss_kind == 1 && a->loss == base && a->base_loss == base, "%.17g %.17g",
              a->loss, base);
    viz_austen_loss_line(a, line, sizeof line);
    cr_expect(strstr(line, "(updating)") == NULL, "%s", line);
    cr_expect(strstr(line, " nats a piece") != NULL, "the loss without its unit: %s", line);
    char note[256], want[64];
    viz_austen_sample_note(a, note, sizeof note);
    snprintf(want, sizeof want, "over many windows is %.3f", a->study_base);
    cr_expect(a->study_base > 0 ? strstr(note, want) != NULL : note[0] == '\0', "%s", note);
    cr_expect(!viz_busy(&s), "measured: the window sleeps");
    cr_expect_str_eq(viz_austen_path(a), "via the KV cache");
    const size_t H = a->model.config.heads;
    const size_t first[1] = {1 * H + 2}, both[2] = {1 * H + 2, 2 * H + 5};
    const double older = loss_without(a, first, 1), newer = loss_without(a, both, 2);
    cr_assert(older != newer && older != base);
    a->focus = first[0];
    press(&s, SDLK_x);
    a->focus = both[1];
    press(&s, SDLK_x);
    cr_expect(a->updating && a->loss == base, "the old figure, marked as updating");
    cr_expect_eq(shown_until_measured(&s, a, older), 0, "the superseded loss was shown");
    cr_expect(a->loss == newer && a->loss_kind == 1, "%.17g %.17g", a->loss, newer);
    cr_expect_eq(lm_heads_removed(&a->model), 2);
    cr_expect_str_eq(viz_austen_path(a), "by whole passes");
    /* <<expect a picture to wait for the loss>> */
    press(&s, SDLK_u);
    shown_until_measured(&s, a, NAN);
    const size_t third[1] = {3 * H + 1};
    const double alone = loss_without(a, third, 1);
    a->focus = third[0];
    press(&s, SDLK_x);
    cr_assert(a->updating);
    cr_assert_eq(viz_mode_start(&s, &(viz_start){.picture = 1}), MHA_OK);
    cr_expect(!a->updating && a->loss == alone, "%.17g %.17g", a->loss, alone);
    viz_free(&s);
}
/* <<austen viewer tests>> */
static void expect_apart(const SDL_Rect *r, size_t n, int width, int bottom, const char *what)
{
    for (size_t a = 0; a < n; a++) {
        cr_expect(r[a].x >= 0 && r[a].y >= 0 && r[a].w > 0 && r[a].h > 0 &&
                  r[a].x + r[a].w <= width && r[a].y + r[a].h <= bottom,
                  "%s: part %zu (%d,%d %dx%d) outside", what, a, r[a].x, r[a].y, r[a].w, r[a].h);
        for (size_t b = a + 1; b < n; b++)
            cr_expect(!SDL_HasIntersection(&r[a], &r[b]), "%s: parts %zu and %zu overlap", what,
                      a, b);
    }
}

/* What a zoomed layout shows: the strip, the enlarged map with its labels and title,
   the side, the colour scale with its labels, and the breakdown where it fits; their
   number. */
static size_t zoomed_parts(const austen_layout *l, SDL_Rect parts[5])
{
    parts[0] = l->pieces;
    parts[1] = (SDL_Rect){l->big.x - VIZ_AUSTEN_AXIS_LEFT, l->big.y - VIZ_AUSTEN_AXIS_TOP - 14,
                          l->big.w + VIZ_AUSTEN_AXIS_LEFT, l->big.h + VIZ_AUSTEN_AXIS_TOP + 14};
    parts[2] = l->side;
    parts[3] = (SDL_Rect){l->legend.x, l->legend.y - 16, VIZ_AUSTEN_LEGEND_ROOM,
                          l->legend.h + 34};
    parts[4] = l->breakdown;
    return l->breakdown.w > 0 ? 5 : 4;
}
Test(austen_viewer, every_part_fits_and_zoom_grows_the_map) {
    static const int sizes[][2] = {{800, 600}, {1280, 800}, {1920, 1080}, {2560, 1440}};
    viz_state s;
    viz_austen *a = enter(&s);
    const size_t maps = a->model.config.layers * a->model.config.heads;
    static SDL_Rect parts[VIZ_AUSTEN_MAPS_MAX + 4];
    for (size_t k = 0; k < 4; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        float scale = viz_scale(w, h, 1);
        char what[64];
        snprintf(what, sizeof what, "%dx%d", w, h);
        austen_layout l;
        viz_austen_layout(a, (int)(w / scale), (int)(h / scale), 1, &l);
        size_t n = 0;
        for (size_t m = 0; m < maps; m++)
            parts[n++] = (SDL_Rect){l.maps[m].x, l.maps[m].y - VIZ_AUSTEN_TITLE, l.maps[m].w + 7,
                                    l.maps[m].h + VIZ_AUSTEN_TITLE};
        parts[n++] = l.pieces;
        parts[n++] = (SDL_Rect){l.big.x - VIZ_AUSTEN_AXIS_LEFT, l.big.y - VIZ_AUSTEN_AXIS_TOP - 14,
                                l.big.w + VIZ_AUSTEN_AXIS_LEFT,
                                l.big.h + VIZ_AUSTEN_AXIS_TOP + 14};     /* labels, title */
        parts[n++] = l.side;
        parts[n++] = l.breakdown;
        cr_expect_gt(l.legend.w, 0, "%s: no colour scale", what);
        parts[n++] = (SDL_Rect){l.legend.x, l.legend.y - 16, VIZ_AUSTEN_LEGEND_ROOM,
                                l.legend.h + 34};              /* with its labels */
        expect_apart(parts, n, l.width, l.status_y, what);
        s.zoom = 1;
        s.window_width = w, s.window_height = h;
        int map = viz_mode_map_pixels(&s, w, h, s.zoom), taken = 0;
        for (int plus = 0; plus < 6; plus++) {
            const double before = s.zoom;
            press(&s, SDLK_PLUS);
            if (s.zoom == before) {
                cr_expect_str_eq(s.message,
                                 "+: the map and its text are as large as this window allows");
                continue;
            }
            taken++;
            const int now = viz_mode_map_pixels(&s, w, h, s.zoom);
            cr_expect(now > map || viz_scale(w, h, s.zoom) > scale, "%s zoom %.3g: the map %d "
                      "px, was %d, and the text no larger", what, s.zoom, now, map);
            cr_expect_geq(viz_scale(w, h, s.zoom), scale, "the text shrank");
            map = now, scale = viz_scale(w, h, s.zoom);
            viz_austen_layout(a, (int)(w / scale), (int)(h / scale), s.zoom, &l);
            SDL_Rect zoomed[5];
            const size_t shown = zoomed_parts(&l, zoomed);
            cr_expect_gt(l.legend.w, 0, "%s zoom %.3g: no colour scale", what, s.zoom);
            cr_expect(taken > 1 || w * 9 < h * 16 || shown == 5,
                      "%s zoom %.3g: no breakdown beside the map of a wide screen", what, s.zoom);
            cr_expect(shown == 4 || l.breakdown.h >= VIZ_AUSTEN_BREAKDOWN_H,
                      "%s zoom %.3g: a breakdown %d high", what, s.zoom, l.breakdown.h);
            expect_apart(zoomed, shown, l.width, l.status_y, what);
        }
        cr_expect_gt(taken, 0, "%s: no zoom was taken", what);
    }
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, zoomed_for_a_hall_the_smallest_text_is_read_from_the_back) {
    static const int sizes[][2] = {{640, 480}, {800, 600}, {1024, 768}, {1920, 1080},
                                   {2560, 1440}};
    viz_state s;
    viz_austen *a = enter(&s);
    type(&s, "When Mr. Elton called on Harriet, and then Mr.");
    for (size_t k = 0; k < 5; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        s.zoom = 1;
        s.window_width = w, s.window_height = h;
        const int unzoomed = frame_small_capital(&s, w, h);
        for (int plus = 0; plus < 12; plus++)
            press(&s, SDLK_PLUS);
        cr_expect_str_eq(s.message, "+: the map and its text are as large as this window allows",
                         "%dx%d: + was still taken after twelve presses", w, h);
        const int capital = frame_small_capital(&s, w, h);
        cr_expect_geq(capital, 0.016 * h, "%dx%d zoomed: capitals of %d px", w, h, capital);
        if (w == 1024)
            cr_expect_lt(unzoomed, 0.016 * h, "1024x768 needs no zoom: capitals of %d px",
                         unzoomed);
        const float scale = viz_scale(w, h, s.zoom);
        austen_layout l;
        viz_austen_layout(a, (int)(w / scale), (int)(h / scale), s.zoom, &l);
        SDL_Rect parts[5];
        const size_t shown = zoomed_parts(&l, parts);
        char what[64];
        snprintf(what, sizeof what, "%dx%d zoomed", w, h);
        cr_expect_gt(l.legend.w, 0, "%s: no colour scale", what);
        cr_expect_gt(l.big.w, 100, "%s: a map of %d layout pixels", what, l.big.w);
        expect_apart(parts, shown, l.width, l.status_y, what);
    }
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, the_frame_marks_the_removed_and_the_enlarged_heads) {
    viz_state s;
    viz_austen *a = enter(&s);
    const size_t H = a->model.config.heads, maps = a->model.config.layers * H;
    const size_t removed = 1 * H + 2, enlarged = 2 * H + 1;
    a->focus = removed;
    viz_act(&s, &(viz_action){.kind = VIZ_REMOVE_HEAD, .key = 1});
    a->focus = enlarged;
    cr_assert_eq(viz_scale(1280, 800, 1), 1.0f);
    austen_layout l;
    viz_austen_layout(a, 1280, 800, 1, &l);
    SDL_Surface *plain = frame_draw(&s, 1280, 800);
    for (size_t k = 0; k < maps; k++) {
        const SDL_Rect r = l.maps[k];
        const int crossed = frame_same(frame_pixel(plain, r.x, r.y), viz_alarm) &&
                            frame_same(frame_pixel(plain, r.x + r.w - 1, r.y), viz_alarm);
        const int outlined = frame_same(frame_pixel(plain, r.x - 2, r.y + r.h / 2), viz_emphasis);
        cr_expect_eq(crossed, k == removed, "map %zu: crossed out %d", k, crossed);
        cr_expect_eq(outlined, k == enlarged, "map %zu: outlined %d", k, outlined);
    }
    const SDL_Rect below = {l.pieces.x, l.pieces.y + l.pieces.h, l.pieces.w, 30};
    const int before = frame_count(plain, below, viz_box);
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = (int)enlarged, .row = 3, .col = 1});
    SDL_Surface *pointed = frame_draw(&s, 1280, 800);
    cr_expect_gt(frame_count(pointed, below, viz_box), before + 100, "the readout's box");
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = 0, .row = 3, .col = 1});
    s.window_width = 1280, s.window_height = 800;
    press(&s, SDLK_PLUS);
    cr_assert_gt(s.zoom, 1.0, "%s", s.message);
    SDL_Surface *zoomed = frame_draw(&s, 1280, 800);
    cr_expect_eq(frame_count(zoomed, below, viz_box), before,
                 "zoomed in, the readout describes a head no longer shown");
    SDL_FreeSurface(zoomed);
    press(&s, SDLK_MINUS);
    const SDL_Rect big = l.big;
    const int big_crossed = frame_same(frame_pixel(plain, big.x, big.y), viz_alarm) &&
                            frame_same(frame_pixel(plain, big.x + big.w - 1, big.y), viz_alarm);
    cr_expect(!big_crossed, "the enlarged map of a head that works is crossed out");
    a->focus = removed;
    SDL_Surface *gone = frame_draw(&s, 1280, 800);
    cr_expect(frame_same(frame_pixel(gone, big.x, big.y), viz_alarm) &&
              frame_same(frame_pixel(gone, big.x + big.w - 1, big.y), viz_alarm),
              "the removed head's enlarged map is not crossed out");
    const SDL_Rect title = {big.x - VIZ_AUSTEN_AXIS_LEFT, big.y - VIZ_AUSTEN_AXIS_TOP - 14,
                            big.w + VIZ_AUSTEN_AXIS_LEFT, 14};
    cr_expect_gt(frame_count(gone, title, viz_alarm), 20, "its title does not say so");
    SDL_FreeSurface(plain);
    SDL_FreeSurface(pointed);
    SDL_FreeSurface(gone);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, the_enlarged_map_names_its_pieces) {
    viz_state s;
    viz_austen *a = enter(&s);
    cr_assert_gt(a->count, 1, "the view opens with pieces");
    austen_layout l;
    viz_austen_layout(a, 1280, 800, 1, &l);
    SDL_Surface *f = frame_draw(&s, 1280, 800);
    const SDL_Rect left = {l.big.x - VIZ_AUSTEN_AXIS_LEFT, l.big.y, VIZ_AUSTEN_AXIS_LEFT - 2,
                           l.big.h};
    const SDL_Rect up = {l.big.x, l.big.y - VIZ_AUSTEN_AXIS_TOP, l.big.w,
                         VIZ_AUSTEN_AXIS_TOP - 2};
    cr_expect_gt(frame_count(f, left, viz_ink), 40, "no piece names the rows");
    cr_expect_gt(frame_count(f, up, viz_ink), 40, "no piece names the columns");
    cr_expect_gt(frame_count(f, left, viz_emphasis), 5, "the query's row is not named");
    cr_expect_gt(frame_count(f, up, viz_emphasis), 5, "the query's column is not named");
    const SDL_Rect late = viz_cell(&l.big, a->count, 0, a->count - 1);
    cr_expect(frame_same(frame_pixel(f, late.x, late.y), viz_masked),
              "a key after its query is not drawn masked");
    cr_expect_gt(frame_count(f, late, viz_hatch), 0, "a masked key is not hatched");
    SDL_FreeSurface(f);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, the_sampling_and_the_query_change_as_their_keys_say) {
    viz_state s;
    viz_austen *a = enter(&s);
    const size_t maps = a->model.config.layers * a->model.config.heads, last = a->count - 1;
    const double t0 = a->temperature;
    viz_act(&s, &(viz_action){.kind = VIZ_SAMPLING_HOTTER, .key = 1});
    cr_expect_float_eq(a->temperature, fmin(t0 + 0.1, 2), 1e-12);
    for (int n = 0; n < 30; n++)
        viz_act(&s, &(viz_action){.kind = VIZ_SAMPLING_COLDER, .key = 1});
    cr_expect_eq(a->temperature, 0.0);
    for (int n = 0; n < 30; n++)
        viz_act(&s, &(viz_action){.kind = VIZ_SAMPLING_HOTTER, .key = 1});
    cr_expect_eq(a->temperature, 2.0);
    a->top_k = 0;
    const size_t ks[] = {VIZ_AUSTEN_TOP, 10, 20, VIZ_AUSTEN_TOP_K, 0};
    for (size_t n = 0; n < 5; n++) {
        viz_act(&s, &(viz_action){.kind = VIZ_NEXT_TOP_K, .key = 1});
        cr_expect_eq(a->top_k, ks[n], "press %zu: top-k %zu", n + 1, a->top_k);
    }
    a->focus = maps - 1;
    viz_act(&s, &(viz_action){.kind = VIZ_NEXT_FOCUS, .key = 1});
    cr_expect_eq(a->focus, 0);
    viz_act(&s, &(viz_action){.kind = VIZ_FOCUS_HEAD, .head = (int)maps + 3});
    cr_expect_eq(a->focus, 3);
    cr_expect_eq(viz_austen_query(a), last);
    viz_act(&s, &(viz_action){.kind = VIZ_STEP_BACK, .key = 1});
    cr_expect_eq(viz_austen_query(a), last - 1);
    viz_act(&s, &(viz_action){.kind = VIZ_STEP_FORWARD, .key = 1});
    cr_expect_eq(viz_austen_query(a), last);
    viz_act(&s, &(viz_action){.kind = VIZ_SELECT, .row = 0});
    viz_act(&s, &(viz_action){.kind = VIZ_STEP_BACK, .key = 1});
    cr_expect_eq(viz_austen_query(a), 0);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, each_piece_is_labelled_by_its_bytes) {
    static const bpe_pair merges[] = {{0xC3, 0xA9}, {0x9D, 0xB1}, {256, 257},
                                      {0x9D, 0xC3}, {0xC3, 'a'}};
    static const char *const want[] = {"\xc3\xa9", "<9d b1>", "\xc3\xa9<9d b1>",
                                       "<9d c3>", "<c3>a"};
    bpe t;
    cr_assert_eq(bpe_from_merges(merges, 5, &t), MHA_OK);
    char label[VIZ_AUSTEN_LABEL];
    for (int k = 0; k < 5; k++) {
        viz_austen_piece_label(&t, 256 + k, label, sizeof label);
        cr_expect_str_eq(label, want[k], "piece %d", 256 + k);
    }
    viz_austen_piece_label(&t, 258, label, 4);
    cr_expect_str_eq(label, "\xc3\xa9", "the character, then no room for the bytes");
    viz_austen_piece_label(&t, (int)t.vocab, label, sizeof label);
    cr_expect_str_eq(label, "", "no such piece");
    bpe_free(&t);
    cr_expect_str_eq(viz_austen_punctuation_name("."), "full stop");
    cr_expect_str_eq(viz_austen_punctuation_name(","), "comma");
    cr_expect_str_eq(viz_austen_punctuation_name("'"), "apostrophe");
    cr_expect_str_eq(viz_austen_punctuation_name("\""), "quotation mark");
    cr_expect_null(viz_austen_punctuation_name(".."), "two marks are not one");
    cr_expect_null(viz_austen_punctuation_name("a"));
    cr_expect_null(viz_austen_punctuation_name(""));
}
/* <<austen viewer tests>> */
Test(austen_viewer, the_keys_of_playing_typing_and_pointing) {
    viz_state s;
    viz_austen *a = enter(&s);
    const size_t prompt = a->count;
    s.speed = 2;
    press(&s, SDLK_UP);
    cr_expect_float_eq(s.speed, 3.0, 1e-12);
    for (int k = 0; k < 10; k++)
        press(&s, SDLK_UP);
    cr_expect_eq(s.speed, 20.0);
    for (int k = 0; k < 20; k++)
        press(&s, SDLK_DOWN);
    cr_expect_eq(s.speed, 0.25);
    s.speed = 4;
    s.playing = 0;
    press(&s, SDLK_SPACE);
    cr_expect(s.playing && viz_busy(&s), "generating: the window keeps drawing");
    viz_tick(&s, 0.2);
    cr_expect_eq(a->count, prompt, "too soon for a piece");
    viz_tick(&s, 0.1);
    cr_expect_eq(a->count, prompt + 1);
    cr_expect_float_eq(a->rate, 1 / 0.3, 1e-12, "the first piece came 0.3 s after space");
    viz_tick(&s, 0.25);
    cr_expect_eq(a->count, prompt + 2);
    cr_expect_float_eq(a->rate, 0.8 / 0.3 + 0.2 / 0.25, 1e-12, "the rate moves a fifth");
    press(&s, SDLK_SPACE);
    cr_expect(!s.playing);
    /* <<erase and cancel in the text entry>> */
    viz_act(&s, &(viz_action){.kind = VIZ_START_TYPING, .key = 1});
    viz_act(&s, &(viz_action){.kind = VIZ_ERASE, .key = 1});
    cr_expect(s.typing && s.typed[0] == '\0', "erasing nothing: '%s'", s.typed);
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "Emma"});
    viz_act(&s, &(viz_action){.kind = VIZ_ERASE, .key = 1});
    cr_expect_str_eq(s.typed, "Emm");
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "\xc3\xa9"});
    viz_act(&s, &(viz_action){.kind = VIZ_ERASE, .key = 1});
    cr_expect_str_eq(s.typed, "Emm", "the two bytes of one character");
    for (size_t k = strlen(s.typed); k + 1 < VIZ_TEXT_MAX; k++)
        viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "a"});
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "b"});
    cr_expect(strlen(s.typed) == VIZ_TEXT_MAX - 1 && strchr(s.typed, 'b') == NULL,
              "%zu bytes", strlen(s.typed));
    press(&s, SDLK_ESCAPE);
    cr_expect(!s.typing && a->count == prompt + 2, "escape: the text as it was");
    /* <<point at cells of the enlarged map>> */
    viz_layout sentence;
    viz_layout_compute(&s, 1280, 800, &sentence);
    austen_layout l;
    viz_austen_layout(a, 1280, 800, s.zoom, &l);
    const SDL_Rect c = viz_cell(&l.big, a->count, 3, 1);
    SDL_Event e = {.type = SDL_MOUSEMOTION};
    e.motion.x = c.x + c.w / 2;
    e.motion.y = c.y + c.h / 2;
    viz_handle_event(&s, &e, &sentence);
    cr_expect(s.hover_head == (int)a->focus && s.hover_row == 3 && s.hover_col == 1,
              "pointed at head %d cell (%d, %d)", s.hover_head, s.hover_row, s.hover_col);
    const SDL_Rect below = {l.pieces.x, l.pieces.y + l.pieces.h, l.pieces.w, 30};
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = -1, .row = -1, .col = -1});
    SDL_Surface *plain = frame_draw(&s, 1280, 800);
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = (int)a->focus, .row = 1, .col = 3});
    SDL_Surface *masked = frame_draw(&s, 1280, 800);
    const int before = frame_count(plain, below, viz_box);
    cr_expect_gt(frame_count(masked, below, viz_box), before + 100, "the readout of a masked key");
    SDL_FreeSurface(plain);
    SDL_FreeSurface(masked);
    const size_t maps = a->model.config.layers * a->model.config.heads;
    char want[160];
    a->focus = maps;
    press(&s, SDLK_x);
    snprintf(want, sizeof want, "remove: %s", mha_status_message(MHA_ERR_ARG));
    cr_expect_str_eq(s.message, want);
    cr_expect_eq(lm_heads_removed(&a->model), 0);
    a->focus = 0;
    const SDL_Rect status = {1280 - 400, l.status_y, 400, 24};
    SDL_Surface *said = frame_draw(&s, 1280, 800);
    cr_expect_gt(frame_count(said, status, viz_alarm), 20, "the message in the status line");
    SDL_FreeSurface(said);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, a_text_on_the_command_line_follows_the_view_s_rules,
     .init = cr_redirect_stderr) {
    char forty[400] = "", many[400] = "", *png = "/tmp/mha-viz-text.png";
    for (int k = 0; k < 40; k++)
        strcat(forty, k ? " word" : "word");
    for (int k = 0; k < 100; k++)
        strcat(many, "x. ");
    unlink(png);
    char *austen[] = {"mha-viz", "--model", MODEL, "--text", forty, "--screenshot", png, NULL};
    cr_expect_eq(viz_main(7, austen), VIZ_EXIT_OK, "forty words in the Austen view");
    cr_expect_eq(access(png, F_OK), 0, "no picture of forty words");
    unlink(png);
    char *designed[] = {"mha-viz", "--designed", "--text", forty, "--screenshot", png, NULL};
    cr_expect_eq(viz_main(6, designed), VIZ_EXIT_USAGE);
    char *longer[] = {"mha-viz", "--model", MODEL, "--text", many, "--screenshot", png, NULL};
    cr_expect_eq(viz_main(7, longer), VIZ_EXIT_USAGE);
    cr_expect_neq(access(png, F_OK), 0, "a picture of a refused text");
    fflush(stderr);
    char out[1024] = {0};
    FILE *f = cr_get_redirected_stderr();
    cr_assert_not_null(f);
    out[fread(out, 1, sizeof out - 1, f)] = '\0';
    cr_expect_str_eq(out, "mha-viz: --text: a sentence is 1 to 32 words\n"
                          "mha-viz: --text: 300 pieces; the model's context holds 128\n");
}
/* <<austen viewer tests>> */
Test(austen_viewer, hover_points_into_the_enlarged_head) {
    viz_state s;
    viz_austen *a = enter(&s);
    s.focus = 1;                                       /* the designed sentence's */
    viz_point_at(&s, 5, 2);
    cr_expect(s.hover_head == (int)a->focus && s.hover_row == 5 && s.hover_col == 2,
              "head %d, row %d, col %d; the enlarged head is %zu", s.hover_head, s.hover_row,
              s.hover_col, a->focus);
    viz_press_keys(&s, "\t");
    cr_assert_neq(a->focus, 0);
    viz_point_at(&s, 3, 1);
    cr_expect_eq(s.hover_head, (int)a->focus);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, a_picture_waits_for_the_loss_a_removal_asked_for) {
    viz_state s;
    viz_austen *a = enter_with_held_out_passage(&s);
    viz_austen_valid[0] = '\0';
    viz_settle(&s);
    const double whole = a->loss;
    viz_press_keys(&s, "x");
    cr_assert(a->updating, "removing a head measures the loss again");
    viz_settle(&s);
    char line[256];
    viz_austen_loss_line(a, line, sizeof line);
    cr_expect(!a->updating && strstr(line, "updating") == NULL, "%s", line);
    cr_expect(a->loss != whole, "the loss without the head is %g, with it %g", a->loss, whole);
    viz_free(&s);
}
/* <<austen viewer tests>> */
/* Types the first two sentences of Emma, more pieces than a line holds. */
static void type_opening_of_emma(viz_state *s, const viz_austen *a)
{
    type(s, "Emma Woodhouse, handsome, clever, and rich, with a comfortable home "
            "and happy disposition, seemed to unite some of the best blessings of "
            "existence. She was the youngest of the two daughters of a most "
            "affectionate, indulgent father; and had, in consequence of her sister's "
            "marriage, been mistress of his house from a very early period.");
    cr_assert(!s->typing && a->count > 60, "%zu pieces: %s", a->count, s->message);
}
Test(austen_viewer, pieces_wrap_and_stop_at_the_strip_s_end) {
    viz_state s;
    viz_austen *a = enter(&s);
    austen_layout l;
    viz_austen_layout(a, 1280, 800, s.zoom, &l);
    const SDL_Rect r = l.pieces, second = {r.x, r.y + r.h / 2, r.w, r.h / 2},
                   under = {r.x, r.y + r.h, r.w, 6};
    SDL_Surface *prompt = frame_draw(&s, 1280, 800);
    type_opening_of_emma(&s, a);
    SDL_Surface *text = frame_draw(&s, 1280, 800);
    cr_expect_eq(frame_count(prompt, second, viz_box), 0, "the prompt fits one line");
    cr_expect_gt(frame_count(text, second, viz_box), 100, "the text's second line");
    cr_expect_eq(frame_count(text, under, viz_box), frame_count(prompt, under, viz_box),
                 "pieces drawn under the strip");
    SDL_FreeSurface(prompt);
    SDL_FreeSurface(text);
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, the_strip_scrolls_to_keep_the_query_in_sight) {
    viz_state s;
    viz_austen *a = enter(&s);
    type_opening_of_emma(&s, a);
    austen_layout l;
    viz_austen_layout(a, 1280, 800, s.zoom, &l);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 1280, 800, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    SDL_Rect *boxes = malloc(a->count * sizeof *boxes);
    cr_assert_not_null(boxes);
    viz_austen_strip(&view, a, l.pieces, boxes);
    const SDL_Rect r = l.pieces, last = boxes[a->count - 1];
    cr_expect(last.w > 0 && last.x >= r.x && last.x + last.w <= r.x + r.w &&
              last.y >= r.y && last.y + last.h <= r.y + r.h,
              "the last piece at %d,%d %dx%d, the strip %d,%d %dx%d", last.x, last.y, last.w,
              last.h, r.x, r.y, r.w, r.h);
    for (size_t k = 0; k < a->count; k++)
        cr_expect(boxes[k].w == 0 || (boxes[k].y >= r.y && boxes[k].y + boxes[k].h <= r.y + r.h),
                  "piece %zu drawn outside the strip", k);
    cr_expect_eq(boxes[0].w, 0, "the first piece did not scroll out");
    a->row = 0;
    viz_austen_strip(&view, a, l.pieces, boxes);
    cr_expect(boxes[0].w > 0 && boxes[0].y == r.y, "the first piece, chosen, is not in sight");
    free(boxes);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    viz_free(&s);
}
/* <<austen viewer tests>> */
Test(austen_viewer, the_piece_that_comes_next_is_marked) {
    viz_state s;
    viz_austen *a = enter(&s);
    const size_t layer = a->focus / a->model.config.heads;
    const size_t head = a->focus % a->model.config.heads;
    int row = -1;
    for (size_t i = 0; row < 0 && i + 1 < a->count; i++) {
        viz_austen_breakdown b;
        cr_assert_eq(viz_austen_breakdown_of(a, layer, head, i, &b), MHA_OK);
        for (size_t n = 0; n < VIZ_AUSTEN_TOP; n++)
            if (b.next[n] == a->ids[i + 1])
                row = (int)i;
    }
    cr_assert_geq(row, 0, "no piece of the prompt is among the five before it");
    austen_layout l;
    viz_austen_layout(a, 1280, 800, s.zoom, &l);
    const int rows[2] = {row, (int)a->count - 1};
    for (int k = 0; k < 2; k++) {
        viz_act(&s, &(viz_action){.kind = VIZ_SELECT, .row = rows[k]});
        SDL_Surface *f = frame_draw(&s, 1280, 800);
        const int right = frame_count(f, l.side, viz_right_colour);
        cr_expect(k == 0 ? right > 0 : right == 0, "after piece %d: %d pixels", rows[k], right);
        SDL_FreeSurface(f);
    }
    viz_free(&s);
}
/* <<austen viewer tests>> */
static void write_small_model(const char *dir, const bpe *tokenizer, size_t context)
{
    lm_model m;
    char message[512], names[64][LM_NAME_MAX + 8];
    const char *list[64];
    const lm_config c = {tokenizer->vocab, context, 8, 2, 1, 8};
    cr_assert_eq(lm_model_init(&m, &c, 7), MHA_OK);
    const size_t n = lm_model_file_count(&m);
    cr_assert(n <= 64);
    for (size_t i = 0; i < n; i++)
        lm_model_file_name(&m, i, names[i], sizeof names[i]), list[i] = names[i];
    const lm_provenance p = {0, "-", "-"};
    mha_status status = mha_output_begin(dir, (int)n, list, message, sizeof message);
    if (status == MHA_OK)
        status = lm_model_put(dir, &m, tokenizer, &p, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    cr_assert_eq(status, MHA_OK, "%s", message);
    lm_model_free(&m);
}
/* <<austen viewer tests>> */
Test(austen_viewer, models_the_view_cannot_show_or_shows_without_the_study) {
    lm_model real;
    bpe tokenizer;
    lm_provenance p;
    char message[600], dirs[3][32];
    cr_assert_eq(lm_model_read(MODEL, &real, &tokenizer, &p, message, sizeof message),
                 MHA_OK);
    lm_model_free(&real);
    uint32_t ids[64];
    size_t P = 0;
    cr_assert_eq(bpe_encode(&tokenizer, (const unsigned char *)VIZ_AUSTEN_PROMPT,
                            strlen(VIZ_AUSTEN_PROMPT), ids, &P), MHA_OK);
    const size_t contexts[3] = {VIZ_AUSTEN_CONTEXT_MAX + 1, P - 1, P};
    for (int k = 0; k < 3; k++) {
        snprintf(dirs[k], sizeof dirs[k], "/tmp/mha-viz-lm-XXXXXX");
        cr_assert_not_null(mkdtemp(dirs[k]));
        write_small_model(dirs[k], &tokenizer, contexts[k]);
    }
    bpe_free(&tokenizer);
    viz_austen *a = malloc(sizeof *a);
    cr_expect_eq(viz_austen_load(a, dirs[0], NULL, message, sizeof message),
                 MHA_ERR_SHAPE);
    cr_expect(strstr(message, dirs[0]) && strstr(message, "at most"), "%s", message);
    cr_expect_eq(viz_austen_load(a, dirs[1], NULL, message, sizeof message), MHA_OK, "%s",
                 message);
    cr_expect(a->count <= P - 1 && a->count > 0 &&
              strncmp(a->prompt, VIZ_AUSTEN_PROMPT, strlen(a->prompt)) == 0 &&
              strlen(a->prompt) < strlen(VIZ_AUSTEN_PROMPT),
              "a context of %zu shows the prompt cut to '%s', %zu pieces", P - 1, a->prompt,
              a->count);
    viz_austen_free(a);
    free(a);
    /* <<show the model of a context just long enough for the prompt>> */
    char path[] = "/tmp/mha-valid-XXXXXX";
    const int fd = mkstemp(path);
    cr_assert(fd >= 0 && write(fd, "Emma.\n", 6) == 6);
    close(fd);
    snprintf(viz_austen_valid, sizeof viz_austen_valid, "%s", path);
    snprintf(viz_austen_dir, sizeof viz_austen_dir, "%s", dirs[2]);
    viz_state s;
    cr_assert_eq(viz_init(&s, "the cat sat on the mat and the dog sat on the rug"), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_austen_mode), MHA_OK, "%s", s.message);
    unlink(path);
    viz_austen_valid[0] = '\0';
    a = viz_mode_data(&s, &viz_austen_mode);
    cr_expect(a->count == P && strcmp(a->prompt, VIZ_AUSTEN_PROMPT) == 0, "the prompt");
    char title[128], line[256];
    viz_austen_title(a, 1, title, sizeof title);
    cr_expect_str_eq(title, "L0 H1 ?");
    cr_expect_null(a->valid, "a held-out text shorter than a window");
    viz_austen_loss_line(a, line, sizeof line);
    cr_expect_str_eq(line, "no held-out loss: no corpus and no heads study");
    press(&s, SDLK_g);
    cr_expect_str_eq(s.message, "generate: the context is full");
    s.message[0] = '\0';
    s.playing = 0;
    press(&s, SDLK_SPACE);
    cr_assert(s.playing);
    viz_tick(&s, 2.0 / s.speed);
    cr_expect(!s.playing && strcmp(s.message, "generate: the context is full") == 0,
              "playing stops: '%s'", s.message);
    cr_expect_eq(a->count, P);
    viz_free(&s);
    for (int k = 0; k < 3; k++) {
        char command[128];
        snprintf(command, sizeof command, "rm -rf %s", dirs[k]);
        cr_expect_eq(system(command), 0);
    }
}
/* <<austen viewer tests>> */
#include <fcntl.h>
#include <sys/stat.h>
#include "bpe_files.h"
Test(austen_viewer, a_fifo_or_a_device_as_a_table_is_refused_at_once, .timeout = 60) {
    lm_model real;
    bpe tokenizer;
    lm_provenance p;
    char message[600], dir[] = "/tmp/mha-viz-tables-XXXXXX", path[128];
    cr_assert_eq(lm_model_read(MODEL, &real, &tokenizer, &p, message, sizeof message),
                 MHA_OK);
    lm_model_free(&real);
    cr_assert_not_null(mkdtemp(dir));
    write_small_model(dir, &tokenizer, 64);
    bpe_free(&tokenizer);
    viz_austen *a = malloc(sizeof *a);
    cr_assert_not_null(a);
    const char *tables[] = {"heads.tsv", "prune.tsv"};
    for (int kind = 0; kind < 3; kind++)              /* a FIFO, /dev/zero, too long */
        for (int t = 0; t < 2; t++) {
            snprintf(path, sizeof path, "%s/%s", dir, tables[t]);
            int fd = -1;
            if (kind == 0)
                cr_assert_eq(mkfifo(path, 0666), 0);
            else if (kind == 1)
                cr_assert_eq(symlink("/dev/zero", path), 0);
            else
                cr_assert((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666)) >= 0 &&
                          ftruncate(fd, (off_t)MHA_READ_TABLE_MAX + 1) == 0 && close(fd) == 0);
            cr_expect_neq(viz_austen_load(a, dir, NULL, message, sizeof message), MHA_OK,
                          "%s", path);
            cr_expect(strstr(message, path) != NULL &&
                      strstr(message, kind < 2 ? "not a regular file" : "longer than") != NULL,
                      "%s", message);
            cr_assert_eq(unlink(path), 0);
        }
    cr_expect_eq(viz_austen_load(a, dir, NULL, message, sizeof message), MHA_OK, "%s", message);
    viz_austen_free(a);
    free(a);
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    cr_expect_eq(system(command), 0);
}
/* <<austen viewer tests>> */
Test(austen_viewer, a_path_too_long_is_refused_and_a_long_one_keeps_its_reason) {
    static char path[VIZ_AUSTEN_PATH + 64];
    size_t n = (size_t)snprintf(path, sizeof path, "%s", MODEL);
    while (n < VIZ_AUSTEN_PATH + 8)
        n += (size_t)snprintf(path + n, sizeof path - n, "/.");
    snprintf(path + n, sizeof path - n, "/none");
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_expect_eq(viz_start_austen(&s, path, 1), MHA_ERR_ARG);
    cr_expect(strstr(s.message, "--model") != NULL && strstr(s.message, "at most") != NULL,
              "%s", s.message);
    cr_expect_neq(s.mode, &viz_austen_mode, "a model was opened at the cut");
    char *argv[] = {"mha-viz", "--model", path, "--screenshot", "/tmp/never.png", NULL};
    cr_expect_eq(viz_main(5, argv), VIZ_EXIT_USAGE);
    cr_expect_neq(access("/tmp/never.png", F_OK), 0, "a picture was saved");
    n = (size_t)snprintf(path, sizeof path, "/tmp/no-such-folder-");
    while (n < 600)
        n += (size_t)snprintf(path + n, sizeof path - n, "/xxxxxxxxxx");
    s.message[0] = '\0';
    cr_expect_neq(viz_start_austen(&s, path, 1), MHA_OK);
    cr_expect(strlen(s.message) < sizeof s.message && strstr(s.message, "...") != NULL &&
              strstr(s.message, "No such file or directory") != NULL,
              "the reason was cut: '%s'", s.message);
    cr_expect(strncmp(s.message, "/tmp/no-such-folder-", 20) == 0, "%s", s.message);
    viz_free(&s);
    char fitted[15];
    viz_fit_message(fitted, sizeof fitted, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9: the reason");
    cr_expect_str_eq(fitted, "\xc3\xa9...e reason", "a cut inside a character");
}
