/* generated from chapters/12-viewer.nw, chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include "palette.h"

/* <<[[palette.c]] colours>> */
const SDL_Color viz_background = {24, 24, 28, 255}, viz_undecoded = {52, 52, 60, 255},
                viz_masked = {30, 30, 34, 255}, viz_hatch = {110, 110, 120, 255},
                viz_veil = {0, 0, 0, 150}, viz_box = {8, 8, 10, 255},
                viz_ink = {230, 230, 230, 255}, viz_dim = {150, 150, 160, 255},
                viz_emphasis = {255, 255, 255, 255}, viz_alarm = {255, 90, 90, 255},
                viz_selected = {255, 140, 0, 255};
/* <<[[palette.c]] colours>> */
const SDL_Color viz_ink_on_light = {0, 0, 0, 255};
/* <<[[palette.c]] colours>> */
const SDL_Color viz_positive = {250, 160, 60, 255}, viz_negative = {90, 150, 250, 255};
/* <<[[palette.c]] colours>> */
const SDL_Color viz_copy_source = {110, 170, 255, 255}, viz_copy = {250, 210, 80, 255},
                viz_loss = {255, 160, 60, 255}, viz_induction_score = {240, 90, 110, 255};
/* <<[[palette.c]] colours>> */
const SDL_Color viz_right_colour = {40, 170, 90, 255};
/* <<[[palette.c]] colours>> */
const SDL_Color viz_right_guess = {40, 130, 70, 255};
/* <<[[palette.c]] colour maps>> */
static const Uint8 viridis[11][3] = {
    {68, 1, 84},    {72, 36, 117},  {65, 68, 135},  {53, 95, 141},
    {42, 120, 142}, {33, 145, 140}, {34, 168, 132}, {68, 191, 112},
    {122, 209, 81}, {189, 223, 38}, {253, 231, 37},
};
static const Uint8 cividis[10][3] = {
    {0, 32, 77},     {0, 51, 111},    {57, 72, 107},   {87, 92, 109},   {112, 113, 115},
    {138, 135, 121}, {166, 157, 117}, {196, 181, 108}, {228, 207, 91},  {255, 234, 70},
};
static const SDL_Color not_a_number = {255, 0, 255, 255};
const char *const viz_colour_map_names[VIZ_COLOUR_MAPS] = {"viridis", "cividis", "grey"};
/* <<[[palette.c]] colour maps>> */
static SDL_Color sample(const Uint8 (*table)[3], int n, double t)
{
    const double x = t * (n - 1);
    const int i = x >= n - 1 ? n - 2 : (int)x;
    const double f = x - i;
    SDL_Color c = {0, 0, 0, 255};
    c.r = (Uint8)lround((1 - f) * table[i][0] + f * table[i + 1][0]);
    c.g = (Uint8)lround((1 - f) * table[i][1] + f * table[i + 1][1]);
    c.b = (Uint8)lround((1 - f) * table[i][2] + f * table[i + 1][2]);
    return c;
}

SDL_Color viz_colour(viz_colour_map map, double t)
{
    if (isnan(t))
        return not_a_number;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    if (map == VIZ_CIVIDIS)
        return sample(cividis, 10, t);
    if (map == VIZ_GREY) {
        const Uint8 v = (Uint8)lround(255 * t);
        return (SDL_Color){v, v, v, 255};
    }
    return sample(viridis, 11, t);
}
