/* generated from chapters/14-training-viewer.nw, chapters/44-tests-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <SDL_image.h>
#include "checkpoint.h"
#include "npy.h"
#include "training.h"

/* <<[[test_training_viewer.c]] functions the tests share>> */
static void press(viz_state *s, SDL_Keycode sym)
{
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = sym;
    viz_handle_event(s, &e, NULL);
}
/* <<[[test_training_viewer.c]] tests>> */
Test(training_viewer, the_worker_trains_as_the_library_does) {
    viz_trainer t;
    viz_snapshot view;
    cr_assert_eq(viz_trainer_init(&t, 1), MHA_OK);
    cr_assert_eq(viz_snapshot_init(&view, t.run.model.count, 2 * 2 * 32 * 32), MHA_OK);
    viz_trainer_request(&t, -1, 0, 3);
    cr_assert_eq(viz_trainer_start(&t), 0);
    while (view.step < 3)
        viz_trainer_take(&t, &view, 0);                  /* as the window does */
    viz_trainer_wait(&t, 3);
    viz_trainer_take(&t, &view, 1);
    cr_expect_eq(view.step, 3);
    /* <<train three steps with the library and compare with [[view]]>> */
    mha_induction_model model;
    mha_learning_workspace ws, probe_ws;
    mha_induction_batch batch, probe;
    cr_assert_eq(mha_induction_model_init(&model, 64, 32, 32, 2, 2, 1), MHA_OK);
    cr_assert_eq(mha_learning_workspace_init(&ws, &model, 32), MHA_OK);
    cr_assert_eq(mha_learning_workspace_init(&probe_ws, &model, 16), MHA_OK);
    cr_assert_eq(mha_induction_batch_init(&batch, 32, 32), MHA_OK);
    cr_assert_eq(mha_induction_batch_init(&probe, 16, 32), MHA_OK);
    const mha_train_options o = {1e-2, 0.01, 0.9, 0.98, 1e-8, 100};
    const mha_learning_streams streams = mha_learning_streams_from_seed(1);   /* the worker's seed */
    uint64_t state = streams.data, probe_state = streams.probe;
    for (int step = 0; step < 3; step++) {
        mha_induction_batch_fill(&batch, 64, &state);
        mha_train_stats stats;
        cr_assert_eq(mha_induction_train_step(&model, &ws, &batch, &o, &stats), MHA_OK);
        cr_expect_float_eq(view.loss[step], stats.loss, 1e-6, "step %d", step + 1);
    }
    cr_expect(memcmp(view.params, model.params, model.count * sizeof(float)) == 0,
              "the worker's parameters differ from the library's");
    mha_induction_batch_fill(&probe, 64, &probe_state);
    cr_assert_eq(mha_induction_forward(&model, &probe_ws, probe.tokens), MHA_OK);
    cr_expect(memcmp(view.weights + 2 * 32 * 32, probe_ws.weights + 16 * 2 * 32 * 32,
                     2 * 32 * 32 * sizeof(float)) == 0, "layer 1's probe maps differ");
    mha_induction_batch_free(&batch); mha_induction_batch_free(&probe);
    mha_learning_workspace_free(&ws); mha_learning_workspace_free(&probe_ws);
    mha_induction_model_free(&model);
    viz_snapshot_free(&view);
    viz_trainer_free(&t);
}
/* <<[[test_training_viewer.c]] tests>> */
Test(training_viewer, keys_switch_modes_pause_and_reset) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_RIGHT);
    press(&s, SDLK_t);
    cr_assert_eq(s.mode, &viz_training_mode);
    viz_training *g = viz_training_of(&s);
    viz_trainer_request(&g->trainer, -1, 0, 2);
    viz_trainer_wait(&g->trainer, 2);
    viz_trainer_take(&g->trainer, &g->view, 1);
    cr_expect_eq(g->view.step, 2);
    float *first = malloc(g->view.count * sizeof *first);
    memcpy(first, g->view.params, g->view.count * sizeof *first);
    /* <<pause, reset and resume, and expect the same two steps>> */
    press(&s, SDLK_SPACE);
    cr_expect(g->paused && g->trainer.paused);
    press(&s, SDLK_r);
    viz_trainer_wait(&g->trainer, 0);                       /* until the reset is done */
    viz_trainer_take(&g->trainer, &g->view, 1);
    cr_expect_eq(g->view.step, 0, "reset, and paused: no step");
    press(&s, SDLK_SPACE);
    viz_trainer_wait(&g->trainer, 2);
    viz_trainer_take(&g->trainer, &g->view, 1);
    cr_expect_eq(g->view.step, 2);
    cr_expect(memcmp(first, g->view.params, g->view.count * sizeof *first) == 0,
              "the run after a reset is the same run");
    free(first);
    press(&s, SDLK_l);
    cr_expect_eq(s.mode, &viz_trained_mode, "%s", s.message);
    press(&s, SDLK_d);
    cr_expect(s.mode == &viz_sentence_mode && s.step == 2, "the designed heads as they were");
    viz_free(&s);
}
Test(training_viewer, the_induction_marker_is_where_the_history_says) {
    const float history[6] = {0.1f, 0.3f, 0.5f, 0.51f, 0.2f, 0.9f};
    cr_expect_eq(viz_induction_step(history, 6), 4);
    cr_expect_eq(viz_induction_step(history, 3), 0);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_training_mode), MHA_OK);
    press(&s, SDLK_SPACE);                              /* pause the worker */
    viz_snapshot *v = &viz_training_of(&s)->view;
    v->step = 60;
    for (size_t k = 0; k < 60; k++)
        v->induction[k] = k + 1 < 37 ? 0.1f : 0.8f;
    v->induction_step = viz_induction_step(v->induction, 60);
    cr_assert_eq(v->induction_step, 37);
    /* <<draw the state and find the marker's column>> */
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 1280, 760, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout frame;
    viz_layout_compute(&s, 1280, 760, &frame);
    viz_draw(&view, &s, &frame);
    SDL_RenderPresent(renderer);
    viz_learning_layout l;
    viz_learning_layout_compute(1280, 760, &l);
    const int x = viz_curve_x(&l, 37, viz_curve_horizon(60)), y = l.panel.y + l.panel.h - 5;
    for (int dx = -6; dx <= 6; dx++) {
        const Uint8 *p = (const Uint8 *)surface->pixels + y * surface->pitch + 4 * (x + dx);
        const int yellow = p[0] == 250 && p[1] == 210 && p[2] == 80;
        cr_expect_eq(yellow, dx >= -1 && dx <= 1, "column %d: %d %d %d", x + dx, p[0], p[1], p[2]);
    }
    const Uint8 *b = (const Uint8 *)surface->pixels + (l.banner_y - 8) * surface->pitch + 4 * 16;
    cr_expect(b[0] == 250 && b[1] == 210 && b[2] == 80, "the banner");
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    viz_free(&s);
}
Test(training_viewer, the_loader_refuses_wrong_shapes) {
    char dir[] = "/tmp/mha-viz-model-XXXXXX", command[512], message[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(command, sizeof command, "cp '%s'/* %s", viz_model_dir(), dir);
    cr_assert_eq(system(command), 0);
    mha_induction_model m;
    cr_assert_eq(induction_checkpoint_read(dir, 2, &m, message, sizeof message), MHA_OK,
                 "%s", message);
    cr_expect(m.vocab == 64 && m.length == 32 && m.embed_dim == 32 && m.layers == 2);
    mha_induction_model_free(&m);
    /* <<write a wrong shape, then remove a file, and expect clear refusals>> */
    char path[256];
    float zeros[96 * 31] = {0};
    const size_t wrong[2] = {96, 31};
    snprintf(path, sizeof path, "%s/layers.1.in_proj_weight.npy", dir);
    cr_assert_eq(mha_npy_write(path, zeros, 2, wrong, message, sizeof message), MHA_OK);
    cr_expect_eq(induction_checkpoint_read(dir, 2, &m, message, sizeof message), MHA_ERR_SHAPE);
    cr_expect(strstr(message, "layers.1.in_proj_weight.npy: shape (96, 31), expected (96, 32)"),
              "%s", message);
    cr_expect_null(m.params, "nothing is left allocated");
    snprintf(path, sizeof path, "%s/unembed.npy", dir);
    cr_assert_eq(unlink(path), 0);
    cr_expect_neq(induction_checkpoint_read(dir, 2, &m, message, sizeof message), MHA_OK);
    cr_expect(strstr(message, "unembed.npy") != NULL, "%s", message);
    snprintf(path, sizeof path, "%s/model.txt", dir);
    cr_assert_eq(unlink(path), 0);
    cr_expect_eq(induction_checkpoint_read(dir, 0, &m, message, sizeof message), MHA_ERR_IO);
    cr_expect(strstr(message, "model.txt") != NULL, "%s", message);
    snprintf(command, sizeof command, "rm -rf %s", dir);
    cr_expect_eq(system(command), 0);
}
Test(training_viewer, the_trained_model_has_an_induction_head) {
    mha_induction_model m;
    char message[512];
    cr_assert_eq(induction_checkpoint_read(viz_model_dir(), 2, &m, message, sizeof message), MHA_OK,
                 "%s", message);
    mha_learning_workspace ws;
    mha_induction_batch batch;
    cr_assert_eq(mha_learning_workspace_init(&ws, &m, 64), MHA_OK);
    cr_assert_eq(mha_induction_batch_init(&batch, 64, m.length), MHA_OK);
    uint64_t state = 31337;
    mha_induction_batch_fill(&batch, m.vocab, &state);
    cr_assert_eq(mha_induction_forward(&m, &ws, batch.tokens), MHA_OK);
    mha_head_scores scores;
    const size_t HTT = 64 * m.heads * m.length * m.length;
    for (size_t l = 0; l < m.layers; l++)
        mha_head_scores_from_weights(ws.weights + l * HTT, &batch, m.heads, l, &scores);
    const double induction = fmax(scores.induction[1][0], scores.induction[1][1]);
    const double previous = fmax(scores.previous[0][0], scores.previous[0][1]);
    cr_expect_gt(induction, 0.5, "best induction score of layer 1: %.3f", induction);
    cr_expect_gt(previous, 0.5, "best previous-token score of layer 0: %.3f", previous);
    mha_induction_batch_free(&batch); mha_learning_workspace_free(&ws); mha_induction_model_free(&m);
    /* <<expect a missing model directory to leave the window alone>> */
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    setenv("MHA_MODEL_DIR", "/nonexistent/model", 1);
    press(&s, SDLK_l);
    cr_expect_eq(s.mode, &viz_sentence_mode);
    cr_expect(strstr(s.message, "/nonexistent/model/model.txt") != NULL, "%s", s.message);
    unsetenv("MHA_MODEL_DIR");
    viz_free(&s);
}
Test(training_viewer, the_model_is_found_in_the_tree_the_viewer_runs_from) {
    char dir[VIZ_MODEL_PATH];
    unsetenv("MHA_MODEL_DIR");
    cr_assert(viz_model_here_or_beside("models/induction", dir, sizeof dir));
    const size_t length = strlen(dir), tail = strlen("/models/induction");
    cr_expect(dir[0] == '/' && length > tail &&
              strcmp(dir + length - tail, "/models/induction") == 0, "%s", dir);
    cr_expect_str_eq(viz_model_dir(), dir);
    char model[VIZ_MODEL_PATH + 16];
    snprintf(model, sizeof model, "%s/model.txt", dir);
    cr_expect_eq(access(model, R_OK), 0, "%s", model);
    cr_expect(!viz_model_here_or_beside("models/no-such-model", dir, sizeof dir));
    cr_assert_eq(chdir(".."), 0);
    cr_assert(viz_model_here_or_beside("models/induction", dir, sizeof dir));
    cr_expect_str_eq(dir, "models/induction");
    setenv("MHA_MODEL_DIR", "/elsewhere", 1);
    cr_expect_str_eq(viz_model_dir(), "/elsewhere");
    unsetenv("MHA_MODEL_DIR");
}
Test(training_viewer, decoding_the_trained_model_matches_its_forward_pass) {
    viz_trained m;
    char message[512];
    cr_assert_eq(viz_trained_load(&m, viz_model_dir(), message, sizeof message), MHA_OK,
                 "%s", message);
    const size_t T = m.model.length, LH = m.model.layers * m.model.heads;
    cr_assert_eq(mha_induction_forward(&m.model, &m.ws, m.sequence.tokens), MHA_OK);
    float *full = malloc(LH * T * T * sizeof *full);
    memcpy(full, m.ws.weights, LH * T * T * sizeof *full);
    size_t right = 0;
    for (size_t step = 1; step <= T; step++) {
        viz_trained_go_to(&m, step);
        double worst = 0;
        for (size_t k = 0; k < LH; k++)
            for (size_t i = 0; i < step; i++)
                for (size_t j = 0; j < T; j++)
                    worst = fmax(worst, fabs(m.weights[(k * T + i) * T + j] -
                                             full[(k * T + i) * T + j]));
        cr_expect_eq(worst, 0.0, "step %zu", step);
    }
    for (size_t t = T / 2; t + 1 < T; t++)
        right += m.predicted[t] == m.sequence.tokens[t + 1];
    cr_expect_geq(right, (T / 2 - 1) * 3 / 4, "%zu of %zu guessed", right, T / 2 - 1);
    free(full);
    viz_trained_free(&m);
}
Test(training_viewer, training_screenshots_are_deterministic) {
    char dir[] = "/tmp/mha-viz-train-XXXXXX", a[64], b[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/a.png", dir);
    snprintf(b, sizeof b, "%s/b.png", dir);
    char *one[] = {"mha-viz", "--train", "--train-steps", "2", "--size", "800x600",
                   "--screenshot", a, NULL};
    char *two[] = {"mha-viz", "--train-steps", "2", "--size", "800x600", "--screenshot", b, NULL};
    cr_assert_eq(viz_main(8, one), VIZ_EXIT_OK);
    cr_assert_eq(viz_main(7, two), VIZ_EXIT_OK);
    SDL_Surface *x = IMG_Load(a), *y = IMG_Load(b);
    cr_assert(x && y && x->w == 800 && x->h == 600 && y->w == 800);
    SDL_Surface *cx = SDL_ConvertSurfaceFormat(x, SDL_PIXELFORMAT_RGBA32, 0),
                *cy = SDL_ConvertSurfaceFormat(y, SDL_PIXELFORMAT_RGBA32, 0);
    size_t differ = 0;
    for (int r = 0; r < cx->h; r++)
        differ += memcmp((Uint8 *)cx->pixels + r * cx->pitch, (Uint8 *)cy->pixels + r * cy->pitch,
                         4 * (size_t)cx->w) != 0;
    cr_expect_eq(differ, 0, "%zu rows differ", differ);
    SDL_FreeSurface(cx); SDL_FreeSurface(cy); SDL_FreeSurface(x); SDL_FreeSurface(y);
    unlink(a); unlink(b); rmdir(dir);
    char *bad[] = {"mha-viz", "--train-steps", "999999", NULL};
    cr_expect_eq(viz_main(3, bad), VIZ_EXIT_USAGE);
}
Test(training_viewer, the_layout_fits_every_window) {
    static const int sizes[][2] = {{640, 480}, {1024, 700}, {1280, 760}, {2560, 1440}};
    for (size_t k = 0; k < 4; k++) {
        viz_learning_layout l;
        const int w = sizes[k][0], h = sizes[k][1];
        viz_learning_layout_compute(w, h, &l);
        SDL_Rect all[7] = {l.maps[0], l.maps[1], l.maps[2], l.maps[3], l.big, l.scores, l.panel};
        for (int r = 0; r < 7; r++)
            cr_expect(all[r].x >= 0 && all[r].y >= 0 && all[r].w > 0 && all[r].h > 0 &&
                      all[r].x + all[r].w <= w && all[r].y + all[r].h <= l.status_y,
                      "%dx%d: rectangle %d", w, h, r);
        for (int r = 0; r < 6; r++)
            cr_expect(!SDL_HasIntersection(&all[r], &l.panel), "%dx%d: %d overlaps", w, h, r);
        cr_expect(!SDL_HasIntersection(&l.maps[1], &l.big) && !SDL_HasIntersection(&l.big, &l.scores));
    }
}
static size_t trainer_step(viz_training *g)
{
    viz_trainer_take(&g->trainer, &g->view, 1);
    return g->view.step;
}
Test(training_viewer, leaving_training_stops_the_trainer) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_training_mode), MHA_OK);
    viz_training *g = viz_training_of(&s);
    cr_expect(viz_busy(&s), "training: the window keeps drawing");
    viz_trainer_wait(&g->trainer, 2);
    press(&s, SDLK_d);                               /* back to the designed heads */
    cr_assert_eq(s.mode, &viz_sentence_mode);
    viz_trainer_wait_idle(&g->trainer);              /* the step under way ends */
    const size_t left = trainer_step(g);
    SDL_Delay(700);
    cr_expect_eq(trainer_step(g), left, "the worker went on from step %zu unseen", left);
    press(&s, SDLK_t);
    viz_trainer_wait(&g->trainer, left + 1);
    cr_expect_gt(trainer_step(g), left, "coming back resumes training");
    viz_trainer_request(&g->trainer, -1, 0, trainer_step(g) + 1);
    viz_trainer_wait(&g->trainer, g->trainer.stop_at);
    trainer_step(g);
    cr_expect(!viz_busy(&s), "finished: the window may sleep");
    viz_free(&s);
}
Test(training_viewer, a_pace_slows_training) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_training_mode), MHA_OK);
    viz_training *g = viz_training_of(&s);
    static const double paces[] = {50, 20, 10, 5, 2, 1, 1};
    for (int k = 0; k < 7; k++) {
        press(&s, SDLK_DOWN);
        cr_expect_eq(g->pace, paces[k], "down %d: pace %g", k + 1, g->pace);
    }
    cr_expect_str_eq(s.message, "", "down is a key of training");
    viz_trainer_wait_idle(&g->trainer);
    const size_t from = (size_t)g->allowed;
    for (int k = 0; k < 3; k++)
        viz_tick(&s, 1.0);
    cr_expect_eq(g->trainer.stop_at, from + 3, "three seconds at 1 step/s: stop at %zu",
                 g->trainer.stop_at);
    viz_trainer_wait(&g->trainer, from + 3);
    SDL_Delay(300);
    cr_expect_leq(trainer_step(g), from + 3, "the worker ran ahead of the pace");
    cr_expect(viz_busy(&s), "paced, not finished: the window keeps drawing");
    for (int k = 0; k < 7; k++)
        press(&s, SDLK_UP);
    cr_expect_eq(g->pace, 0.0);
    cr_expect_eq(g->trainer.stop_at, (size_t)VIZ_TRAIN_MAX_STEPS, "full speed: to the end");
    viz_free(&s);
}
Test(training_viewer, training_is_recorded_by_steps) {
    SDL_Surface *frames[2][2];
    for (int run = 0; run < 2; run++) {
        char dir[] = "/tmp/mha-viz-train-XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        char *argv[] = {"mha-viz", "--train", "--record", dir, "--frames", "2",
                        "--steps-per-frame", "3", "--size", "640x480", NULL};
        cr_assert_eq(viz_main(10, argv), VIZ_EXIT_OK);
        for (int f = 0; f < 2; f++) {
            char path[128];
            snprintf(path, sizeof path, "%s/frame-%04d.png", dir, f + 1);
            SDL_Surface *loaded = IMG_Load(path);
            cr_assert_not_null(loaded, "%s: %s", path, IMG_GetError());
            frames[run][f] = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
            SDL_FreeSurface(loaded);
            unlink(path);
        }
        rmdir(dir);
    }
    const size_t bytes = (size_t)frames[0][0]->pitch * (size_t)frames[0][0]->h;
    cr_expect_eq(memcmp(frames[0][1]->pixels, frames[1][1]->pixels, bytes), 0,
                 "two recordings differ");
    cr_expect_neq(memcmp(frames[0][0]->pixels, frames[0][1]->pixels, bytes), 0,
                  "steps 3 and 6 look the same");
    for (int run = 0; run < 2; run++)
        for (int f = 0; f < 2; f++)
            SDL_FreeSurface(frames[run][f]);
    char *alone[] = {"mha-viz", "--steps-per-frame", "3", NULL};
    cr_expect_eq(viz_main(3, alone), VIZ_EXIT_USAGE);
}
Test(training_viewer, legends_and_labels_do_not_overlap) {
    static const int sizes[][2] = {{640, 480}, {800, 600}, {1280, 800}, {1920, 1080},
                                   {2560, 1440}};
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    const int text = TTF_FontHeight(view.small) - 2;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int w = sizes[k][0], h = sizes[k][1];
        viz_learning_layout l;
        viz_learning_layout_compute(w, h, &l);
        SDL_Rect at[4];
        viz_curve_legend(&l, &view, at);
        for (int a = 0; a < 4; a++) {
            cr_expect(at[a].x >= 0 && at[a].x + at[a].w <= w && at[a].y > 0,
                      "%dx%d: name %d outside", w, h, a);
            for (int b = a + 1; b < 4; b++)
                cr_expect(!SDL_HasIntersection(&at[a], &at[b]), "%dx%d: names %d and %d overlap",
                          w, h, a, b);
        }
        const size_t every = viz_label_stride(l.big.h, VIZ_LEARN_LENGTH, text);
        cr_expect_geq((int)every * (l.big.h / VIZ_LEARN_LENGTH), text,
                      "%dx%d: labels %zu apart on cells of %d px", w, h, every,
                      l.big.h / VIZ_LEARN_LENGTH);
    }
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
}
Test(training_viewer, hover_and_click_in_the_training_view) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_training_mode), MHA_OK);
    viz_training *g = viz_training_of(&s);
    viz_layout sentence;
    viz_layout_compute(&s, 1280, 800, &sentence);
    viz_learning_layout l;
    viz_learning_layout_compute(1280, 800, &l);
    SDL_Event e = {.type = SDL_MOUSEBUTTONDOWN};
    e.button.x = l.maps[1].x + 3;
    e.button.y = l.maps[1].y + 3;
    viz_handle_event(&s, &e, &sentence);
    cr_expect_eq(g->focus, 1, "a click on layer 0 head 1 enlarges it");
    const SDL_Rect c = viz_cell(&l.big, VIZ_LEARN_LENGTH, 5, 3);
    e = (SDL_Event){.type = SDL_MOUSEMOTION};
    e.motion.x = c.x + c.w / 2;
    e.motion.y = c.y + c.h / 2;
    viz_handle_event(&s, &e, &sentence);
    cr_expect(s.hover_head == 1 && s.hover_row == 5 && s.hover_col == 3,
              "pointed at head %d cell (%d, %d)", s.hover_head, s.hover_row, s.hover_col);
    press(&s, SDLK_d);
    cr_expect_eq(s.hover_head, -1, "the cell belonged to the other view's layout");
    viz_free(&s);
}
Test(training_viewer, the_top_tokens_are_the_softmax_s_largest) {
    float logits[64];
    uint64_t state = 7;
    for (size_t v = 0; v < 64; v++)
        logits[v] = (float)(mha_random(&state) % 1000) / 100.0f;
    int top[VIZ_TOP_TOKENS];
    double p[VIZ_TOP_TOKENS], sum = 0;
    cr_assert_eq(viz_top_tokens(logits, 64, VIZ_TOP_TOKENS, top, p), VIZ_TOP_TOKENS);
    for (size_t v = 0; v < 64; v++)
        sum += exp((double)logits[v]);
    for (size_t k = 0; k < VIZ_TOP_TOKENS; k++) {
        cr_expect_float_eq(p[k], exp((double)logits[top[k]]) / sum, 1e-12);
        if (k > 0)
            cr_expect_leq(logits[top[k]], logits[top[k - 1]]);
    }
    for (size_t v = 0; v < 64; v++) {
        int in_top = 0;
        for (size_t k = 0; k < VIZ_TOP_TOKENS; k++)
            in_top |= top[k] == (int)v;
        cr_expect(in_top || logits[v] <= logits[top[VIZ_TOP_TOKENS - 1]], "token %zu", v);
    }
    viz_trained m;
    char message[512];
    cr_assert_eq(viz_trained_load(&m, viz_model_dir(), message, sizeof message), MHA_OK, "%s",
                 message);
    viz_trained_go_to(&m, 24);                          /* in the copy */
    viz_top_tokens(m.ws.logits + 22 * m.model.vocab, m.model.vocab, VIZ_TOP_TOKENS, top, p);
    cr_expect_eq(top[0], m.sequence.tokens[23], "after position 22 comes the copy's token");
    cr_expect_gt(p[0], 0.5);
    viz_trained_free(&m);
}

