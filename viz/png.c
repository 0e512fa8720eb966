/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <SDL_image.h>
#include "layer_files.h"
#include "output.h"
#include "viz.h"

/* <<[[png.c]] functions>> */
static int png_to_stream(FILE *file, void *surface)
{
    SDL_RWops *rw = SDL_RWFromFP(file, SDL_FALSE);
    const int status = rw != NULL ? IMG_SavePNG_RW(surface, rw, 0) : -1;
    if (rw != NULL)
        SDL_RWclose(rw);                              /* frees rw; the file stays open */
    return status;
}

int viz_write_png(SDL_Surface *surface, const char *path)
{
    char message[MHA_PATH_SIZE + 256];
    if (mha_output_file(path, png_to_stream, surface, message, sizeof message) != MHA_OK)
        return SDL_SetError("%s", message);
    return 0;
}
/* <<[[png.c]] functions>> */
static SDL_Surface *draw_picture(viz_state *s, int width, int height)
{
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, width, height, 32,
                                                          SDL_PIXELFORMAT_RGBA32);
    SDL_Renderer *renderer = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
    viz_view view = {0};
    int drawn = 0;
    const float scale = viz_scale(width, height, viz_mode_zoom(s));
    if (renderer != NULL && viz_view_open(&view, renderer) == 0 &&
        viz_view_scale(&view, scale) == 0) {
        viz_layout layout;
        viz_layout_compute(s, (int)(width / scale), (int)(height / scale), &layout);
        viz_draw(&view, s, &layout);
        SDL_RenderPresent(renderer);
        drawn = 1;
        viz_view_close(&view);
    }
    if (renderer) SDL_DestroyRenderer(renderer);
    if (!drawn) {
        SDL_FreeSurface(surface);
        return NULL;
    }
    return surface;
}

int viz_save_png(viz_state *s, int width, int height, const char *path)
{
    SDL_Surface *surface = draw_picture(s, width, height);
    int status = -1;
    if (surface == NULL) {                           /* SDL's error does not name the file */
        char why[512];
        snprintf(why, sizeof why, "%s", SDL_GetError());
        SDL_SetError("%s: %s", path, why);
    } else if (strcmp(path, "-") != 0) {
        status = viz_write_png(surface, path);       /* its error names the file */
    } else if (png_to_stream(stdout, surface) != 0 || fflush(stdout) != 0 || ferror(stdout)) {
        SDL_SetError("standard output: %s", errno != 0 ? strerror(errno) : SDL_GetError());
    } else {
        status = 0;
    }
    SDL_FreeSurface(surface);
    return status;
}
/* <<[[png.c]] functions>> */
mha_status viz_next_png(viz_state *s, int width, int height, char *message, size_t size)
{
    SDL_Surface *surface = draw_picture(s, width, height);
    if (surface == NULL) {
        snprintf(message, size, "cannot draw a frame: %s", SDL_GetError());
        return MHA_ERR_IO;
    }
    const mha_status status = mha_output_stream(png_to_stream, surface, message, size);
    SDL_FreeSurface(surface);
    return status;
}
/* <<[[png.c]] functions>> */
static int claim_free_name(char *path, size_t size)
{
    static int next = 1;                              /* the names below it are taken */
    for (; next <= 999999; next++) {
        snprintf(path, size, "mha-viz-%03d.png", next);
        const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            next++;
            return 0;
        }
        if (errno != EEXIST)
            return SDL_SetError("%s: %s", path, strerror(errno));
    }
    return SDL_SetError("mha-viz-001.png to mha-viz-999999.png all exist");
}
/* <<[[png.c]] functions>> */
void viz_save_window(viz_state *s, SDL_Renderer *renderer, int w, int h)
{
    char path[64];
    SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
    const int read = surface != NULL &&
        SDL_RenderReadPixels(renderer, NULL, SDL_PIXELFORMAT_RGBA32, surface->pixels,
                             surface->pitch) == 0;
    const int claimed = read && claim_free_name(path, sizeof path) == 0;
    const int ok = claimed && viz_write_png(surface, path) == 0;
    if (ok)
        snprintf(s->news, sizeof s->news, "saved %s", path);
    else
        snprintf(s->message, sizeof s->message, "could not save: %s", SDL_GetError());
    if (claimed && !ok)
        unlink(path);                                 /* the empty file claimed */
    SDL_FreeSurface(surface);
    s->save_requested = 0;
}
