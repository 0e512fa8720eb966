/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <stdio.h>
#include "training.h"

static void press(viz_state *s, SDL_Keycode sym)
{
    SDL_Event e = {.type = SDL_KEYDOWN};
    e.key.keysym.sym = sym;
    viz_handle_event(s, &e, NULL);
}

int main(void)
{
    viz_state s;
    if (viz_init(&s, NULL) != MHA_OK || viz_switch_mode(&s, &viz_training_mode) != MHA_OK) {
        fprintf(stderr, "race: cannot start training: %s\n", s.message);
        return 1;
    }
    viz_training *g = viz_training_of(&s);
    viz_trainer_request(&g->trainer, -1, 0, 2);
    size_t frames = 0;
    int reset = 0;
    while (!reset || g->view.step < 2) {
        viz_tick(&s, 0.002);
        SDL_Delay(2);
        frames++;
        if (frames == 5) { press(&s, SDLK_SPACE); press(&s, SDLK_SPACE); }   /* pause, resume */
        if (!reset && g->view.step >= 1) { press(&s, SDLK_r); reset = 1; }
    }
    printf("race: %zu frames while the worker trained, paused and reset; %zu steps\n",
           frames, g->view.step);
    viz_free(&s);
    return 0;
}