Test(training_viewer, the_predictions_follow_training_live) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_training_mode), MHA_OK);
    viz_training *g = viz_training_of(&s);
    const size_t T = VIZ_LEARN_LENGTH, V = VIZ_LEARN_VOCAB, stops[2] = {3, 40};
    mha_learning_workspace ws;
    cr_assert_eq(mha_learning_workspace_init(&ws, &g->trainer.run.model, 1), MHA_OK);
    double first[VIZ_TOP_TOKENS] = {0};
    for (int k = 0; k < 2; k++) {
        viz_trainer_request(&g->trainer, -1, 0, stops[k]);
        viz_trainer_wait(&g->trainer, stops[k]);
        viz_tick(&s, 0.01);
        while (g->view.step != stops[k]) {                   /* the lock was busy */
            SDL_Delay(5);
            viz_tick(&s, 0.01);
        }
        cr_expect_eq(g->predicted_step, stops[k]);
        cr_assert_eq(mha_induction_forward(&g->trainer.run.model, &ws, g->trainer.run.probe.tokens),
                     MHA_OK);
        size_t differ = 0;
        for (size_t i = 0; i < T * V; i++)
            differ += ws.logits[i] != g->ws.logits[i];
        cr_expect_eq(differ, 0, "step %zu: %zu logits differ from the worker's model",
                     stops[k], differ);
        int top[VIZ_TOP_TOKENS];
        double p[VIZ_TOP_TOKENS];
        viz_top_tokens(g->ws.logits + (T - 2) * V, V, VIZ_TOP_TOKENS, top, p);
        if (k == 0)
            memcpy(first, p, sizeof first);
        else
            cr_expect(memcmp(first, p, sizeof first) != 0, "the predictions moved");
    }
    mha_learning_workspace_free(&ws);
    viz_free(&s);
}
static int is_colour(SDL_Surface *surface, int x, int y, SDL_Color c)
{
    const Uint8 *p = (const Uint8 *)surface->pixels + y * surface->pitch + 4 * x;
    return p[0] == c.r && p[1] == c.g && p[2] == c.b;    /* SDL_PIXELFORMAT_RGBA32 */
}

