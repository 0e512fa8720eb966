/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <math.h>
#include "viz.h"

enum { MARGIN = 14, TOP = 44, BOTTOM = 112, TITLE = 20, LABELS_LEFT = 110, LABELS_TOP = 136,
       CAPTION = 44, LEGEND = 70, WORD_W = 64, WORD_H = 20, WORDS_TITLE = 22,
       BREAKDOWN_MIN = 190, ZOOMED_BOTTOM = 40 };

static int smaller(int a, int b) { return a < b ? a : b; }
static int at_least(int a, int b) { return a > b ? a : b; }

/* <<[[layout.c]] functions>> */
void viz_layout_compute(const viz_state *s, int width, int height, viz_layout *l)
{
    *l = (viz_layout){.width = width, .height = height, .word_columns = 1};
    if (s->zoom > 1) {
        /* <<lay out the enlarged map alone, for a projector>> */
        const int bx = MARGIN + LABELS_LEFT, by = TOP + LABELS_TOP;
        const int big = at_least(8, smaller(width - bx - MARGIN - LEGEND - 40,
                                            height - ZOOMED_BOTTOM - by - MARGIN));
        l->big = (SDL_Rect){bx, by, big, big};
        l->caption = (SDL_Rect){MARGIN, TOP, width - 2 * MARGIN, CAPTION};
        l->legend = (SDL_Rect){bx + big + 18, by, 18, big};
        l->status_y = height - ZOOMED_BOTTOM + 8;
        return;
    }
    const int rows = (VIZ_HEADS + 1) / 2, left = width * 30 / 100;
    const int explain = smaller(400, at_least(170, width * 22 / 100));   /* the right column */
    const int avail = height - TOP - BOTTOM;
    const int side = at_least(8, smaller((left - 3 * MARGIN) / 2,
                                         (avail - rows * (TITLE + MARGIN)) / rows));
    for (int h = 0; h < VIZ_HEADS; h++) {
        l->grid[h] = (SDL_Rect){MARGIN + (h % 2) * (side + MARGIN),
                                TOP + (h / 2) * (side + TITLE + MARGIN) + TITLE, side, side};
        l->titles[h] = (SDL_Rect){l->grid[h].x, l->grid[h].y - TITLE + 2, side + MARGIN - 4,
                                  TITLE - 4};
    }
    const int bx = left + MARGIN + LABELS_LEFT, by = TOP + LABELS_TOP;
    const int big = at_least(8, smaller(width - bx - MARGIN - LEGEND - explain,
                                        height - BOTTOM - by - MARGIN));
    l->big = (SDL_Rect){bx, by, big, big};
    l->caption = (SDL_Rect){left + MARGIN, TOP, width - left - 2 * MARGIN, CAPTION};
    l->legend = (SDL_Rect){bx + big + 18, by, 18, big};
    l->status_y = height - BOTTOM + 8;
    l->slider = (SDL_Rect){MARGIN + 230, l->status_y + 79, 220, 10};   /* after its label */
    /* <<place the words and the breakdown in the right column>> */
    const int x = l->legend.x + l->legend.w + 40, w = width - MARGIN - x;
    const int top = TOP + CAPTION + 8;
    const int most_lines = at_least(1, (l->status_y - 20 - top - WORDS_TITLE - BREAKDOWN_MIN) /
                                       WORD_H);
    const int needed = (int)((s->length + (size_t)most_lines - 1) / (size_t)most_lines);
    const int columns = smaller(8, at_least(needed, at_least(1, smaller(4, w / WORD_W))));
    const int lines = (int)((s->length + (size_t)columns - 1) / (size_t)columns);
    l->word_columns = columns;
    l->words = (SDL_Rect){x, top, w, WORDS_TITLE + lines * WORD_H};
    l->breakdown = (SDL_Rect){x, l->words.y + l->words.h + 12, w,
                              at_least(8, l->status_y - 8 - (l->words.y + l->words.h + 12))};
}
/* <<[[layout.c]] functions>> */
SDL_Rect viz_word_box(const viz_layout *l, size_t k)
{
    const int columns = l->word_columns, w = l->words.w / columns;
    return (SDL_Rect){l->words.x + (int)(k % (size_t)columns) * w,
                      l->words.y + WORDS_TITLE + (int)(k / (size_t)columns) * WORD_H,
                      w - 4, WORD_H - 3};
}

int viz_hit_word(const viz_layout *l, const viz_state *s, int x, int y)
{
    for (size_t k = 0; k < s->length; k++) {
        const SDL_Rect r = viz_word_box(l, k);
        if (x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h)
            return (int)k;
    }
    return -1;
}
/* <<[[layout.c]] functions>> */
SDL_Rect viz_cell(const SDL_Rect *map, size_t L, size_t i, size_t j)
{
    const int x0 = map->x + (int)(j * (size_t)map->w / L);
    const int x1 = map->x + (int)((j + 1) * (size_t)map->w / L);
    const int y0 = map->y + (int)(i * (size_t)map->h / L);
    const int y1 = map->y + (int)((i + 1) * (size_t)map->h / L);
    return (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
}

int viz_maps_hit(const SDL_Rect *maps, int count, const SDL_Rect *big, size_t L, size_t focus,
                 int x, int y, int *head, int *row, int *col)
{
    for (int m = 0; m <= count; m++) {
        const SDL_Rect *r = m < count ? &maps[m] : big;
        if (x < r->x || y < r->y || x >= r->x + r->w || y >= r->y + r->h)
            continue;
        *head = m < count ? m : (int)focus;
        *col = (int)((size_t)(x - r->x) * L / (size_t)r->w);
        *row = (int)((size_t)(y - r->y) * L / (size_t)r->h);
        return m < count ? 1 : 2;
    }
    return 0;
}

int viz_hit(const viz_layout *l, const viz_state *s, int x, int y, int *head, int *row, int *col)
{
    return viz_maps_hit(l->grid, VIZ_HEADS, &l->big, s->length, s->focus, x, y, head, row, col);
}
/* <<[[layout.c]] functions>> */
float viz_scale(int width, int height, double zoom)
{
    float scale = (float)((height >= 900 ? height / 720.0 : 1.0) * zoom);
    const float most = fminf((float)width / VIZ_MIN_WIDTH, (float)height / VIZ_MIN_HEIGHT);
    scale = scale > most ? most : scale;
    return scale < 1 ? 1 : scale;
}

int viz_map_pixels(const viz_state *s, int width, int height, double zoom)
{
    viz_state zoomed = *s;                   /* a shallow copy, read only by the layout */
    zoomed.zoom = zoom;
    const float scale = viz_scale(width, height, zoom);
    viz_layout l;
    viz_layout_compute(&zoomed, (int)(width / scale), (int)(height / scale), &l);
    return (int)lroundf(l.big.w * scale);
}
