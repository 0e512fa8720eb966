/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "plumbing.h"

/* <<[[draw.c]] functions>> */
int viz_view_scale(viz_view *view, float scale)
{
    if (view->font != NULL && scale == view->scale)
        return 0;
    TTF_Font *font = TTF_OpenFont(VIZ_FONT, (int)lroundf(15 * scale));
    TTF_Font *small = TTF_OpenFont(VIZ_FONT, (int)lroundf(11 * scale));
    if (font == NULL || small == NULL) {
        if (font) TTF_CloseFont(font);
        if (small) TTF_CloseFont(small);
        return -1;
    }
    viz_view_close(view);
    view->font = font, view->small = small, view->scale = scale;
    SDL_RenderSetScale(view->renderer, scale, scale);
    return 0;
}

int viz_view_open(viz_view *view, SDL_Renderer *renderer)
{
    *view = (viz_view){.renderer = renderer, .scale = 1};
    return viz_view_scale(view, 1);
}

void viz_text_size(viz_view *v, TTF_Font *font, const char *s, int *w, int *h)
{
    int pw = 0, ph = 0;
    char shown[VIZ_SHOWN_MAX];
    viz_text_shown(font, s, shown, sizeof shown);
    TTF_SizeUTF8(font, shown, &pw, &ph);
    if (w) *w = (int)lroundf(pw / v->scale);
    if (h) *h = (int)lroundf(ph / v->scale);
}

void viz_view_close(viz_view *view)
{
    if (view->font) TTF_CloseFont(view->font);
    if (view->small) TTF_CloseFont(view->small);
    view->font = view->small = NULL;
}
/* <<[[draw.c]] functions>> */
static size_t character(const unsigned char *u, Uint32 *c)    /* its bytes; *c, or 0 */
{
    const size_t n = u[0] < 0x80 ? 1 : (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3
                   : (u[0] & 0xF8) == 0xF0 ? 4 : 0;
    *c = n == 0 ? 0 : n == 1 ? u[0] : u[0] & (0x7Fu >> n);
    for (size_t k = 1; k < n; k++) {
        if ((u[k] & 0xC0) != 0x80) {
            *c = 0;
            return 1;
        }
        *c = *c << 6 | (u[k] & 0x3Fu);
    }
    return n == 0 ? 1 : n;
}

void viz_text_shown(TTF_Font *font, const char *text, char *shown, size_t size)
{
    size_t used = 0;
    const unsigned char *u = (const unsigned char *)text;
    while (*u != '\0' && used + 16 < size) {
        Uint32 c;
        const size_t n = character(u, &c);
        if (c != 0 && (c < 0x80 || TTF_GlyphIsProvided32(font, c))) {
            memcpy(shown + used, u, n);
            used += n;
        } else {
            shown[used++] = '<';
            for (size_t k = 0; k < n; k++)
                used += (size_t)snprintf(shown + used, size - used, k ? " %02x" : "%02x", u[k]);
            shown[used++] = '>';
        }
        u += n;
    }
    shown[used] = '\0';
}
/* <<[[draw.c]] functions>> */
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
    char shown[VIZ_SHOWN_MAX];
    viz_text_shown(font, s, shown, sizeof shown);
    SDL_Surface *surface = TTF_RenderUTF8_Blended(font, shown, colour);
    const float w = surface ? surface->w / v->scale : 0, h = surface ? surface->h / v->scale : 0;
    if (surface != NULL && upwards)
        surface = quarter_turn(surface);
    SDL_Texture *texture = surface ? SDL_CreateTextureFromSurface(v->renderer, surface) : NULL;
    if (texture != NULL) {                  /* w, h: the text as read, in layout pixels */
        const float along = align == 0 ? 0 : align == 1 ? -w : -w / 2;   /* along the text */
        const SDL_FRect r = upwards ? (SDL_FRect){x - h / 2, y - along - w, h, w}
                                    : (SDL_FRect){x + along, y - h / 2, w, h};
        SDL_RenderCopyF(v->renderer, texture, NULL, &r);
        SDL_DestroyTexture(texture);
    }
    SDL_FreeSurface(surface);
}
/* <<[[draw.c]] functions>> */
static int text_width(viz_view *v, TTF_Font *font, const char *s)
{
    int w = 0;
    viz_text_size(v, font, s, &w, NULL);
    return w;
}

void viz_text_fit(viz_view *v, TTF_Font *font, const char *s, int x, int y, int width,
                  SDL_Color colour)
{
    char cut[1024];
    if (text_width(v, font, s) <= width) {
        viz_text(v, font, s, x, y, 0, colour, 0);
        return;
    }
    size_t n = strlen(s) < sizeof cut - 4 ? strlen(s) : sizeof cut - 4;
    do {
        while (n > 0 && ((unsigned char)s[--n] & 0xC0) == 0x80)
            ;                                        /* back to a character's first byte */
        memcpy(cut, s, n);
        memcpy(cut + n, "...", 4);
    } while (n > 0 && text_width(v, font, cut) > width);
    viz_text(v, font, cut, x, y, 0, colour, 0);
}

void viz_text_tail(viz_view *v, TTF_Font *font, const char *s, int x, int y, int width,
                   SDL_Color colour)
{
    char cut[1024];
    size_t from = 0;
    const size_t n = strlen(s);
    snprintf(cut, sizeof cut, "%s", s);
    while (from < n && text_width(v, font, cut) > width) {
        do from++; while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80);
        snprintf(cut, sizeof cut, "...%s", s + from);
    }
    viz_text(v, font, cut, x, y, 0, colour, 0);
}
/* <<[[draw.c]] functions>> */
void viz_fill(viz_view *v, SDL_Rect r, SDL_Color c)
{
    SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, c.a);
    const float s = v->scale;
    if (s == floorf(s)) {
        SDL_RenderFillRect(v->renderer, &r);
        return;
    }
    const int x0 = (int)lroundf(r.x * s), y0 = (int)lroundf(r.y * s);   /* window pixels */
    const SDL_Rect p = {x0, y0, (int)lroundf((r.x + r.w) * s) - x0,
                        (int)lroundf((r.y + r.h) * s) - y0};
    SDL_RenderSetScale(v->renderer, 1, 1);
    SDL_RenderFillRect(v->renderer, &p);
    SDL_RenderSetScale(v->renderer, s, s);
}

void viz_outline(viz_view *v, SDL_Rect r, SDL_Color c, int thickness)
{
    SDL_SetRenderDrawColor(v->renderer, c.r, c.g, c.b, c.a);
    for (int k = 0; k < thickness; k++) {
        SDL_Rect o = {r.x - k, r.y - k, r.w + 2 * k, r.h + 2 * k};
        SDL_RenderDrawRect(v->renderer, &o);
    }
}
