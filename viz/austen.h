/* generated from chapters/18-austen-viewer.nw; edit the book, not this file */
#ifndef VIZ_AUSTEN_H
#define VIZ_AUSTEN_H
/* The Austen language model in the viewer (chapter "The viewer on real
   text"): the model, its pieces, one row's score breakdown, generation and
   removed heads (austen.c); the view and the mode (austen_view.c); the
   choice of the first mode (austen_start.c). */
#include <stdint.h>
#include "bpe.h"
#include "lm.h"
#include "viz.h"

/* <<[[austen.h]] declarations>> */
/* <<[[austen.h]] the measurer>> */
typedef struct viz_austen_measurer {
    SDL_Thread *thread;                    /* NULL: no held-out text, nothing to measure */
    SDL_mutex *lock;                       /* guards the fields below */
    SDL_cond *changed;                     /* a request, a result, or the end */
    float *mask;                           /* (N H): the newest request's head mask */
    float *own;                            /* (N H): the worker's copy, its model's mask */
    unsigned long asked, started, answered;   /* request numbers: newest, measuring, done */
    double loss;                           /* the result of request [[answered]] */
    mha_status status;
    int quit;
} viz_austen_measurer;
enum { VIZ_AUSTEN_ROLE = 24, VIZ_AUSTEN_LABEL = 64, VIZ_AUSTEN_PARTS = 4,
       VIZ_AUSTEN_CONTEXT_MAX = 512, VIZ_AUSTEN_TOP = 5, VIZ_AUSTEN_KEYS = 8,
       VIZ_AUSTEN_VALID_BYTES = 65536, VIZ_AUSTEN_WINDOWS = 1, VIZ_AUSTEN_PATH = 4096 };
#define VIZ_AUSTEN_DIR "models/austen"
#define VIZ_AUSTEN_VALID "build/corpus/valid.txt"
#define VIZ_AUSTEN_PROMPT "It was a fine morning, and"
#define VIZ_AUSTEN_TEMPERATURE 0.8
#define VIZ_AUSTEN_TOP_K 40
typedef struct viz_austen {
    lm_model model;
    bpe tokenizer;
    lm_workspace ws;                       /* one window: B 1, L up to T */
    lm_decoder decoder;                    /* the keys and values of ids[0..fed) */
    size_t fed;
    char dir[VIZ_AUSTEN_PATH];             /* a longer path is refused, never cut */
    char (*roles)[VIZ_AUSTEN_ROLE];        /* (N H): heads.tsv's last column */
    double *prev_token, *induction;        /* (N H): its two scores on text; NAN: none */
    double study_base, *study_importance;  /* prune.tsv: base loss; (N H) increases */
    int have_study;
    int *valid;                            /* held-out pieces, when the corpus is there */
    size_t valid_count;
    double loss, base_loss;                /* the held-out loss now and with every head */
    int loss_kind;                         /* 0: none, 1: measured, 2: from the study */
    int updating, have_base;               /* a measurement is under way; base_loss is known */
    viz_austen_measurer measurer;          /* measures the loss on a thread of its own */
    char prompt[VIZ_TEXT_MAX];             /* the text typed */
    int *ids;                              /* (T): its pieces, then the generated ones */
    size_t count, prompt_count;
    float *weights;                        /* (N, H, L, L) of the last pass */
    float *maps;                           /* (N, H, T, T): the same, rows of T */
    float *scratch;                        /* (V), for sampling */
    SDL_Rect *strip;                       /* (T): each piece's box as the strip was last
                                              drawn, empty out of sight; for the pointer */
    size_t focus;                          /* the enlarged head: l H + h */
    int row_scaled;                        /* each row's colours up to its largest weight */
    int row;                               /* the query row explained; -1: the last */
    double temperature;                    /* the sampling temperature */
    size_t top_k;                          /* 0: every piece */
    uint64_t seed, state;                  /* the sampler's seed and its state */
    double since;                          /* seconds since the last piece, when playing */
    double rate;                           /* pieces a second, measured; 0: none yet */
} viz_austen;
/* <<[[austen.h]] declarations>> */
typedef struct viz_austen_breakdown {
    size_t layer, head, row, keys;             /* keys: row + 1 */
    double query_norm;                         /* |q| */
    double query_part[VIZ_AUSTEN_PARTS];       /* q[0..3] */
    double key_norm[VIZ_AUSTEN_CONTEXT_MAX];   /* |k_j| */
    double key_part[VIZ_AUSTEN_CONTEXT_MAX][VIZ_AUSTEN_PARTS];   /* k_j[0..3] */
    double score[VIZ_AUSTEN_CONTEXT_MAX];      /* q.k_j / sqrt(D) */
    double top, total;                         /* the largest score; sum_j exp(s_j - top) */
    double weight[VIZ_AUSTEN_CONTEXT_MAX];     /* their softmax: exp(s_j - top) / total */
    double value_norm[VIZ_AUSTEN_CONTEXT_MAX]; /* |v_j| */
    double out_norm, out[VIZ_AUSTEN_PARTS];    /* o = sum_j w_j v_j: its norm, o[0..3] */
    double concat_norm;                        /* the H heads' outputs side by side */
    double projected_norm, projected[VIZ_AUSTEN_PARTS];   /* W_O concat + b_O */
    int next[VIZ_AUSTEN_TOP];                  /* the most likely next pieces */
    double probability[VIZ_AUSTEN_TOP];
} viz_austen_breakdown;
/* <<[[austen.h]] declarations>> */
void viz_austen_piece_label(const bpe *tokenizer, int id, char *label, size_t size);
/* The name of a label that is one mark of punctuation ("comma" for ","); NULL otherwise. */
const char *viz_austen_punctuation_name(const char *label);
enum { VIZ_AUSTEN_CELL_LINES = 4, VIZ_AUSTEN_CELL_LINE = 320 };
/* The readout of the cell of row b->row and key j of b's head: one line for a masked key
   (j > row), else four, from the query and the key to the weight; the number of lines. */
