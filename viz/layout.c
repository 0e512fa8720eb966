/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <math.h>
#include "viz.h"

enum { MARGIN = 14, TOP = 44, BOTTOM = 112, TITLE = 20, LABELS_LEFT = 110, LABELS_TOP = 136,
       CAPTION = 44, LEGEND = 70 };

static int smaller(int a, int b) { return a < b ? a : b; }
static int at_least(int a, int b) { return a > b ? a : b; }

void viz_layout_compute(const viz_state *s, int width, int height, viz_layout *l)
{
    (void)s;
    l->width = width;
    l->height = height;
    const int rows = (VIZ_HEADS + 1) / 2, left = width * 34 / 100;
    const int avail = height - TOP - BOTTOM;
    const int side = at_least(8, smaller((left - 3 * MARGIN) / 2,
                                         (avail - rows * (TITLE + MARGIN)) / rows));
    for (int h = 0; h < VIZ_HEADS; h++)
        l->grid[h] = (SDL_Rect){MARGIN + (h % 2) * (side + MARGIN),
                                TOP + (h / 2) * (side + TITLE + MARGIN) + TITLE, side, side};
    const int bx = left + MARGIN + LABELS_LEFT, by = TOP + LABELS_TOP;
    const int big = at_least(8, smaller(width - bx - MARGIN - LEGEND,
                                        height - BOTTOM - by - MARGIN));
    l->big = (SDL_Rect){bx, by, big, big};
    l->caption = (SDL_Rect){left + MARGIN, TOP, width - left - 2 * MARGIN, CAPTION};
    l->legend = (SDL_Rect){bx + big + 18, by, 18, big};
    l->status_y = height - BOTTOM + 8;
    l->slider = (SDL_Rect){MARGIN + 150, l->status_y + 79, 220, 10};
}
SDL_Rect viz_cell(const SDL_Rect *map, size_t L, size_t i, size_t j)
{
    const int x0 = map->x + (int)(j * (size_t)map->w / L);
    const int x1 = map->x + (int)((j + 1) * (size_t)map->w / L);
    const int y0 = map->y + (int)(i * (size_t)map->h / L);
    const int y1 = map->y + (int)((i + 1) * (size_t)map->h / L);
    return (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
}

int viz_hit(const viz_layout *l, const viz_state *s, int x, int y, int *head, int *row, int *col)
{
    for (int m = 0; m <= VIZ_HEADS; m++) {
        const SDL_Rect *r = m < VIZ_HEADS ? &l->grid[m] : &l->big;
        if (x < r->x || y < r->y || x >= r->x + r->w || y >= r->y + r->h)
            continue;
        *head = m < VIZ_HEADS ? m : (int)s->focus;
        *col = (int)((size_t)(x - r->x) * s->length / (size_t)r->w);
        *row = (int)((size_t)(y - r->y) * s->length / (size_t)r->h);
        return m < VIZ_HEADS ? 1 : 2;
    }
    return 0;
}
float viz_scale(int width, int height, double zoom)
{
    float scale = (float)((height >= 900 ? height / 720.0 : 1.0) * zoom);
    const float most = fminf((float)width / VIZ_MIN_WIDTH, (float)height / VIZ_MIN_HEIGHT);
    scale = scale > most ? most : scale;
    return scale < 1 ? 1 : scale;
}
