/* generated from chapters/11-viewer.nw; edit the book, not this file */
#ifndef VIZ_H
#define VIZ_H
/* Chapter 11: the viewer.  The state (viz.c) is pure C and drawable by the
   view (view.c); the program (program.c) owns windows and files. */
#include <SDL.h>
#include <SDL_ttf.h>
#include "designed.h"

enum {
    VIZ_HEADS = MHA_DESIGNED_HEADS, VIZ_EMBED = MHA_DESIGNED_EMBED,
    VIZ_TOKENS_MAX = MHA_DESIGNED_POSITIONS, VIZ_PADDING = 3, VIZ_TEXT_MAX = 512
};
typedef enum viz_colour_map { VIZ_VIRIDIS, VIZ_CIVIDIS, VIZ_GREY, VIZ_COLOUR_MAPS } viz_colour_map;
typedef struct viz_state {
    char text[VIZ_TEXT_MAX];                  /* the sentence as typed */
    char words[VIZ_TEXT_MAX];                 /* its words, split; tokens point here */
    const char *tokens[VIZ_TOKENS_MAX];       /* (L), padding tokens first when shown */
    size_t length;                            /* L */
    size_t step;                              /* tokens decoded, 1 to L: rows shown */
    int playing;                              /* decoding advances by itself */
    double speed, since_step;                 /* tokens per second; seconds since the last */
    int causal, padding;                      /* switches: causal mask, padding demo */
    float temperature;                        /* scores are divided by it */
    unsigned ablated;                         /* bit h set: head h is switched off */
    size_t impl;                              /* index into mha_impls */
    viz_colour_map colour_map;
    int help, typing;                         /* help shown; typing a sentence */
    char typed[VIZ_TEXT_MAX];                 /* the sentence being typed */
    size_t focus;                             /* the enlarged head */
    int hover_head, hover_row, hover_col;     /* the cell under the mouse, or -1 */
    int save_requested, quit;                 /* for the program to act on */
    char message[160];                        /* one line of news for the status bar */
    float *in_proj_weight, *out_proj_weight;     /* (3E, E), (E, E): the designed layer */
    float *effective_weight;                     /* (3E, E): after temperature and ablation */
    float *x;                                    /* (L, E) the embedded tokens */
    float *weights;                              /* (H, L, L); rows step..L-1 are zero */
    float *out, *reference_out;                  /* (L, E): this run; naive, no ablation */
    double output_change;                        /* max |out - out without ablation| */
    double impl_difference;                      /* max |weights, out - naive's| */
    double ms_per_step;                          /* time of the last token, or of the prefix */
    mha_kv_cache cache;                          /* (1, H, 32, D): the decoded tokens' keys, values */
    int decoding;                                /* the last run went through the cache */
} viz_state;
enum { VIZ_MIN_WIDTH = 640, VIZ_MIN_HEIGHT = 480 };     /* the smallest window that fits */
typedef struct viz_layout {
    int width, height;                   /* the window */
    SDL_Rect grid[VIZ_HEADS];            /* the small maps */
    SDL_Rect big;                        /* the enlarged head's map */
    SDL_Rect legend;                     /* the colour scale, 1 at the top */
    SDL_Rect slider;                     /* the temperature slider */
    int status_y;                        /* top of the status lines */
} viz_layout;
void viz_layout_compute(const viz_state *s, int width, int height, viz_layout *layout);
SDL_Rect viz_cell(const SDL_Rect *map, size_t L, size_t i, size_t j);
int viz_hit(const viz_layout *layout, const viz_state *s, int x, int y,
            int *head, int *row, int *col);
mha_status viz_init(viz_state *s, const char *text);
void viz_free(viz_state *s);
mha_status viz_set_text(viz_state *s, const char *text);
mha_status viz_run(viz_state *s);
void viz_handle_event(viz_state *s, const SDL_Event *event, const struct viz_layout *layout);
void viz_tick(viz_state *s, double seconds);
double viz_score(const viz_state *s, size_t h, size_t i, size_t j);
int viz_blocked(const viz_state *s, size_t i, size_t j);
extern const char viz_default_text[];
SDL_Color viz_colour(viz_colour_map map, double t);
extern const char *const viz_colour_map_names[VIZ_COLOUR_MAPS];
#define VIZ_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
typedef struct viz_view { SDL_Renderer *renderer; TTF_Font *font, *small; } viz_view;
int viz_view_open(viz_view *view, SDL_Renderer *renderer);
void viz_view_close(viz_view *view);
void viz_draw(viz_view *view, const viz_state *s, const viz_layout *layout);
extern const char *const viz_help[][2];          /* key, what it does */
extern const size_t viz_help_count;
enum { VIZ_EXIT_OK = 0, VIZ_EXIT_FAILURE = 1, VIZ_EXIT_USAGE = 2, VIZ_EXIT_NO_DISPLAY = 3 };
int viz_main(int argc, char **argv);
int viz_save_png(viz_state *s, int width, int height, const char *path);
#endif
