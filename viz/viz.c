/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "viz.h"

const char viz_default_text[] = "the cat sat on the mat because the cat was tired";
const char *const viz_help[][2] = {
    {"space",       "play / pause the decoding"},
    {"right, left", "one token forward / back (pauses)"},
    {"up, down",    "faster / slower"},
    {"home",        "back to the first token"},
    {"c",           "causal mask on / off"},
    {"p",           "padding demo: three <pad> tokens before the sentence"},
    {"[  ]",        "temperature down (sharper) / up (flatter)"},
    {"1 .. 5",      "switch a head off / on (ablation)"},
    {"i",           "next implementation (naive, batched, ...)"},
    {"m",           "next colour map (viridis, cividis, grey)"},
    {"tab",         "enlarge the next head (or click a small map)"},
    {"enter",       "type a new sentence; enter again to run it, escape to cancel"},
    {"s",           "save the window as a PNG"},
    {"t",           "train a model live and watch its heads form (chapter 16)"},
    {"l",           "the trained model on a repeated random sequence (chapter 16)"},
    {"d",           "back to the designed heads"},
    {"space, r",    "training: pause / resume, reset;  n: trained model, new sequence"},
    {"?",           "this help;  q or escape: quit"},
};
const size_t viz_help_count = sizeof viz_help / sizeof viz_help[0];
static void handle_key(viz_state *s, SDL_Keycode key);
static void handle_text(viz_state *s, const char *text);
static void handle_typing_key(viz_state *s, SDL_Keycode key);
static void handle_mouse(viz_state *s, const struct viz_layout *layout, const SDL_Event *e);
static size_t split_sentence(char *words, int padding, const char **tokens)
{
    static const char pad[] = "<pad>";
    size_t n = 0;
    for (; padding && n < VIZ_PADDING; n++)
        tokens[n] = pad;
    for (char *w = strtok(words, " \t\n"); w != NULL; w = strtok(NULL, " \t\n")) {
        if (n == VIZ_TOKENS_MAX)
            return VIZ_TOKENS_MAX + 1;               /* too long */
        tokens[n++] = w;
    }
    return n;
}
static mha_status use_text(viz_state *s, const char *text, int padding)
{
    char words[VIZ_TEXT_MAX];
    const char *tokens[VIZ_TOKENS_MAX];
    if (strlen(text) >= VIZ_TEXT_MAX)
        return MHA_ERR_SHAPE;
    strcpy(words, text);
    const size_t n = split_sentence(words, padding, tokens);
    if (n > VIZ_TOKENS_MAX || n == (padding ? VIZ_PADDING : 0))
        return MHA_ERR_SHAPE;
    if (text != s->text)
        strcpy(s->text, text);
    memcpy(s->words, words, sizeof words);
    for (size_t i = 0; i < n; i++)
        s->tokens[i] = tokens[i] >= words && tokens[i] < words + sizeof words
            ? s->words + (tokens[i] - words) : tokens[i];
    s->length = n;
    s->padding = padding;
    return mha_designed_embed(s->tokens, s->length, s->x);
}
mha_status viz_set_text(viz_state *s, const char *text)
{
    mha_status status = use_text(s, text, s->padding);
    if (status != MHA_OK)
        return status;
    s->step = 1;
    s->playing = 1;
    s->since_step = 0;
    return viz_run(s);
}
mha_status viz_init(viz_state *s, const char *text)
{
    memset(s, 0, sizeof *s);
    const size_t E = VIZ_EMBED, L = VIZ_TOKENS_MAX;
    s->in_proj_weight = malloc(3 * E * E * sizeof(float));
    s->effective_weight = malloc(3 * E * E * sizeof(float));
    s->out_proj_weight = malloc(E * E * sizeof(float));
    s->x = malloc(L * E * sizeof(float));
    s->weights = malloc(VIZ_HEADS * L * L * sizeof(float));
    s->out = malloc(L * E * sizeof(float));
    s->reference_out = malloc(L * E * sizeof(float));
    if (mha_kv_cache_init(&s->cache, 1, VIZ_HEADS, L, MHA_DESIGNED_HEAD_DIM) != MHA_OK ||
        !s->in_proj_weight || !s->effective_weight || !s->out_proj_weight || !s->x ||
        !s->weights || !s->out || !s->reference_out) {
        viz_free(s);
        return MHA_ERR_NOMEM;
    }
    s->speed = 1.5;
    s->causal = 1;
    s->temperature = 1.0f;
    s->focus = 1;                       /* the same-token head: the most telling */
    s->hover_head = s->hover_row = s->hover_col = -1;
    mha_designed_params(s->in_proj_weight, s->out_proj_weight);
    return viz_set_text(s, text ? text : viz_default_text);
}
void viz_free(viz_state *s)
{
    free(s->in_proj_weight);
    free(s->effective_weight);
    free(s->out_proj_weight);
    free(s->x);
    free(s->weights);
    free(s->out);
    free(s->reference_out);
    mha_kv_cache_free(&s->cache);
    viz_learning_free(s);
    memset(s, 0, sizeof *s);
}
static void make_effective_weight(viz_state *s, int ablate)
{
    const size_t E = VIZ_EMBED, D = MHA_DESIGNED_HEAD_DIM;
    memcpy(s->effective_weight, s->in_proj_weight, 3 * E * E * sizeof(float));
    for (size_t i = 0; i < E * E; i++)                   /* W^Q: rows 0..E-1 */
        s->effective_weight[i] /= s->temperature;
    for (size_t h = 0; ablate && h < VIZ_HEADS; h++)
        if (s->ablated >> h & 1)
            memset(s->effective_weight + (2 * E + h * D) * E, 0, D * E * sizeof(float));
}
static mha_status decode_tokens(viz_state *s, const mha_decode_impl *impl, int extend)
{
    const size_t n = s->step, L = s->length, H = VIZ_HEADS, E = VIZ_EMBED, T = VIZ_TOKENS_MAX;
    const mha_decoder decoder = {E, H, H, {s->effective_weight, NULL, s->out_proj_weight, NULL},
                                 0, 0.0f};
    float row[VIZ_HEADS * VIZ_TOKENS_MAX];               /* (1, H, 1, T_max) */
    mha_status status = MHA_OK;
    if (!extend) {
        mha_kv_cache_reset(&s->cache);
        memset(s->weights, 0, H * L * L * sizeof *s->weights);
    }
    for (size_t i = s->cache.length[0]; status == MHA_OK && i < n; i++) {
        const unsigned char padding = s->padding && i < VIZ_PADDING;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        status = impl->step(&decoder, &s->cache, 1, s->x + i * E, &padding, s->out + i * E, row);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        s->ms_per_step = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
        for (size_t h = 0; status == MHA_OK && h < H; h++)
            memcpy(s->weights + (h * L + i) * L, row + h * T, L * sizeof *row);
    }
    return status;
}
static mha_status run_prefix(const viz_state *s, const mha_impl *impl, const float *in_w,
                             float *out, float *weights)
{
    const size_t n = s->step;
    unsigned char padding[VIZ_TOKENS_MAX] = {0};
    for (size_t j = 0; s->padding && j < VIZ_PADDING; j++)
        padding[j] = 1;
    const mha_shape shape = {1, n, n, VIZ_EMBED, VIZ_HEADS};
    const mha_params params = {in_w, NULL, s->out_proj_weight, NULL};
    const mha_mask mask = {s->causal, NULL, NULL, s->padding ? padding : NULL};
    return impl->forward(&shape, &params, s->x, NULL, NULL, &mask, out, weights);
}
static mha_status run_layer(viz_state *s, int extend)
{
    const size_t n = s->step, L = s->length, E = VIZ_EMBED, H = VIZ_HEADS;
    float *weights = malloc(H * n * n * sizeof *weights),
          *check = malloc(H * n * n * sizeof *check),
          *out = malloc(n * E * sizeof *out);
    mha_status status = weights && check && out ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK) {
        make_effective_weight(s, 1);
        const mha_decode_impl *decoder =
            s->causal ? mha_decode_impl_find(mha_impls[s->impl].name) : NULL;
        extend = extend && s->decoding && decoder != NULL && s->cache.length[0] + 1 == n;
        s->decoding = decoder != NULL;
        if (decoder != NULL) {
            status = decode_tokens(s, decoder, extend);
        } else {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            status = run_prefix(s, &mha_impls[s->impl], s->effective_weight, s->out, weights);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            s->ms_per_step = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
            memset(s->weights, 0, H * L * L * sizeof *s->weights);
            for (size_t h = 0; status == MHA_OK && h < H; h++)
                for (size_t i = 0; i < n; i++)
                    memcpy(s->weights + (h * L + i) * L, weights + (h * n + i) * n, n * sizeof *weights);
        }
        if (status == MHA_OK)
            status = run_prefix(s, &mha_impls[0], s->effective_weight, out, check);
        s->impl_difference = 0;
        for (size_t h = 0; status == MHA_OK && h < H; h++)
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    s->impl_difference = fmax(s->impl_difference,
                                              fabs(s->weights[(h * L + i) * L + j] -
                                                   check[(h * n + i) * n + j]));
        for (size_t i = 0; status == MHA_OK && i < n * E; i++)
            s->impl_difference = fmax(s->impl_difference, fabs(s->out[i] - out[i]));
        make_effective_weight(s, 0);
        if (status == MHA_OK)
            status = run_prefix(s, &mha_impls[0], s->effective_weight, s->reference_out, check);
        s->output_change = 0;
        for (size_t i = 0; status == MHA_OK && i < n * E; i++)
            s->output_change = fmax(s->output_change, fabs(s->out[i] - s->reference_out[i]));
    }
    free(weights);
    free(check);
    free(out);
    return status;
}