Test(training_viewer, the_predictions_are_drawn_as_bars) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_trained_mode), MHA_OK, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    viz_trained_go_to(m, 24);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 1280, 760, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout frame;
    viz_layout_compute(&s, 1280, 760, &frame);
    viz_draw(&view, &s, &frame);
    SDL_RenderPresent(renderer);
    viz_learning_layout l;
    viz_learning_layout_compute(1280, 760, &l);
    const size_t V = m->model.vocab;
    int top[VIZ_TOP_TOKENS];
    double p[VIZ_TOP_TOKENS];
    viz_top_tokens(m->ws.logits + 23 * V, V, VIZ_TOP_TOKENS, top, p);
    cr_assert_eq(top[0], m->sequence.tokens[24], "the model's first guess comes true");
    const int x = l.predictions.x + 40, y = l.predictions.y + 22 + 7;
    const int end = x + (int)lround((l.predictions.w - 84) * p[0]);
    cr_expect(is_colour(surface, x + 1, y, viz_right_colour));
    cr_expect(is_colour(surface, end - 2, y, viz_right_colour), "green to %.2f", p[0]);
    cr_expect(is_colour(surface, end + 2, y, viz_undecoded), "the track after it");
    cr_expect(!is_colour(surface, x + 1, y + 18, viz_right_colour), "the second guess");
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    viz_free(&s);
}
Test(training_viewer, each_guess_is_the_model_s_prediction_of_its_token) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_trained_mode), MHA_OK, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    const size_t T = m->model.length, V = m->model.vocab, step = 24;
    viz_trained_go_to(m, step);
    mha_learning_workspace ws;
    cr_assert_eq(mha_learning_workspace_init(&ws, &m->model, 1), MHA_OK);
    int *prefix = calloc(T, sizeof *prefix), own[64];
    cr_assert(prefix != NULL && T <= 64);
    for (size_t t = 1; t <= step; t++) {                 /* the model sees tokens 0..t-1 */
        memcpy(prefix, m->sequence.tokens, t * sizeof *prefix);
        cr_assert_eq(mha_induction_forward(&m->model, &ws, prefix), MHA_OK);
        const float *z = ws.logits + (t - 1) * V;
        size_t best = 0;
        for (size_t v = 1; v < V; v++)
            if (z[v] > z[best]) best = v;
        own[t] = (int)best;
        cr_expect_eq(viz_trained_guess(m, t), own[t], "the guess under token %zu", t);
    }
    cr_expect_eq(viz_trained_guess(m, 0), -1, "nothing guesses the first token");
    cr_expect_eq(viz_trained_guess(m, step + 1), -1, "nor one two tokens ahead");
    /* <<expect a guess cell green exactly when the model's prediction is its token>> */
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 1280, 760, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout frame;
    viz_layout_compute(&s, 1280, 760, &frame);
    viz_draw(&view, &s, &frame);
    SDL_RenderPresent(renderer);
    viz_learning_layout l;
    viz_learning_layout_for(1280, 760, m->model.layers, m->model.heads, T, &l);
    size_t green = 0;
    for (size_t t = 1; t < step; t++) {
        const SDL_Rect g = viz_guess_cell(&l, T, t);
        const int right = own[t] == m->sequence.tokens[t];
        green += right;
        cr_expect_eq(is_colour(surface, g.x + 1, g.y + 1, viz_right_guess), right,
                     "token %zu: guessed %d, is %d", t, own[t], m->sequence.tokens[t]);
    }
    cr_expect_geq(green, 6, "the copy's tokens are guessed: %zu", green);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    free(prefix);
    mha_learning_workspace_free(&ws);
    viz_free(&s);
}
static void write_checkpoint(const char *dir, size_t layers, size_t heads)
{
    mha_induction_model m;
    char message[512];
    cr_assert_eq(mha_induction_model_init(&m, 64, 32, 32, heads, layers, 7), MHA_OK);
    cr_assert_eq(induction_checkpoint_write(dir, &m, message, sizeof message), MHA_OK, "%s",
                 message);
    mha_induction_model_free(&m);
}

