/* generated from chapters/42-tests-viewer.nw; edit the book, not this file */
#ifndef FRAME_H
#define FRAME_H
/* The viewer's tests draw whole frames off screen and read their pixels. */
#include <SDL.h>
#include "viz.h"

/* The frame of s at width x height, drawn by the software renderer into a new
   RGBA32 surface, which the caller frees with SDL_FreeSurface. */
SDL_Surface *frame_draw(viz_state *s, int width, int height);
/* The capital height, in window pixels, of the smallest text of s in a window of that
   size: the font the window opens at the scale it draws with */
int frame_small_capital(viz_state *s, int width, int height);
SDL_Color frame_pixel(SDL_Surface *surface, int x, int y);
int frame_same(SDL_Color a, SDL_Color b);                      /* red, green and blue */
int frame_count(SDL_Surface *surface, SDL_Rect r, SDL_Color c);  /* pixels of c in r */
#endif
