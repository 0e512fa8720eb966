/* generated from chapters/12-viewer.nw, chapters/25-hardening.nw, chapters/42-tests-viewer.nw; edit the book, not this file */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <SDL_image.h>
#include "viz.h"
#include "../child.h"

/* <<[[test_viewer.c]] functions the tests share>> */
static void key(viz_state *s, SDL_Keycode sym)
{
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = sym;
    viz_handle_event(s, &e, NULL);
}
/* <<[[test_viewer.c]] functions the tests share>> */
static SDL_Color pixel(SDL_Surface *surface, int x, int y)
{
    const Uint8 *p = (const Uint8 *)surface->pixels + y * surface->pitch + 4 * x;
    return (SDL_Color){p[0], p[1], p[2], p[3]};        /* SDL_PIXELFORMAT_RGBA32 */
}

static int same_colour(SDL_Color a, SDL_Color b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

static SDL_Surface *draw_at(viz_state *s, viz_layout *l, int width, int height)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout_compute(s, width, height, l);
    viz_draw(&view, s, l);
    SDL_RenderPresent(renderer);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    TTF_Quit();
    return surface;
}

static SDL_Surface *draw(viz_state *s, viz_layout *l) { return draw_at(s, l, 1280, 800); }
/* <<[[test_viewer.c]] tests>> */
Test(viewer, decoding_matches_the_forward_pass_at_every_step) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "to be or not to be that is the question"), MHA_OK);
    for (size_t step = 2; step <= s.length; step++) {
        if (step == 5)
            key(&s, SDLK_RIGHTBRACKET);                    /* flatter from here on */
        key(&s, SDLK_RIGHT);
        cr_expect(s.decoding && s.cache.length[0] == step, "step %zu", step);
        cr_expect_lt(s.impl_difference, 1e-5, "step %zu: %g", step, s.impl_difference);
    }
    viz_free(&s);
}
/* <<[[test_viewer.c]] tests>> */
Test(viewer, switches_rerun_attention) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int k = 0; k < 20; k++)
        key(&s, SDLK_RIGHT);
    const size_t L = s.length;
    cr_expect_eq(s.step, L);
    cr_expect_lt(s.weights[(1 * L + 0) * L + 7], 0.01f, "causal: 'the' cannot see ahead");
    key(&s, SDLK_c);
    cr_expect(!s.causal);
    cr_expect_gt(s.weights[(1 * L + 0) * L + 7], 0.9f, "the last 'the', at 7");
    cr_expect(!s.decoding, "no causal mask: the whole prefix at once");
    key(&s, SDLK_c);
    cr_expect(s.decoding && s.cache.length[0] == L, "decoded through the cache");
    /* <<check the temperature against the softmax of [[10/T]]>> */
    key(&s, SDLK_RIGHTBRACKET); key(&s, SDLK_RIGHTBRACKET); key(&s, SDLK_RIGHTBRACKET);
    const double T = 1.5 * 1.5 * 1.5, e = exp(10 / T);
    cr_expect_float_eq(s.temperature, T, 1e-5);
    const size_t i = L - 1;                    /* the last query sees L keys */
    cr_expect_float_eq(s.weights[(2 * L + i) * L + 0], e / (e + (double)i), 1e-5);
    cr_expect_float_eq(viz_score(&s, 2, i, 0), 10 / T, 1e-4);
    cr_expect_float_eq(viz_score(&s, 2, i, 1), 0.0, 1e-9);
    /* <<check that ablating the first-token head changes a share of the output>> */
    cr_expect_eq(s.output_change, 0.0);
    key(&s, SDLK_LEFTBRACKET); key(&s, SDLK_LEFTBRACKET); key(&s, SDLK_LEFTBRACKET);
    key(&s, SDLK_3);
    cr_expect_eq(s.ablated, 1u << 2);
    cr_expect(s.output_change > 0.1 && s.output_change < 0.9, "%g", s.output_change);
    key(&s, SDLK_3);
    cr_expect_eq(s.ablated, 0u);
    cr_expect_eq(s.output_change, 0.0);
    viz_free(&s);
}
/* <<[[test_viewer.c]] tests>> */
Test(viewer, cells_have_the_colour_of_their_weight) {
    const SDL_Color v0 = viz_colour(VIZ_VIRIDIS, 0), v1 = viz_colour(VIZ_VIRIDIS, 1);
    cr_expect(v0.r == 68 && v0.g == 1 && v0.b == 84 && v1.r == 253 && v1.g == 231);
    const SDL_Color c0 = viz_colour(VIZ_CIVIDIS, 0), g = viz_colour(VIZ_GREY, 0.5);
    cr_expect(c0.r == 0 && c0.g == 32 && c0.b == 77 && g.r == 128 && g.g == 128);
    viz_state s;
    cr_assert_eq(viz_init(&s, "w x y z"), MHA_OK);
    s.step = 4;
    s.causal = 0;                                 /* no cell masked: every one has a weight */
    static const float known[4] = {0.0f, 0.25f, 0.6f, 1.0f};
    for (size_t i = 0; i < VIZ_HEADS * 16; i++)
        s.weights[i] = known[i % 4];
    for (int map = 0; map < VIZ_COLOUR_MAPS; map++) {
        s.colour_map = (viz_colour_map)map;
        viz_layout l;
        SDL_Surface *surface = draw(&s, &l);
        /* <<expect every cell of the enlarged map and of head 5 to have its colour>> */
        for (int which = 0; which < 2; which++)
            for (size_t i = 0; i + 1 < 4; i++)          /* the last row has its white outline */
                for (size_t j = 0; j < 4; j++) {
                    const SDL_Rect c = viz_cell(which ? &l.grid[4] : &l.big, 4, i, j);
                    const SDL_Color got = pixel(surface, c.x + c.w / 2, c.y + c.h / 2);
                    const SDL_Color want = viz_colour(s.colour_map, known[j]);
                    cr_expect(got.r == want.r && got.g == want.g && got.b == want.b,
                              "map %d, %s cell (%zu, %zu): got %d %d %d, want %d %d %d", map,
                              which ? "small" : "big", i, j, got.r, got.g, got.b, want.r, want.g,
                              want.b);
                }
        SDL_FreeSurface(surface);
    }
    viz_free(&s);
}
/* <<[[test_viewer.c]] tests>> */
static int viewer_in_child(char **argv, int argc, rlim_t bytes, const char *out_path)
{
    fflush(NULL);
    const pid_t child = fork();
    if (child == 0) {
        child_limit_files(bytes);
        if (freopen("/dev/null", "w", stderr) == NULL ||
            (out_path != NULL && freopen(out_path, "wb", stdout) == NULL))
            _exit(99);
        child_exit(viz_main(argc, argv));
    }
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFEXITED(status), "the child died: status %#x", status);
    return WEXITSTATUS(status);
}

static int frame_holds(const char *dir, int frame, const char *text)
{
    char path[128], got[32] = {0};
    snprintf(path, sizeof path, "%s/frame-%04d.png", dir, frame);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    const size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    return n == strlen(text) && memcmp(got, text, n) == 0;
}

static size_t hidden_in(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL)
        closedir(d);
    return n;
}

Test(viewer, a_recording_is_one_set_of_frames) {
    char dir[] = "/tmp/mha-viz-set-XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/frame-0001.png", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL && fputs("old frame", f) >= 0 && fclose(f) == 0);
    snprintf(path, sizeof path, "%s/frame-0002.png", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    char *three[] = {"mha-viz", "--record", dir, "--frames", "3", "--size", "640x480", NULL};
    cr_expect_eq(viz_main(7, three), VIZ_EXIT_FAILURE, "a directory at frame-0002.png");
    cr_expect(frame_holds(dir, 1, "old frame"), "a failed recording replaced frame 1");
    rmdir(path);
    cr_expect_eq(viewer_in_child(three, 7, 4096, NULL), VIZ_EXIT_FAILURE, "a full disk");
    cr_expect(frame_holds(dir, 1, "old frame"), "a full disk replaced frame 1");
    cr_expect_eq(hidden_in(dir), 0, "temporaries were left");
    cr_expect_eq(viz_main(7, three), VIZ_EXIT_OK);
    char *two[] = {"mha-viz", "--record", dir, "--frames", "2", "--size", "640x480", NULL};
    cr_expect_eq(viz_main(7, two), VIZ_EXIT_OK);
    snprintf(path, sizeof path, "%s/frame-0003.png", dir);
    cr_expect_neq(access(path, F_OK), 0, "frame 3 of the longer recording stayed");
    for (int k = 1; k <= 3; k++) {
        snprintf(path, sizeof path, "%s/frame-%04d.png", dir, k);
        unlink(path);
    }
    cr_expect_eq(rmdir(dir), 0, "the directory holds more than the frames");
}