static void expect_drawn_as_recorded(size_t layers, size_t heads)
{
    char dir[] = "/tmp/mha-viz-shape-XXXXXX", command[256];
    cr_assert_not_null(mkdtemp(dir));
    write_checkpoint(dir, layers, heads);
    setenv("MHA_MODEL_DIR", dir, 1);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_trained_mode), MHA_OK, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    cr_expect(m->model.layers == layers && m->model.heads == heads, "%zu layers, %zu heads",
              m->model.layers, m->model.heads);
    viz_trained_go_to(m, 20);
    /* <<draw [[s]] and expect a map for every head and none beyond>> */
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 1280, 760, 32, SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout frame;
    viz_layout_compute(&s, 1280, 760, &frame);
    viz_draw(&view, &s, &frame);
    SDL_RenderPresent(renderer);
    viz_learning_layout l;
    viz_learning_layout_for(1280, 760, layers, heads, 32, &l);
    const SDL_Rect first = l.maps[0];
    for (size_t k = 0; k <= layers * heads; k++) {
        const int x = first.x + (int)(k % heads) * (l.maps[1].x - first.x) + first.w * 5 / 64;
        const int y = first.y + (int)(k / heads) * (first.h + 46) + first.h * 57 / 64;
        if (k < layers * heads)
            cr_expect(is_colour(surface, x, y, viz_undecoded), "map %zu at (%d, %d)", k, x, y);
        else
            cr_expect(is_colour(surface, x, y, viz_background), "no map %zu at (%d, %d)", k, x, y);
    }
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    /* <<expect Tab and the mouse to reach every head and no other>> */
    for (size_t k = 0; k < 2 * layers * heads; k++) {
        press(&s, SDLK_TAB);
        cr_expect_lt(m->focus, layers * heads, "focus %zu after %zu presses", m->focus, k + 1);
    }
    for (size_t k = 0; k < layers * heads; k++) {
        int head = -1, row = -1, col = -1;
        const SDL_Rect r = l.maps[k];
        cr_expect_eq(viz_learning_hit(&l, m->focus, r.x + r.w / 2, r.y + r.h / 2, &head, &row, &col),
                     1, "map %zu", k);
        cr_expect_eq(head, (int)k);
    }
    viz_free(&s);
    unsetenv("MHA_MODEL_DIR");
    snprintf(command, sizeof command, "rm -rf %s", dir);
    cr_expect_eq(system(command), 0);
}

