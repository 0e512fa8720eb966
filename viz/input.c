/* generated from chapters/12-viewer.nw, chapters/18-austen-viewer.nw; edit the book, not this file */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "viz.h"

/* <<[[input.c]] help text>> */
const char *const viz_help[][3] = {
    {"space",       "dlt", "play / pause"},
    {"right, left", "dl",  "one token forward / back (pauses)"},
    {"up, down",    "dlt", "faster / slower: tokens, or training steps, a second"},
    {"home",        "dl",  "back to the first token"},
    {"c",           "d",   "causal mask on / off"},
    {"p",           "d",   "padding demo: three <pad> tokens before the sentence"},
    {"[  ]",        "d",   "attention temperature down (sharper) / up (flatter), or drag "
                           "the slider"},
    {"",            "d",   "it divides every attention score before the softmax"},
    {"1 .. 5",      "d",   "switch a head off / on (ablation)"},
    {"i",           "d",   "next implementation (naive, batched, ...)"},
    {"m",           "dlt", "next colour map (viridis, cividis, grey)"},
    {"tab",         "dlt", "enlarge the next head"},
    {"n",           "l",   "another random sequence"},
    {"r",           "t",   "start training again"},
    {"enter",       "dl",  "type a new sentence; enter again to run it, escape to cancel"},
    {"",            "l",   "one token per character: a-z, space, '.', A-Z and 0-9"},
    {"click",       "dlt", "on a word or a row of the big map: select it; elsewhere: clear"},
    {"+  -",        "d",   "larger / smaller text and maps (for a projector)"},
    {"f, F11",      "dlt", "full screen on / off"},
    {"e",           "d",   "engineering figures on / off: the time of a step, and how far "
                           "the implementation is from the naive one"},
    {"s",           "dlt", "save the window as a PNG"},
    {"?",           "dlt", "this help; again: its next page"},
    {"escape, q",   "dlt", "close the help, clear the selection, else ask to quit; q: quit"},
    /* <<help of the later modes>> */
    {"g",           "a",   "append the next piece, drawn from the model"},
    {"space",       "a",   "append a piece at a steady pace / stop"},
    {"up, down",    "a",   "that pace faster / slower"},
    {",  .",        "a",   "sampling temperature down / up (divides the logits of the next piece)"},
    {"k",           "a",   "top-k: draw among the k most likely pieces (0: all)"},
    {"r  n",        "a",   "back to the typed text and the seed / the next seed"},
    {"x  u",        "al",  "remove the enlarged head, or put it back / put every head back"},
    {"w",           "a",   "colours: each row up to its largest weight / weights as they are"},
    {"right, left", "a",   "the next / previous query row of the breakdown"},
    {"tab, click",  "a",   "enlarge a head; click a row of the big map or a piece to explain it"},
    {"enter",       "a",   "type a new text; enter again to run it"},
    {"m  s  +  -",   "a",   "colour map, save a PNG, larger / smaller, as in the other views"},
};
const size_t viz_help_count = sizeof viz_help / sizeof viz_help[0];
/* <<[[input.c]] the keys>> */
static const struct {
    SDL_Keycode key; viz_action_kind kind; int head; const char *modes;
} key_table[] = {
    {SDLK_SPACE, VIZ_PLAY_PAUSE, 0, "dlta"},     {SDLK_RIGHT, VIZ_STEP_FORWARD, 0, "dla"},
    {SDLK_LEFT, VIZ_STEP_BACK, 0, "dla"},        {SDLK_HOME, VIZ_FIRST_TOKEN, 0, "dl"},
    {SDLK_UP, VIZ_FASTER, 0, "dlta"},            {SDLK_DOWN, VIZ_SLOWER, 0, "dlta"},
    {SDLK_c, VIZ_SWITCH_CAUSAL, 0, "d"},        {SDLK_p, VIZ_SWITCH_PADDING, 0, "d"},
    {SDLK_LEFTBRACKET, VIZ_SHARPER, 0, "d"},    {SDLK_RIGHTBRACKET, VIZ_FLATTER, 0, "d"},
    {SDLK_1, VIZ_SWITCH_HEAD, 0, "d"}, {SDLK_2, VIZ_SWITCH_HEAD, 1, "d"},
    {SDLK_3, VIZ_SWITCH_HEAD, 2, "d"}, {SDLK_4, VIZ_SWITCH_HEAD, 3, "d"},
    {SDLK_5, VIZ_SWITCH_HEAD, 4, "d"},
    {SDLK_i, VIZ_NEXT_IMPL, 0, "d"},            {SDLK_m, VIZ_NEXT_COLOUR_MAP, 0, "dlta"},
    {SDLK_TAB, VIZ_NEXT_FOCUS, 0, "dlta"},       {SDLK_RETURN, VIZ_START_TYPING, 0, "dla"},
    {SDLK_KP_ENTER, VIZ_START_TYPING, 0, "dla"}, {SDLK_s, VIZ_SAVE, 0, "dlta"},
    {SDLK_F1, VIZ_HELP, 0, "dlta"},              {SDLK_ESCAPE, VIZ_ESCAPE, 0, "dlta"},
    {SDLK_q, VIZ_QUIT, 0, "dlta"},               {SDLK_r, VIZ_RESTART, 0, "ta"},
    {SDLK_n, VIZ_NEW_SEQUENCE, 0, "la"},
    {SDLK_PLUS, VIZ_ZOOM_IN, 0, "da"},           {SDLK_EQUALS, VIZ_ZOOM_IN, 0, "da"},
    {SDLK_KP_PLUS, VIZ_ZOOM_IN, 0, "da"},        {SDLK_MINUS, VIZ_ZOOM_OUT, 0, "da"},
    {SDLK_KP_MINUS, VIZ_ZOOM_OUT, 0, "da"},
    {SDLK_f, VIZ_FULLSCREEN, 0, "dlta"},         {SDLK_F11, VIZ_FULLSCREEN, 0, "dlta"},
    {SDLK_e, VIZ_ENGINEERING, 0, "d"},
    /* <<keys of the later modes>> */
    {SDLK_g, VIZ_GENERATE, 0, "a"},            {SDLK_COMMA, VIZ_SAMPLING_COLDER, 0, "a"},
    {SDLK_PERIOD, VIZ_SAMPLING_HOTTER, 0, "a"}, {SDLK_k, VIZ_NEXT_TOP_K, 0, "a"},
    {SDLK_x, VIZ_REMOVE_HEAD, 0, "al"},        {SDLK_u, VIZ_RESTORE_HEADS, 0, "al"},
    {SDLK_w, VIZ_ROW_SCALE, 0, "a"},
};
/* <<[[input.c]] functions>> */
static int help_knows_mode(char mode)
{
    for (size_t k = 0; k < viz_help_count; k++)
        if (strchr(viz_help[k][1], mode) != NULL)
            return 1;
    return 0;
}

