/* generated from chapters/14-training-viewer.nw, chapters/49-tests-austen-viewer.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "austen.h"
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
    /* <<tick like a window until the run after a reset has two steps>> */
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
    /* <<race the held-out loss against the window>> */
    {
        char path[] = "/tmp/mha-race-valid-XXXXXX", message[600] = "";
        const int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        for (int k = 0; f != NULL && k < 40; k++)
            fputs("It is a truth universally acknowledged, that a single man in possession of a "
                  "good fortune, must be in want of a wife.\n", f);
        if (f != NULL)
            fclose(f);
        viz_austen *a = malloc(sizeof *a);
        if (a == NULL || viz_austen_load(a, "models/austen", path, message, sizeof message) != MHA_OK ||
            a->valid == NULL || viz_austen_switch_head(a, 3) != MHA_OK ||
            viz_austen_switch_head(a, 9) != MHA_OK) {
            fprintf(stderr, "race: the Austen model: %s\n", message);
            unlink(path);
            return 1;
        }
        unlink(path);
        size_t measuring = 0;
        for (; a->updating; measuring++) {
            viz_austen_take_loss(a, 0);
            SDL_Delay(2);
            if (measuring == 20 && viz_austen_restore(a) != MHA_OK)
                return 1;
        }
        printf("race: %zu frames while the loss was measured; %.3f\n", measuring, a->loss);
        viz_austen_free(a);
        free(a);
    }
    viz_free(&s);
    return 0;
}
