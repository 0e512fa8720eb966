/* generated from chapters/12-viewer.nw; edit the book, not this file */
#ifndef VIZ_H
#define VIZ_H
/* Chapter 11: the viewer.  The state (viz.c) is pure C and drawable by the
   view (view.c); the program (program.c) owns windows and files. */
#include <SDL.h>
#include <SDL_ttf.h>
#include "designed.h"

enum {
    VIZ_HEADS = MHA_DESIGNED_HEADS, VIZ_EMBED = MHA_DESIGNED_EMBED,
    VIZ_TOKENS_MAX = MHA_DESIGNED_POSITIONS, VIZ_PADDING = 3, VIZ_TEXT_MAX = 512
};
typedef enum viz_colour_map { VIZ_VIRIDIS, VIZ_CIVIDIS, VIZ_GREY, VIZ_COLOUR_MAPS } viz_colour_map;
typedef struct viz_state {
    char text[VIZ_TEXT_MAX];                  /* the sentence as typed */
    char words[VIZ_TEXT_MAX];                 /* its words, split; tokens point here */
    const char *tokens[VIZ_TOKENS_MAX];       /* (L), padding tokens first when shown */
    size_t length;                            /* L */
    size_t step;                              /* tokens decoded, 1 to L: rows shown */
    int playing;                              /* decoding advances by itself */
    double speed, since_step;                 /* tokens per second; seconds since the last */
    int causal, padding;                      /* switches: causal mask, padding demo */
    float temperature;                        /* scores are divided by it */
    unsigned ablated;                         /* bit h set: head h is switched off */
    size_t impl;                              /* index into mha_impls */
    viz_colour_map colour_map;
    int help, typing;                         /* help shown; typing a sentence */
    char typed[VIZ_TEXT_MAX];                 /* the sentence being typed */
    size_t focus;                             /* the enlarged head */
    int hover_head, hover_row, hover_col;     /* the cell under the mouse, or -1 */
    int save_requested, quit;                 /* for the program to act on */
    char message[160];                        /* one line of news for the status bar */
    float *in_proj_weight, *out_proj_weight;     /* (3E, E), (E, E): the designed layer */
    float *effective_weight;                     /* (3E, E): after temperature and ablation */
    float *x;                                    /* (L, E) the embedded tokens */
    float *weights;                              /* (H, L, L); rows step..L-1 are zero */
    float *out, *reference_out;                  /* (L, E): this run; naive, no ablation */
    double output_change;                        /* max |out - out without ablation| */
    double impl_difference;                      /* max |weights, out - naive's| */
    double ms_per_step;                          /* time of the last token, or of the prefix */
    mha_kv_cache cache;                          /* (1, H, 32, D): the decoded tokens' keys, values */
    int decoding;                                /* the last run went through the cache */
    int mode;                                    /* VIZ_MODE_*: what the window shows */
    struct viz_learning *learning;               /* chapter 16's modes; NULL until used */
} viz_state;
enum { VIZ_MIN_WIDTH = 640, VIZ_MIN_HEIGHT = 480 };     /* the smallest window that fits */
typedef struct viz_layout {
    int width, height;                   /* the window */
    SDL_Rect grid[VIZ_HEADS];            /* the small maps */
    SDL_Rect big;                        /* the enlarged head's map */
    SDL_Rect legend;                     /* the colour scale, 1 at the top */
    SDL_Rect slider;                     /* the temperature slider */
    int status_y;                        /* top of the status lines */
} viz_layout;
void viz_layout_compute(const viz_state *s, int width, int height, viz_layout *layout);
SDL_Rect viz_cell(const SDL_Rect *map, size_t L, size_t i, size_t j);
int viz_hit(const viz_layout *layout, const viz_state *s, int x, int y,
            int *head, int *row, int *col);
mha_status viz_init(viz_state *s, const char *text);
void viz_free(viz_state *s);
mha_status viz_set_text(viz_state *s, const char *text);
mha_status viz_run(viz_state *s);
void viz_handle_event(viz_state *s, const SDL_Event *event, const struct viz_layout *layout);
void viz_tick(viz_state *s, double seconds);
double viz_score(const viz_state *s, size_t h, size_t i, size_t j);
int viz_blocked(const viz_state *s, size_t i, size_t j);
extern const char viz_default_text[];
SDL_Color viz_colour(viz_colour_map map, double t);
extern const char *const viz_colour_map_names[VIZ_COLOUR_MAPS];
#define VIZ_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
typedef struct viz_view { SDL_Renderer *renderer; TTF_Font *font, *small; } viz_view;
int viz_view_open(viz_view *view, SDL_Renderer *renderer);
void viz_view_close(viz_view *view);
void viz_draw(viz_view *view, const viz_state *s, const viz_layout *layout);
extern const char *const viz_help[][2];          /* key, what it does */
extern const size_t viz_help_count;
enum { VIZ_EXIT_OK = 0, VIZ_EXIT_FAILURE = 1, VIZ_EXIT_USAGE = 2, VIZ_EXIT_NO_DISPLAY = 3 };
int viz_main(int argc, char **argv);
int viz_save_png(viz_state *s, int width, int height, const char *path);
/* Chapter 16: training in the viewer (viz/learned.c), and the trained model. */
#include "learning.h"
enum { VIZ_MODE_DESIGNED, VIZ_MODE_TRAINED, VIZ_MODE_TRAINING };
enum { VIZ_LEARN_VOCAB = 64, VIZ_LEARN_LENGTH = 32, VIZ_LEARN_EMBED = 32, VIZ_LEARN_HEADS = 2,
       VIZ_LEARN_LAYERS = 2, VIZ_LEARN_BATCH = 32, VIZ_PROBE_BATCH = 16,
       VIZ_TRAIN_MAX_STEPS = 5000 };
