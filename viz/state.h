/* generated from chapters/12-viewer.nw, chapters/18-austen-viewer.nw; edit the book, not this file */
#ifndef VIZ_STATE_H
#define VIZ_STATE_H
/* The viewer's state: the designed layer, the sentence, the decoding and the
   switches.  It changes only through actions (viz_act) and the passing of
   time (viz_tick).  Pure C: no SDL and no drawing here.  state.c is the
   state and the sentence; modes.c holds the table of modes, the things the
   window can show, and makes a state with them.  The SDL side is viz.h's. */
#include "designed.h"

/* <<[[state.h]] constants>> */
enum {
    VIZ_HEADS = MHA_DESIGNED_HEADS, VIZ_EMBED = MHA_DESIGNED_EMBED,
    VIZ_TOKENS_MAX = MHA_DESIGNED_POSITIONS, VIZ_PADDING = 3, VIZ_TEXT_MAX = 512,
    VIZ_MODES_MAX = 8, VIZ_TIMING_RUNS = 3
};
typedef enum viz_colour_map { VIZ_VIRIDIS, VIZ_CIVIDIS, VIZ_GREY, VIZ_COLOUR_MAPS } viz_colour_map;
/* <<[[state.h]] actions>> */
typedef enum viz_action_kind {
    VIZ_NOTHING,
    VIZ_PLAY_PAUSE, VIZ_STEP_FORWARD, VIZ_STEP_BACK, VIZ_FIRST_TOKEN, VIZ_FASTER, VIZ_SLOWER,
    VIZ_SWITCH_CAUSAL, VIZ_SWITCH_PADDING, VIZ_SHARPER, VIZ_FLATTER, VIZ_SWITCH_HEAD,
    VIZ_NEXT_IMPL, VIZ_NEXT_COLOUR_MAP, VIZ_NEXT_FOCUS,
    VIZ_START_TYPING, VIZ_TYPE, VIZ_ERASE, VIZ_ACCEPT, VIZ_CANCEL,
    VIZ_POINT, VIZ_FOCUS_HEAD, VIZ_SET_TEMPERATURE,
    VIZ_SAVE, VIZ_HELP, VIZ_ESCAPE, VIZ_QUIT, VIZ_SWITCH_MODE,
    VIZ_RESTART, VIZ_NEW_SEQUENCE, VIZ_ZOOM_IN, VIZ_ZOOM_OUT, VIZ_SELECT,
    VIZ_FULLSCREEN, VIZ_ENGINEERING, VIZ_DISMISS, VIZ_UNAVAILABLE,
    /* <<actions of the later modes>> */
    VIZ_GENERATE, VIZ_SAMPLING_COLDER, VIZ_SAMPLING_HOTTER, VIZ_NEXT_TOP_K,
    VIZ_REMOVE_HEAD, VIZ_RESTORE_HEADS, VIZ_ROW_SCALE,
} viz_action_kind;

typedef struct viz_action {
    viz_action_kind kind;
    int key;                          /* a key press asked for it */
    int head, row, col;               /* SWITCH_HEAD, FOCUS_HEAD: the head; POINT: cell, or -1;
                                         SELECT: the query's row */
    double temperature;               /* SET_TEMPERATURE */
    const char *text;                 /* TYPE: the text typed, UTF-8; UNAVAILABLE: the key */
    const struct viz_mode *mode;      /* SWITCH_MODE */
} viz_action;
/* <<[[state.h]] the state>> */
typedef struct viz_state {
    char text[VIZ_TEXT_MAX];                  /* the sentence as typed */
    char words[VIZ_TEXT_MAX];                 /* its words, split; tokens point here */
    const char *tokens[VIZ_TOKENS_MAX];       /* (L), padding tokens first when shown */
    size_t length;                            /* L */
    size_t step;                              /* tokens decoded, 1 to L: rows shown */
    int playing;                              /* decoding advances by itself */
    double speed, since_step;                 /* tokens per second; seconds since the last */
    double zoom;                              /* + and -: the reader's factor on the scale */
    int causal, padding;                      /* switches: causal mask, padding demo */
    float temperature;                        /* attention temperature: scores / it */
    unsigned ablated;                         /* bit h set: head h is switched off */
    size_t impl;                              /* index into mha_impls */
    viz_colour_map colour_map;
    int help, typing;                         /* help shown; typing a sentence */
    char typed[VIZ_TEXT_MAX];                 /* the sentence being typed */
    size_t focus;                             /* the enlarged head */
    int hover_head, hover_row, hover_col;     /* the cell under the mouse, or -1 */
    int selected;                             /* the query (position) clicked on, or -1 */
    int save_requested, quit;                 /* for the program to act on */
    int asking_to_quit;                       /* escape asked: quit? the next key answers */
    char message[160];                        /* a problem, for the status bar in red */
    char news[160];                           /* a success (saved ...), in ink */
    int fullscreen;                           /* f, F11: the window fills the screen */
    int engineering;                          /* e: timings and checks shown */
    int intro;                                /* the first-run explanation is shown */
    int window_width, window_height;          /* window pixels, when the program knows */
    /* <<[[viz_state]] results of the last run>> */
    float *in_proj_weight, *out_proj_weight;     /* (3E, E), (E, E): the designed layer */
    float *effective_weight;                     /* (3E, E): after temperature and ablation */
    float *x;                                    /* (L, E) the embedded tokens */
    float *weights;                              /* (H, L, L); rows step..L-1 are zero */
    float *out, *reference_out;                  /* (L, E): this run; naive, no ablation */
    double output_change;                        /* |out - out unablated| / |out unablated| */
    double impl_difference;                      /* max |weights, out - naive's| */
    double ms_per_step;                          /* least time of the last token, or of the prefix */
    mha_kv_cache cache;                          /* (1, H, 32, D): the decoded tokens' keys, values */
    int decoding;                                /* the last run went through the cache */
    const struct viz_mode *mode;              /* what the window shows */
    void *mode_data[VIZ_MODES_MAX];           /* each mode's own, by its place in viz_modes */
} viz_state;
/* <<[[state.h]] modes>> */
typedef struct viz_start {            /* what the command line asks of a mode */
    size_t step;                      /* --step K: tokens decoded; 0 if not given */
    size_t train_steps;               /* --train-steps N; 0 if not given */
    int picture;                      /* pictures will be drawn: wait for what is asked */
} viz_start;

