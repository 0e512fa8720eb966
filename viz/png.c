/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <stdio.h>
#include <SDL_image.h>
#include "viz.h"

int viz_save_png(viz_state *s, int width, int height, const char *path)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
    viz_view view = {0};
    int status = -1;
    if (renderer != NULL && viz_view_open(&view, renderer) == 0) {
        viz_layout layout;
        viz_layout_compute(s, width, height, &layout);
        viz_draw(&view, s, &layout);
        SDL_RenderPresent(renderer);
        status = IMG_SavePNG(surface, path);
        viz_view_close(&view);
    }
    if (renderer) SDL_DestroyRenderer(renderer);
    SDL_FreeSurface(surface);
    return status;
}
void viz_save_window(viz_state *s, SDL_Renderer *renderer, int w, int h)
{
    static int count = 0;
    char path[64];
    snprintf(path, sizeof path, "mha-viz-%03d.png", ++count);
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
    const int ok = surface != NULL &&
        SDL_RenderReadPixels(renderer, NULL, SDL_PIXELFORMAT_RGBA32, surface->pixels,
                             surface->pitch) == 0 && IMG_SavePNG(surface, path) == 0;
    snprintf(s->message, sizeof s->message, ok ? "saved %s" : "could not save %s", path);
    SDL_FreeSurface(surface);
    s->save_requested = 0;
}