Test(training_viewer, a_one_layer_checkpoint_is_drawn_as_one_layer) {
    expect_drawn_as_recorded(1, 2);
}

Test(training_viewer, a_four_head_checkpoint_is_drawn_with_four_heads) {
    expect_drawn_as_recorded(2, 4);
}
static void type_in(viz_state *s, const char *text)
{
    press(s, SDLK_RETURN);
    viz_act(s, &(viz_action){.kind = VIZ_TYPE, .text = text});
    viz_act(s, &(viz_action){.kind = VIZ_ACCEPT, .key = 1});
}

Test(training_viewer, text_typed_into_the_trained_model) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz .ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789";
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_l);
    cr_assert_eq(s.mode, &viz_trained_mode, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    const size_t T = m->model.length, V = m->model.vocab;
    const char *kept = "abcdefghij abcdefghij.";
    type_in(&s, "abcdefghij, abcdefghij.");
    cr_assert_eq(s.typing, 0, "%s", s.message);
    cr_expect(strstr(s.message, "','") != NULL && strstr(s.message, "left out") != NULL,
              "the comma is named: '%s'", s.message);
    cr_assert_eq(m->used, strlen(kept));
    cr_expect(m->typed && m->step == m->used, "the whole text at once");
    for (size_t t = 0; t < m->used; t++)
        cr_expect_eq(m->sequence.tokens[t], (int)(strchr(alphabet, kept[t]) - alphabet),
                     "'%c'", kept[t]);
    cr_expect(m->sequence.copy_from[0] == 0 && m->sequence.copy_to[0] == 11 &&
              m->sequence.copy_length[0] == 10, "the copy: the second abcdefghij");
    char label[8];
    viz_letter_label(m->sequence.tokens[10], label);
    cr_expect_str_eq(label, "\xe2\x90\xa3", "a space is an open box");
    viz_letter_label(m->sequence.tokens[21], label);
    cr_expect_str_eq(label, ".");
    mha_learning_workspace ws;
    cr_assert_eq(mha_learning_workspace_init(&ws, &m->model, 1), MHA_OK);
    int prefix[64] = {0};
    size_t right = 0;
    cr_assert(T <= 64);
    for (size_t t = 1; t < m->used; t++) {
        memcpy(prefix, m->sequence.tokens, t * sizeof *prefix);
        cr_assert_eq(mha_induction_forward(&m->model, &ws, prefix), MHA_OK);
        const float *z = ws.logits + (t - 1) * V;
        size_t best = 0;
        for (size_t v = 1; v < V; v++)
            if (z[v] > z[best]) best = v;
        cr_expect_eq(viz_trained_guess(m, t), (int)best, "the guess under token %zu", t);
        right += t >= 12 && t <= 20 && (int)best == m->sequence.tokens[t];
    }
    cr_expect_geq(right, 6, "the copy's guesses: %zu of 9 right", right);
    mha_learning_workspace_free(&ws);
    type_in(&s, "abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz");
    cr_expect(s.typing && strstr(s.message, "too long") != NULL, "'%s'", s.message);
    press(&s, SDLK_ESCAPE);
    type_in(&s, ",;!");
    cr_expect(s.typing && strstr(s.message, "no character has a token") != NULL, "'%s'",
              s.message);
    press(&s, SDLK_ESCAPE);
    cr_expect(!s.typing && m->used == strlen(kept), "a refused text leaves the last one");
    press(&s, SDLK_n);
    cr_expect(!m->typed && m->used == T, "n: a random sequence again");
    viz_free(&s);
}
static size_t copy_guessed(const viz_trained *m)
{
    size_t right = 0;
    for (size_t t = m->used / 2 + 1; t < m->used; t++)
        right += viz_trained_guess(m, t) == m->sequence.tokens[t];
    return right;
}