mha_status viz_run(viz_state *s)
{
    return run_layer(s, 0);
}
double viz_score(const viz_state *s, size_t h, size_t i, size_t j)
{
    const size_t E = VIZ_EMBED, D = MHA_DESIGNED_HEAD_DIM;
    double dot = 0;
    for (size_t d = 0; d < D; d++) {
        const float *wq = s->in_proj_weight + (h * D + d) * E;
        const float *wk = s->in_proj_weight + (E + h * D + d) * E;
        double q = 0, k = 0;
        for (size_t e = 0; e < E; e++) {
            q += (double)wq[e] * s->x[i * E + e];
            k += (double)wk[e] * s->x[j * E + e];
        }
        dot += q * k;
    }
    return dot / sqrt((double)D) / s->temperature;
}

int viz_blocked(const viz_state *s, size_t i, size_t j)
{
    return (s->causal && j > i) || (s->padding && j < VIZ_PADDING);
}
static void go_to_step(viz_state *s, size_t step)
{
    const size_t before = s->step;
    s->step = step < 1 ? 1 : step > s->length ? s->length : step;
    if (run_layer(s, s->step == before + 1) != MHA_OK)
        snprintf(s->message, sizeof s->message, "out of memory");
}

void viz_tick(viz_state *s, double seconds)
{
    if (s->mode != VIZ_MODE_DESIGNED) {
        viz_learning_tick(s, seconds);
        return;
    }
    if (!s->playing)
        return;
    s->since_step += seconds;
    if (s->since_step >= 1.0 / s->speed) {
        s->since_step = 0;
        go_to_step(s, s->step == s->length ? 1 : s->step + 1);
    }
}
void viz_handle_event(viz_state *s, const SDL_Event *event, const struct viz_layout *layout)
{
    if (s->mode != VIZ_MODE_DESIGNED && viz_learning_event(s, event))
        return;
    switch (event->type) {
    case SDL_QUIT:
        s->quit = 1;
        break;
    case SDL_KEYDOWN:
        if (s->typing)
            handle_typing_key(s, event->key.keysym.sym);
        else
            handle_key(s, event->key.keysym.sym);
        break;
    case SDL_TEXTINPUT:
        handle_text(s, event->text.text);
        break;
    case SDL_MOUSEMOTION:
    case SDL_MOUSEBUTTONDOWN:
        if (layout != NULL)
            handle_mouse(s, layout, event);
        break;
    }
}
static void handle_key(viz_state *s, SDL_Keycode key)
{
    s->message[0] = '\0';                   /* news lasts until the next key */
    switch (key) {
    case SDLK_SPACE: s->playing = !s->playing; s->since_step = 0; break;
    case SDLK_RIGHT: s->playing = 0; go_to_step(s, s->step + 1); break;
    case SDLK_LEFT: s->playing = 0; go_to_step(s, s->step - 1); break;
    case SDLK_HOME: go_to_step(s, 1); break;
    case SDLK_UP: s->speed = fmin(s->speed * 1.5, 20.0); break;
    case SDLK_DOWN: s->speed = fmax(s->speed / 1.5, 0.25); break;
    case SDLK_c: s->causal = !s->causal; go_to_step(s, s->step); break;
    case SDLK_p:
        if (use_text(s, s->text, !s->padding) == MHA_OK)
            go_to_step(s, s->padding ? s->step + VIZ_PADDING : s->step - VIZ_PADDING);
        else
            snprintf(s->message, sizeof s->message, "no room for padding: %d words at most",
                     VIZ_TOKENS_MAX - VIZ_PADDING);
        break;
    case SDLK_LEFTBRACKET: s->temperature = fmaxf(s->temperature / 1.25f, 0.05f);
        go_to_step(s, s->step); break;
    case SDLK_RIGHTBRACKET: s->temperature = fminf(s->temperature * 1.25f, 50.0f);
        go_to_step(s, s->step); break;
    case SDLK_1: case SDLK_2: case SDLK_3: case SDLK_4: case SDLK_5:
        s->ablated ^= 1u << (key - SDLK_1); go_to_step(s, s->step); break;
    case SDLK_i: s->impl = (s->impl + 1) % mha_impl_count; go_to_step(s, s->step); break;
    case SDLK_m: s->colour_map = (s->colour_map + 1) % VIZ_COLOUR_MAPS; break;
    case SDLK_TAB: s->focus = (s->focus + 1) % VIZ_HEADS; break;
    case SDLK_RETURN: case SDLK_KP_ENTER:
        s->typing = 1;
        s->typed[0] = '\0';
        break;
    case SDLK_s: s->save_requested = 1; break;
    case SDLK_F1: s->help = !s->help; break;
    case SDLK_ESCAPE: if (s->help) s->help = 0; else s->quit = 1; break;
    case SDLK_q: s->quit = 1; break;
    case SDLK_t: viz_learning_switch(s, VIZ_MODE_TRAINING); break;
    case SDLK_l: viz_learning_switch(s, VIZ_MODE_TRAINED); break;
    }
}
static void handle_text(viz_state *s, const char *text)
{
    if (!s->typing) {
        if (strcmp(text, "?") == 0)
            s->help = !s->help;
    } else if (strlen(s->typed) + strlen(text) < VIZ_TEXT_MAX)
        strcat(s->typed, text);
}
static void handle_typing_key(viz_state *s, SDL_Keycode key)
{
    size_t n = strlen(s->typed);
    if (key == SDLK_ESCAPE) {
        s->typing = 0;
    } else if (key == SDLK_BACKSPACE && n > 0) {
        while (n > 0 && ((unsigned char)s->typed[--n] & 0xC0) == 0x80)
            ;
        s->typed[n] = '\0';
    } else if (key == SDLK_RETURN || key == SDLK_KP_ENTER) {
        if (viz_set_text(s, s->typed) == MHA_OK)
            s->typing = 0;
        else
            snprintf(s->message, sizeof s->message, "a sentence is 1 to %d words",
                     VIZ_TOKENS_MAX - (s->padding ? VIZ_PADDING : 0));
    }
}
static void handle_mouse(viz_state *s, const struct viz_layout *layout, const SDL_Event *e)
{
    const int x = e->type == SDL_MOUSEMOTION ? e->motion.x : e->button.x;
    const int y = e->type == SDL_MOUSEMOTION ? e->motion.y : e->button.y;
    int head, row, col;
    const int map = viz_hit(layout, s, x, y, &head, &row, &col);
    s->hover_head = map ? head : -1;
    s->hover_row = map ? row : -1;
    s->hover_col = map ? col : -1;
    if (e->type != SDL_MOUSEBUTTONDOWN)
        return;
    if (map == 1)
        s->focus = (size_t)head;
    const SDL_Rect *r = &layout->slider;
    if (x >= r->x && x < r->x + r->w && y >= r->y - 4 && y < r->y + r->h + 4) {
        s->temperature = (float)(0.05 * pow(1000.0, (double)(x - r->x) / r->w));
        go_to_step(s, s->step);
    }
}
