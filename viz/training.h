/* generated from chapters/14-training-viewer.nw; edit the book, not this file */
#ifndef VIZ_TRAINING_H
#define VIZ_TRAINING_H
/* Training in the viewer: a worker thread around the library's trainer
   (worker.c), the trained model (trained.c), their pictures
   (learning_view.c) and the two modes that show them (learning_modes.c). */
#include "learning.h"
#include "viz.h"

/* <<[[training.h]] constants>> */
enum { VIZ_LEARN_VOCAB = 64, VIZ_LEARN_LENGTH = 32, VIZ_LEARN_EMBED = 32, VIZ_LEARN_HEADS = 2,
       VIZ_LEARN_LAYERS = 2, VIZ_LEARN_BATCH = 32, VIZ_PROBE_BATCH = 16,
       VIZ_TRAIN_MAX_STEPS = 5000 };
#define VIZ_INDUCTION_THRESHOLD 0.5
/* <<[[training.h]] the snapshot and the worker>> */
typedef struct viz_snapshot {
    size_t step;                   /* training steps taken */
    mha_status failed;             /* what stopped the worker; MHA_OK while it trains */
    size_t induction_step;         /* first step with an induction head; 0: none yet */
    size_t count;                  /* number of parameters */
    float *params;                 /* (count) */
    float *weights;                /* (layers, H, T, T): attention on the probe sequence */
    mha_head_scores scores;            /* on the whole probe batch */
    float *loss, *accuracy, *previous, *induction;   /* (VIZ_TRAIN_MAX_STEPS) each */
} viz_snapshot;
/* <<[[training.h]] the snapshot and the worker>> */
typedef struct viz_trainer {
    mha_induction_trainer run;                 /* the worker's: nobody else touches it */
    SDL_mutex *lock;                       /* guards everything below */
    SDL_cond *changed;                     /* signalled on every new snapshot and request */
    viz_snapshot shared;
    int paused, reset, quit;               /* requests from the window */
    int idle;                              /* the worker is waiting for a request */
    size_t stop_at;                        /* the worker pauses after this many steps */
    SDL_Thread *thread;
} viz_trainer;
/* <<[[training.h]] the snapshot and the worker>> */
mha_status viz_snapshot_init(viz_snapshot *s, size_t count, size_t weights);
void viz_snapshot_free(viz_snapshot *s);
mha_status viz_trainer_init(viz_trainer *t, uint64_t seed);
int viz_trainer_start(viz_trainer *t);
void viz_trainer_free(viz_trainer *t);
void viz_trainer_request(viz_trainer *t, int pause, int reset, size_t stop_at);
int viz_trainer_take(viz_trainer *t, viz_snapshot *into, int wait);
void viz_trainer_wait(viz_trainer *t, size_t step);
void viz_trainer_wait_idle(viz_trainer *t);
size_t viz_induction_step(const float *induction, size_t steps);
/* <<[[training.h]] the trained model>> */
typedef struct viz_trained {
    mha_induction_model model;                 /* loaded from the checkpoint */
    mha_learning_workspace ws;                 /* for one sequence */
    mha_induction_batch sequence;              /* (1, T): the repeated random sequence */
    int *prefix;                           /* (T): decoded tokens, then zeros */
    float *weights;                        /* (layers, H, T, T): rows step.. are zero */
    int *predicted;                        /* (T): the model's next token, by position */
    mha_head_scores scores;                    /* on the whole sequence */
    size_t step;                           /* tokens decoded, 1 to used */
    size_t used;                           /* the sequence's tokens: T, or the text's */
    int typed;                             /* the sequence is typed text, a token a letter */
    float *kept;                           /* (count): the checkpoint's parameters */
    uint64_t removed;                      /* bit layer H + head: that head is removed */
    size_t focus;                          /* the enlarged head: layer * H + head */
    uint64_t state;                        /* for new sequences */
    char dir[256];
} viz_trained;
/* <<[[training.h]] the trained model>> */
/* name (a folder relative to a tree) in the working directory if it holds a model.txt,
   else in the nearest folder at or above the program's that holds name/model.txt: 1 and
   the path in dir, or 0 if none does or the path is longer than size */