Test(training_viewer, removing_heads_of_the_trained_model) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_l);
    cr_assert_eq(s.mode, &viz_trained_mode, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    const size_t T = m->model.length, V = m->model.vocab, H = m->model.heads;
    const size_t E = m->model.embed_dim, D = E / H;
    cr_assert(m->model.layers == 2 && T <= 64);
    viz_trained_go_to(m, T);
    int before[64];
    memcpy(before, m->predicted, T * sizeof *before);
    const size_t guessed = copy_guessed(m);
    for (size_t h = 0; h < H; h++) {
        m->focus = H + h;
        press(&s, SDLK_x);
        cr_expect_str_eq(s.message, "", "x works here");
    }
    mha_induction_model own;
    char message[512];
    cr_assert_eq(induction_checkpoint_read(viz_model_dir(), 0, &own, message, sizeof message),
                 MHA_OK, "%s", message);
    const mha_model_tensors t = mha_induction_model_tensors(&own);
    for (size_t h = 0; h < H; h++) {
        memset(t.in_w[1] + (2 * E + h * D) * E, 0, D * E * sizeof(float));
        memset(t.in_b[1] + 2 * E + h * D, 0, D * sizeof(float));
    }
    mha_learning_workspace ws;
    cr_assert_eq(mha_learning_workspace_init(&ws, &own, 1), MHA_OK);
    cr_assert_eq(mha_induction_forward(&own, &ws, m->sequence.tokens), MHA_OK);
    for (size_t i = 1; i < T; i++) {
        const float *z = ws.logits + (i - 1) * V;
        size_t best = 0;
        for (size_t v = 1; v < V; v++)
            if (z[v] > z[best]) best = v;
        cr_expect_eq(viz_trained_guess(m, i), (int)best, "the guess under token %zu", i);
    }
    cr_expect_geq(guessed, 8, "with every head the copy is guessed: %zu", guessed);
    cr_expect_leq(copy_guessed(m), 3, "without layer 1: %zu of the copy", copy_guessed(m));
    press(&s, SDLK_u);
    cr_expect_arr_eq(m->predicted, before, T * sizeof *before, "u restores every guess");
    mha_learning_workspace_free(&ws);
    mha_induction_model_free(&own);
    viz_free(&s);
}
#include "frame.h"

