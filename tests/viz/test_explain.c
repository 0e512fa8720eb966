/* generated from chapters/42-tests-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <omp.h>
#include <criterion/criterion.h>
#include "viz.h"
#include "training.h"

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