Test(viewer, screenshots_through_device_links_are_refused) {
    char dir[] = "/tmp/mha-viz-link-XXXXXX", link[128], out[128], magic[8];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(link, sizeof link, "%s/shot.png", dir);
    cr_assert_eq(symlink("/dev/null", link), 0);
    char *shot[] = {"mha-viz", "--screenshot", link, "--size", "640x480", NULL};
    cr_expect_eq(viz_main(5, shot), VIZ_EXIT_FAILURE);
    struct stat st;
    cr_expect(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    unlink(link);
    snprintf(out, sizeof out, "%s/stdout", dir);
    char *dash[] = {"mha-viz", "--screenshot", "-", "--size", "640x480", NULL};
    cr_expect_eq(viewer_in_child(dash, 5, RLIM_INFINITY, out), VIZ_EXIT_OK);
    FILE *f = fopen(out, "rb");
    cr_assert_not_null(f);
    cr_expect(fread(magic, 1, 8, f) == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0,
              "--screenshot - wrote no PNG to the standard output");
    fclose(f);
    unlink(out);
    cr_expect_eq(rmdir(dir), 0, "a file named '-' or a temporary was left");
}
static void expect_viz_refusal(int argc, char **argv, const char *want)
{
    struct viz_options o;
    cr_expect_eq(viz_parse_options(argc, argv, &o), -1, "%s was accepted", want);
    fflush(stderr);
    cr_expect_stderr_eq_str(want);
}
Test(viewer_options, a_missing_value_swallows_nothing, .init = cr_redirect_stderr) {
    expect_viz_refusal(3, (char *[]){"mha-viz", "--screenshot", "--trained", NULL},
                       "mha-viz: --screenshot: missing value: got '--trained' "
                       "(a value may not start with '-')\n");
}
Test(viewer_options, are_given_once, .init = cr_redirect_stderr) {
    expect_viz_refusal(5, (char *[]){"mha-viz", "--step", "2", "--step=3", "--step", NULL},
                       "mha-viz: --step: given more than once\n");
}
Test(viewer_options, that_exclude_each_other, .init = cr_redirect_stderr) {
    expect_viz_refusal(6, (char *[]){"mha-viz", "--screenshot", "a.png", "--record=d",
                                     "--frames", "2", NULL},
                       "mha-viz: --screenshot and --record: give one of them\n");
}
Test(viewer_options, train_or_trained, .init = cr_redirect_stderr) {
    expect_viz_refusal(3, (char *[]){"mha-viz", "--train", "--trained", NULL},
                       "mha-viz: --train and --trained: give one of them\n");
}
Test(viewer_options, hover_is_two_numbers, .init = cr_redirect_stderr) {
    expect_viz_refusal(3, (char *[]){"mha-viz", "--hover", "1,2junk", NULL},
                       "mha-viz: --hover: expected I,J from 0 to 31, got '1,2junk'\n");
}
Test(viewer_options, the_value_forms) {
    struct viz_options o;
    char *argv[] = {"mha-viz", "--hover=3,4", "--step", "5", "--text", "-", NULL};
    cr_assert_eq(viz_parse_options(6, argv, &o), 0);
    cr_expect(o.hover_row == 3 && o.hover_col == 4 && o.step == 5 && strcmp(o.text, "-") == 0);
}
Test(viewer_options, messages_escape_controls, .init = cr_redirect_stderr) {
    expect_viz_refusal(2, (char *[]){"mha-viz", "\x1b]0;owned\x07\x9b", NULL},
                       "mha-viz: unknown argument '\\x1b]0;owned\\x07\\x9b' "
                       "(try 'mha-viz --help')\n");
}
static void typed(viz_state *s, const char *text)
{
    SDL_Event e = {.type = SDL_TEXTINPUT};
    snprintf(e.text.text, sizeof e.text.text, "%s", text);
    viz_handle_event(s, &e, NULL);
}
Test(viewer, starts_at_the_first_token) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_expect_eq(s.length, 11);
    cr_expect_eq(s.step, 1);
    cr_expect(s.playing && s.causal && s.temperature == 1.0f && s.ablated == 0);
    for (size_t h = 0; h < VIZ_HEADS; h++)
        cr_expect_float_eq(s.weights[h * s.length * s.length], 1.0f, 1e-6);
    viz_free(&s);
}
Test(viewer, keys_step_the_decoding) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "a b c"), MHA_OK);
    key(&s, SDLK_RIGHT);
    cr_expect(s.step == 2 && !s.playing);
    cr_expect(s.decoding && s.cache.length[0] == 2, "two tokens in the cache");
    const float *prev = s.weights;                       /* head 1: previous token */
    cr_expect_gt(prev[1 * 3 + 0], 0.99f, "row 2 of the previous-token head");
    cr_expect_eq(prev[2 * 3 + 1], 0.0f, "row 3 is not decoded yet");
    key(&s, SDLK_RIGHT); key(&s, SDLK_RIGHT);
    cr_expect_eq(s.step, 3);
    cr_expect_gt(prev[2 * 3 + 1], 0.99f, "row 3 has arrived");
    key(&s, SDLK_LEFT);
    cr_expect_eq(s.step, 2);
    cr_expect_eq(s.cache.length[0], 2, "a step back decodes the prefix again");
    viz_tick(&s, 10.0);
    cr_expect_eq(s.step, 2, "paused");
    key(&s, SDLK_SPACE);
    viz_tick(&s, 0.9 / s.speed);
    cr_expect_eq(s.step, 2, "not yet");
    viz_tick(&s, 0.2 / s.speed);
    cr_expect_eq(s.step, 3, "one token after 1/speed seconds");
    viz_tick(&s, 1.1 / s.speed);
    cr_expect_eq(s.step, 1, "wraps around after the last token");
    viz_free(&s);
}
Test(viewer, padding_implementations_and_small_switches) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "the cat saw the dog"), MHA_OK);
    key(&s, SDLK_RIGHT); key(&s, SDLK_RIGHT);
    key(&s, SDLK_p);
    cr_expect(s.padding && s.length == 8 && s.step == 6, "length %zu, step %zu", s.length,
              s.step);
    cr_expect_str_eq(s.tokens[0], "<pad>");
    cr_expect_str_eq(s.tokens[3], "the");
    for (size_t h = 0; h < VIZ_HEADS; h++)
        for (size_t j = 0; j < VIZ_PADDING; j++)
            cr_expect_eq(s.weights[(h * 8 + 5) * 8 + j], 0.0f, "pad key %zu, head %zu", j, h);
    key(&s, SDLK_p);
    cr_expect(!s.padding && s.length == 5 && s.step == 3);
    for (size_t k = 1; k <= mha_impl_count; k++) {
        key(&s, SDLK_i);
        cr_expect_eq(s.impl, k % mha_impl_count);
        cr_expect_lt(s.impl_difference, 1e-5, "%s", mha_impls[s.impl].name);
    }
    key(&s, SDLK_m); cr_expect_eq(s.colour_map, VIZ_CIVIDIS);
    key(&s, SDLK_TAB); cr_expect_eq(s.focus, 2);
    typed(&s, "?"); cr_expect(s.help);
    key(&s, SDLK_ESCAPE); cr_expect(!s.help && !s.quit);
    key(&s, SDLK_s); cr_expect(s.save_requested);
    key(&s, SDLK_q); cr_expect(s.quit);
    viz_free(&s);
}
Test(viewer, typing_a_sentence) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_RETURN);
    cr_expect(s.typing);
    typed(&s, "to be or not to bee");
    key(&s, SDLK_BACKSPACE);
    key(&s, SDLK_q);                                    /* a key, not a command, now */
    cr_expect(!s.quit);
    key(&s, SDLK_RETURN);
    cr_expect(!s.typing);
    cr_expect_eq(s.length, 6);
    cr_expect_str_eq(s.tokens[5], "be");
    key(&s, SDLK_RETURN);
    key(&s, SDLK_RETURN);
    cr_expect(s.typing && s.message[0] != '\0', "empty sentence refused");
    cr_expect_eq(s.length, 6);
    key(&s, SDLK_ESCAPE);
    cr_expect(!s.typing);
    cr_expect_eq(s.message[0], '\0', "the refusal outlived escape: '%s'", s.message);
    viz_free(&s);
}
Test(viewer, events_through_the_sdl_queue) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    cr_assert_eq(SDL_Init(SDL_INIT_VIDEO), 0, "%s", SDL_GetError());
    viz_state s;
    cr_assert_eq(viz_init(&s, "one two three"), MHA_OK);
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = SDLK_c;
    cr_assert_eq(SDL_PushEvent(&e), 1);
    e.key.keysym.sym = SDLK_RIGHT;
    cr_assert_eq(SDL_PushEvent(&e), 1);
    while (SDL_PollEvent(&e))
        viz_handle_event(&s, &e, NULL);
    cr_expect(!s.causal && s.step == 2);
    viz_free(&s);
    SDL_Quit();
}
Test(viewer, hover_and_click) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    viz_layout l;
    viz_layout_compute(&s, 1280, 800, &l);
    const SDL_Rect c = viz_cell(&l.big, s.length, 3, 2);
    SDL_Event e = {.type = SDL_MOUSEMOTION};
    e.motion.x = c.x + c.w / 2;
    e.motion.y = c.y + c.h / 2;
    viz_handle_event(&s, &e, &l);
    cr_expect(s.hover_head == (int)s.focus && s.hover_row == 3 && s.hover_col == 2);
    e = (SDL_Event){.type = SDL_MOUSEBUTTONDOWN};
    e.button.x = l.grid[4].x + 3;
    e.button.y = l.grid[4].y + 3;
    viz_handle_event(&s, &e, &l);
    cr_expect_eq(s.focus, 4);
    e.button.x = l.slider.x + l.slider.w / 2 + 1;        /* half-way on a log scale */
    e.button.y = l.slider.y + l.slider.h / 2;
    viz_handle_event(&s, &e, &l);
    cr_expect_eq(s.temperature, 1.0f, "the middle is exactly 1: got %.4f", s.temperature);
    e = (SDL_Event){.type = SDL_MOUSEMOTION};             /* drag three quarters along */
    e.motion.state = SDL_BUTTON_LMASK;
    e.motion.x = l.slider.x + 3 * l.slider.w / 4;
    e.motion.y = l.slider.y + l.slider.h / 2;
    viz_handle_event(&s, &e, &l);
    cr_expect_float_eq(s.temperature, sqrt(VIZ_TEMPERATURE_MAX), 1e-2);
    e.motion.x = l.slider.x + l.slider.w + 10;            /* past the end */
    viz_handle_event(&s, &e, &l);
    cr_expect_float_eq(s.temperature, VIZ_TEMPERATURE_MAX, 1e-2);
    e.motion.state = 0;                                   /* no button: only pointing */
    e.motion.x = l.slider.x;
    viz_handle_event(&s, &e, &l);
    cr_expect_float_eq(s.temperature, VIZ_TEMPERATURE_MAX, 1e-2);
    e.motion.state = SDL_BUTTON_LMASK;                    /* the left end */
    viz_handle_event(&s, &e, &l);
    cr_expect_float_eq(s.temperature, VIZ_TEMPERATURE_MIN, 1e-6);
    s.temperature = 1.0f;
    const SDL_Rect r = l.slider;
    const int strays[3][2] = {{r.x - 30, e.motion.y}, {r.x + r.w + 30, e.motion.y},
                              {r.x + r.w / 4, r.y + r.h + 10}};  /* off the ends, below */
    for (int k = 0; k < 3; k++) {
        e.motion.x = strays[k][0], e.motion.y = strays[k][1];
        viz_handle_event(&s, &e, &l);
        cr_expect_eq(s.temperature, 1.0f, "a drag off the slider, %d", k);
    }
    e.motion.x = l.slider.x - 10;                         /* dragged just past it */
    e.motion.y = l.slider.y + l.slider.h / 2;
    viz_handle_event(&s, &e, &l);
    cr_expect_float_eq(s.temperature, VIZ_TEMPERATURE_MIN, 1e-6);
    viz_free(&s);
}
static SDL_Event click_at(int x, int y)
{
    SDL_Event e = {.type = SDL_MOUSEBUTTONDOWN};
    e.button.x = x, e.button.y = y;
    return e;
}