Test(training_viewer, the_trained_model_s_keys) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_l);
    cr_assert_eq(s.mode, &viz_trained_mode, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    const size_t T = m->model.length, heads = m->model.layers * m->model.heads;
    viz_trained_go_to(m, 5);
    press(&s, SDLK_RIGHT);
    cr_expect_eq(m->step, 6);
    press(&s, SDLK_LEFT);
    press(&s, SDLK_LEFT);
    cr_expect_eq(m->step, 4);
    press(&s, SDLK_HOME);
    cr_expect_eq(m->step, 1);
    cr_expect(!s.playing && !viz_busy(&s), "paused: the window may sleep");
    press(&s, SDLK_SPACE);
    cr_expect(s.playing && viz_busy(&s), "playing: the window keeps drawing");
    cr_expect_eq(viz_tick(&s, 0.6 / s.speed), 0);
    cr_expect_eq(m->step, 1, "too soon for a token");
    viz_tick(&s, 0.6 / s.speed);
    cr_expect_eq(m->step, 2);
    viz_trained_go_to(m, m->used);
    viz_tick(&s, 1.2 / s.speed);
    cr_expect_eq(m->step, 1, "after the last token, the first");
    press(&s, SDLK_RIGHT);
    cr_expect(!s.playing && m->step == 2, "a step stops the playing");
    /* <<expect a missing head refused and the pointer to find a cell>> */
    char want[64];
    m->focus = heads;
    press(&s, SDLK_x);
    snprintf(want, sizeof want, "x: no head %zu to remove", heads);
    cr_expect_str_eq(s.message, want);
    cr_expect_eq(m->removed, 0);
    viz_act(&s, &(viz_action){.kind = VIZ_FOCUS_HEAD, .head = 1});
    cr_expect_eq(m->focus, 1);
    viz_layout sentence;
    viz_layout_compute(&s, 1280, 800, &sentence);
    viz_learning_layout l;
    viz_learning_layout_for(1280, 800, m->model.layers, m->model.heads, T, &l);
    const SDL_Rect c = viz_cell(&l.big, T, 5, 3);
    SDL_Event e = {.type = SDL_MOUSEMOTION};
    e.motion.x = c.x + c.w / 2;
    e.motion.y = c.y + c.h / 2;
    viz_handle_event(&s, &e, &sentence);
    cr_expect(s.hover_head == 1 && s.hover_row == 5 && s.hover_col == 3,
              "pointed at head %d cell (%d, %d)", s.hover_head, s.hover_row, s.hover_col);
    viz_free(&s);
}
Test(training_viewer, a_picture_of_the_trained_model_after_five_tokens) {
    char dir[] = "/tmp/mha-viz-trained-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/five.png", dir);
    char *argv[] = {"mha-viz", "--trained", "--step", "5", "--size", "1280x800",
                    "--screenshot", path, NULL};
    cr_assert_eq(viz_main(8, argv), VIZ_EXIT_OK);
    SDL_Surface *loaded = IMG_Load(path);
    cr_assert_not_null(loaded, "%s", IMG_GetError());
    SDL_Surface *shot = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
    viz_learning_layout l;
    viz_learning_layout_for(1280, 800, 2, 2, 32, &l);
    const SDL_Rect decoded = viz_cell(&l.big, 32, 4, 0);
    const SDL_Rect waiting = viz_cell(&l.big, 32, 5, 0);
    cr_expect(!frame_same(frame_pixel(shot, decoded.x + decoded.w / 2, decoded.y + 1),
                          viz_undecoded), "row 5 is decoded");
    cr_expect(frame_same(frame_pixel(shot, waiting.x + waiting.w / 2, waiting.y + 1),
                         viz_undecoded), "row 6 waits");
    SDL_FreeSurface(shot);
    SDL_FreeSurface(loaded);
    unlink(path);
    rmdir(dir);
}
static int readout_pixels(viz_state *s, const viz_learning_layout *l, size_t T, int head,
                          int row, int col)
{
    viz_act(s, &(viz_action){.kind = VIZ_POINT, .head = head, .row = row, .col = col});
    SDL_Surface *f = frame_draw(s, 1280, 800);
    const SDL_Rect c = viz_cell(&l->big, T, (size_t)row, (size_t)col);
    const int n = frame_count(f, (SDL_Rect){0, c.y + c.h + 6, 1280, 24}, viz_box);
    const int outlined = frame_same(frame_pixel(f, c.x, c.y + c.h / 2), viz_emphasis);
    SDL_FreeSurface(f);
    return outlined ? n : -1;
}