#define VIZ_INDUCTION_THRESHOLD 0.5
typedef struct viz_snapshot {
    size_t step;                   /* training steps taken */
    size_t induction_step;         /* first step with an induction head; 0: none yet */
    size_t count;                  /* number of parameters */
    float *params;                 /* (count) */
    float *weights;                /* (layers, H, T, T): attention on the probe sequence */
    head_scores scores;            /* on the whole probe batch */
    float *loss, *accuracy, *previous, *induction;   /* (VIZ_TRAIN_MAX_STEPS) each */
} viz_snapshot;
typedef struct viz_trainer {
    induction_model model;                 /* the worker's: nobody else touches it */
    learning_workspace ws, probe_ws;
    induction_batch batch, probe;
    uint64_t seed, data_state;
    train_options options;
    SDL_mutex *lock;                       /* guards everything below */
    SDL_cond *changed;                     /* signalled on every new snapshot and request */
    viz_snapshot shared;
    int paused, reset, quit;               /* requests from the window */
    size_t stop_at;                        /* the worker pauses after this many steps */
    SDL_Thread *thread;
} viz_trainer;
mha_status viz_snapshot_init(viz_snapshot *s, size_t count, size_t weights);
void viz_snapshot_free(viz_snapshot *s);
mha_status viz_trainer_init(viz_trainer *t, uint64_t seed);
int viz_trainer_start(viz_trainer *t);
void viz_trainer_free(viz_trainer *t);
void viz_trainer_request(viz_trainer *t, int pause, int reset, size_t stop_at);
int viz_trainer_take(viz_trainer *t, viz_snapshot *into, int wait);
void viz_trainer_wait(viz_trainer *t, size_t step);
size_t viz_induction_step(const float *induction, size_t steps);
typedef struct viz_trained {
    induction_model model;                 /* loaded from the checkpoint */
    learning_workspace ws;                 /* for one sequence */
    induction_batch sequence;              /* (1, T): the repeated random sequence */
    int *prefix;                           /* (T): decoded tokens, then zeros */
    float *weights;                        /* (layers, H, T, T): rows step.. are zero */
    int *predicted;                        /* (T): the model's next token, by position */
    head_scores scores;                    /* on the whole sequence */
    size_t step;                           /* tokens decoded, 1 to T */
    uint64_t state;                        /* for new sequences */
    char dir[256];
} viz_trained;
typedef struct viz_learning {
    viz_trainer trainer;                   /* live training; its thread starts on [[t]] */
    viz_snapshot view;                     /* the window's copy of the latest snapshot */
    viz_trained trained;                   /* the checkpoint; loaded on [[l]] */
    int have_trainer, have_trained;
    size_t focus;                          /* enlarged head: layer * H + head */
    int paused;                            /* the reader paused training */
    double rate, clock;                    /* steps per second, and seconds since measured */
    size_t rate_step;                      /* the step when the rate was measured */
} viz_learning;
const char *viz_model_dir(void);
mha_status viz_load_checkpoint(const char *dir, induction_model *model,
                               char *message, size_t size);
mha_status viz_trained_load(viz_trained *m, const char *dir, char *message, size_t size);
void viz_trained_free(viz_trained *m);
void viz_trained_new_sequence(viz_trained *m);
void viz_trained_go_to(viz_trained *m, size_t step);
void viz_token_label(int token, char label[8]);
mha_status viz_learning_switch(viz_state *s, int mode);
int viz_learning_event(viz_state *s, const SDL_Event *event);
void viz_learning_tick(viz_state *s, double seconds);
void viz_learning_free(viz_state *s);
typedef struct viz_learning_layout {
    int width, height;
    SDL_Rect maps[VIZ_LEARN_LAYERS * VIZ_LEARN_HEADS];   /* layer by layer */
    SDL_Rect big, legend, scores, panel;
    int banner_y, status_y;
} viz_learning_layout;
void viz_learning_layout_compute(int width, int height, viz_learning_layout *l);
void viz_draw_learning(viz_view *v, const viz_state *s, int width, int height);
int viz_curve_x(const viz_learning_layout *l, size_t step, size_t horizon);
size_t viz_curve_horizon(size_t step);
#endif