enum { VIZ_MODEL_PATH = 512 };
int viz_model_here_or_beside(const char *name, char *dir, size_t size);
const char *viz_model_dir(void);       /* MHA_MODEL_DIR, else models/induction found so */
mha_status viz_trained_load(viz_trained *m, const char *dir, char *message, size_t size);
void viz_trained_free(viz_trained *m);
void viz_trained_new_sequence(viz_trained *m);
void viz_trained_go_to(viz_trained *m, size_t step);
void viz_token_label(int token, char label[8]);
extern const char viz_letters[];
int viz_letter_token(const char *character, size_t length, size_t vocab);
void viz_letter_label(int token, char label[8]);
mha_status viz_trained_set_text(viz_trained *m, const char *text, char *message, size_t size);
MHA_MUST_CHECK mha_status viz_trained_switch_head(viz_trained *m, size_t k);
void viz_trained_restore(viz_trained *m);
/* <<[[training.h]] the trained model>> */
enum { VIZ_TOP_TOKENS = 5 };
size_t viz_top_tokens(const float *logits, size_t V, size_t k, int *tokens,
                      double *probabilities);
size_t viz_learning_position(const viz_state *s, size_t focus, size_t rows, size_t fallback);
/* <<[[training.h]] the modes>> */
extern const viz_mode viz_trained_mode, viz_training_mode;
/* <<[[training.h]] the modes>> */
typedef struct viz_training {
    viz_trainer trainer;                   /* the worker; its thread starts on entering */
    viz_snapshot view;                     /* the window's copy of the latest snapshot */
    size_t focus;                          /* the enlarged head: layer * H + head */
    int paused;                            /* the reader paused training */
    double rate, clock;                    /* steps per second, and seconds since measured */
    size_t rate_step;                      /* the step when the rate was measured */
    mha_induction_model model;                 /* the snapshot's parameters, for predicting */
    mha_learning_workspace ws;                 /* its forward pass on the probe sequence */
    size_t predicted_step;                 /* the step ws.logits belong to; -1: none */
    double pace;                           /* steps per second; 0: as fast as it can */
    double allowed;                        /* at a pace: the steps it may have taken */
    size_t finish;                         /* the step it stops at, paced or not */
} viz_training;
viz_training *viz_training_of(const viz_state *s);
/* <<[[training.h]] the picture>> */
typedef struct viz_learning_layout {
    int width, height;
    size_t layers, heads, length;                         /* the model's, and its T */
    SDL_Rect maps[MHA_LEARNING_MAX_LAYERS * MHA_LEARNING_MAX_HEADS];   /* layer by layer */
    SDL_Rect big, legend, scores, panel;
    SDL_Rect predictions;                                 /* the top five next tokens */
    int score_row;                                        /* the score table's line pitch */
    int banner_y, status_y;
} viz_learning_layout;
void viz_learning_layout_compute(int width, int height, viz_learning_layout *l);
void viz_learning_layout_for(int width, int height, size_t layers, size_t heads, size_t length,
                             viz_learning_layout *l);
void viz_draw_training(viz_view *v, const viz_state *s, const void *training,
                       int width, int height);
void viz_draw_trained(viz_view *v, const viz_state *s, const void *trained,
                      int width, int height);
int viz_curve_x(const viz_learning_layout *l, size_t step, size_t horizon);
size_t viz_curve_horizon(size_t step);
extern const char *const viz_curve_names[4];
void viz_curve_legend(const viz_learning_layout *l, viz_view *v, SDL_Rect at[4]);
size_t viz_label_stride(int map_side, size_t T, int text_height);
int viz_learning_hit(const viz_learning_layout *l, size_t focus, int x, int y, int *head,
                     int *row, int *col);
int viz_trained_guess(const viz_trained *m, size_t t);
SDL_Rect viz_guess_cell(const viz_learning_layout *l, size_t T, size_t t);
#endif