Test(viewer, a_selection_is_outlined_and_cleared) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (int k = 0; k < 8; k++)
        key(&s, SDLK_RIGHT);                                  /* 9 tokens, paused */
    viz_layout l;
    viz_layout_compute(&s, 1280, 800, &l);
    const SDL_Rect clicked = viz_cell(&l.big, s.length, 4, 1);
    SDL_Event e = click_at(clicked.x + 1, clicked.y + 1);
    viz_handle_event(&s, &e, &l);
    cr_expect_eq(s.selected, 4);
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = (int)s.focus, .row = 7, .col = 2});
    SDL_Surface *surface = draw(&s, &l);
    const int x = l.big.x + 3 * l.big.w / 4;                 /* off the pointed cell */
    const SDL_Color at4 = pixel(surface, x, viz_cell(&l.big, s.length, 4, 0).y);
    const SDL_Color at7 = pixel(surface, x, viz_cell(&l.big, s.length, 7, 0).y);
    cr_expect(same_colour(at4, viz_selected), "row 4: %d %d %d", at4.r, at4.g, at4.b);
    cr_expect(!same_colour(at7, viz_selected), "row 7, only pointed at, is outlined");
    SDL_FreeSurface(surface);
    key(&s, SDLK_ESCAPE);
    cr_expect(s.selected == -1 && !s.asking_to_quit && !s.quit, "escape clears first");
    viz_handle_event(&s, &e, &l);
    e = click_at(l.legend.x - 8, l.big.y + 4);               /* between map and legend */
    viz_handle_event(&s, &e, &l);
    cr_expect_eq(s.selected, -1, "a click off the map clears");
    /* <<ask before quitting on escape, and quit at once on the close button>> */
    key(&s, SDLK_ESCAPE);
    cr_expect(s.asking_to_quit && !s.quit, "nothing selected: escape asks");
    surface = draw(&s, &l);
    const SDL_Color middle = pixel(surface, 50, l.height / 2 + 20);
    cr_expect(same_colour(middle, viz_box), "no question on the screen: %d %d %d", middle.r,
              middle.g, middle.b);
    SDL_FreeSurface(surface);
    const int playing = s.playing;
    key(&s, SDLK_LSHIFT);
    cr_expect(s.asking_to_quit, "shift alone is no answer");
    key(&s, SDLK_SPACE);
    cr_expect(!s.asking_to_quit && !s.quit && s.playing == playing, "another key: stay, only");
    key(&s, SDLK_ESCAPE);
    key(&s, SDLK_ESCAPE);
    cr_expect(s.quit, "escape twice quits");
    s.quit = 0;
    key(&s, SDLK_ESCAPE);
    key(&s, SDLK_q);
    cr_expect(s.quit, "escape, then q, quits");
    s.quit = 0;
    e = (SDL_Event){.type = SDL_QUIT};
    viz_handle_event(&s, &e, NULL);
    cr_expect(s.quit && !s.asking_to_quit, "the close button quits without asking");
    viz_free(&s);
}
static int inside(SDL_Rect r, int width, int bottom)
{
    return r.x >= 0 && r.y >= 0 && r.w > 0 && r.h > 0 && r.x + r.w <= width &&
           r.y + r.h <= bottom;
}
Test(viewer, layout_fits_every_window) {
    static const int sizes[][2] = {{640, 480}, {700, 900}, {1024, 700}, {1280, 800},
                                   {800, 1200}, {2560, 1440}};
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        viz_layout l;
        viz_layout_compute(&s, sizes[k][0], sizes[k][1], &l);
        cr_expect(inside(l.big, l.width, l.status_y), "%dx%d: enlarged map", l.width, l.height);
        for (int h = 0; h < VIZ_HEADS; h++) {
            cr_expect(inside(l.grid[h], l.width, l.status_y), "%dx%d: map %d", l.width,
                      l.height, h + 1);
            cr_expect(!SDL_HasIntersection(&l.grid[h], &l.big), "%dx%d: map %d overlaps",
                      l.width, l.height, h + 1);
        }
    }
    viz_free(&s);
}
static SDL_atomic_t resized;

static Uint32 resize_later(Uint32 interval, void *window)
{
    (void)interval;
    SDL_SetWindowSize(window, 1280, 800);
    SDL_AtomicSet(&resized, 1);
    return 0;
}

