/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#ifndef VIZ_PLUMBING_H
#define VIZ_PLUMBING_H
/* The viewer's plumbing: fonts and text (draw.c), filled and outlined
   rectangles, PNG files (png.c) and the command line (options.c). */
#include <SDL.h>
#include <SDL_ttf.h>
#include "state.h"

/* <<[[plumbing.h]] drawing>> */
#define VIZ_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
typedef struct viz_view {
    SDL_Renderer *renderer;
    TTF_Font *font, *small;          /* opened at 15 and 11 points times the scale */
    float scale;                     /* window pixels per layout pixel */
} viz_view;
int viz_view_open(viz_view *view, SDL_Renderer *renderer);
int viz_view_scale(viz_view *view, float scale);
void viz_text_size(viz_view *view, TTF_Font *font, const char *text, int *width, int *height);
void viz_view_close(viz_view *view);
void viz_text(viz_view *view, TTF_Font *font, const char *text, int x, int y, int align,
              SDL_Color colour, int upwards);
void viz_text_fit(viz_view *view, TTF_Font *font, const char *text, int x, int y, int width,
                  SDL_Color colour);
void viz_text_tail(viz_view *view, TTF_Font *font, const char *text, int x, int y, int width,
                   SDL_Color colour);
void viz_fill(viz_view *view, SDL_Rect r, SDL_Color colour);
void viz_outline(viz_view *view, SDL_Rect r, SDL_Color colour, int thickness);
/* <<[[plumbing.h]] drawing>> */
enum { VIZ_SHOWN_MAX = 4096 };
void viz_text_shown(TTF_Font *font, const char *text, char *shown, size_t size);
/* <<[[plumbing.h]] pictures>> */
int viz_write_png(SDL_Surface *surface, const char *path);
int viz_save_png(viz_state *s, int width, int height, const char *path);
mha_status viz_next_png(viz_state *s, int width, int height, char *message, size_t size);
void viz_save_window(viz_state *s, SDL_Renderer *renderer, int width, int height);
/* <<[[plumbing.h]] options>> */
struct viz_options {
    const char *text, *screenshot, *record, *press;
    const char *mode;                    /* a mode's name; NULL: Austen's if found */
    const char *model;                   /* --model DIR: the Austen model's folder */
    size_t step, frames, quit_after, train_steps;
    int width, height;
    int size_given;                      /* --size: the window keeps it whatever the screen */
    int hover_row, hover_col;            /* --hover I,J, positions from 0; -1 if not given */
    int intro;                           /* --intro: the first explanation in pictures too */
    size_t steps_per_frame;              /* --steps-per-frame: training steps between frames */
};
int viz_parse_options(int argc, char **argv, struct viz_options *options);
void viz_press_keys(viz_state *s, const char *keys);
void viz_point_at(viz_state *s, int row, int col);   /* --hover: in the enlarged head */
void viz_settle(viz_state *s);     /* a picture waits for what the keys set measuring */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void viz_error(const char *format, ...);
#endif
