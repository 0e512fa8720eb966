/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "training.h"

/* <<[[learning_modes.c]] functions>> */
static mha_status enter_trained(viz_state *s, void **data)
{
    viz_trained *m = *data;
    if (m == NULL) {
        char why[VIZ_WHY_SIZE] = "";
        mha_status status = (m = malloc(sizeof *m)) != NULL
            ? viz_trained_load(m, viz_model_dir(), why, sizeof why)
            : MHA_ERR_NOMEM;
        if (status != MHA_OK) {
            if (why[0] != '\0')
                viz_fit_message(s->message, sizeof s->message, why);
            free(m);
            return status;
        }
        *data = m;
    }
    m->focus = (m->model.layers - 1) * m->model.heads;      /* the last layer's first head */
    return MHA_OK;
}
/* <<[[learning_modes.c]] functions>> */
static void type_letters(viz_state *s, viz_trained *m, const viz_action *a)
{
    size_t n = strlen(s->typed);
    switch (a->kind) {
    case VIZ_START_TYPING: s->typing = 1; s->typed[0] = '\0'; break;
    case VIZ_TYPE:
        if (n + strlen(a->text) < sizeof s->typed)
            strcat(s->typed, a->text);
        break;
    case VIZ_ERASE:
        while (n > 0 && ((unsigned char)s->typed[--n] & 0xC0) == 0x80)
            ;
        s->typed[n] = '\0';
        break;
    case VIZ_ACCEPT:
        if (viz_trained_set_text(m, s->typed, s->message, sizeof s->message) == MHA_OK)
            s->typing = 0, s->playing = 0, s->selected = -1;
        break;
    default: s->typing = 0; s->message[0] = '\0'; break;
    }
}

static void act_trained(viz_state *s, void *data, const viz_action *a)
{
    viz_trained *m = data;
    switch (a->kind) {
    case VIZ_START_TYPING: case VIZ_TYPE: case VIZ_ERASE: case VIZ_ACCEPT: case VIZ_CANCEL:
        type_letters(s, m, a); break;
    case VIZ_REMOVE_HEAD:
        if (viz_trained_switch_head(m, m->focus) != MHA_OK)
            snprintf(s->message, sizeof s->message, "x: no head %zu to remove", m->focus);
        break;
    case VIZ_RESTORE_HEADS: viz_trained_restore(m); break;
    case VIZ_PLAY_PAUSE: s->playing = !s->playing; s->since_step = 0; break;
    case VIZ_STEP_FORWARD: s->playing = 0; viz_trained_go_to(m, m->step + 1); break;
    case VIZ_STEP_BACK: s->playing = 0; viz_trained_go_to(m, m->step - 1); break;
    case VIZ_FIRST_TOKEN: viz_trained_go_to(m, 1); break;
    case VIZ_NEW_SEQUENCE: viz_trained_new_sequence(m); break;
    case VIZ_NEXT_FOCUS: m->focus = (m->focus + 1) % (m->model.layers * m->model.heads);
        break;
    case VIZ_FOCUS_HEAD: m->focus = (size_t)a->head; break;
    case VIZ_POINT: s->hover_head = a->head; s->hover_row = a->row; s->hover_col = a->col; break;
    case VIZ_SELECT: s->selected = a->row; break;
    default: break;
    }
}

static int hit_trained(const viz_state *s, const void *data, int width, int height, int x,
                       int y, int *head, int *row, int *col)
{
    const viz_trained *m = data;
    viz_learning_layout l;
    (void)s;
    viz_learning_layout_for(width, height, m->model.layers, m->model.heads, m->model.length, &l);
    return viz_learning_hit(&l, m->focus, x, y, head, row, col);
}

static mha_status start_trained(viz_state *s, void *data, const viz_start *how)
{
    (void)s;
    if (how->step != 0)
        viz_trained_go_to(data, how->step);
    return MHA_OK;
}
/* <<[[learning_modes.c]] functions>> */
static int tick_trained(viz_state *s, void *data, double seconds)
{
    viz_trained *m = data;
    if (!s->playing || (s->since_step += seconds) < 1.0 / s->speed)
        return 0;
    s->since_step = 0;
    viz_trained_go_to(m, m->step >= m->used ? 1 : m->step + 1);
    return 1;
}

static int trained_busy(const viz_state *s, const void *data)
{
    (void)data;
    return s->playing;
}