Test(viewer, a_resize_is_drawn_at_once_even_paused) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    cr_assert_eq(SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER), 0, "%s", SDL_GetError());
    cr_assert_eq(TTF_Init(), 0);
    SDL_Window *window = SDL_CreateWindow("test", 0, 0, 800, 600, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE)
                                    : NULL;
    cr_assert_not_null(renderer, "%s", SDL_GetError());
    viz_window win = {.renderer = renderer, .last = SDL_GetTicks64()};
    cr_assert_eq(viz_view_open(&win.view, renderer), 0);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_SPACE);                                  /* paused: the loop sleeps */
    viz_window_frame(&s, &win);
    cr_expect(win.drawn_width == 800 && win.drawn_height == 600);
    cr_assert_neq(SDL_AddTimer(40, resize_later, window), 0, "%s", SDL_GetError());
    for (int k = 0; k < 20 && !SDL_AtomicGet(&resized); k++)
        viz_window_frame(&s, &win);                       /* the resize comes in a wait */
    viz_window_frame(&s, &win);              /* in case it came after the size was read */
    /* <<expect the corners of the resized window in the background colour>> */
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(renderer, &w, &h);
    cr_assert(w == 1280 && h == 800, "the window is %dx%d", w, h);
    cr_expect(win.drawn_width == 1280 && win.drawn_height == 800, "drawn at %dx%d",
              win.drawn_width, win.drawn_height);
    SDL_Surface *shot = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
    cr_assert(shot && SDL_RenderReadPixels(renderer, NULL, SDL_PIXELFORMAT_RGBA32, shot->pixels,
                                           shot->pitch) == 0, "%s", SDL_GetError());
    static const int corners[][2] = {{1277, 797}, {1277, 400}, {900, 797}, {1277, 3}};
    for (size_t k = 0; k < 4; k++) {
        const SDL_Color got = pixel(shot, corners[k][0], corners[k][1]);
        cr_expect(same_colour(got, viz_background), "(%d, %d) is %d %d %d, not the background",
                  corners[k][0], corners[k][1], got.r, got.g, got.b);
    }
    SDL_FreeSurface(shot);
    viz_free(&s);
    viz_view_close(&win.view);
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    TTF_Quit();
    SDL_Quit();
}
Test(viewer, record_writes_differing_frames) {
    char dir[] = "/tmp/mha-viz-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *argv[] = {"mha-viz", "--record", dir, "--frames", "3", "--size", "640x480", NULL};
    cr_assert_eq(viz_main(7, argv), VIZ_EXIT_OK);
    SDL_Surface *frames[3];
    for (int f = 0; f < 3; f++) {
        char path[128];
        snprintf(path, sizeof path, "%s/frame-%04d.png", dir, f + 1);
        frames[f] = IMG_Load(path);
        cr_assert_not_null(frames[f], "%s: %s", path, IMG_GetError());
        cr_expect(frames[f]->w == 640 && frames[f]->h == 480);
        unlink(path);
    }
    /* <<expect consecutive frames to differ>> */
    for (int f = 0; f + 1 < 3; f++) {
        SDL_Surface *a = SDL_ConvertSurfaceFormat(frames[f], SDL_PIXELFORMAT_RGBA32, 0);
        SDL_Surface *b = SDL_ConvertSurfaceFormat(frames[f + 1], SDL_PIXELFORMAT_RGBA32, 0);
        cr_assert(a && b);
        size_t differ = 0;
        for (int y = 0; y < a->h; y++)
            differ += memcmp((Uint8 *)a->pixels + y * a->pitch, (Uint8 *)b->pixels + y * b->pitch,
                             4 * (size_t)a->w) != 0;
        cr_expect_gt(differ, 10, "frames %d and %d differ in %zu rows", f + 1, f + 2, differ);
        SDL_FreeSurface(a);
        SDL_FreeSurface(b);
    }
    for (int f = 0; f < 3; f++)
        SDL_FreeSurface(frames[f]);
    rmdir(dir);
    char *bad[] = {"mha-viz", "--frames", "zero", NULL};
    cr_expect_eq(viz_main(3, bad), VIZ_EXIT_USAGE);
    char *no_frames[] = {"mha-viz", "--record", dir, NULL};
    cr_expect_eq(viz_main(3, no_frames), VIZ_EXIT_USAGE);
}
Test(viewer, a_paused_sentence_lets_the_window_sleep) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    cr_expect(viz_busy(&s), "playing: the window keeps drawing");
    key(&s, SDLK_SPACE);
    cr_expect(!viz_busy(&s), "paused: the window waits for events");
    key(&s, SDLK_SPACE);
    key(&s, SDLK_RIGHT);
    cr_expect(!viz_busy(&s), "stepping by hand pauses");
    viz_free(&s);
}
static int run_with_file_limit(char **argv, int argc, rlim_t bytes)
{
    const pid_t child = fork();
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);                 /* a write past it fails with EFBIG */
        child_limit_files(bytes);
        freopen("/dev/null", "w", stderr);
        child_exit(viz_main(argc, argv));
    }
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFEXITED(status), "the child died: status %d", status);
    return WEXITSTATUS(status);
}
Test(viewer, pictures_that_cannot_be_written_are_errors) {
    char *full[] = {"mha-viz", "--screenshot", "/dev/full", "--size", "640x480", NULL};
    cr_expect_eq(viz_main(5, full), VIZ_EXIT_FAILURE, "/dev/full");
    char dir[] = "/tmp/mha-viz-full-XXXXXX", png[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/shot.png", dir);
    char *shot[] = {"mha-viz", "--screenshot", png, "--size", "640x480", NULL};
    cr_expect_eq(run_with_file_limit(shot, 5, 4096), VIZ_EXIT_FAILURE, "a full disk");
    cr_expect_neq(access(png, F_OK), 0, "a cut screenshot was left behind");
    char *record[] = {"mha-viz", "--record", dir, "--frames", "2", "--size", "640x480", NULL};
    cr_expect_eq(run_with_file_limit(record, 7, 4096), VIZ_EXIT_FAILURE, "a full disk");
    char frame[96];
    snprintf(frame, sizeof frame, "%s/frame-0001.png", dir);
    cr_expect_neq(access(frame, F_OK), 0, "a cut frame was left behind");
    cr_expect_eq(run_with_file_limit(shot, 5, RLIM_INFINITY), VIZ_EXIT_OK, "room enough");
    unlink(png);
    rmdir(dir);
}
static size_t entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL)
        closedir(d);
    return n;
}
Test(viewer, a_picture_is_replaced_whole_or_not_at_all) {
    char dir[] = "/tmp/mha-viz-whole-XXXXXX", png[64], text[16] = {0};
    cr_assert_not_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/shot.png", dir);
    FILE *f = fopen(png, "w");
    cr_assert(f != NULL && fputs("old picture", f) >= 0 && fclose(f) == 0);
    char *shot[] = {"mha-viz", "--screenshot", png, "--size", "640x480", NULL};
    cr_expect_eq(run_with_file_limit(shot, 5, 4096), VIZ_EXIT_FAILURE, "a full disk");
    cr_assert_not_null(f = fopen(png, "rb"));
    cr_expect_eq(fread(text, 1, sizeof text - 1, f), 11);
    fclose(f);
    cr_expect_str_eq(text, "old picture", "a full disk replaced the old picture");
    cr_expect_eq(entries_in(dir), 1, "a failed picture left a file beside the old one");
    cr_expect_eq(run_with_file_limit(shot, 5, RLIM_INFINITY), VIZ_EXIT_OK, "room enough");
    cr_assert_not_null(f = fopen(png, "rb"));
    cr_expect_eq(fread(text, 1, 8, f), 8);
    fclose(f);
    cr_expect(memcmp(text, "\x89PNG\r\n\x1a\n", 8) == 0, "the new picture is not a PNG");
    cr_expect_eq(entries_in(dir), 1, "a picture left a temporary or a lock file beside it");
    unlink(png);
    rmdir(dir);
}
Test(viewer, the_s_key_takes_the_next_free_name) {
    char dir[] = "/tmp/mha-viz-shots-XXXXXX", text[16] = {0};
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chdir(dir), 0);                      /* each test is a process of its own */
    FILE *f = fopen("mha-viz-001.png", "w");
    cr_assert(f != NULL && fputs("old picture", f) >= 0 && fclose(f) == 0);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 640, 480, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    cr_assert_not_null(renderer);
    for (int k = 2; k <= 3; k++) {
        char want[32];
        snprintf(want, sizeof want, "saved mha-viz-%03d.png", k);
        viz_save_window(&s, renderer, 640, 480);
        cr_expect_str_eq(s.news, want, "%s", s.message);
        cr_expect_eq(s.message[0], '\0', "%s", s.message);
    }
    cr_assert_not_null(f = fopen("mha-viz-001.png", "rb"));
    cr_expect_eq(fread(text, 1, sizeof text - 1, f), 11);
    fclose(f);
    cr_expect_str_eq(text, "old picture", "the earlier run's picture was replaced");
    cr_assert_not_null(f = fopen("mha-viz-003.png", "rb"));
    cr_expect(fread(text, 1, 8, f) == 8 && memcmp(text, "\x89PNG\r\n\x1a\n", 8) == 0);
    fclose(f);
    cr_expect_eq(entries_in("."), 3, "a temporary or a lock file was left");
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    viz_free(&s);
    unlink("mha-viz-001.png"); unlink("mha-viz-002.png"); unlink("mha-viz-003.png");
    cr_expect_eq(chdir("/"), 0);
    rmdir(dir);
}
Test(viewer, sizes_that_wrap_are_refused) {
    struct viz_options o;
    char *wraps[] = {"mha-viz", "--size", "4294968576x800", NULL};
    cr_expect_eq(viz_parse_options(3, wraps, &o), -1);
    char *tall[] = {"mha-viz", "--size", "1280x4294967896", NULL};
    cr_expect_eq(viz_parse_options(3, tall, &o), -1);
    char *half[] = {"mha-viz", "--size", "1280x", NULL};
    cr_expect_eq(viz_parse_options(3, half, &o), -1);
    char *good[] = {"mha-viz", "--size", "800x600", NULL};
    cr_expect_eq(viz_parse_options(3, good, &o), 0);
    cr_expect(o.width == 800 && o.height == 600);
}

Test(viewer, an_unknown_option_is_called_unknown, .init = cr_redirect_stderr) {
    struct viz_options o;
    char *bogus[] = {"mha-viz", "--bogus", NULL};
    cr_expect_eq(viz_parse_options(2, bogus, &o), -1);
    fflush(stderr);
    cr_expect_stderr_eq_str("mha-viz: unknown option '--bogus' (try 'mha-viz --help')\n");
}

Test(viewer, a_flag_takes_no_value, .init = cr_redirect_stderr) {
    expect_viz_refusal(2, (char *[]){"mha-viz", "--train=1", NULL},
                       "mha-viz: --train: takes no value, got '--train=1'\n");
}

Test(viewer, a_count_is_a_size_in_its_bounds, .init = cr_redirect_stderr) {
    expect_viz_refusal(2, (char *[]){"mha-viz", "--step=100001", NULL},
                       "mha-viz: --step: 100001 is out of range (1 to 100000)\n");
}

Test(viewer, options_by_the_commands_rules) {
    struct viz_options o;
    char *abbreviated[] = {"mha-viz", "--scr", "x.png", NULL};
    cr_expect_eq(viz_parse_options(3, abbreviated, &o), -1);
    char *ended[] = {"mha-viz", "--step=2", "--", NULL};
    cr_expect_eq(viz_parse_options(3, ended, &o), 0);
    cr_expect_eq(o.step, 2);
    char *leading[] = {"mha-viz", "--step", "+2", NULL};
    cr_expect_eq(viz_parse_options(3, leading, &o), -1);
}

Test(viewer, a_refused_sentence_names_the_rule_it_broke) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    char long_word[VIZ_TEXT_MAX + 8], rule[128];
    memset(long_word, 'a', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    cr_expect_eq(viz_set_text(&s, long_word), MHA_ERR_ARG, "one word too long to keep");
    viz_text_rule(rule, sizeof rule, long_word, 0);
    cr_expect(strstr(rule, "characters") != NULL, "%s", rule);
    cr_expect_eq(viz_set_text(&s, ""), MHA_ERR_SHAPE, "no words");
    viz_text_rule(rule, sizeof rule, "", 0);
    cr_expect(strstr(rule, "1 to 32 words") != NULL, "%s", rule);
    viz_free(&s);
}
static SDL_Color cell_colour(SDL_Surface *surface, const viz_layout *l, size_t L, size_t i,
                             size_t j)
{
    const SDL_Rect c = viz_cell(&l->big, L, i, j);
    return pixel(surface, c.x + c.w / 4, c.y + c.h / 4);
}
Test(viewer, masked_and_uncached_keys_are_not_weight_zero) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "a b c d e f"), MHA_OK);
    for (int k = 0; k < 3; k++)
        key(&s, SDLK_RIGHT);                         /* 4 tokens decoded, causal mask on */
    s.focus = 0;                                     /* previous token: (3, 0) has weight 0 */
    const float w30 = s.weights[3 * s.length + 0];
    cr_assert_lt(w30, 0.01f);
    viz_layout l;
    SDL_Surface *surface = draw(&s, &l);
    const SDL_Color zero = cell_colour(surface, &l, s.length, 3, 0);
    const SDL_Color masked = cell_colour(surface, &l, s.length, 1, 2);
    const SDL_Color uncached = cell_colour(surface, &l, s.length, 1, 5);
    cr_expect(same_colour(zero, viz_colour(s.colour_map, w30)), "weight 0: %d %d %d", zero.r,
              zero.g, zero.b);
    cr_expect(same_colour(masked, viz_masked), "masked: %d %d %d", masked.r, masked.g, masked.b);
    cr_expect(same_colour(uncached, viz_undecoded), "not cached: %d %d %d", uncached.r,
              uncached.g, uncached.b);
    cr_expect(!same_colour(masked, zero) && !same_colour(uncached, zero) &&
              !same_colour(masked, uncached));
    SDL_FreeSurface(surface);
    viz_free(&s);
}
/* The default sentence after nine tokens, the pointer on query 'cat' (row 8)
   and key 'cat' (column 1) of the enlarged head: the book's first screenshot. */
