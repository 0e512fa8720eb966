/* generated from chapters/12-viewer.nw, chapters/28-viewer-plumbing.nw; edit the book, not this file */
#ifndef VIZ_H
#define VIZ_H
/* The viewer's SDL side.  Each file calls only files beneath it; from the
   bottom: the colours (palette.c) and the drawing (draw.c), the state
   (state.c, explain.c), the layout (layout.c), the views (view.c,
   explain_view.c; the learning modes' in training.h), the modes (modes.c),
   the input (input.c), the frame (frame.c) and the program (png.c,
   options.c, program.c).  state.h knows nothing of SDL.
   plumbing.h: fonts, text, PNG files, options. */
#include "palette.h"
#include "plumbing.h"

/* <<[[viz.h]] layout>> */
enum { VIZ_MIN_WIDTH = 640, VIZ_MIN_HEIGHT = 480 };     /* the smallest window that fits */
typedef struct viz_layout {
    int width, height;                   /* the window */
    SDL_Rect grid[VIZ_HEADS];            /* the small maps; empty when zoomed in */
    SDL_Rect titles[VIZ_HEADS];          /* their titles' room, above each */
    SDL_Rect big;                        /* the enlarged head's map */
    SDL_Rect caption;                    /* above it: its rule, and what its axes are */
    SDL_Rect legend;                     /* the colour scale, 1 at the top */
    SDL_Rect slider;                     /* the temperature slider */
    SDL_Rect words;                      /* the sentence, tinted by a query's weights */
    int word_columns;                    /* the words' columns */
    SDL_Rect breakdown;                  /* how one cell's score and weight are made */
    int status_y;                        /* top of the status lines */
} viz_layout;
void viz_layout_compute(const viz_state *s, int width, int height, viz_layout *layout);
float viz_scale(int width, int height, double zoom);
int viz_map_pixels(const viz_state *s, int width, int height, double zoom);
SDL_Event *viz_event_in_layout(SDL_Event *event, float scale);
SDL_Rect viz_cell(const SDL_Rect *map, size_t L, size_t i, size_t j);
int viz_hit(const viz_layout *layout, const viz_state *s, int x, int y,
            int *head, int *row, int *col);
int viz_maps_hit(const SDL_Rect *maps, int count, const SDL_Rect *big, size_t L, size_t focus,
                 int x, int y, int *head, int *row, int *col);
SDL_Rect viz_word_box(const viz_layout *layout, size_t k);
int viz_hit_word(const viz_layout *layout, const viz_state *s, int x, int y);
/* <<[[viz.h]] input>> */
enum { VIZ_ACTIONS_PER_EVENT = 3 };
extern const char *const viz_help[][3];          /* key, the modes' keys, what it does */
extern const size_t viz_help_count;
size_t viz_actions_from_event(const viz_state *s, const SDL_Event *event,
                              const viz_layout *layout, viz_action actions[]);
void viz_handle_event(viz_state *s, const SDL_Event *event, const viz_layout *layout);
/* <<[[viz.h]] the view>> */
void viz_masked_cell(viz_view *v, SDL_Rect c);    /* near-black, hatched if 4 pixels or more */
/* <<[[viz.h]] the view>> */
void viz_draw_legend(viz_view *v, const viz_state *s, SDL_Rect r);
void viz_draw_legend_titled(viz_view *v, const viz_state *s, SDL_Rect r, const char *top);
/* <<[[viz.h]] the view>> */
void viz_draw_sentence(viz_view *v, const viz_state *s, const void *data,
                       int width, int height);
void viz_draw(viz_view *v, const viz_state *s, const viz_layout *layout);
/* <<[[viz.h]] the view>> */
enum { VIZ_HELP_LINES = 96, VIZ_HELP_KEYS = 120, VIZ_HELP_LINE = 22 };
typedef struct viz_help_line { const char *key; char text[160]; } viz_help_line;
typedef struct viz_help_page {
    SDL_Rect box;                          /* the box, in layout pixels */
    int text_x, text_width;                /* the descriptions' column */
    size_t first, count, page, pages;      /* the lines on show; page from 0 */
} viz_help_page;
size_t viz_help_lines(viz_view *v, const viz_state *s, int width, viz_help_line *lines);
viz_help_page viz_help_place(const viz_state *s, const viz_layout *l, size_t lines);
/* <<[[viz.h]] the view>> */
void viz_draw_words(viz_view *v, const viz_state *s, const viz_layout *layout);
void viz_draw_breakdown(viz_view *v, const viz_state *s, const viz_layout *layout);
/* <<[[viz.h]] the program>> */
enum { VIZ_EXIT_OK = 0, VIZ_EXIT_FAILURE = 1, VIZ_EXIT_USAGE = 2, VIZ_EXIT_NO_DISPLAY = 3 };
int viz_main(int argc, char **argv);
/* <<[[viz.h]] the program>> */
typedef struct viz_window {
    SDL_Renderer *renderer;
    viz_view view;
    Uint64 last;                         /* SDL_GetTicks64() when time last passed */
    int drawn_width, drawn_height;       /* the picture on the screen; 0 before the first */
    int fullscreen;                      /* what the window was last told */
} viz_window;
void viz_window_frame(viz_state *s, viz_window *window);
/* <<[[viz.h]] the program>> */
void viz_window_fit(int *width, int *height, int room_width, int room_height);
#endif
