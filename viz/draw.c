/* generated from chapters/28-viewer-plumbing.nw; edit the book, not this file */
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
void viz_text(viz_view *v, TTF_Font *font, const char *s, int x, int y, int align,
              SDL_Color colour, int upwards)
{
    if (s[0] == '\0')
        return;
    SDL_Surface *surface = TTF_RenderUTF8_Blended(font, s, colour);
    SDL_Texture *texture = surface ? SDL_CreateTextureFromSurface(v->renderer, surface) : NULL;
    if (texture != NULL) {
        const int w = surface->w, h = surface->h;
        const int along = align == 0 ? 0 : align == 1 ? -w : -w / 2;   /* along the text */
        SDL_Rect r = upwards ? (SDL_Rect){x - w / 2, y - along - w / 2 - h / 2, w, h}
                             : (SDL_Rect){x + along, y - h / 2, w, h};
        SDL_RenderCopyEx(v->renderer, texture, NULL, &r, upwards ? -90.0 : 0.0, NULL,
                         SDL_FLIP_NONE);
        SDL_DestroyTexture(texture);
    }
    SDL_FreeSurface(surface);
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
