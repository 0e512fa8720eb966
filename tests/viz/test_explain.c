/* generated from chapters/42-tests-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <omp.h>
#include <criterion/criterion.h>
#include "viz.h"
#include "training.h"
#include "frame.h"

/* <<[[test_explain.c]] functions the tests share>> */
static void press(viz_state *s, SDL_Keycode sym)
{
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = sym;
    viz_handle_event(s, &e, NULL);
}

static void set_temperature(viz_state *s, double temperature)
{
    viz_act(s, &(viz_action){.kind = VIZ_SET_TEMPERATURE, .temperature = temperature});
}

static double row_top(const viz_state *s, size_t h, size_t i)   /* largest weight of a row */
{
    const size_t L = s->length;
    double top = 0;
    for (size_t j = 0; j < L; j++)
        top = fmax(top, s->weights[(h * L + i) * L + j]);
    return top;
}
/* <<[[test_explain.c]] functions the tests share>> */
static int inside(SDL_Rect r, int width, int bottom)
{
    return r.x >= 0 && r.y >= 0 && r.w > 0 && r.h > 0 && r.x + r.w <= width &&
           r.y + r.h <= bottom;
}

static void expect_apart(const SDL_Rect *r, const char *const *names, int n, int width,
                         int bottom, const char *what)
{
    for (int a = 0; a < n; a++) {
        cr_expect(inside(r[a], width, bottom), "%s: %s (%d,%d %dx%d) outside %dx%d", what,
                  names[a], r[a].x, r[a].y, r[a].w, r[a].h, width, bottom);
        for (int b = a + 1; b < n; b++)
            cr_expect(!SDL_HasIntersection(&r[a], &r[b]), "%s: %s and %s overlap", what,
                      names[a], names[b]);
    }
}
/* <<[[test_explain.c]] tests>> */
Test(explain, the_temperature_reaches_every_designed_head) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int k = 0; k < 20; k++)
        press(&s, SDLK_RIGHT);
    const size_t L = s.length, i = L - 1;
    cr_assert_eq(viz_query_row(&s), i, "nothing pointed at: the newest token");
    for (size_t h = 0; h + 1 < VIZ_HEADS; h++) {
        set_temperature(&s, 1.0);
        const double top = row_top(&s, h, i), even = viz_even_temperature(&s, h, i);
        cr_expect(even > 1 && even < VIZ_TEMPERATURE_MAX / 2, "head %zu: T = %g", h + 1, even);
        set_temperature(&s, even);
        cr_expect_float_eq(row_top(&s, h, i), (top + 1.0 / (double)L) / 2, 1e-4,
                           "head %zu at T = %g: %g", h + 1, even, row_top(&s, h, i));
    }
    char note[160];
    s.focus = 4;
    cr_expect_eq(viz_even_temperature(&s, 4, i), 0.0);
    viz_temperature_note(&s, note, sizeof note);
    cr_expect(strstr(note, "no temperature can change") != NULL, "%s", note);
    for (int end = 0; end < 2; end++) {
        set_temperature(&s, end ? VIZ_TEMPERATURE_MAX : VIZ_TEMPERATURE_MIN);
        for (size_t j = 0; j < L; j++)
            cr_expect_float_eq(s.weights[(4 * L + i) * L + j], 1.0 / (double)L, 1e-6);
    }
    s.focus = 1;
    viz_temperature_note(&s, note, sizeof note);
    cr_expect(strstr(note, "half-way to even") != NULL, "%s", note);
    cr_expect_eq(viz_slider_temperature(0.5), 1.0);
    cr_expect_float_eq(viz_slider_temperature(0), VIZ_TEMPERATURE_MIN, 1e-12);
    cr_expect_float_eq(viz_slider_temperature(1), VIZ_TEMPERATURE_MAX, 1e-9);
    for (double along = 0; along <= 1; along += 0.125)
        cr_expect_float_eq(viz_slider_place(viz_slider_temperature(along)), along, 1e-12);
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, timing_a_step_leaves_the_cache_as_one_run) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_expect_eq(omp_get_max_threads(), 1, "the viewer's layer runs on one thread");
    for (size_t impl = 0; impl < mha_impl_count; impl++) {
        press(&s, SDLK_HOME);
        for (size_t step = 2; step <= s.length; step++) {
            press(&s, SDLK_RIGHT);
            cr_expect(s.decoding && s.cache.length[0] == step, "%s: step %zu, cache %zu",
                      mha_impls[s.impl].name, step, s.cache.length[0]);
            cr_expect_lt(s.impl_difference, 1e-5, "%s: step %zu", mha_impls[s.impl].name, step);
            cr_expect(isfinite(s.ms_per_step) && s.ms_per_step > 0);
        }
        press(&s, SDLK_i);
    }
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, the_average_head_s_empty_charts_say_why) {
    enum { D = MHA_DESIGNED_HEAD_DIM };
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int k = 0; k < 5; k++)
        press(&s, SDLK_RIGHT);                           /* 6 tokens */
    const size_t L = s.length, i = 5;
    for (size_t j = 0; j <= i; j++)
        cr_expect(fabsf(s.weights[(4 * L + i) * L + j] - 1.0f / 6) < 1e-6f, "key %zu", j);
    char title[160];
    for (size_t h = 0; h < 5; h += 4) {
        double q[D], k[D], product[D];
        viz_score_parts(&s, h, i, i - 1, q, k);       /* the key before: head 1's */
        for (size_t d = 0; d < D; d++)
            product[d] = q[d] * k[d];
        viz_bars_title("q * k", product, D, title, sizeof title);
        cr_expect_eq(strstr(title, "every score is 0") != NULL, h == 4, "head %zu: %s", h + 1,
                     title);
        cr_expect_eq(strstr(title, "largest") != NULL, h != 4, "head %zu: %s", h + 1, title);
    }
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, the_breakdown_adds_up_to_the_weight) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int k = 0; k < 20; k++)
        press(&s, SDLK_RIGHT);
    set_temperature(&s, 7.0);                           /* so that no row is one-hot */
    const size_t L = s.length, D = MHA_DESIGNED_HEAD_DIM;
    double q[MHA_DESIGNED_HEAD_DIM], k[MHA_DESIGNED_HEAD_DIM], score[VIZ_TOKENS_MAX];
    for (size_t h = 0; h < VIZ_HEADS; h++)
        for (size_t i = 0; i < L; i++) {
            double top = -INFINITY, sum = 0;
            for (size_t j = 0; j <= i; j++) {
                viz_score_parts(&s, h, i, j, q, k);
                double dot = 0;
                for (size_t d = 0; d < D; d++)
                    dot += q[d] * k[d];
                score[j] = dot / sqrt((double)D) / s.temperature;
                cr_expect_float_eq(score[j], viz_score(&s, h, i, j), 1e-9);
                top = fmax(top, score[j]);
            }
            for (size_t j = 0; j <= i; j++)
                sum += exp(score[j] - top);
            for (size_t j = 0; j <= i; j++)
                cr_expect_float_eq(s.weights[(h * L + i) * L + j], exp(score[j] - top) / sum,
                                   1e-5, "head %zu (%zu, %zu)", h + 1, i, j);
        }
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, the_words_and_the_breakdown_are_drawn) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int k = 0; k < 8; k++)
        press(&s, SDLK_RIGHT);                           /* 9 tokens */
    const size_t L = s.length, h = s.focus, i = 8, D = MHA_DESIGNED_HEAD_DIM;
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = (int)h, .row = 8, .col = 1});
    viz_layout l;
    viz_layout_compute(&s, 1280, 800, &l);
    SDL_Surface *surface = frame_draw(&s, 1280, 800);
    for (size_t k = 0; k < L; k++) {
        const SDL_Rect box = viz_word_box(&l, k);
        const SDL_Color want = k >= s.step ? viz_undecoded
                             : viz_colour(s.colour_map, s.weights[(h * L + i) * L + k]);
        if (k != i)
            cr_expect(frame_same(frame_pixel(surface, box.x + 1, box.y + 1), want), "word %zu", k);
    }
    /* <<expect an orange bar at the largest product and none at a zero product>> */
    double q[MHA_DESIGNED_HEAD_DIM], k[MHA_DESIGNED_HEAD_DIM];
    viz_score_parts(&s, h, 8, 1, q, k);
    size_t top = 0, zero = D;
    for (size_t d = 0; d < D; d++) {
        if (q[d] * k[d] > q[top] * k[top]) top = d;
        if (q[d] * k[d] == 0 && zero == D) zero = d;
    }
    cr_assert(q[top] * k[top] > 0 && zero < D);
    const int bw = l.breakdown.w / (int)D, rows = (l.breakdown.h - 24 - 4 * 18) / 3;
    const SDL_Rect products = {l.breakdown.x, l.breakdown.y + 22 + 2 * rows, l.breakdown.w, rows};
    cr_expect_gt(frame_count(surface, (SDL_Rect){products.x + (int)top * bw, products.y, 1,
                                                 products.h}, viz_positive), 5);
    cr_expect_eq(frame_count(surface, (SDL_Rect){products.x + (int)zero * bw, products.y, bw,
                                                 products.h}, viz_positive), 0);
    SDL_FreeSurface(surface);
    /* <<click a word, then a row of the map, and expect each to be selected>> */
    const SDL_Rect word = viz_word_box(&l, 4);
    SDL_Event e = {.type = SDL_MOUSEBUTTONDOWN};
    e.button.x = word.x + 2, e.button.y = word.y + 2;
    viz_handle_event(&s, &e, &l);
    cr_expect_eq(s.selected, 4);
    cr_expect_eq(viz_query_row(&s), 4, "the pointer is off the map: the selected word");
    const SDL_Rect cell = viz_cell(&l.big, L, 6, 2);
    e.button.x = cell.x + 1, e.button.y = cell.y + 1;
    viz_handle_event(&s, &e, &l);
    cr_expect_eq(s.selected, 6);
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, every_mode_fits_without_overlap) {
    static const int sizes[][2] = {{800, 600}, {1280, 800}, {1920, 1080}, {2560, 1440}};
    static const char *const longest = "a b c d e f g h i j k l m n o p q r s t u v w x y z "
                                       "aa bb cc dd ee ff";
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const float scale = viz_scale(sizes[k][0], sizes[k][1], 1.0);
        cr_assert_eq(viz_view_scale(&view, scale), 0);
        const int w = (int)(sizes[k][0] / scale), h = (int)(sizes[k][1] / scale);
        char what[64];
        for (int text = 0; text < 2; text++) {
            cr_assert_eq(viz_set_text(&s, text ? longest : viz_default_text), MHA_OK);
            snprintf(what, sizeof what, "%dx%d sentence of %zu", sizes[k][0], sizes[k][1],
                     s.length);
            /* <<expect the sentence's regions apart>> */
            viz_layout l;
            viz_layout_compute(&s, w, h, &l);
            const int below_caption = l.caption.y + l.caption.h;
            const SDL_Rect labelled = {l.big.x - 100, below_caption, l.big.w + 100,
                                       l.big.y + l.big.h - below_caption};
            const SDL_Rect legend = {l.legend.x, l.legend.y - 16, l.legend.w + 36, l.legend.h + 30};
            const SDL_Rect r[] = {l.grid[0], l.grid[1], l.grid[2], l.grid[3], l.grid[4], labelled,
                                  legend, l.caption, l.words, l.breakdown};
            static const char *const names[] = {"map 1", "map 2", "map 3", "map 4", "map 5",
                                                "enlarged map", "legend", "caption", "words",
                                                "breakdown"};
            expect_apart(r, names, 10, w, l.status_y, what);
            cr_expect_geq(l.breakdown.h, 180, "%s: no room for the breakdown", what);
            const SDL_Rect last = viz_word_box(&l, s.length - 1);
            SDL_Rect both;
            cr_expect(SDL_IntersectRect(&last, &l.words, &both) && both.w == last.w && both.h == last.h,
                      "%s: the last word outside the words", what);
            cr_expect(inside(l.slider, w, h) && l.slider.y > l.status_y, "%s: the slider", what);
        }
        snprintf(what, sizeof what, "%dx%d learning views", sizes[k][0], sizes[k][1]);
        /* <<expect the learning views' regions apart>> */
        viz_learning_layout m;
        viz_learning_layout_compute(w, h, &m);
        SDL_Rect at[4];
        viz_curve_legend(&m, &view, at);
        const SDL_Rect big = {m.big.x - 34, m.big.y - 34, m.big.w + 34, m.big.h + 34};
        const SDL_Rect scale_bar = {m.legend.x, m.legend.y - 16, m.legend.w + 36, m.legend.h + 30};
        const SDL_Rect parts[] = {m.maps[0], m.maps[1], m.maps[2], m.maps[3], big, scale_bar,
                                  m.scores, m.predictions, m.panel, at[0], at[1], at[2], at[3]};
        static const char *const part_names[] = {"map 1", "map 2", "map 3", "map 4", "enlarged map",
                                                 "legend", "scores", "predictions", "curves",
                                                 "loss name", "accuracy name", "previous name",
                                                 "induction name"};
        expect_apart(parts, part_names, 13, w, m.status_y, what);
    }
    viz_free(&s);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
}
/* <<[[test_explain.c]] tests>> */
Test(explain, a_playing_sentence_draws_once_a_token) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert(s.playing);
    const double token = 1.0 / s.speed;
    cr_expect_eq(viz_tick(&s, 0.4 * token), 0);
    cr_expect_eq(viz_tick(&s, 0.4 * token), 0);
    cr_expect_eq(s.step, 1);
    cr_expect_eq(viz_tick(&s, 0.4 * token), 1, "the token's time has passed");
    cr_expect_eq(s.step, 2);
    press(&s, SDLK_SPACE);
    cr_expect_eq(viz_tick(&s, 10 * token), 0, "paused: nothing to draw");
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, captions_follow_the_mask) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    char rule[160];
    for (int off = 0; off < 2; off++) {
        cr_assert_eq(!s.causal, off);
        viz_head_rule(&s, 1, rule, sizeof rule);
        cr_expect_eq(strstr(rule, "earlier copy") != NULL, !off, "mask %s: %s",
                     off ? "off" : "on", rule);
        cr_expect_eq(strstr(rule, "later ones included") != NULL, off, "%s", rule);
        cr_expect_eq(strstr(viz_columns_caption(&s), "KV cache") != NULL, !off, "%s",
                     viz_columns_caption(&s));
        viz_head_rule(&s, 4, rule, sizeof rule);
        cr_expect_eq(strstr(rule, "may see") != NULL, !off, "%s", rule);
        press(&s, SDLK_c);
    }
    cr_expect(s.causal);
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, idle_keys_say_so) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_c);
    cr_expect(!s.causal && s.message[0] == '\0', "c works here: '%s'", s.message);
    static const SDL_Keycode idle[] = {SDLK_r, SDLK_n, SDLK_x};
    static const char *const said[] = {"r: not available in this mode",
                                       "n: not available in this mode",
                                       "x: not available in this mode"};
    for (int k = 0; k < 3; k++) {
        press(&s, idle[k]);
        cr_expect_str_eq(s.message, said[k]);
    }
    press(&s, SDLK_RIGHT);
    cr_expect_str_eq(s.message, "", "a key that works clears it");
    press(&s, SDLK_l);
    cr_assert_eq(s.mode, viz_mode_find("trained"), "%s", s.message);
    press(&s, SDLK_c);
    cr_expect_str_eq(s.message, "c: not available in this mode");
    press(&s, SDLK_LEFTBRACKET);
    cr_expect_str_eq(s.message, "[: not available in this mode");
    press(&s, SDLK_n);
    cr_expect_str_eq(s.message, "");
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, f_and_f11_fill_the_screen) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_SPACE);
    int listed = 0;
    for (size_t k = 0; k < viz_help_count; k++)
        listed += strstr(viz_help[k][0], "f, F11") != NULL &&
                  strstr(viz_help[k][2], "full screen") != NULL;
    cr_expect_eq(listed, 1);
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    cr_assert_eq(SDL_Init(SDL_INIT_VIDEO), 0, "%s", SDL_GetError());
    cr_assert_eq(TTF_Init(), 0);
    SDL_Window *window = SDL_CreateWindow("test", 0, 0, 800, 600, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE)
                                    : NULL;
    cr_assert_not_null(renderer, "%s", SDL_GetError());
    viz_window win = {.renderer = renderer, .last = SDL_GetTicks64()};
    cr_assert_eq(viz_view_open(&win.view, renderer), 0);
    const Uint32 full = SDL_WINDOW_FULLSCREEN_DESKTOP;
    press(&s, SDLK_f);
    cr_expect(s.fullscreen);
    viz_window_frame(&s, &win);
    cr_expect_eq(SDL_GetWindowFlags(window) & full, full, "f: the window fills the screen");
    press(&s, SDLK_F11);
    cr_expect(!s.fullscreen);
    viz_window_frame(&s, &win);
    cr_expect_eq(SDL_GetWindowFlags(window) & full, 0, "F11: back to a window");
    viz_view_close(&win.view);
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    TTF_Quit();
    SDL_Quit();
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, the_help_fits_and_says_what_the_maps_mean) {
    static const int sizes[][2] = {{640, 480}, {1280, 800}};
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int mode = 0; mode < 2; mode++) {
        if (mode == 1)
            cr_assert_eq(viz_switch_mode(&s, viz_mode_find("trained")), MHA_OK, "%s",
                         s.message);
        for (size_t k = 0; k < 2; k++) {
            viz_layout l;
            viz_layout_compute(&s, sizes[k][0], sizes[k][1], &l);
            /* <<expect every page of the help inside the window, and its lines in their column>> */
            viz_help_line lines[VIZ_HELP_LINES];
            const size_t n = viz_help_lines(&view, &s, l.width - 40 < 760 ? l.width - 40 : 760, lines);
            char all[8192] = "";
            s.help = 1;
            const size_t pages = viz_help_place(&s, &l, n).pages;
            cr_expect(sizes[k][0] > 640 || pages > 1, "640x480: %zu lines on one page", n);
            for (size_t page = 0; page < pages; page++, s.help++) {
                const viz_help_page p = viz_help_place(&s, &l, n);
                cr_expect_eq(p.page, page);
                cr_expect(inside(p.box, l.width, l.height), "%dx%d page %zu: box %d,%d %dx%d",
                          l.width, l.height, page, p.box.x, p.box.y, p.box.w, p.box.h);
                for (size_t j = p.first; j < p.first + p.count; j++) {
                    int w = 0;
                    viz_text_size(&view, view.font, lines[j].text, &w, NULL);
                    cr_expect_leq(w, p.text_width, "'%s' is %d px, its column %d", lines[j].text, w,
                                  p.text_width);
                    strcat(strcat(strcat(all, lines[j].key), " "), lines[j].text);
                    strcat(all, " ");
                }
            }
            cr_expect_eq(viz_help_place(&s, &l, n).page, 0, "? after the last page: the first again");
            s.help = 0;
            static const char *const meant[] = {"rows", "queries", "columns", "keys", "colour", "weight"};
            for (size_t m = 0; m < 6; m++)
                cr_expect(strstr(all, meant[m]) != NULL, "the help never says '%s'", meant[m]);
            for (size_t h = 0; h < viz_help_count; h++)
                if (strchr(viz_help[h][1], s.mode->key) != NULL)
                    cr_expect(strstr(all, viz_help[h][0]) != NULL, "key '%s' missing", viz_help[h][0]);
        }
    }
    viz_free(&s);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
}
/* <<[[test_explain.c]] tests>> */
Test(explain, engineering_figures_wait_behind_e) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    char line[512];
    viz_engineering_line(&s, line, sizeof line);
    cr_expect(strstr(line, "differs") == NULL && strstr(line, " ms ") == NULL, "%s", line);
    cr_expect(strstr(line, "e:") != NULL, "%s", line);
    press(&s, SDLK_e);
    viz_engineering_line(&s, line, sizeof line);
    cr_expect(strstr(line, "differs from naive forward by") != NULL &&
              strstr(line, " ms ") != NULL, "%s", line);
    press(&s, SDLK_e);
    cr_expect(!s.engineering);
    s.intro = 1;
    const size_t step = s.step;
    cr_expect(!viz_busy(&s) && viz_tick(&s, 10.0) == 0 && s.step == step,
              "under the intro time stands still");
    press(&s, SDLK_SPACE);
    cr_expect(!s.intro && s.playing, "the key put the intro away and did nothing else");
    s.intro = 1;
    viz_layout l;
    viz_layout_compute(&s, 1280, 800, &l);
    const SDL_Rect word = viz_word_box(&l, 3);
    SDL_Event click = {.type = SDL_MOUSEBUTTONDOWN};
    click.button.x = word.x + 2, click.button.y = word.y + 2;
    viz_handle_event(&s, &click, &l);
    cr_expect(!s.intro && s.selected == -1, "the click put it away and selected nothing");
    struct viz_options o;
    char *plain[] = {"mha-viz", "--screenshot", "x.png", NULL};
    char *asked[] = {"mha-viz", "--screenshot", "x.png", "--intro", NULL};
    cr_assert_eq(viz_parse_options(3, plain, &o), 0);
    cr_expect(!o.intro);
    cr_assert_eq(viz_parse_options(4, asked, &o), 0);
    cr_expect(o.intro);
    viz_free(&s);
}
/* <<[[test_explain.c]] tests>> */
Test(explain, case_folds_beyond_ascii) {
    static const unsigned pairs[][2] = {{0xC9, 0xE9}, {0xD0, 0xF0}, {0x100, 0x101},
                                        {0x141, 0x142}, {0x178, 0xFF}, {0x17D, 0x17E},
                                        {0x3A3, 0x3C3}, {0x3C2, 0x3C3}, {0x386, 0x3AC},
                                        {0x38F, 0x3CE}, {0x401, 0x451}, {0x416, 0x436},
                                        {0x462, 0x463}, {0x4C1, 0x4C2}, {0xD7, 0xD7},
                                        {0xDF, 0xDF}, {0x65E5, 0x65E5}, {'Q', 'q'}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        cr_expect_eq(viz_fold_letter(pairs[k][0]), pairs[k][1], "U+%04X", pairs[k][0]);
        cr_expect_eq(viz_fold_letter(pairs[k][1]), pairs[k][1], "U+%04X", pairs[k][1]);
    }
    viz_state s;
    cr_assert_eq(viz_init(&s, "\xc3\x89" "lan " "\xc3\xa9" "lan "
                                  "\xce\xa3\xce\x9f\xce\xa6\xce\x99\xce\x91 "   /* Greek capitals */
                                  "\xcf\x83\xce\xbf\xcf\x86\xce\xb9\xce\xb1 "   /* and small */
                                  "\xd0\x94\xd0\x9e\xd0\x9c " "\xd0\xb4\xd0\xbe\xd0\xbc"), MHA_OK);
    for (int k = 0; k < 5; k++)
        press(&s, SDLK_RIGHT);
    const size_t L = s.length, same = 1;
    cr_expect_str_eq(s.tokens[0], "\xc3\x89" "lan", "the label stays as typed");
    for (size_t i = 1; i < L; i += 2)
        cr_expect_gt(s.weights[(same * L + i) * L + i - 1], 0.5f, "%s finds %s", s.tokens[i],
                     s.tokens[i - 1]);
    viz_free(&s);
    cr_assert_eq(TTF_Init(), 0);
    TTF_Font *font = TTF_OpenFont(VIZ_FONT, 15);
    cr_assert_not_null(font);
    char shown[VIZ_SHOWN_MAX];
    viz_text_shown(font, "\xe6\x97\xa5\xe6\x9c\xac " "\xc3\xa9" "lan " "\xcf\x83", shown,
                   sizeof shown);
    cr_expect_str_eq(shown, "<e6 97 a5><e6 9c ac> " "\xc3\xa9" "lan " "\xcf\x83");
    TTF_CloseFont(font);
    TTF_Quit();
}
/* <<[[test_explain.c]] tests>> */
Test(explain, zoom_grows_the_map_with_its_labels) {
    static const int sizes[][2] = {{800, 600}, {1280, 800}, {1920, 1080}, {2560, 1440}};
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (size_t k = 0; k < 4; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        s.zoom = 1;
        s.window_width = w, s.window_height = h;
        int map = viz_map_pixels(&s, w, h, s.zoom), taken = 0;
        float scale = viz_scale(w, h, s.zoom);
        for (int press_plus = 0; press_plus < 6; press_plus++) {
            const double before = s.zoom;
            press(&s, SDLK_PLUS);
            if (s.zoom == before) {
                cr_expect_str_eq(s.message,
                                 "+: the map and its text are as large as this window allows");
                continue;
            }
            taken++;
            const int now = viz_map_pixels(&s, w, h, s.zoom);
            cr_expect(now > map || viz_scale(w, h, s.zoom) > scale, "%dx%d zoom %.3g: the map "
                      "%d px, was %d, and the text no larger", w, h, s.zoom, now, map);
            cr_expect_geq(viz_scale(w, h, s.zoom), scale, "the text shrank");
            map = now, scale = viz_scale(w, h, s.zoom);
            viz_layout l;
            viz_layout_compute(&s, (int)(w / scale), (int)(h / scale), &l);
            cr_expect(inside(l.big, l.width, l.status_y), "%dx%d zoomed: the map", w, h);
        }
        cr_expect_gt(taken, 0, "%dx%d: no zoom was taken", w, h);
    }
    static const SDL_Keycode modes[] = {SDLK_l, SDLK_t};
    for (int m = 0; m < 2; m++) {
        press(&s, modes[m]);
        cr_assert_neq(s.mode, &viz_sentence_mode, "%s", s.message);
        const double zoom = s.zoom;
        press(&s, SDLK_PLUS);
        cr_expect_str_eq(s.message, "+: not available in this mode");
        press(&s, SDLK_MINUS);
        cr_expect_str_eq(s.message, "-: not available in this mode");
        cr_expect(s.zoom == zoom, "%s: the zoom moved", s.mode->name);
    }
    viz_free(&s);
}