struct viz_view;                      /* the view's (plumbing.h): named, never included */
typedef struct viz_mode {
    const char *name;                 /* "sentence", "trained", "training" */
    char key;                         /* the key that switches to it */
    const char *help;                 /* what it shows, for the help */
    mha_status (*enter)(viz_state *s, void **data);
    mha_status (*start)(viz_state *s, void *data, const viz_start *how);
    void (*act)(viz_state *s, void *data, const viz_action *action);
    int (*tick)(viz_state *s, void *data, double seconds);   /* 1: the picture changed */
    int (*busy)(const viz_state *s, const void *data);   /* time moves: keep drawing */
    int (*hit)(const viz_state *s, const void *data, int width, int height, int x, int y,
               int *head, int *row, int *col);   /* as viz_hit, in the mode's own layout */
    int (*map_side)(const viz_state *s, const void *data, int width, int height,
                    double zoom);                /* its enlarged map, at a zoom */
    void (*leave)(viz_state *s, void *data);             /* another mode is shown */
    void (*draw)(struct viz_view *view, const viz_state *s, const void *data,
                 int width, int height);
    void (*free)(void *data);
} viz_mode;
/* <<[[state.h]] modes>> */
mha_status viz_init(viz_state *s, const char *text);
void viz_free(viz_state *s);
void viz_act(viz_state *s, const viz_action *action);
int viz_tick(viz_state *s, double seconds);
extern const viz_mode *const viz_modes[];
extern const size_t viz_mode_count;
extern const viz_mode viz_sentence_mode;
const viz_mode *viz_mode_find(const char *name);
mha_status viz_switch_mode(viz_state *s, const viz_mode *mode);
mha_status viz_mode_start(viz_state *s, const viz_start *how);
int viz_busy(const viz_state *s);
void *viz_mode_data(const viz_state *s, const viz_mode *mode);
void viz_modes_free(viz_state *s);
/* <<[[state.h]] modes>> */
mha_status viz_sentence_start(viz_state *s, void *data, const viz_start *how);
void viz_sentence_act(viz_state *s, void *data, const viz_action *action);
int viz_sentence_tick(viz_state *s, void *data, double seconds);
int viz_sentence_busy(const viz_state *s, const void *data);
/* <<[[state.h]] modes>> */
int viz_mode_map_pixels(const viz_state *s, int width, int height, double zoom);
double viz_mode_zoom(const viz_state *s);
/* <<[[state.h]] functions>> */
mha_status viz_state_init(viz_state *s, const char *text);
void viz_state_free(viz_state *s);
mha_status viz_set_text(viz_state *s, const char *text);
void viz_text_rule(char *message, size_t size, const char *text, int padding);
enum { VIZ_WHY_SIZE = 8192 };            /* room for a message before it is fitted */
void viz_fit_message(char *to, size_t size, const char *message);
mha_status viz_run(viz_state *s);
double viz_score(const viz_state *s, size_t h, size_t i, size_t j);
int viz_blocked(const viz_state *s, size_t i, size_t j);
enum { VIZ_LABEL_CHARS = 10 };
void viz_short_label(const char *token, char *label, size_t size);
extern const char viz_default_text[];
/* <<[[state.h]] functions>> */
unsigned viz_fold_letter(unsigned c);
/* <<[[state.h]] explanations>> */
void viz_head_rule(const viz_state *s, size_t h, char *line, size_t size);
const char *viz_columns_caption(const viz_state *s);
/* <<[[state.h]] explanations>> */
void viz_engineering_line(const viz_state *s, char *line, size_t size);
/* <<[[state.h]] explanations>> */
#define VIZ_TEMPERATURE_MIN 0.1
#define VIZ_TEMPERATURE_MAX 1000.0
double viz_slider_temperature(double along);
double viz_slider_place(double temperature);
size_t viz_query_row(const viz_state *s);
size_t viz_visible_scores(const viz_state *s, size_t h, size_t i, double *scores);
double viz_even_temperature(const viz_state *s, size_t h, size_t i);
void viz_temperature_note(const viz_state *s, char *line, size_t size);
void viz_temperature_label(const viz_state *s, char *line, size_t size);
/* <<[[state.h]] explanations>> */
void viz_score_parts(const viz_state *s, size_t h, size_t i, size_t j, double *q, double *k);
int viz_explained_cell(const viz_state *s, size_t *i, size_t *j);
void viz_bars_title(const char *name, const double *x, size_t n, char *line, size_t size);
#endif
