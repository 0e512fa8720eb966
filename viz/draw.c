/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <stdio.h>
#include <string.h>
#include "plumbing.h"

int viz_view_open(viz_view *view, SDL_Renderer *renderer)
{
    view->renderer = renderer;
    view->font = TTF_OpenFont(VIZ_FONT, 15);
    view->small = TTF_OpenFont(VIZ_FONT, 11);
    if (view->font == NULL || view->small == NULL) {
        viz_view_close(view);
        return -1;
    }
    return 0;
}

void viz_view_close(viz_view *view)
{
    if (view->font) TTF_CloseFont(view->font);
    if (view->small) TTF_CloseFont(view->small);
    view->font = view->small = NULL;
}
static SDL_Surface *quarter_turn(SDL_Surface *text)      /* (h, w) -> (w, h), reads upwards */
{
    const int w = text->w, h = text->h;
    SDL_Surface *up = SDL_CreateRGBSurfaceWithFormat(0, h, w, 32, text->format->format);
    if (up != NULL && text->format->BytesPerPixel == 4) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                memcpy((Uint8 *)up->pixels + (w - 1 - x) * up->pitch + 4 * y,
                       (const Uint8 *)text->pixels + y * text->pitch + 4 * x, 4);
    }
    SDL_FreeSurface(text);
    return up;
}

void viz_text(viz_view *v, TTF_Font *font, const char *s, int x, int y, int align,
              SDL_Color colour, int upwards)
{
    if (s[0] == '\0')
        return;
    SDL_Surface *surface = TTF_RenderUTF8_Blended(font, s, colour);
    const int w = surface ? surface->w : 0, h = surface ? surface->h : 0;   /* as read */
    if (surface != NULL && upwards)
        surface = quarter_turn(surface);
    SDL_Texture *texture = surface ? SDL_CreateTextureFromSurface(v->renderer, surface) : NULL;
    if (texture != NULL) {
        const int along = align == 0 ? 0 : align == 1 ? -w : -w / 2;   /* along the text */
        const SDL_Rect r = upwards ? (SDL_Rect){x - h / 2, y - along - w, h, w}
                                   : (SDL_Rect){x + along, y - h / 2, w, h};
        SDL_RenderCopy(v->renderer, texture, NULL, &r);
        SDL_DestroyTexture(texture);
    }
    SDL_FreeSurface(surface);
}
static int text_width(TTF_Font *font, const char *s)
{
    int w = 0;
    return TTF_SizeUTF8(font, s, &w, NULL) == 0 ? w : 0;
}

void viz_text_fit(viz_view *v, TTF_Font *font, const char *s, int x, int y, int width,
                  SDL_Color colour)
{
    char cut[1024];
    if (text_width(font, s) <= width) {
        viz_text(v, font, s, x, y, 0, colour, 0);
        return;
    }
    size_t n = strlen(s) < sizeof cut - 4 ? strlen(s) : sizeof cut - 4;
    do {
        while (n > 0 && ((unsigned char)s[--n] & 0xC0) == 0x80)
            ;                                        /* back to a character's first byte */
        memcpy(cut, s, n);
        memcpy(cut + n, "...", 4);
    } while (n > 0 && text_width(font, cut) > width);
    viz_text(v, font, cut, x, y, 0, colour, 0);
}

void viz_text_tail(viz_view *v, TTF_Font *font, const char *s, int x, int y, int width,
                   SDL_Color colour)
{
    char cut[1024];
    size_t from = 0;
    const size_t n = strlen(s);
    snprintf(cut, sizeof cut, "%s", s);
    while (from < n && text_width(font, cut) > width) {
        do from++; while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80);
        snprintf(cut, sizeof cut, "...%s", s + from);
    }
    viz_text(v, font, cut, x, y, 0, colour, 0);
}
void viz_fill(viz_view *v, SDL_Rect r, SDL_Color c)
{
    SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, c.a);
    SDL_RenderFillRect(v->renderer, &r);
}

void viz_outline(viz_view *v, SDL_Rect r, SDL_Color c, int thickness)
{
    SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, c.a);
    for (int k = 0; k < thickness; k++) {
        SDL_Rect o = {r.x - k, r.y - k, r.w + 2 * k, r.h + 2 * k};
        SDL_RenderDrawRect(v->renderer, &o);
    }
}