static void free_trained(void *data)
{
    viz_trained_free(data);
    free(data);
}

const viz_mode viz_trained_mode = {
    .name = "trained", .key = 'l',
    .help = "the trained model on a repeated sequence; n: another",
    .enter = enter_trained, .start = start_trained, .act = act_trained, .tick = tick_trained,
    .busy = trained_busy, .hit = hit_trained, .draw = viz_draw_trained, .free = free_trained,
};
/* <<[[learning_modes.c]] functions>> */
static mha_status enter_training(viz_state *s, void **data)
{
    viz_training *g = *data;
    if (g == NULL) {
        if ((g = calloc(1, sizeof *g)) == NULL)
            return MHA_ERR_NOMEM;
        /* <<make the trainer and the window's snapshot, and start the worker>> */
        mha_status status = viz_trainer_init(&g->trainer, mha_trainer_defaults.seed);
        if (status == MHA_OK &&
            (status = viz_snapshot_init(&g->view, g->trainer.run.model.count,
                                        VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS * VIZ_LEARN_LENGTH *
                                        VIZ_LEARN_LENGTH)) != MHA_OK)
            viz_trainer_free(&g->trainer);
        if (status != MHA_OK) {
            snprintf(s->message, sizeof s->message, "training: %s", mha_status_message(status));
            free(g);
            return status;
        }
        /* <<make a model that reads the window's snapshot, for the predictions>> */
        const mha_trainer_config *c = &g->trainer.run.config;
        g->model = (mha_induction_model){.vocab = c->vocab, .length = c->length,
                                     .embed_dim = c->embed_dim, .heads = c->heads,
                                     .layers = c->layers, .count = g->view.count,
                                     .params = g->view.params};
        g->predicted_step = (size_t)-1;
        if (mha_learning_workspace_init(&g->ws, &g->model, 1) != MHA_OK) {
            viz_snapshot_free(&g->view);
            viz_trainer_free(&g->trainer);
            free(g);
            return MHA_ERR_NOMEM;
        }
        viz_trainer_take(&g->trainer, &g->view, 1);
        if (viz_trainer_start(&g->trainer) != 0)
            snprintf(s->message, sizeof s->message, "no training thread: %s", SDL_GetError());
        *data = g;
    }
    else
        viz_trainer_request(&g->trainer, g->paused, 0, 0);   /* back: resume, unless paused */
    g->focus = VIZ_LEARN_HEADS;              /* the first head of layer 1 */
    if (g->finish == 0)
        g->finish = VIZ_TRAIN_MAX_STEPS;
    return MHA_OK;
}
/* <<[[learning_modes.c]] functions>> */
static void leave_training(viz_state *s, void *data)
{
    viz_training *g = data;
    (void)s;
    viz_trainer_request(&g->trainer, 1, 0, 0);
}

static int training_busy(const viz_state *s, const void *data)
{
    const viz_training *g = data;
    (void)s;
    return !g->paused && g->view.step < (g->pace > 0 ? g->finish : g->trainer.stop_at);
}
/* <<[[learning_modes.c]] functions>> */
static void set_pace(viz_training *g, int slower)
{
    static const double paces[] = {0, 50, 20, 10, 5, 2, 1};          /* 0: as fast as it can */
    const int last = (int)(sizeof paces / sizeof paces[0]) - 1;
    int k = 0;
    while (k < last && paces[k] != g->pace)
        k++;
    k = slower ? (k < last ? k + 1 : last) : (k > 0 ? k - 1 : 0);
    if (g->pace == 0 && paces[k] > 0) {                    /* a pace starts from here */
        viz_trainer_take(&g->trainer, &g->view, 1);
        g->allowed = (double)g->view.step;
        viz_trainer_request(&g->trainer, -1, 0, g->view.step + 1);   /* the step under way */
    }
    g->pace = paces[k];
    if (g->pace == 0)
        viz_trainer_request(&g->trainer, -1, 0, g->finish);
}

