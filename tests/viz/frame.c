/* generated from chapters/42-tests-viewer.nw; edit the book, not this file */
#include <criterion/criterion.h>
#include <SDL_ttf.h>
#include "frame.h"

SDL_Color frame_pixel(SDL_Surface *surface, int x, int y)
{
    const Uint8 *p = (const Uint8 *)surface->pixels + y * surface->pitch + 4 * x;
    return (SDL_Color){p[0], p[1], p[2], p[3]};        /* SDL_PIXELFORMAT_RGBA32 */
}

int frame_same(SDL_Color a, SDL_Color b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

SDL_Surface *frame_draw(viz_state *s, int width, int height)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0);
    viz_layout l;
    viz_layout_compute(s, width, height, &l);
    viz_draw(&view, s, &l);
    SDL_RenderPresent(renderer);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    TTF_Quit();
    return surface;
}

int frame_small_capital(viz_state *s, int width, int height)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = SDL_CreateSoftwareRenderer(surface);
    viz_view view = {0};
    const float scale = viz_scale(width, height, viz_mode_zoom(s));    /* as the window's */
    cr_assert(TTF_Init() == 0 && renderer && viz_view_open(&view, renderer) == 0 &&
              viz_view_scale(&view, scale) == 0);
    int minx, maxx, miny, maxy, advance;
    cr_assert_eq(TTF_GlyphMetrics(view.small, 'H', &minx, &maxx, &miny, &maxy, &advance), 0);
    viz_view_close(&view);
    SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    TTF_Quit();
    return maxy - miny;
}

int frame_count(SDL_Surface *surface, SDL_Rect r, SDL_Color c)
{
    int n = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            n += frame_same(frame_pixel(surface, x, y), c);
    return n;
}