static void point_at_the_last_cat(viz_state *s)
{
    cr_assert_eq(viz_init(s, NULL), MHA_OK);
    for (int k = 0; k < 8; k++)
        key(s, SDLK_RIGHT);
    viz_act(s, &(viz_action){.kind = VIZ_POINT, .head = (int)s->focus, .row = 8, .col = 1});
}
Test(viewer, the_hover_readout_is_beside_the_cell) {
    viz_state s;
    point_at_the_last_cat(&s);
    viz_layout l;
    SDL_Surface *surface = draw(&s, &l);
    const SDL_Rect c = viz_cell(&l.big, s.length, 8, 1);
    size_t box = 0;
    for (int y = c.y - 60; y < c.y + c.h + 60; y++)
        for (int x = c.x - 60; x < c.x + c.w + 300; x++)
            box += x >= 0 && y >= 0 && x < 1280 && y < 800 &&
                   same_colour(pixel(surface, x, y), viz_box);
    cr_expect_gt(box, 2000, "only %zu pixels of a readout box near the cell", box);
    SDL_FreeSurface(surface);
    key(&s, SDLK_TAB);
    cr_expect(s.hover_head == -1 || s.hover_head == (int)s.focus, "stale: head %d, focus %zu",
              s.hover_head, s.focus);
    viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = (int)s.focus, .row = 8, .col = 1});
    key(&s, SDLK_c);
    cr_expect_eq(s.hover_head, -1, "the mask changed under the pointer");
    viz_free(&s);
}

Test(viewer, the_hover_readout_leaves_the_breakdown_clear) {
    viz_state s;
    point_at_the_last_cat(&s);
    viz_layout l;
    SDL_Surface *surface = draw_at(&s, &l, 1080, 540);
    const SDL_Rect b = l.breakdown, c = viz_cell(&l.big, s.length, 8, 1);
    cr_assert(b.w > 0 && b.h > 0, "no breakdown column at 1080x540");
    size_t inside = 0, near = 0;
    for (int y = 0; y < 540; y++)
        for (int x = 0; x < 1080; x++) {
            if (!same_colour(pixel(surface, x, y), viz_box))
                continue;
            inside += x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h;
            near += y >= c.y - 60 && y < c.y + c.h + 60 && x < b.x;
        }
    cr_expect_eq(inside, 0, "%zu pixels of the readout's box over the breakdown", inside);
    cr_expect_gt(near, 2000, "only %zu pixels of a readout box near the cell", near);
    SDL_FreeSurface(surface);
    viz_free(&s);
}