Test(explain, titles_keep_apart) {
    static const int sizes[][2] = {{640, 480}, {800, 600}, {1280, 800}, {1920, 1080},
                                   {2560, 1440}};
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (size_t k = 0; k < 5; k++) {
        const float scale = viz_scale(sizes[k][0], sizes[k][1], 1);
        cr_assert_eq(viz_view_scale(&view, scale), 0);
        viz_layout l;
        viz_layout_compute(&s, (int)(sizes[k][0] / scale), (int)(sizes[k][1] / scale), &l);
        for (int a = 0; a < VIZ_HEADS; a++) {
            for (int b = a + 1; b < VIZ_HEADS; b++)
                cr_expect(!SDL_HasIntersection(&l.titles[a], &l.titles[b]),
                          "%dx%d: titles %d and %d meet", sizes[k][0], sizes[k][1], a + 1, b + 1);
            for (int b = 0; b < VIZ_HEADS; b++)
                cr_expect(!SDL_HasIntersection(&l.titles[a], &l.grid[b]),
                          "%dx%d: title %d on map %d", sizes[k][0], sizes[k][1], a + 1, b + 1);
            cr_expect(inside(l.titles[a], l.width, l.status_y));
        }
        if (sizes[k][0] == 1920)
            cr_expect_geq(TTF_FontHeight(view.small), 20, "the smallest text: %d px a line",
                          TTF_FontHeight(view.small));
    }
    viz_free(&s);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
}