static viz_action unavailable(SDL_Keycode key)
{
    static char name[32];
    snprintf(name, sizeof name, "%s", SDL_GetKeyName(key));
    for (char *c = name; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    return (viz_action){.kind = VIZ_UNAVAILABLE, .key = 1, .text = name};
}

static viz_action key_action(const viz_state *s, SDL_Keycode key)
{
    viz_action a = {.kind = VIZ_NOTHING, .key = 1};
    const char *modes = NULL;
    if (key >= SDLK_LCTRL && key <= SDLK_RGUI)        /* shift, ctrl, alt alone: no key */
        return (viz_action){.kind = VIZ_NOTHING};
    for (size_t k = 0; k < sizeof key_table / sizeof key_table[0]; k++)
        if (key_table[k].key == key) {
            a.kind = key_table[k].kind;
            a.head = key_table[k].head;
            modes = key_table[k].modes;
        }
    for (size_t m = 0; m < viz_mode_count; m++)
        if ((SDL_Keycode)viz_modes[m]->key == key) {
            a.kind = VIZ_SWITCH_MODE;
            a.mode = viz_modes[m];
            modes = NULL;
        }
    const int letter = (key >= SDLK_a && key <= SDLK_z) || (key >= SDLK_0 && key <= SDLK_9);
    if (help_knows_mode(s->mode->key) &&
        (modes != NULL ? strchr(modes, s->mode->key) == NULL
                       : a.kind == VIZ_NOTHING && letter))
        return unavailable(key);
    return a;
}
/* <<[[input.c]] functions>> */
static viz_action typing_action(SDL_Keycode key)
{
    const viz_action_kind kind = key == SDLK_ESCAPE ? VIZ_CANCEL
                               : key == SDLK_BACKSPACE ? VIZ_ERASE
                               : key == SDLK_RETURN || key == SDLK_KP_ENTER ? VIZ_ACCEPT
                               : VIZ_NOTHING;
    return (viz_action){.kind = kind};
}
/* <<[[input.c]] functions>> */
static double slider_temperature(const SDL_Rect *r, int x)
{
    const int middle = r->x + r->w / 2;
    if (x >= middle - 2 && x <= middle + 2)
        return 1.0;
    return viz_slider_temperature((double)(x - r->x) / r->w);
}

static size_t pointer_actions(const viz_state *s, const viz_layout *layout,
                              const SDL_Event *e, viz_action *a)
{
    const int x = e->type == SDL_MOUSEMOTION ? e->motion.x : e->button.x;
    const int y = e->type == SDL_MOUSEMOTION ? e->motion.y : e->button.y;
    int head, row, col;
    const int map = s->mode->hit != NULL
        ? s->mode->hit(s, viz_mode_data(s, s->mode), layout->width, layout->height, x, y,
                       &head, &row, &col)
        : viz_hit(layout, s, x, y, &head, &row, &col);
    size_t n = 0;
    a[n++] = (viz_action){.kind = VIZ_POINT, .head = map ? head : -1, .row = map ? row : -1,
                          .col = map ? col : -1};
    const SDL_Rect *r = &layout->slider;
    const int on_slider = r->w > 0 && y >= r->y - 6 && y < r->y + r->h + 6;
    if (e->type == SDL_MOUSEMOTION && (e->motion.state & SDL_BUTTON_LMASK) && on_slider &&
        x >= r->x - 20 && x < r->x + r->w + 20 && s->mode->hit == NULL)
        a[n++] = (viz_action){.kind = VIZ_SET_TEMPERATURE,
                              .temperature = slider_temperature(r, x)};
    if (e->type != SDL_MOUSEBUTTONDOWN)
        return n;
    if (map == 1)
        a[n++] = (viz_action){.kind = VIZ_FOCUS_HEAD, .head = head};
    const int word = s->mode->hit == NULL ? viz_hit_word(layout, s, x, y) : -1;
    const int slider = on_slider && x >= r->x && x < r->x + r->w && s->mode->hit == NULL;
    if (map == 2 || word >= 0)
        a[n++] = (viz_action){.kind = VIZ_SELECT, .row = map == 2 ? row : word};
    else if (map == 0 && !slider)
        a[n++] = (viz_action){.kind = VIZ_SELECT, .row = -1};     /* off the map: clear */
    if (slider)
        a[n++] = (viz_action){.kind = VIZ_SET_TEMPERATURE,
                              .temperature = slider_temperature(r, x)};
    return n;
}
/* <<[[input.c]] functions>> */
size_t viz_actions_from_event(const viz_state *s, const SDL_Event *e, const viz_layout *layout,
                              viz_action a[])
{
    switch (e->type) {
    case SDL_QUIT:
        a[0] = (viz_action){.kind = VIZ_QUIT};
        return 1;
    case SDL_KEYDOWN:
        a[0] = s->typing ? typing_action(e->key.keysym.sym) : key_action(s, e->key.keysym.sym);
        return 1;
    case SDL_TEXTINPUT:
        a[0] = s->typing ? (viz_action){.kind = VIZ_TYPE, .text = e->text.text}
             : (viz_action){.kind = strcmp(e->text.text, "?") == 0 ? VIZ_HELP : VIZ_NOTHING};
        return 1;
    case SDL_MOUSEBUTTONDOWN:
        if (s->intro) {                                  /* a click puts the intro away */
            a[0] = (viz_action){.kind = VIZ_DISMISS};
            return 1;
        }
        return layout != NULL ? pointer_actions(s, layout, e, a) : 0;
    case SDL_MOUSEMOTION:
        return layout != NULL ? pointer_actions(s, layout, e, a) : 0;
    }
    return 0;
}

void viz_handle_event(viz_state *s, const SDL_Event *e, const viz_layout *layout)
{
    viz_action actions[VIZ_ACTIONS_PER_EVENT];
    const size_t n = viz_actions_from_event(s, e, layout, actions);
    for (size_t k = 0; k < n; k++)
        viz_act(s, &actions[k]);
}