Test(viewer, labels_read_upwards_lose_no_pixels) {
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 200, 200, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255);
    SDL_RenderClear(renderer);
    int w, h;
    TTF_SizeUTF8(view.small, "brown little", &w, &h);
    viz_text(&view, view.small, "brown little", 10, 10 + h / 2, 0, viz_emphasis, 0);
    viz_text(&view, view.small, "brown little", 150, 190, 0, viz_emphasis, 1);
    SDL_RenderPresent(renderer);
    size_t differ = 0, ink = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const SDL_Color across = pixel(surface, 10 + x, 10 + y);
            const SDL_Color up = pixel(surface, 150 - h / 2 + y, 190 - 1 - x);
            differ += across.r != up.r;
            ink += across.r > 128;
        }
    cr_expect_gt(ink, 50);
    cr_expect_eq(differ, 0, "%zu of %d pixels differ when turned", differ, w * h);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    TTF_Quit();
    SDL_FreeSurface(surface);
}
Test(viewer, text_grows_with_the_window) {
    cr_expect_eq(viz_scale(1280, 800, 1), 1.0f);
    cr_expect_float_eq(viz_scale(1920, 1080, 1), 1.5f, 1e-6);
    cr_expect_float_eq(viz_scale(1920, 1080, 4), 1080.0f / VIZ_MIN_HEIGHT, 1e-6);
    cr_expect_eq(viz_scale(800, 600, 0.25), 1.0f);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 1920, 1080, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    const int small_before = TTF_FontHeight(view.small);
    cr_assert_eq(viz_view_scale(&view, viz_scale(1920, 1080, 1)), 0);
    cr_expect_geq(TTF_FontHeight(view.small), 18, "the smallest text is %d px a line (was %d)",
                  TTF_FontHeight(view.small), small_before);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_PLUS);
    cr_expect_gt(viz_scale(2560, 1440, s.zoom), viz_scale(2560, 1440, 1));
    key(&s, SDLK_MINUS);
    key(&s, SDLK_MINUS);
    cr_expect_lt(viz_scale(2560, 1440, s.zoom), viz_scale(2560, 1440, 1));
    SDL_Event motion = {.type = SDL_MOUSEMOTION};
    motion.motion.x = 300, motion.motion.y = 150;          /* window pixels at scale 1.5 */
    viz_event_in_layout(&motion, 1.5f);
    cr_expect(motion.motion.x == 200 && motion.motion.y == 100, "the pointer at %d, %d",
              motion.motion.x, motion.motion.y);
    static const int sizes[][2] = {{1920, 1080}, {2560, 1440}, {800, 600}};
    for (size_t k = 0; k < 3; k++) {
        const float scale = viz_scale(sizes[k][0], sizes[k][1], 1);
        viz_layout l;
        viz_layout_compute(&s, (int)(sizes[k][0] / scale), (int)(sizes[k][1] / scale), &l);
        cr_expect(inside(l.big, l.width, l.status_y) && l.width >= VIZ_MIN_WIDTH &&
                  l.height >= VIZ_MIN_HEIGHT, "%dx%d at scale %.2f", sizes[k][0], sizes[k][1],
                  scale);
    }
    viz_free(&s);
}
Test(viewer, cut_labels_end_with_an_ellipsis) {
    static const char *const cases[][2] = {
        {"cat", "cat"}, {"abcdefghij", "abcdefghij"},
        {"abcdefghijk", "abcdefghi\xe2\x80\xa6"},
        {"extraordinarily", "extraordi\xe2\x80\xa6"},
        {"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
         "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"},
        {"na\xc3\xafvet\xc3\xa9s-lost", "na\xc3\xafvet\xc3\xa9s-\xe2\x80\xa6"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char label[48];
        viz_short_label(cases[k][0], label, sizeof label);
        cr_expect_str_eq(label, cases[k][1], "'%s' labelled '%s'", cases[k][0], label);
    }
}
/* What mha-viz --help prints, read from the redirected standard output of a
   test started with .init = cr_redirect_stdout, with its lines joined by
   spaces, since its sentences run over lines. */
static void read_help(char out[4096])
{
    char *help[] = {"mha-viz", "--help", NULL};
    cr_expect_eq(viz_main(2, help), VIZ_EXIT_OK);
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    cr_assert_not_null(f);
    const size_t n = fread(out, 1, 4095, f);
    out[n] = '\0';
    for (char *c = out; *c; c++)
        if (*c == '\n') *c = ' ';
}
Test(viewer, the_temperature_is_named_the_attention_temperature,
     .init = cr_redirect_stdout) {
    int keys = 0, divides = 0;
    for (size_t k = 0; k < viz_help_count; k++) {
        keys += strstr(viz_help[k][0], "[") != NULL &&
                strstr(viz_help[k][2], "attention temperature") != NULL;
        divides += strstr(viz_help[k][2], "divides every attention score") != NULL;
    }
    cr_expect(keys == 1 && divides == 1, "the help of [ and ]: %d, %d", keys, divides);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_RIGHTBRACKET);
    char label[64];
    viz_temperature_label(&s, label, sizeof label);
    cr_expect_str_eq(label, "attention temperature 1.5");
    viz_free(&s);
    char out[4096];
    read_help(out);
    cr_expect(strstr(out, "the attention temperature T: every attention score is divided "
                          "by T before the softmax") != NULL, "%s", out);
    cr_expect(strstr(out, "It is not the sampling temperature") != NULL, "%s", out);
}
Test(viewer, the_help_names_the_view_a_window_opens_with, .init = cr_redirect_stdout) {
    char out[4096];
    read_help(out);
    const char *austen = strstr(out, "Jane Austen's novels");
    const char *designed = strstr(out, "designed heads");
    cr_expect(austen != NULL && designed != NULL && austen < designed,
              "the Austen model first, then the designed heads: %s", out);
    cr_expect(strstr(out, "without that model, or with --designed, five designed heads"), "%s",
              out);
}
Test(viewer_options, a_window_fits_the_screen_unless_sized) {
    struct viz_options o;
    cr_assert_eq(viz_parse_options(1, (char *[]){"mha-viz", NULL}, &o), 0);
    cr_expect(!o.size_given);
    int w = o.width, h = o.height;
    viz_window_fit(&w, &h, 1024, 768 - 40);                 /* a projector, less a panel */
    cr_expect(w == 1024 && h == 728, "%dx%d", w, h);
    w = o.width, h = o.height;
    viz_window_fit(&w, &h, 2560, 1440);
    cr_expect(w == o.width && h == o.height, "%dx%d", w, h);
    w = o.width, h = o.height;
    viz_window_fit(&w, &h, 320, 200);
    cr_expect(w == VIZ_MIN_WIDTH && h == VIZ_MIN_HEIGHT, "%dx%d", w, h);
    cr_assert_eq(viz_parse_options(3, (char *[]){"mha-viz", "--size", "1920x1080", NULL}, &o), 0);
    cr_expect(o.size_given && o.width == 1920 && o.height == 1080);
}
Test(viewer, ablation_reports_the_share_of_the_output_removed) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_SPACE);                                    /* paused at the first token */
    cr_assert_eq(s.step, 1);
    static const SDL_Keycode heads[VIZ_HEADS] = {SDLK_3, SDLK_1, SDLK_5, SDLK_2, SDLK_4};
    for (int k = 1; k <= VIZ_HEADS; k++) {
        key(&s, heads[k - 1]);
        cr_expect_float_eq(s.output_change, sqrt(k / 5.0), 1e-6, "%d heads off: %g", k,
                           s.output_change);
    }
    cr_expect_float_eq(s.output_change, 1.0, 1e-12, "every head off: nothing is left");
    for (int k = 0; k < VIZ_HEADS; k++)
        key(&s, heads[k]);
    for (int k = 0; k < 20; k++)
        key(&s, SDLK_RIGHT);
    cr_assert(s.step == s.length && s.ablated == 0 && s.output_change == 0.0);
    double squares = 0;
    for (int h = 0; h < VIZ_HEADS; h++) {
        key(&s, SDLK_1 + h);
        cr_expect(s.output_change > 0 && s.output_change < 1, "head %d: %g", h + 1,
                  s.output_change);
        squares += s.output_change * s.output_change;
        key(&s, SDLK_1 + h);
    }
    cr_expect_float_eq(squares, 1.0, 1e-6, "the five shares squared add up to %g", squares);
    viz_free(&s);
}
Test(viewer, the_and_the_are_one_word) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "The dog saw the dog!"), MHA_OK);
    for (int k = 0; k < 4; k++)
        key(&s, SDLK_RIGHT);
    const size_t L = s.length, same = 1;                  /* head 2, same token */
    cr_expect_str_eq(s.tokens[0], "The");
    cr_expect_str_eq(s.tokens[4], "dog!");
    cr_expect_gt(s.weights[(same * L + 3) * L + 0], 0.5f, "'the' finds 'The'");
    cr_expect_gt(s.weights[(same * L + 4) * L + 1], 0.5f, "'dog!' finds 'dog'");
    viz_free(&s);
}
Test(viewer_options, designed_heads_or_a_model, .init = cr_redirect_stderr) {
    expect_viz_refusal(3, (char *[]){"mha-viz", "--designed", "--train", NULL},
                       "mha-viz: --designed and --train: give one of them\n");
}
Test(viewer_options, a_size_is_width_by_height, .init = cr_redirect_stderr) {
    expect_viz_refusal(3, (char *[]){"mha-viz", "--size", "640by480", NULL},
                       "mha-viz: --size: expected WxH from 640x480 to 8192x8192, "
                       "got '640by480'\n");
}
Test(viewer_options, the_frame_limit_is_for_the_window, .init = cr_redirect_stderr) {
    expect_viz_refusal(6, (char *[]){"mha-viz", "--quit-after", "3", "--screenshot", "a.png",
                                     "--designed", NULL},
                       "mha-viz: --quit-after: only for the window, not with --screenshot\n");
}
Test(viewer_options, a_recording_counts_its_frames, .init = cr_redirect_stderr) {
    expect_viz_refusal(3, (char *[]){"mha-viz", "--record", "frames", NULL},
                       "mha-viz: --record needs --frames N\n");
}
Test(viewer_options, steps_between_frames_need_training, .init = cr_redirect_stderr) {
    expect_viz_refusal(8, (char *[]){"mha-viz", "--designed", "--record", "frames", "--frames",
                                     "2", "--steps-per-frame", "5", NULL},
                       "mha-viz: --steps-per-frame: only with --train --record DIR\n");
}
Test(viewer_options, options_that_imply_a_mode) {
    struct viz_options o;
    cr_assert_eq(viz_parse_options(3, (char *[]){"mha-viz", "--train-steps", "50", NULL}, &o), 0);
    cr_expect(o.mode != NULL && strcmp(o.mode, "training") == 0, "training steps alone");
    cr_expect_eq(o.steps_per_frame, 0);
    cr_assert_eq(viz_parse_options(6, (char *[]){"mha-viz", "--train", "--record", "d",
                                                 "--frames", "2", NULL}, &o), 0);
    cr_expect_eq(o.steps_per_frame, 10, "a recording of training");
    cr_assert_eq(viz_parse_options(2, (char *[]){"mha-viz", "--designed", NULL}, &o), 0);
    cr_expect(o.mode != NULL && strcmp(o.mode, "sentence") == 0);
    cr_assert_eq(viz_parse_options(1, (char *[]){"mha-viz", NULL}, &o), 0);
    cr_expect_null(o.mode, "no mode given: Austen's model if it is found");
}
static void expect_one_line_naming(const char *what)
{
    fflush(stderr);
    char got[1024] = {0};
    FILE *f = cr_get_redirected_stderr();
    cr_assert_not_null(f);
    const size_t n = fread(got, 1, sizeof got - 1, f);
    cr_expect(n > 0 && strncmp(got, "mha-viz: ", 9) == 0 && strstr(got, what) != NULL &&
              strchr(got, '\n') == got + n - 1, "not one line naming %s: '%s'", what, got);
}
Test(viewer, a_screenshot_needs_its_folder, .init = cr_redirect_stderr) {
    char dir[] = "/tmp/mha-viz-folder-XXXXXX", missing[64], png[80];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(missing, sizeof missing, "%s/missing", dir);
    snprintf(png, sizeof png, "%s/shot.png", missing);
    char *shot[] = {"mha-viz", "--designed", "--screenshot", png, NULL};
    cr_expect_eq(viz_main(4, shot), VIZ_EXIT_FAILURE);
    expect_one_line_naming(missing);
    cr_expect_neq(access(missing, F_OK), 0, "the folder was made");
    cr_expect_eq(rmdir(dir), 0, "a file was left");
}
Test(viewer, a_recording_needs_a_folder, .init = cr_redirect_stderr) {
    char dir[] = "/tmp/mha-viz-file-XXXXXX", file[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/frames", dir);
    FILE *f = fopen(file, "w");
    cr_assert(f != NULL && fclose(f) == 0);
    char *record[] = {"mha-viz", "--designed", "--record", file, "--frames", "2", NULL};
    cr_expect_eq(viz_main(6, record), VIZ_EXIT_FAILURE);
    expect_one_line_naming(file);
    struct stat st;
    cr_expect(stat(file, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0,
              "the file was replaced");
    unlink(file);
    cr_expect_eq(rmdir(dir), 0, "a file was left");
}
Test(viewer, a_sentence_of_no_words_is_a_usage_error, .init = cr_redirect_stderr) {
    char dir[] = "/tmp/mha-viz-words-XXXXXX", png[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/shot.png", dir);
    char *empty[] = {"mha-viz", "--designed", "--text", " ", "--screenshot", png, NULL};
    cr_expect_eq(viz_main(6, empty), VIZ_EXIT_USAGE);
    fflush(stderr);
    cr_expect_stderr_eq_str("mha-viz: --text: a sentence is 1 to 32 words\n");
    cr_expect_eq(rmdir(dir), 0, "a screenshot was written");
}
Test(viewer, help_intro_and_typing_sit_on_opaque_boxes) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    viz_layout l;
    typed(&s, "?");
    SDL_Surface *surface = draw_at(&s, &l, 640, 480);
    const SDL_Rect help = viz_help_place(&s, &l, 1).box;
    SDL_Color got = pixel(surface, help.x + 3, help.y + 3);
    cr_expect(same_colour(got, viz_box), "help: %d %d %d", got.r, got.g, got.b);
    SDL_FreeSurface(surface);
    key(&s, SDLK_ESCAPE);
    s.intro = 1;                                     /* as a new window starts */
    surface = draw_at(&s, &l, 640, 480);
    got = pixel(surface, (640 - 560 - 40) / 2 + 3, 40 + 3);   /* 560: the width less 80 */
    cr_expect(same_colour(got, viz_box), "intro: %d %d %d", got.r, got.g, got.b);
    SDL_FreeSurface(surface);
    key(&s, SDLK_SPACE);                             /* puts the intro away */
    key(&s, SDLK_RETURN);
    for (int k = 0; k < 12; k++)
        typed(&s, "a longer sentence ");
    surface = draw_at(&s, &l, 640, 480);
    got = pixel(surface, 40 + 3, 480 / 2 - 30 + 3);
    cr_expect(same_colour(got, viz_box), "typing: %d %d %d", got.r, got.g, got.b);
    SDL_FreeSurface(surface);
    viz_free(&s);
}
Test(viewer, a_head_switched_off_is_crossed_out) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_3);
    viz_layout l;
    SDL_Surface *surface = draw_at(&s, &l, 640, 480);
    const SDL_Rect off = l.grid[2], on = l.grid[3];
    for (int k = 0; k < off.w; k += 5) {
        const SDL_Color down = pixel(surface, off.x + k, off.y + k);
        const SDL_Color up = pixel(surface, off.x + k, off.y + off.h - 1 - k);
        cr_expect(same_colour(down, viz_alarm) && same_colour(up, viz_alarm), "at %d", k);
        cr_expect(!same_colour(pixel(surface, on.x + k, on.y + k), viz_alarm));
    }
    const int x = off.w - off.w / 8, y = off.h / 3;  /* off both lines, on a grey cell */
    const SDL_Color veiled = pixel(surface, off.x + x, off.y + y);
    const SDL_Color plain = pixel(surface, on.x + x, on.y + y);
    const double left = viz_undecoded.r * (255.0 - viz_veil.a) / 255;
    cr_expect(same_colour(plain, viz_undecoded), "head 4: %d %d %d", plain.r, plain.g,
              plain.b);
    cr_expect(fabs(veiled.r - left) <= 1 && fabs(veiled.b - viz_undecoded.b * left /
                                                 viz_undecoded.r) <= 1,
              "veiled: %d %d %d, want about %.1f", veiled.r, veiled.g, veiled.b, left);
    SDL_FreeSurface(surface);
    viz_free(&s);
}
Test(viewer, fills_that_touch_leave_no_seam) {
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 16, 8, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    cr_assert_eq(viz_view_scale(&view, 1.5f), 0);
    SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255);
    SDL_RenderClear(renderer);
    viz_fill(&view, (SDL_Rect){0, 0, 3, 2}, viz_alarm);
    viz_fill(&view, (SDL_Rect){3, 0, 3, 2}, viz_selected);
    SDL_RenderPresent(renderer);
    for (int x = 0; x < 16; x++) {
        const SDL_Color black = {0, 0, 0, 255};
        const SDL_Color want = x < 5 ? viz_alarm : x < 9 ? viz_selected : black;
        const SDL_Color got = pixel(surface, x, 1);
        cr_expect(same_colour(got, want), "x %d: %d %d %d", x, got.r, got.g, got.b);
    }
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    TTF_Quit();
    SDL_FreeSurface(surface);
}
Test(viewer, speeds_padding_room_and_colours_have_limits) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    const double speed = s.speed;
    key(&s, SDLK_UP);
    cr_expect_float_eq(s.speed, speed * 1.5, 1e-12);
    for (int k = 0; k < 20; k++)
        key(&s, SDLK_UP);
    cr_expect_eq(s.speed, 20.0);
    for (int k = 0; k < 30; k++)
        key(&s, SDLK_DOWN);
    cr_expect_eq(s.speed, 0.25);
    char words[VIZ_TEXT_MAX] = "";
    for (int k = 0; k < VIZ_TOKENS_MAX - 2; k++)
        strcat(words, "w ");
    cr_assert_eq(viz_set_text(&s, words), MHA_OK);
    key(&s, SDLK_p);
    cr_expect(!s.padding && s.length == VIZ_TOKENS_MAX - 2, "%zu tokens", s.length);
    char most[16];
    snprintf(most, sizeof most, "%d words", VIZ_TOKENS_MAX - VIZ_PADDING);
    cr_expect(strstr(s.message, most) != NULL, "'%s'", s.message);
    viz_free(&s);
    for (int map = 0; map < VIZ_COLOUR_MAPS; map++) {
        const SDL_Color nan_colour = viz_colour((viz_colour_map)map, NAN);
        cr_expect(nan_colour.r == 255 && nan_colour.g == 0 && nan_colour.b == 255);
        cr_expect(same_colour(viz_colour((viz_colour_map)map, -0.5),
                              viz_colour((viz_colour_map)map, 0)));
        cr_expect(same_colour(viz_colour((viz_colour_map)map, 1.5),
                              viz_colour((viz_colour_map)map, 1)));
    }
}
Test(viewer, words_that_are_not_letters_still_match) {
    static const unsigned pairs[][2] = {{0x388, 0x3AD}, {0x389, 0x3AE}, {0x38A, 0x3AF},
                                        {0x38C, 0x3CC}, {0x130, 'i'}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        cr_expect_eq(viz_fold_letter(pairs[k][0]), pairs[k][1], "U+%04X", pairs[k][0]);
    viz_state s;
    cr_assert_eq(viz_init(&s, "caf\xe9 x caf\xe9 \xe9t\xe9 y \xe9t\xe9 ! z !"), MHA_OK);
    for (int k = 0; k < 8; k++)
        key(&s, SDLK_RIGHT);
    const size_t L = s.length, same = 1;
    cr_assert_eq(L, 9);
    for (size_t i = 2; i < L; i += 3)
        cr_expect_gt(s.weights[(same * L + i) * L + i - 2], 0.5f, "word %zu", i);
    cr_expect_str_eq(s.tokens[0], "caf\xe9");
    viz_free(&s);
    cr_assert_eq(TTF_Init(), 0);
    TTF_Font *font = TTF_OpenFont(VIZ_FONT, 15);
    cr_assert_not_null(font);
    char shown[VIZ_SHOWN_MAX];
    viz_text_shown(font, "\xe9t\x80", shown, sizeof shown);
    cr_expect_str_eq(shown, "<e9>t<80>");
    TTF_CloseFont(font);
    TTF_Quit();
}
Test(viewer, a_start_past_the_end_stops_at_the_last_token) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "one two three"), MHA_OK);
    cr_assert_eq(viz_mode_start(&s, &(viz_start){.step = 99}), MHA_OK);
    cr_expect(s.step == 3 && s.decoding && s.cache.length[0] == 3, "step %zu", s.step);
    viz_free(&s);
}
Test(viewer, words_of_longer_characters_match) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "\xc3\x89t\xc3\xa9 x \xc3\xa9t\xc3\xa9"   /* E-acute ... */
                              " \xe7\x8c\xab y \xe7\x8c\xab"               /* U+732B */
                              " \xf0\x9f\x98\x80 z \xf0\x9f\x98\x80"),    /* U+1F600 */
                 MHA_OK);
    for (int k = 0; k < 8; k++)
        key(&s, SDLK_RIGHT);
    const size_t L = s.length, same = 1;
    cr_assert_eq(L, 9);
    for (size_t i = 2; i < L; i += 3)
        cr_expect_gt(s.weights[(same * L + i) * L + i - 2], 0.5f, "word %zu", i);
    cr_expect_str_eq(s.tokens[0], "\xc3\x89t\xc3\xa9", "the label keeps the capital");
    viz_free(&s);
}
Test(viewer, the_line_being_typed_at_its_limits) {
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    key(&s, SDLK_RETURN);
    key(&s, SDLK_BACKSPACE);
    cr_expect(s.typing && s.typed[0] == '\0', "erasing nothing: '%s'", s.typed);
    typed(&s, "na\xc3\xafve caf\xc3\xa9");
    key(&s, SDLK_BACKSPACE);
    cr_expect_str_eq(s.typed, "na\xc3\xafve caf", "the two bytes of one character");
    key(&s, SDLK_ESCAPE);
    key(&s, SDLK_RETURN);
    for (size_t k = 0; k + 2 < VIZ_TEXT_MAX; k++)
        typed(&s, "a");
    typed(&s, "\xc3\xa9");
    cr_expect_eq(strlen(s.typed), VIZ_TEXT_MAX - 2, "half a character went in");
    typed(&s, "b");
    cr_expect_eq(strlen(s.typed), VIZ_TEXT_MAX - 1);
    typed(&s, "c");
    cr_expect_eq(strlen(s.typed), VIZ_TEXT_MAX - 1, "a byte past the end went in");
    cr_expect_eq(s.typed[VIZ_TEXT_MAX - 2], 'b');
    key(&s, SDLK_RETURN);
    cr_expect(!s.typing && s.length == 1, "%s", s.message);
    cr_expect_eq(strlen(s.tokens[0]), VIZ_TEXT_MAX - 1);
    viz_free(&s);
}
static void cut_by_hand(TTF_Font *font, const char *text, const size_t *at, size_t n,
                        int width, int tail, char *want, size_t size)
{
    for (size_t k = 0; k <= n; k++) {           /* the tail keeps from at[k] on */
        const size_t c = tail ? k : n - k;          /* the start keeps at[c] bytes */
        if (tail)
            snprintf(want, size, "...%s", text + at[c]);
        else
            snprintf(want, size, "%.*s...", (int)at[c], text);
        int w = 0;
        TTF_SizeUTF8(font, want, &w, NULL);
        if (w <= width)
            return;
    }
    snprintf(want, size, "...");
}
Test(viewer, text_is_cut_between_characters) {
    static const char *const letters[3] = {"\xc3\xa9", "\xe2\x82\xac", "\xce\xbb"};
    enum { N = 36 };
    char text[4 * N] = "", want[4 * N + 8], shown[20];
    size_t at[N + 1];
    for (size_t k = 0; k < N; k++)
        at[k] = strlen(text), strcat(text, letters[k % 3]);
    at[N] = strlen(text);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 400, 80, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    static const int widths[2] = {120, 4};
    for (int k = 0; k < 4; k++) {
        const int width = widths[k / 2], tail = k % 2;
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255);
        SDL_RenderClear(renderer);
        (tail ? viz_text_tail : viz_text_fit)(&view, view.font, text, 10, 20, width,
                                              viz_emphasis);
        cut_by_hand(view.font, text, at, N, width, tail, want, sizeof want);
        viz_text(&view, view.font, want, 10, 60, 0, viz_emphasis, 0);
        SDL_RenderPresent(renderer);
        size_t differ = 0, ink = 0;
        for (int y = 0; y < 40; y++)
            for (int x = 0; x < 400; x++) {
                differ += !same_colour(pixel(surface, x, y), pixel(surface, x, y + 40));
                ink += pixel(surface, x, y).r > 0;
            }
        cr_expect(ink > 5 && differ == 0, "%d wide, %s: '%s' drawn, %zu pixels differ",
                  width, tail ? "tail" : "start", want, differ);
    }
    viz_text_shown(view.font, text, shown, sizeof shown);
    size_t whole = 0;
    while (whole < N && at[whole + 1] <= strlen(shown))
        whole++;
    cr_expect(strlen(shown) > 0 && strlen(shown) == at[whole] &&
              strncmp(shown, text, strlen(shown)) == 0, "'%s'", shown);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    TTF_Quit();
    SDL_FreeSurface(surface);
}
static int readout_box_width(SDL_Surface *surface, const viz_layout *l,
                             const SDL_Rect *cell)
{
    const int y = cell->y + cell->h + 6 + 1;        /* the first row inside the box */
    int longest = 0, run = 0;
    for (int x = 0; x < l->width; x++) {
        run = same_colour(pixel(surface, x, y), viz_box) ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    return longest + 2;                             /* and the outline each side */
}
Test(viewer, a_key_yet_to_come_is_named_so) {
    viz_state s;
    cr_assert_eq(viz_init(&s, "a b c d e f"), MHA_OK);
    for (int k = 0; k < 3; k++)
        key(&s, SDLK_RIGHT);                        /* 4 tokens: key 'f' (5) to come */
    char want[2][160];
    snprintf(want[0], sizeof want[0], "head %zu: key 'f' (5) is not in the KV cache yet: "
             "no score", s.focus + 1);
    snprintf(want[1], sizeof want[1], "head %zu: key 'f' (5) has not arrived yet: "
             "no score", s.focus + 1);
    int drawn[2];
    for (int k = 0; k < 2; k++) {
        cr_expect_eq(s.decoding, k == 0);
        viz_act(&s, &(viz_action){.kind = VIZ_POINT, .head = (int)s.focus, .row = 1,
                                  .col = 5});
        viz_layout l;
        SDL_Surface *surface = draw(&s, &l);
        const SDL_Rect c = viz_cell(&l.big, s.length, 1, 5);
        drawn[k] = readout_box_width(surface, &l, &c);
        SDL_FreeSurface(surface);
        key(&s, SDLK_c);                          /* no mask: the whole prefix at once */
    }
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 8, 8, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    for (int k = 0; k < 2; k++) {
        int w = 0;
        viz_text_size(&view, view.small, want[k], &w, NULL);
        cr_expect_eq(drawn[k], w + 16, "'%s' is %d wide, its box %d", want[k], w,
                     drawn[k]);
    }
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    TTF_Quit();
    SDL_FreeSurface(surface);
    viz_free(&s);
}
Test(viewer_options, every_bad_value_names_its_option, .init = cr_redirect_stderr) {
    static const char *const cases[][7] = {
        {"--hover", "a,1"}, {"--hover", "1;2"}, {"--hover", "1,"}, {"--hover", "1,x"},
        {"--hover", "1,2x"}, {"--hover", "32,0"}, {"--hover", "0,32"},
        {"--hover", "99999999999999999999,1"},
        {"--size", "x480"}, {"--size", "640x480x"},
        {"--size", "99999999999999999999x480"},
        {"--size", "639x480"}, {"--size", "640x479"}, {"--size", "8193x480"},
        {"--size", "640x8193"},
        {"--designed", "--trained"},
        {"--quit-after", "2", "--record", "d", "--frames", "1"},
        {"--steps-per-frame", "5", "--trained", "--record", "d", "--frames", "2"},
        {"--steps-per-frame", "5", "--train"},
    };
    enum { CASES = sizeof cases / sizeof cases[0] };
    for (size_t k = 0; k < CASES; k++) {
        char *argv[9] = {"mha-viz"};
        int argc = 1;
        while (argc < 8 && cases[k][argc - 1] != NULL)
            argv[argc] = (char *)cases[k][argc - 1], argc++;
        struct viz_options o;
        cr_expect_eq(viz_parse_options(argc, argv, &o), -1, "%s %s accepted", argv[1],
                     argv[2]);
    }
    fflush(stderr);
    char got[8192] = {0};
    FILE *f = cr_get_redirected_stderr();
    cr_assert_not_null(f);
    const size_t n = fread(got, 1, sizeof got - 1, f);
    char *line = got;
    for (size_t k = 0; k < CASES; k++) {
        char want[64];
        snprintf(want, sizeof want, "mha-viz: %s", cases[k][0]);
        char *end = strchr(line, '\n');
        cr_assert_not_null(end, "%zu lines for %d refusals: %s", k, CASES, got);
        *end = '\0';
        cr_expect(strncmp(line, want, strlen(want)) == 0, "'%s' does not name %s", line,
                  cases[k][0]);
        line = end + 1;
    }
    cr_expect_eq((size_t)(line - got), n, "more lines than refusals: '%s'", line);
}
Test(viewer, a_picture_to_the_standard_output, .init = cr_redirect_stderr) {
    char dir[] = "/tmp/mha-viz-stdout-XXXXXX", path[64], head[8] = {0};
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.png", dir);
    char *shot[] = {"mha-viz", "--designed", "--screenshot", "-", "--size", "640x480",
                    NULL};
    cr_assert_not_null(freopen(path, "w", stdout));
    cr_expect_eq(viz_main(6, shot), VIZ_EXIT_OK);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_expect(fread(head, 1, 8, f) == 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0);
    fclose(f);
    unlink(path);
    rmdir(dir);
    cr_assert_not_null(freopen("/dev/full", "w", stdout));
    cr_expect_eq(viz_main(6, shot), VIZ_EXIT_FAILURE);
    expect_one_line_naming("standard output");
}
Test(viewer, the_s_key_leaves_nothing_when_it_fails) {
    char dir[] = "/tmp/mha-viz-gone-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chdir(dir), 0);               /* each test is a process of its own */
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    viz_layout l;
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, 640, 480, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout_compute(&s, 640, 480, &l);
    viz_draw(&view, &s, &l);                   /* a picture of more than 4096 bytes */
    cr_assert_eq(rmdir(dir), 0);
    viz_save_window(&s, renderer, 640, 480);
    cr_expect(strncmp(s.message, "could not save: mha-viz-001.png", 31) == 0, "'%s'",
              s.message);
    cr_expect_eq(s.news[0], '\0');
    cr_assert_eq(mkdir(dir, 0700), 0);
    cr_assert_eq(chdir(dir), 0);
    struct rlimit unlimited, limit;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &unlimited), 0);
    limit = (struct rlimit){4096, unlimited.rlim_max};
    signal(SIGXFSZ, SIG_IGN);                  /* a write past it fails with EFBIG */
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
    s.message[0] = '\0';
    viz_save_window(&s, renderer, 640, 480);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &unlimited), 0);   /* the test's own files */
    cr_expect(strncmp(s.message, "could not save: ", 16) == 0 &&
              strstr(s.message, "mha-viz-001.png") != NULL, "'%s'", s.message);
    cr_expect_eq(entries_in("."), 0, "a claimed name or a cut picture was left");
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    viz_free(&s);
    cr_expect_eq(chdir("/"), 0);
    rmdir(dir);
}
Test(viewer, the_command_line_points_at_a_cell) {
    char dir[] = "/tmp/mha-viz-hover-XXXXXX", png[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/shot.png", dir);
    char *shot[] = {"mha-viz", "--designed", "--step", "9", "--hover", "3,5", "--size",
                    "640x480", "--screenshot", png, NULL};
    cr_assert_eq(viz_main(10, shot), VIZ_EXIT_OK);
    SDL_Surface *loaded = IMG_Load(png);
    cr_assert_not_null(loaded, "%s", IMG_GetError());
    SDL_Surface *picture = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
    cr_assert_not_null(picture);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    viz_layout l;
    viz_layout_compute(&s, 640, 480, &l);
    const SDL_Rect c = viz_cell(&l.big, s.length, 3, 5);
    const SDL_Rect d = viz_cell(&l.big, s.length, 3, 7);
    const SDL_Color corner = pixel(picture, c.x, c.y), other = pixel(picture, d.x, d.y);
    cr_expect(same_colour(corner, viz_emphasis), "%d %d %d", corner.r, corner.g,
              corner.b);
    cr_expect(same_colour(other, viz_masked), "%d %d %d", other.r, other.g, other.b);
    viz_free(&s);
    SDL_FreeSurface(picture);
    SDL_FreeSurface(loaded);
    unlink(png);
    rmdir(dir);
}
Test(viewer, a_missing_model_is_named, .init = cr_redirect_stderr) {
    char dir[] = "/tmp/mha-viz-model-XXXXXX", model[64], png[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(model, sizeof model, "%s/missing", dir);
    snprintf(png, sizeof png, "%s/shot.png", dir);
    char *shot[] = {"mha-viz", "--model", model, "--screenshot", png, NULL};
    cr_expect_neq(viz_main(5, shot), VIZ_EXIT_OK);
    expect_one_line_naming(model);
    cr_expect_eq(rmdir(dir), 0, "a picture was written");
}

Test(viewer, no_display_is_its_own_status, .init = cr_redirect_stderr) {
    unsetenv("SDL_VIDEODRIVER");
    unsetenv("WAYLAND_DISPLAY");
    setenv("XDG_RUNTIME_DIR", "/nonexistent", 1);     /* no Wayland socket there */
    setenv("DISPLAY", ":65000", 1);                   /* no X server listens there */
    char *window[] = {"mha-viz", "--designed", "--quit-after", "1", NULL};
    cr_expect_eq(viz_main(4, window), VIZ_EXIT_NO_DISPLAY);
    fflush(stderr);
    char got[2048] = {0};
    FILE *f = cr_get_redirected_stderr();
    cr_assert_not_null(f);
    cr_expect_gt(fread(got, 1, sizeof got - 1, f), 0);
    cr_expect(strstr(got, "mha-viz: no display") != NULL, "'%s'", got);
}
Test(viewer, clicks_pressed_keys_and_the_zoomed_picture) {
    SDL_Event click = click_at(300, 150);                /* window pixels at scale 1.5 */
    viz_event_in_layout(&click, 1.5f);
    cr_expect(click.button.x == 200 && click.button.y == 100, "the click at %d, %d",
              click.button.x, click.button.y);
    viz_state s;
    cr_assert_eq(viz_init(&s, NULL), MHA_OK);
    viz_press_keys(&s, ">>");
    cr_expect(s.step == 3 && !s.playing, "step %zu", s.step);
    viz_press_keys(&s, "<\t");
    cr_expect(s.step == 2 && s.focus == 2, "step %zu, focus %zu", s.step, s.focus);
    viz_layout l;
    SDL_Surface *surface = draw_at(&s, &l, 1280, 800);
    const SDL_Rect first = l.grid[0];
    const SDL_Color at_one = pixel(surface, first.x + first.w / 2, first.y + first.h / 2);
    SDL_FreeSurface(surface);
    s.zoom = 2;
    surface = draw_at(&s, &l, 1280, 800);
    const SDL_Color zoomed = pixel(surface, first.x + first.w / 2, first.y + first.h / 2);
    cr_expect(l.grid[0].w == 0 && !same_colour(at_one, viz_background) &&
              same_colour(zoomed, viz_background), "zoomed: %d %d %d", zoomed.r, zoomed.g,
              zoomed.b);
    SDL_FreeSurface(surface);
    viz_free(&s);
}