static void keep_pace(viz_training *g, double seconds)
{
    if (g->pace == 0 || g->paused)
        return;
    g->allowed = fmin(g->allowed + seconds * g->pace, (double)g->finish);
    const size_t target = (size_t)g->allowed;
    if (target >= 1 && target != g->trainer.stop_at)
        viz_trainer_request(&g->trainer, -1, 0, target);
}
/* <<[[learning_modes.c]] functions>> */
static void act_training(viz_state *s, void *data, const viz_action *a)
{
    viz_training *g = data;
    if (a->kind == VIZ_PLAY_PAUSE) {
        g->paused = !g->paused;
        viz_trainer_request(&g->trainer, g->paused, 0, 0);
    } else if (a->kind == VIZ_RESTART) {
        viz_trainer_request(&g->trainer, -1, 1, 0);
        g->allowed = 0;
    } else if (a->kind == VIZ_FASTER || a->kind == VIZ_SLOWER) {
        set_pace(g, a->kind == VIZ_SLOWER);
    } else if (a->kind == VIZ_NEXT_FOCUS) {
        g->focus = (g->focus + 1) % (VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS);
    } else if (a->kind == VIZ_FOCUS_HEAD) {
        g->focus = (size_t)a->head;
    } else if (a->kind == VIZ_POINT) {
        s->hover_head = a->head, s->hover_row = a->row, s->hover_col = a->col;
    } else if (a->kind == VIZ_SELECT) {
        s->selected = a->row;
    }
}

static int hit_training(const viz_state *s, const void *data, int width, int height, int x,
                        int y, int *head, int *row, int *col)
{
    const viz_training *g = data;
    viz_learning_layout l;
    (void)s;
    viz_learning_layout_compute(width, height, &l);
    return viz_learning_hit(&l, g->focus, x, y, head, row, col);
}
/* <<[[learning_modes.c]] functions>> */
static mha_status predict(viz_training *g)
{
    if (g->predicted_step == g->view.step)
        return MHA_OK;
    const mha_status status =
        mha_induction_forward(&g->model, &g->ws, g->trainer.run.probe.tokens);   /* sequence 0 */
    g->predicted_step = g->view.step;
    return status;
}

static int tick_training(viz_state *s, void *data, double seconds)
{
    viz_training *g = data;
    const size_t before = g->view.step;
    keep_pace(g, seconds);
    viz_trainer_take(&g->trainer, &g->view, 0);
    const mha_status predicted = predict(g);
    const mha_status failed = g->view.failed != MHA_OK ? g->view.failed : predicted;
    if (failed != MHA_OK)                  /* training stopped: say why in the status bar */
        snprintf(s->message, sizeof s->message, "training stopped: %s",
                 mha_status_message(failed));
    int changed = g->view.step != before;
    if ((g->clock += seconds) >= 1.0) {
        const double rate = g->rate;
        g->rate = g->view.step >= g->rate_step ? (g->view.step - g->rate_step) / g->clock : 0;
        g->rate_step = g->view.step;
        g->clock = 0;
        changed |= g->rate != rate;
    }
    return changed;
}
/* <<[[learning_modes.c]] functions>> */
static mha_status start_training(viz_state *s, void *data, const viz_start *how)
{
    viz_training *g = data;
    if (how->train_steps > VIZ_TRAIN_MAX_STEPS) {
        snprintf(s->message, sizeof s->message, "--train-steps: at most %d",
                 VIZ_TRAIN_MAX_STEPS);
        return MHA_ERR_ARG;
    }
    if (how->train_steps != 0) {
        g->finish = how->train_steps;
        viz_trainer_request(&g->trainer, -1, 0, how->train_steps);
        if (how->picture) {
            viz_trainer_wait(&g->trainer, how->train_steps);
            viz_trainer_take(&g->trainer, &g->view, 1);
            const mha_status predicted = predict(g);
            if (predicted != MHA_OK || g->view.failed != MHA_OK) {
                snprintf(s->message, sizeof s->message, "training stopped: %s",
                         mha_status_message(predicted != MHA_OK ? predicted : g->view.failed));
                return predicted != MHA_OK ? predicted : g->view.failed;
            }
        }
    }
    return MHA_OK;
}
/* <<[[learning_modes.c]] functions>> */
static void free_training(void *data)
{
    viz_training *g = data;
    viz_trainer_free(&g->trainer);
    viz_snapshot_free(&g->view);
    mha_learning_workspace_free(&g->ws);
    free(g);
}

const viz_mode viz_training_mode = {
    .name = "training", .key = 't', .help = "train a model live; space pauses, r starts again",
    .enter = enter_training, .start = start_training, .act = act_training,
    .tick = tick_training, .busy = training_busy, .hit = hit_training, .leave = leave_training,
    .draw = viz_draw_training, .free = free_training,
};
