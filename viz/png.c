/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <SDL_image.h>
#include "viz.h"

int viz_write_png(SDL_Surface *surface, const char *path)
{
    struct stat before;
    const int existed = stat(path, &before) == 0;
    FILE *file = fopen(path, "wb");
    if (file == NULL)
        return SDL_SetError("%s", strerror(errno));
    SDL_RWops *rw = SDL_RWFromFP(file, SDL_FALSE);
    int status = rw != NULL ? IMG_SavePNG_RW(surface, rw, 0) : -1;
    int error = ferror(file) ? errno : 0;             /* why a buffered write failed */
    if (rw != NULL)
        SDL_RWclose(rw);                              /* frees rw; the file stays open */
    if (fflush(file) != 0 && error == 0)
        error = errno;
    int failed = status != 0 || error != 0 || ferror(file);
    if (fclose(file) != 0 && !failed)
        failed = 1, error = errno;
    if (failed && (error != 0 || status == 0))
        SDL_SetError("%s", strerror(error != 0 ? error : EIO));
    if (failed && !existed)
        remove(path);
    return failed ? -1 : 0;
}
int viz_save_png(viz_state *s, int width, int height, const char *path)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
    viz_view view = {0};
    int status = -1;
    const float scale = viz_scale(width, height, s->zoom);
    if (renderer != NULL && viz_view_open(&view, renderer) == 0 &&
        viz_view_scale(&view, scale) == 0) {
        viz_layout layout;
        viz_layout_compute(s, (int)(width / scale), (int)(height / scale), &layout);
        viz_draw(&view, s, &layout);
        SDL_RenderPresent(renderer);
        status = viz_write_png(surface, path);
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
                             surface->pitch) == 0 && viz_write_png(surface, path) == 0;
    if (ok)
        snprintf(s->news, sizeof s->news, "saved %s", path);
    else
        snprintf(s->message, sizeof s->message, "could not save %s: %s", path, SDL_GetError());
    SDL_FreeSurface(surface);
    s->save_requested = 0;
}