size_t viz_austen_cell_lines(const viz_austen *a, const viz_austen_breakdown *b, size_t j,
                             char lines[VIZ_AUSTEN_CELL_LINES][VIZ_AUSTEN_CELL_LINE]);
MHA_MUST_CHECK mha_status viz_austen_load(viz_austen *a, const char *dir, const char *valid,
                                          char *message, size_t size);
void viz_austen_free(viz_austen *a);
MHA_MUST_CHECK mha_status viz_austen_run(viz_austen *a);
MHA_MUST_CHECK mha_status viz_austen_set_text(viz_austen *a, const char *text);
/* --text: as viz_austen_set_text, and a text refused says why in why[0..size-1] */
MHA_MUST_CHECK mha_status viz_austen_take_text(viz_austen *a, const char *text, char *why,
                                               size_t size);
MHA_MUST_CHECK mha_status viz_austen_breakdown_of(const viz_austen *a, size_t layer, size_t head,
                                                  size_t row, viz_austen_breakdown *b);
MHA_MUST_CHECK mha_status viz_austen_generate(viz_austen *a);
const char *viz_austen_path(const viz_austen *a);     /* how the next piece is computed */
MHA_MUST_CHECK mha_status viz_austen_restart(viz_austen *a, uint64_t seed);
void viz_austen_measure(viz_austen *a);
int viz_austen_take_loss(viz_austen *a, int wait);
void viz_austen_loss_line(const viz_austen *a, char *line, size_t size);
/* Under a measured loss, the heads study's beside it; "" when there is not both. */
void viz_austen_sample_note(const viz_austen *a, char *line, size_t size);
MHA_MUST_CHECK mha_status viz_austen_switch_head(viz_austen *a, size_t k);
MHA_MUST_CHECK mha_status viz_austen_restore(viz_austen *a);
size_t viz_austen_query(const viz_austen *a);
void viz_austen_title(const viz_austen *a, size_t k, char *title, size_t size);
/* Head k's two scores: "prev 0.57 ind 0.00" when wide, "p.57 i.00" when not; "" if
   heads.tsv did not give both. */
void viz_austen_scores(const viz_austen *a, size_t k, int wide, char *text, size_t size);
size_t viz_austen_maps(const viz_austen *a, int width, int height, SDL_Rect *maps, size_t max);
extern char viz_austen_dir[VIZ_AUSTEN_PATH];   /* the model's folder; "": VIZ_AUSTEN_DIR */
extern char viz_austen_valid[VIZ_AUSTEN_PATH]; /* the held-out text; "": VIZ_AUSTEN_VALID */
extern const viz_mode viz_austen_mode;
void viz_draw_austen(struct viz_view *v, const viz_state *s, const void *data, int width,
                     int height);
mha_status viz_start_austen(viz_state *s, const char *model, int asked);
/* <<[[austen.h]] declarations>> */
enum { VIZ_AUSTEN_MAPS_MAX = 256, VIZ_AUSTEN_TITLE = 26, VIZ_AUSTEN_LEGEND_ROOM = 62,
       VIZ_AUSTEN_AXIS_LEFT = 58, VIZ_AUSTEN_AXIS_TOP = 50 };   /* the big map's labels */
enum { VIZ_AUSTEN_SIDE_LINES = 186,      /* the next pieces and the loss, at most */
       VIZ_AUSTEN_BREAKDOWN_W = 360, VIZ_AUSTEN_BREAKDOWN_H = 92 };  /* its columns; 3 keys */
typedef struct austen_layout {
    int width, height;
    SDL_Rect pieces, maps[VIZ_AUSTEN_MAPS_MAX], big, side, breakdown;   /* empty: not shown */
                                         /* big: its labels left and above, its title above them */
    SDL_Rect legend;                     /* the colour scale; its labels take LEGEND_ROOM */
    int status_y;
} austen_layout;
void viz_austen_layout(const viz_austen *a, int width, int height, double zoom,
                       austen_layout *l);
/* <<[[austen.h]] declarations>> */
/* The boxes of the a->count pieces in the strip r (a box is empty if its piece is not in
   sight): lines wrapped at r's edge, as many as r holds, the last the query's line. */
void viz_austen_strip(viz_view *v, const viz_austen *a, SDL_Rect r, SDL_Rect *boxes);
#endif
