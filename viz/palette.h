/* generated from chapters/12-viewer.nw, chapters/14-training-viewer.nw; edit the book, not this file */
#ifndef VIZ_PALETTE_H
#define VIZ_PALETTE_H
/* Every colour of the viewer, named by what it shows, and the colour maps
   that turn a weight into a colour.  palette.c defines them. */
#include <SDL.h>
#include "state.h"

/* <<[[palette.h]] colours>> */
extern const SDL_Color viz_background, viz_undecoded, viz_masked, viz_hatch, viz_veil, viz_box,
                       viz_ink, viz_dim, viz_emphasis, viz_alarm, viz_selected;
/* <<[[palette.h]] colours>> */
extern const SDL_Color viz_ink_on_light;
/* <<[[palette.h]] colours>> */
extern const SDL_Color viz_positive, viz_negative;
/* <<[[palette.h]] colours>> */
extern const SDL_Color viz_copy_source, viz_copy, viz_loss, viz_induction_score;
/* <<[[palette.h]] colours>> */
extern const SDL_Color viz_right_colour;       /* the prediction that comes true */
/* <<[[palette.h]] colours>> */
extern const SDL_Color viz_right_guess;
/* <<[[palette.h]] colour maps>> */
SDL_Color viz_colour(viz_colour_map map, double t);
extern const char *const viz_colour_map_names[VIZ_COLOUR_MAPS];
#endif