Test(training_viewer, the_readout_under_the_pointer) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_trained_mode), MHA_OK, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    const size_t T = m->model.length;
    viz_trained_go_to(m, 10);
    viz_learning_layout l;
    viz_learning_layout_for(1280, 800, m->model.layers, m->model.heads, T, &l);
    const int f = (int)m->focus;
    SDL_Surface *plain = frame_draw(&s, 1280, 800);
    const SDL_Rect c = viz_cell(&l.big, T, 4, 2);
    const int none = frame_count(plain, (SDL_Rect){0, c.y + c.h + 6, 1280, 24}, viz_box);
    SDL_FreeSurface(plain);
    cr_expect_gt(readout_pixels(&s, &l, T, f, 4, 2), none + 100, "a weight");
    cr_expect_gt(readout_pixels(&s, &l, T, f, 4, 9), none + 100, "a masked key");
    cr_expect_gt(readout_pixels(&s, &l, T, f, 20, 2), none + 100, "a query to come");
    cr_expect_gt(readout_pixels(&s, &l, T, f, 4, (int)T - 1), none + 100, "at the right");
    cr_expect_eq(readout_pixels(&s, &l, T, f == 0 ? 1 : 0, 4, 2), -1, "another head");
    /* <<remove a head and expect its map crossed out under typed text>> */
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = -1, .row = -1, .col = -1});
    press(&s, SDLK_x);
    const SDL_Rect top_right = {1280 - 400, 8, 400, 28};
    const char *texts[2] = {"abcab, abc", "abc, def"};       /* a repeat, and none; a comma */
    for (int t = 0; t < 2; t++) {
        type_in(&s, texts[t]);
        cr_assert(!s.typing && s.message[0] != '\0', "'%s'", s.message);
        SDL_Surface *shot = frame_draw(&s, 1280, 800);
        for (size_t k = 0; k < m->model.layers * m->model.heads; k++) {
            const SDL_Rect r = l.maps[k];
            const int crossed = frame_same(frame_pixel(shot, r.x, r.y), viz_alarm) &&
                                frame_same(frame_pixel(shot, r.x + r.w - 1, r.y), viz_alarm);
            cr_expect_eq(crossed, k == m->focus, "map %zu: crossed out %d", k, crossed);
        }
        cr_expect_gt(frame_count(shot, top_right, viz_alarm), 20, "the message");
        s.message[0] = '\0';
        SDL_Surface *quiet = frame_draw(&s, 1280, 800);
        cr_expect_eq(frame_count(quiet, top_right, viz_alarm), 0, "no message, none drawn");
        SDL_FreeSurface(quiet);
        SDL_FreeSurface(shot);
    }
    viz_free(&s);
}
Test(training_viewer, the_training_view_s_keys_and_its_failure) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_assert_eq(viz_switch_mode(&s, &viz_training_mode), MHA_OK);
    viz_training *g = viz_training_of(&s);
    viz_trainer_request(&g->trainer, -1, 0, 3);
    viz_trainer_wait(&g->trainer, 3);
    viz_trainer_wait_idle(&g->trainer);
    viz_tick(&s, 1.0);
    cr_expect(g->view.step == 3 && g->rate == 3.0, "3 steps in a second: %g", g->rate);
    press(&s, SDLK_SPACE);
    viz_trainer_wait_idle(&g->trainer);
    const size_t heads = VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS, first = g->focus;
    for (size_t k = 1; k <= heads; k++) {
        press(&s, SDLK_TAB);
        cr_expect_eq(g->focus, (first + k) % heads);
    }
    viz_act(&s, &(viz_action){.kind = VIZ_SELECT, .row = 7});
    cr_expect_eq(viz_learning_position(&s, g->focus, VIZ_LEARN_LENGTH, 30), 7);
    press(&s, SDLK_DOWN);                          /* paced, for the status line */
    viz_learning_layout l;
    viz_learning_layout_compute(1280, 800, &l);
    cr_expect_gt(readout_pixels(&s, &l, VIZ_LEARN_LENGTH, (int)g->focus, 9, 4), 100);
    SDL_LockMutex(g->trainer.lock);
    g->trainer.shared.failed = MHA_ERR_NOMEM;      /* as the worker reports it */
    SDL_UnlockMutex(g->trainer.lock);
    viz_tick(&s, 0.01);
    char want[160];
    snprintf(want, sizeof want, "training stopped: %s",
             mha_status_message(MHA_ERR_NOMEM));
    cr_expect_str_eq(s.message, want);
    viz_free(&s);
    char dir[] = "/tmp/mha-viz-steps-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/never.png", dir);
    char steps[16];
    snprintf(steps, sizeof steps, "%d", VIZ_TRAIN_MAX_STEPS + 1);
    char *argv[] = {"mha-viz", "--train-steps", steps, "--screenshot", path, NULL};
    cr_expect_eq(viz_main(5, argv), VIZ_EXIT_USAGE);
    cr_expect_neq(access(path, F_OK), 0, "nothing was written");
    rmdir(dir);
}
Test(training_viewer, the_trained_model_s_text_entry_and_a_checkpoint_too_long) {
    char label[8];
    viz_token_label(70, label);
    cr_expect_str_eq(label, "70");
    viz_letter_label(70, label);
    cr_expect_str_eq(label, "70");
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_l);
    cr_assert_eq(s.mode, &viz_trained_mode, "%s", s.message);
    viz_trained *m = viz_mode_data(&s, &viz_trained_mode);
    press(&s, SDLK_RETURN);
    press(&s, SDLK_BACKSPACE);
    cr_expect(s.typing && s.typed[0] == '\0', "erasing nothing: '%s'", s.typed);
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "abc"});
    press(&s, SDLK_BACKSPACE);
    cr_expect_str_eq(s.typed, "ab");
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "\xc3\xa9"});
    press(&s, SDLK_BACKSPACE);
    cr_expect_str_eq(s.typed, "ab", "the two bytes of one character");
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "\xc3\xa9"});
    viz_act(&s, &(viz_action){.kind = VIZ_ACCEPT, .key = 1});
    cr_expect_str_eq(s.message, "no token for '\xc3\xa9': left out");
    cr_expect_eq(m->used, 2);
    type_in(&s, "a\xc3\xa9" "b?c\xc3\xa9?");
    cr_expect_str_eq(s.message, "no token for '\xc3\xa9' '?': left out");
    cr_expect_eq(m->used, 3);
    type_in(&s, "a!#$%&()*+,-/:;<=>@[]^_`{|}~b");
    cr_expect(m->used == 2 && strncmp(s.message, "no token for '!' '#' ", 21) == 0 &&
              strstr(s.message, ": left out") != NULL && strchr(s.message, '~') == NULL,
              "%s", s.message);
    type_in(&s, "abcab");
    cr_expect(!s.typing && s.message[0] == '\0' && m->used == 5, "'%s'", s.message);
    viz_act(&s, &(viz_action){.kind = VIZ_SELECT, .row = 3});
    cr_expect_eq(s.selected, 3);
    press(&s, SDLK_RETURN);
    for (size_t k = 0; k + 1 < VIZ_TEXT_MAX; k++)
        viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "a"});
    viz_act(&s, &(viz_action){.kind = VIZ_TYPE, .text = "b"});
    cr_expect(strlen(s.typed) == VIZ_TEXT_MAX - 1 && strchr(s.typed, 'b') == NULL,
              "%zu bytes, the last '%c'", strlen(s.typed), s.typed[strlen(s.typed) - 1]);
    viz_free(&s);
    /* <<expect a checkpoint of too many positions refused>> */
    char dir[] = "/tmp/mha-viz-long-XXXXXX", command[64];
    cr_assert_not_null(mkdtemp(dir));
    mha_induction_model model;
    char message[512];
    const size_t positions = VIZ_TOKENS_MAX * 2 + 1;
    cr_assert_eq(mha_induction_model_init(&model, 64, positions, 32, 2, 1, 7), MHA_OK);
    cr_assert_eq(induction_checkpoint_write(dir, &model, message, sizeof message), MHA_OK,
                 "%s", message);
    mha_induction_model_free(&model);
    setenv("MHA_MODEL_DIR", dir, 1);
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    press(&s, SDLK_l);
    unsetenv("MHA_MODEL_DIR");
    cr_expect_eq(s.mode, &viz_sentence_mode);
    cr_expect(strstr(s.message, dir) != NULL && strstr(s.message, "at most") != NULL, "%s",
              s.message);
    viz_free(&s);
    snprintf(command, sizeof command, "rm -rf %s", dir);
    cr_expect_eq(system(command), 0);
}
