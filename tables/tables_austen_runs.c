/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables.h"

static int state_value(const char *path, const char *key, double *value)
{
    FILE *f = fopen(path, "r");
    char line[256], name[64];
    double v;
    int found = 0;
    while (f != NULL && !found && fgets(line, sizeof line, f) != NULL)
        found = sscanf(line, "%63s %lf", name, &v) == 2 && strcmp(name, key) == 0;
    if (f != NULL)
        fclose(f);
    if (found)
        *value = v;
    return found;
}
int mha_read_austen_run(const char *name, austen_run *r)
{
    char path[256];
    double v[7];
    const char *keys[7] = {"vocab", "layers", "heads", "context", "batch", "step", "repeat"};
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "figures/runs/%s-state.txt", name);
    for (int k = 0; k < 7; k++)
        if (!state_value(path, keys[k], &v[k]))
            return 0;
    r->vocab = (size_t)v[0], r->layers = (size_t)v[1], r->heads = (size_t)v[2];
    r->context = (size_t)v[3], r->batch = (size_t)v[4], r->step = (size_t)v[5];
    r->repeat = v[6];
    double until = 0;
    r->repeat_until = state_value(path, "repeat_until", &until) ? (size_t)until : 0;
    if (!state_value(path, "token_sd", &r->token_sd))
        r->token_sd = 0.02;                        /* GPT-2's, which a state leaves out */
    if (!state_value(path, "position_sd", &r->position_sd))
        r->position_sd = 0.02;
    snprintf(path, sizeof path, "figures/runs/%s-heads-history.tsv", name);
    FILE *f = fopen(path, "r");
    char line[512];
    int ok = f != NULL && fgets(line, sizeof line, f) != NULL &&
             strncmp(line, "step\ttokens\tvalid_loss\tearly_loss\tlate_loss\tlayer\thead\t", 53) == 0;
    size_t last = 0;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        size_t step, tokens, layer, head;
        double valid, early, late, s[9];
        ok = sscanf(line, "%zu %zu %lf %lf %lf %zu %zu %lf %lf %lf %lf %lf %lf %lf %lf %lf",
                    &step, &tokens, &valid, &early, &late, &layer, &head, &s[0], &s[1], &s[2],
                    &s[3], &s[4], &s[5], &s[6], &s[7], &s[8]) == 16 &&
             layer < r->layers && head < r->heads && step >= last;
        if (ok && step != last) {                  /* a new evaluation */
            ok = r->evals < AUSTEN_RUN_EVALS;
            size_t e = r->evals++;
            r->tokens[e] = tokens, r->valid[e] = valid, r->in_context[e] = late - early;
            r->previous[e] = r->prefix[e] = r->prefix_first[e] = r->induction[e] = -1;
            last = step;
        }
        size_t e = r->evals - 1;
        if (ok && layer == 0 && s[0] > r->previous[e])
            r->previous[e] = s[0], r->previous_head[e] = head;
        if (ok && layer == 0 && s[8] > r->prefix_first[e])
            r->prefix_first[e] = s[8];
        if (ok && layer > 0 && s[1] > r->induction[e])
            r->induction[e] = s[1];
        if (ok && layer > 0 && s[8] > r->prefix[e])
            r->prefix[e] = s[8], r->prefix_layer[e] = layer, r->prefix_head[e] = head;
    }
    if (f != NULL)
        fclose(f);
    return ok && r->evals > 0;
}
static const struct { const char *name, *label; } RUNS[] = {
    {"copy", "copy"}, {"bytes-256", "bytes"}, {"circuit", "bytes, longer"},
    {"pieces", "pieces"}, {"pieces-half", "pieces, half repeated"},
    {"curriculum", "bytes, then plain"}, {"spread", "pieces, wider"},
    {"spread-plain", "pieces, wider, plain"},
    {"spread-curriculum", "pieces, wider, then plain"}};
enum { RUN_COUNT = sizeof RUNS / sizeof RUNS[0] };
/* the tokens, in millions, at the first evaluation with a score at least
   0.5 (previous: block 0's; else the later blocks' prefix matching), or -1 */
static double formed_at(const austen_run *r, int previous)
{
    for (size_t e = 0; e < r->evals; e++)
        if ((previous ? r->previous[e] : r->prefix[e]) >= 0.5)
            return (double)r->tokens[e] / 1e6;
    return -1;
}
/* the best score of any evaluation on the previous token (block 0) and on
   prefix matching (the later blocks) */
static void best_scores(const austen_run *r, double *previous, double *prefix)
{
    *previous = 0, *prefix = 0;
    for (size_t e = 0; e < r->evals; e++) {
        *previous = fmax(*previous, r->previous[e]);
        *prefix = fmax(*prefix, r->prefix[e]);
    }
}
void mha_print_austen_runs(FILE *out)
{
    fprintf(out, "\\begin{tabular}{lrrrrrrrr}\n\\toprule\n"
                 "run & $N{\\times}H$ & $T$ & $B$ & $p$ & $\\sigma$ & tokens & previous & "
                 "prefix \\\\\n\\midrule\n");
    for (size_t k = 0; k < RUN_COUNT; k++) {
        austen_run *r = malloc(sizeof *r);
        if (r == NULL || !mha_read_austen_run(RUNS[k].name, r)) {
            fprintf(out, "%s & \\multicolumn{8}{l}{not made: see make austen-run} \\\\\n",
                    RUNS[k].label);
            free(r);
            continue;
        }
        const size_t e = r->evals - 1;
        const double at = formed_at(r, 1);
        char sd[32];
        if (r->token_sd == r->position_sd)
            snprintf(sd, sizeof sd, "%.2f", r->token_sd);
        else
            snprintf(sd, sizeof sd, "%.1f, %.1f", r->token_sd, r->position_sd);
        fprintf(out, "%s & $%zu\\times%zu$ & %zu & %zu & %.2f & %s & %.1f & ", RUNS[k].label,
                r->layers, r->heads, r->context, r->batch, r->repeat, sd,
                (double)r->tokens[e] / 1e6);
        if (at >= 0)
            fprintf(out, "%.1f", at);
        else
            fprintf(out, "---");
        fprintf(out, " & %.3f \\\\\n", r->prefix[e]);
        free(r);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
/* <<print a run with wider embeddings>> */
static void print_wider_run(FILE *out, const char *name, const char *macro)
{
    austen_run *r = malloc(sizeof *r);
    const int have = r && mha_read_austen_run(name, r);
    double previous = 0, prefix = 0, previous_at = -1, prefix_at = -1;
    if (have)
        best_scores(r, &previous, &prefix);
    for (size_t e = 0; have && e < r->evals; e++) {
        if (previous_at < 0 && r->previous[e] >= 0.5)
            previous_at = (double)r->tokens[e] / 1e6;
        if (prefix_at < 0 && r->prefix[e] >= 0.3)
            prefix_at = (double)r->tokens[e] / 1e6;
    }
    const size_t e = have ? r->evals - 1 : 0;
    size_t at = 0;                                 /* the last evaluation with repeats */
    const size_t last_repeated = have ? r->repeat_until * r->batch * r->context : 0;
    while (have && at + 1 < r->evals && r->tokens[at + 1] <= last_repeated)
        at++;
    const size_t after = have && at + 1 < r->evals ? at + 1 : at;
    const int ended = have && r->repeat_until > 0;
    fprintf(out, "\\gdef\\%sUntil{%s}\\gdef\\%sUntilTokens{%.1f}%%\n", macro,
            format_count((char[64]){0}, have ? r->repeat_until : 0), macro,
            (double)last_repeated / 1e6);
    fprintf(out, "\\gdef\\%sFadePhrase{%s (prefix matching %.3f at the last evaluation "
                 "with repeats, %.3f at the next, %.3f at the end)}%%\n", macro,
            !ended ? "its repeats never end"
            : r->prefix[after] < 0.3 ? "its induction head was gone by the next evaluation"
            : r->prefix[e] < 0.3 ? "its induction head faded" : "its induction head stayed",
            ended ? r->prefix[at] : 0.0, ended ? r->prefix[after] : 0.0,
            ended ? r->prefix[e] : 0.0);
    fprintf(out, "\\gdef\\%sPreviousEndPhrase{the previous-token head %s (%.2f at the "
                 "end)}%%\n", macro, have && r->previous[e] >= 0.5 ? "stays" : "fades too",
            have ? r->previous[e] : 0.0);
    fprintf(out, "\\gdef\\%sTokenSD{%.2g}\\gdef\\%sPositionSD{%.2g}"
                 "\\gdef\\%sTokens{%.1f}%%\n",
            macro, have ? r->token_sd : 0.0, macro, have ? r->position_sd : 0.0, macro,
            have ? (double)r->tokens[e] / 1e6 : 0.0);
    fprintf(out, "\\gdef\\%sPrevious{%.2f}\\gdef\\%sPrefix{%.3f}\\gdef\\%sPreviousAt{%.1f}"
                 "\\gdef\\%sPrefixAt{%.1f}%%\n", macro, previous, macro, prefix, macro,
            previous_at, macro, prefix_at);
    double late = 0;                               /* the last eight evaluations' mean */
    for (size_t k = 1; have && r->evals >= 8 && k <= 8; k++)
        late += r->in_context[r->evals - k] / 8;
    fprintf(out, "\\gdef\\%sValid{%.3f}\\gdef\\%sInContext{$%+.3f$}"
                 "\\gdef\\%sInContextLate{$%+.3f$}%%\n", macro, have ? r->valid[e] : 0.0,
            macro, have ? r->in_context[e] : 0.0, macro, late);
    char verdict[256];
    if (!have)
        snprintf(verdict, sizeof verdict, "(run make austen-run AUSTEN\\_RUN=%s)", name);
    else if (previous_at >= 0 && prefix_at >= 0 && r->prefix[e] < 0.3)
        snprintf(verdict, sizeof verdict, "both heads formed, a previous-token head by %.1f "
                 "million tokens and an induction head by %.1f million, and the induction "
                 "head faded (prefix matching %.3f at the end)", previous_at, prefix_at,
                 r->prefix[e]);
    else if (previous_at >= 0 && prefix_at >= 0)
        snprintf(verdict, sizeof verdict, "both heads formed, a previous-token head by %.1f "
                 "million tokens and an induction head by %.1f million", previous_at,
                 prefix_at);
    else if (previous_at >= 0)
        snprintf(verdict, sizeof verdict, "a previous-token head formed by %.1f million "
                 "tokens, but no induction head (best prefix matching %.3f)", previous_at,
                 prefix);
    else
        snprintf(verdict, sizeof verdict, "neither head formed (best previous-token score "
                 "%.2f, best prefix matching %.3f)", previous, prefix);
    fprintf(out, "\\gdef\\%sVerdict{%s}%%\n", macro, verdict);
    free(r);
}
/* the number after key= in a heads table's first line, or NaN */
static double heads_header_value(const char *line, const char *key)
{
    char name[32];
    snprintf(name, sizeof name, "\t%s=", key);
    const char *at = strstr(line, name);
    return at ? strtod(at + strlen(name), NULL) : NAN;
}
/* the copying rule's reach from a heads table's first line, as macros
   \<prefix>CopyEarly and CopyLate (percentages) and CopyCeiling (nats) */
static void print_copying_reach(FILE *out, const char *prefix, const char *line)
{
    fprintf(out, "\\gdef\\%sCopyEarly{%.1f}\\gdef\\%sCopyLate{%.1f}"
                 "\\gdef\\%sCopyCeiling{%.3f}%%\n",
            prefix, 100 * heads_header_value(line, "copy_early"), prefix,
            100 * heads_header_value(line, "copy_late"), prefix,
            heads_header_value(line, "copy_ceiling"));
    fprintf(out, "\\gdef\\%sCopyCeilingPhrase{%s}%%\n", prefix,
            heads_header_value(line, "copy_ceiling") < 0.05
                ? "so a score clearly below zero is more than copying can give on this text"
                : "so copying alone could take the score clearly below zero");
}
static int model_value(const char *key, double *value)
{
    return state_value("models/austen/model.txt", key, value);
}
void mha_print_austen_runs_numbers(FILE *out)
{
    austen_heads *control = malloc(sizeof *control), *austen = malloc(sizeof *austen);
    const int have = control && mha_read_austen_heads("figures/induction-heads.tsv", control);
    double previous = 0, prefix = 0;
    size_t previous_count = 0, induction_count = 0;
    for (size_t k = 0; have && k < control->layers * control->heads; k++) {
        const austen_head *h = &control->head[k];
        if (k / control->heads == 0 && h->score[0] > previous)
            previous = h->score[0];
        if (k / control->heads > 0 && h->score[8] > prefix)
            prefix = h->score[8];
        previous_count += strcmp(h->role, "previous-token") == 0;
        induction_count += strcmp(h->role, "induction") == 0;
    }
    fprintf(out, "\\gdef\\ControlPrevious{%.3f}\\gdef\\ControlPrefix{%.3f}%%\n", previous, prefix);
    fprintf(out, "\\gdef\\ControlRoles{%zu previous-token and %zu induction head%s}%%\n",
            previous_count, induction_count, induction_count == 1 ? "" : "s");
    double top = 0, early = NAN, late = NAN, even = 0;
    if (austen && mha_read_austen_heads("figures/austen-heads.tsv", austen)) {
        for (size_t k = 0; k < austen->layers * austen->heads; k++)
            top = austen->head[k].score[8] > top ? austen->head[k].score[8] : top;
        const size_t r = austen->context / 2;
        for (size_t k = 0; k + 1 < r; k++)
            even += 1.0 / (double)(r + k + 1) / (double)(r - 1);
    }
    FILE *f = fopen("figures/austen-heads.tsv", "r");
    char line[1024];
    if (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *e = strstr(line, "early_loss="), *l = strstr(line, "late_loss=");
        if (e && l)
            early = strtod(e + 11, NULL), late = strtod(l + 10, NULL);
    } else
        line[0] = '\0';
    if (f != NULL)
        fclose(f);
    print_copying_reach(out, "AustenHeads", line);
    fprintf(out, "\\gdef\\AustenHeadsTopPrefix{%.3f}\\gdef\\AustenHeadsUniformPrefix{%.3f}%%\n",
            top, even);
    fprintf(out, "\\gdef\\AustenHeadsInContext{$%+.3f$}%%\n", late - early);
    double gain = NAN;
    f = fopen("figures/austen-repeat.txt", "r");
    if (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *g = strstr(line, "gain=");
        gain = g ? strtod(g + 5, NULL) : NAN;
    }
    if (f != NULL)
        fclose(f);
    fprintf(out, "\\gdef\\AustenRepeatGain{$%+.3f$}%%\n", gain);
    double steps = 0, context = 0;
    const double batch = 16;                       /* the Makefile's AUSTEN_MODEL */
    model_value("steps", &steps), model_value("context", &context);
    fprintf(out, "\\gdef\\AustenRunsSeen{%.1f}\\gdef\\AustenRunsPredicted{%.0f}%%\n",
            steps * batch * context / 1e6, pow(10, 5.7) * sqrt(batch * context) / 1e6);
    austen_run *copy = malloc(sizeof *copy);
    const int have_copy = copy && mha_read_austen_run("copy", copy);
    const size_t e = have_copy ? copy->evals - 1 : 0;
    fprintf(out, "\\gdef\\RunsCopyPrefix{%.2f}\\gdef\\RunsCopyFirstPrefix{%.2f}"
                 "\\gdef\\RunsCopyTokens{%.1f}%%\n", have_copy ? copy->prefix[e] : 0.0,
            have_copy ? copy->prefix_first[e] : 0.0,
            have_copy ? (double)copy->tokens[e] / 1e6 : 0.0);
    /* <<print the pieces run's tokens and its best previous-token and prefix scores>> */
    austen_run *pieces = malloc(sizeof *pieces);
    const int have_pieces = pieces && mha_read_austen_run("pieces", pieces);
    double pieces_previous = 0, pieces_prefix = 0;
    if (have_pieces)
        best_scores(pieces, &pieces_previous, &pieces_prefix);
    fprintf(out, "\\gdef\\RunsPiecesTokens{%.1f}\\gdef\\RunsPiecesPrevious{%.2f}"
                 "\\gdef\\RunsPiecesPrefix{%.3f}\\gdef\\RunsPiecesContext{%zu}%%\n",
            have_pieces ? (double)pieces->tokens[pieces->evals - 1] / 1e6 : 0.0, pieces_previous,
            pieces_prefix, have_pieces ? pieces->context : 0);
    free(pieces);
    austen_run *half = malloc(sizeof *half);
    const int have_half = half && mha_read_austen_run("pieces-half", half);
    double half_previous = 0, half_prefix = 0;
    if (have_half)
        best_scores(half, &half_previous, &half_prefix);
    fprintf(out, "\\gdef\\RunsHalfValid{%.3f}%%\n",
            have_half ? half->valid[half->evals - 1] : 0.0);
    fprintf(out, "\\gdef\\RunsHalfTokens{%.1f}\\gdef\\RunsHalfPrevious{%.2f}"
                 "\\gdef\\RunsHalfPrefix{%.3f}\\gdef\\RunsHalfVerdict{%s}%%\n",
            have_half ? (double)half->tokens[half->evals - 1] / 1e6 : 0.0, half_previous,
            half_prefix,
            !have_half ? "(run make austen-run AUSTEN_RUN=pieces-half)"
            : half_prefix >= 0.3 ? "twice the repeats brought an induction head"
            : half_previous >= 0.5 ? "twice the repeats brought a previous-token head, but no "
                                     "induction head"
                                   : "twice the repeats brought neither head");
    free(half);
    print_wider_run(out, "spread", "Spread");
    print_wider_run(out, "spread-plain", "SpreadPlain");
    print_wider_run(out, "spread-curriculum", "SpreadCurriculum");
    /* <<print what the repeats do to the in-context score>> */
    {
        austen_run *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        const int both = a && b && mha_read_austen_run("spread", a) &&
                         mha_read_austen_run("spread-plain", b) && a->evals >= 8 && b->evals >= 8;
        double with = 0, without = 0;
        for (size_t k = 1; both && k <= 8; k++)
            with += a->in_context[a->evals - k] / 8, without += b->in_context[b->evals - k] / 8;
        fprintf(out, "\\gdef\\SpreadContextPhrase{%s}%%\n", !both ? "(not measured)"
                : with > without + 0.02 ? "the repeats teach the circuit, and they also teach the "
                                          "model to expect a copy that plain text seldom gives"
                                        : "on plain text the repeats cost the model nothing");
        austen_run *c = malloc(sizeof *c);
        const int third = both && c && mha_read_austen_run("spread-curriculum", c) && c->evals >= 8;
        double ended = 0;
        for (size_t k = 1; third && k <= 8; k++)
            ended += c->in_context[c->evals - k] / 8;
        fprintf(out, "\\gdef\\SpreadCurriculumContextPhrase{%s}%%\n", !third ? "(not measured)"
                : ended < without - 0.02 ? "once the repeats end, late pieces become easier than "
                                           "early ones, as they do for Olsson et al.'s models"
                : ended > without + 0.02 ? "the expectation of a copy outlasts the repeats"
                                         : "ending the repeats brings the score back to that of the "
                                           "run without them, and no lower");
        free(a);
        free(b);
        free(c);
    }
    FILE *h;
    size_t toy_step = 0, step, layer, head;
    double toy_best = 0, loss, accuracy, previous_score, induction_score;
    h = fopen("figures/training-2layer.tsv", "r");
    while (h != NULL && fgets(line, sizeof line, h) != NULL)
        if (sscanf(line, "%zu %lf %lf %zu %zu %lf %lf", &step, &loss, &accuracy, &layer, &head,
                   &previous_score, &induction_score) == 7 && layer == 1) {
            if (induction_score >= 0.5 && toy_step == 0)
                toy_step = step;
            toy_best = induction_score > toy_best ? induction_score : toy_best;
        }
    if (h != NULL)
        fclose(h);
    fprintf(out, "\\gdef\\ToyInductionStep{%zu}\\gdef\\ToyInductionBest{%.2f}%%\n", toy_step,
            toy_best);
    free(copy);
    free(control);
    free(austen);
}
static void print_forming(FILE *out, const char *name, int series_count)
{
    austen_run *r = malloc(sizeof *r);
    const int have = r && mha_read_austen_run(name, r);
    const char *series[4] = {"previous", "induction", "prefix", "in_context"};
    const char *style[4] = {"blue!70!black,mark=none,thick", "red!70!black,mark=none,thick",
                            "orange!90!black,mark=none,thick,densely dotted",
                            "black,dashed,mark=none,thick"};
    for (int s = 0; s < series_count; s++) {
        fprintf(out, "\\addplot+[%s] coordinates {", style[s]);
        for (size_t e = 0; have && e < r->evals; e++) {
            const double y = s == 0 ? r->previous[e] : s == 1 ? r->induction[e]
                           : s == 2 ? r->prefix[e] : r->in_context[e];
            fprintf(out, " (%.3f,%.4f)", (double)r->tokens[e] / 1e6, y);
        }
        fprintf(out, " };%% %s\n", series[s]);
    }
    free(r);
}
void mha_print_austen_forming(FILE *out)
{
    print_forming(out, "circuit", 3);
}
void mha_print_austen_pieces_forming(FILE *out)
{
    print_forming(out, "spread", 4);
    austen_run *r = malloc(sizeof *r);             /* the same run, its repeats ended */
    const int have = r && mha_read_austen_run("spread-curriculum", r) && r->repeat_until > 0;
    const size_t last_repeated = have ? r->repeat_until * r->batch * r->context : 0;
    fprintf(out, "\\addplot+[green!50!black,mark=none,thick] coordinates {");
    for (size_t e = 0; have && e < r->evals; e++)
        if (r->tokens[e] >= last_repeated)
            fprintf(out, " (%.3f,%.4f)", (double)r->tokens[e] / 1e6, r->prefix[e]);
    fprintf(out, " };%% prefix matching, repeats ended\n");
    free(r);
}
static double repeat_gain(const char *line)
{
    const char *g = strstr(line, "gain=");
    return g ? strtod(g + 5, NULL) : NAN;
}
/* the circuit of run name, from figures/FIG-heads.tsv, -repeat.txt and
   -eval.txt, as macros named Circuit... */
static void print_circuit(FILE *out, const char *name, const char *fig)
{
    char heads_file[128], repeat_file[128], eval_file[128];
    snprintf(heads_file, sizeof heads_file, "figures/%s-heads.tsv", fig);
    snprintf(repeat_file, sizeof repeat_file, "figures/%s-repeat.txt", fig);
    snprintf(eval_file, sizeof eval_file, "figures/%s-eval.txt", fig);
    austen_heads *t = malloc(sizeof *t);
    austen_run *r = malloc(sizeof *r);
    const int heads = t && mha_read_austen_heads(heads_file, t);
    const int run = r && mha_read_austen_run(name, r);
    size_t previous = 0, induction = heads ? t->heads : 0;
    for (size_t k = 0; heads && k < t->layers * t->heads; k++) {
        if (k < t->heads && t->head[k].score[0] > t->head[previous].score[0])
            previous = k;
        if (k >= t->heads && t->head[k].score[8] > t->head[induction].score[8])
            induction = k;
    }
    double even_text = NAN, even_prefix = NAN, early = NAN, late = NAN;
    char line[1024];
    FILE *f = fopen(heads_file, "r");
    if (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *a = strstr(line, "even_induction="), *b = strstr(line, "even_prefix=");
        even_text = a ? strtod(a + 15, NULL) : NAN, even_prefix = b ? strtod(b + 12, NULL) : NAN;
        const char *e = strstr(line, "early_loss="), *l = strstr(line, "late_loss=");
        early = e ? strtod(e + 11, NULL) : NAN, late = l ? strtod(l + 10, NULL) : NAN;
    } else
        line[0] = '\0';
    if (f != NULL)
        fclose(f);
    print_copying_reach(out, "Circuit", line);
    const austen_head *p = heads ? &t->head[previous] : NULL, *q = heads ? &t->head[induction] : NULL;
    fprintf(out, "\\gdef\\CircuitPreviousHead{%zu}\\gdef\\CircuitPrevious{%.3f}%%\n",
            heads ? previous : 0, p ? p->score[0] : 0.0);
    fprintf(out, "\\gdef\\CircuitInductionLayer{%zu}\\gdef\\CircuitInductionHead{%zu}%%\n",
            heads ? induction / t->heads : 0, heads ? induction % t->heads : 0);
    fprintf(out, "\\gdef\\CircuitPrefix{%.3f}\\gdef\\CircuitText{%.3f}\\gdef\\CircuitRole{%s}%%\n",
            q ? q->score[8] : 0.0, q ? q->score[1] : 0.0, q ? q->role : "?");
    fprintf(out, "\\gdef\\CircuitEvenText{%.3f}\\gdef\\CircuitEvenPrefix{%.3f}"
                 "\\gdef\\CircuitTextTimes{%.0f}%%\n", even_text, even_prefix,
            q && even_text > 0 ? q->score[1] / even_text : 0.0);
    size_t formed = 0;
    while (run && formed < r->evals && r->induction[formed] < 0.3)
        formed++;
    const int found = run && formed < r->evals && formed > 0;
    fprintf(out, "\\gdef\\CircuitFormedAt{%.1f}\\gdef\\CircuitFormedBefore{%.1f}%%\n",
            found ? (double)r->tokens[formed] / 1e6 : 0.0,
            found ? (double)r->tokens[formed - 1] / 1e6 : 0.0);
    fprintf(out, "\\gdef\\CircuitLossBefore{%.3f}\\gdef\\CircuitLossAt{%.3f}%%\n",
            found ? r->valid[formed - 1] : 0.0, found ? r->valid[formed] : 0.0);
    fprintf(out, "\\gdef\\CircuitLossMoves{%s}%%\n",
            found && r->valid[formed] > r->valid[formed - 1] ? "rises" : "falls");
    fprintf(out, "\\gdef\\CircuitInContextSign{%s}%%\n",
            late - early < -0.01 ? "below zero" : "not below zero");
    fprintf(out, "\\gdef\\CircuitTokens{%.1f}\\gdef\\CircuitInContext{$%+.3f$}%%\n",
            run ? (double)r->tokens[r->evals - 1] / 1e6 : 0.0, late - early);
    double gain[3] = {NAN, NAN, NAN};
    f = fopen(repeat_file, "r");
    for (int k = 0; f != NULL && k < 3 && fgets(line, sizeof line, f) != NULL; k++)
        gain[k] = repeat_gain(line);
    if (f != NULL)
        fclose(f);
    fprintf(out, "\\gdef\\CircuitGain{%.2f}\\gdef\\CircuitGainNoInduction{%.2f}"
                 "\\gdef\\CircuitGainNoPrevious{%.2f}%%\n", gain[0], gain[1], gain[2]);
    fprintf(out, "\\gdef\\CircuitGainLostInduction{%.0f}\\gdef\\CircuitGainLostPrevious{%.0f}%%\n",
            100 * (1 - gain[1] / gain[0]), 100 * (1 - gain[2] / gain[0]));
    if (gain[1] <= 0)
        fprintf(out, "\\gdef\\CircuitGainLostPhrase{all of it goes with that one head, and "
                     "the second copy costs more than the first}%%\n");
    else
        fprintf(out, "\\gdef\\CircuitGainLostPhrase{%.0f\\,\\%% of it goes with that one "
                     "head}%%\n", 100 * (1 - gain[1] / gain[0]));
    austen_eval e;
    const int have_eval = mha_read_austen_eval(eval_file, &e);
    fprintf(out, "\\gdef\\CircuitBPC{%.3f}%%\n", have_eval ? e.bits_per_char : 0.0);
    fprintf(out, "\\gdef\\CircuitPredicted{%.0f}%%\n",
            run ? pow(10, 5.7) * sqrt((double)(r->batch * r->context)) / 1e6 : 0.0);
    free(t);
    free(r);
}
/* what printer prints to out, its macros \\Circuit... renamed \\Pieces... */
static void print_renamed(FILE *out, void (*printer)(FILE *, const char *, const char *),
                    const char *name, const char *fig)
{
    char *text = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&text, &size);
    if (m == NULL)
        return;
    printer(m, name, fig);
    fclose(m);
    for (const char *p = text; *p; ) {
        const char *at = strstr(p, "\\Circuit");
        const size_t n = at ? (size_t)(at - p) : strlen(p);
        fwrite(p, 1, n, out);
        if (at == NULL)
            break;
        fputs("\\Pieces", out);
        p = at + strlen("\\Circuit");
    }
    free(text);
}
void mha_print_austen_circuit_numbers(FILE *out)
{
    print_circuit(out, "circuit", "circuit");
    /* <<print the curriculum run's numbers and what they say>> */
    austen_run *c = malloc(sizeof *c);
    const int have_c = c && mha_read_austen_run("curriculum", c) && c->repeat_until > 0;
    size_t at = 0;                                     /* the last evaluation with repeats */
    const size_t last_repeated = have_c ? c->repeat_until * c->batch * c->context : 0;
    while (have_c && at + 1 < c->evals && c->tokens[at + 1] <= last_repeated)
        at++;
    const size_t end = have_c ? c->evals - 1 : 0;
    fprintf(out, "\\gdef\\CurriculumUntil{%s}\\gdef\\CurriculumUntilTokens{%.1f}"
                 "\\gdef\\CurriculumTokens{%.1f}%%\n",
            format_count((char[64]){0}, have_c ? c->repeat_until : 0),
            have_c ? (double)c->tokens[at] / 1e6 : 0.0, have_c ? (double)c->tokens[end] / 1e6 : 0.0);
    fprintf(out, "\\gdef\\CurriculumPrefixAtSwitch{%.3f}\\gdef\\CurriculumPrefix{%.3f}"
                 "\\gdef\\CurriculumValid{%.3f}%%\n", have_c ? c->prefix[at] : 0.0,
            have_c ? c->prefix[end] : 0.0, have_c ? c->valid[end] : 0.0);
    if (have_c && c->prefix[end] >= 0.3)
        fprintf(out, "\\gdef\\CurriculumCircuitPhrase{the circuit stayed, with nothing left in "
                     "the batches that rewards it more than Austen does}%%\n");
    else
        fprintf(out, "\\gdef\\CurriculumCircuitPhrase{the circuit faded once the batches "
                     "stopped rewarding it}%%\n");
    free(c);
}
void mha_print_austen_pieces_numbers(FILE *out)
{
    print_renamed(out, print_circuit, "spread", "pieces");
}
static void latex_text(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (strchr("#$%&_{}", c))
            fprintf(out, "\\%c", c);
        else if (c == '\\' || c == '^' || c == '~')
            fprintf(out, "\\char%d{}", c);
        else if (c >= 0x20)
            fputc(c, out);
    }
}
/* the word after the first occurrence of the prompt's last word, into name */
static void copied_name(const char *prompt, char *name, size_t size)
{
    size_t end = strlen(prompt);
    while (end > 0 && prompt[end - 1] == ' ')
        end--;
    size_t start = end;
    while (start > 0 && prompt[start - 1] != ' ')
        start--;
    char title[64];
    snprintf(title, sizeof title, "%.*s ", (int)(end - start), prompt + start);
    const char *at = strstr(prompt, title);
    name[0] = '\0';
    if (at != NULL && at < prompt + start)
        snprintf(name, size, "%.*s", (int)strcspn(at + strlen(title), " ,.;"),
                 at + strlen(title));
}
static void print_names(FILE *out, const char *run, const char *fig)
{
    (void)run;                                     /* the names come from the model alone */
    char path[128];
    snprintf(path, sizeof path, "figures/%s-names.txt", fig);
    FILE *f = fopen(path, "r");
    char line[1024];
    fprintf(out, "\\begin{tabular}{lll}\n\\toprule\nprompt & continuation & the name copied? "
                 "\\\\\n\\midrule\n");
    size_t rows = 0, copied = 0, known_copied = 0, unseen_copied = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char *tab = strchr(line, '\t');
        if (tab == NULL)
            continue;
        *tab = '\0';
        char *next = tab + 1;
        next[strcspn(next, "\r\n")] = '\0';
        while (*next == ' ')                       /* a piece may begin with its space */
            next++;
        char name[64];
        copied_name(line, name, sizeof name);
        const size_t word = strcspn(next, " ,.;");
        const size_t n = strlen(name);             /* the name itself, or with its 's */
        const int same = n > 0 && n <= word && strncmp(next, name, n) == 0 &&
                         (n == word || next[n] == '\'');
        latex_text(out, line, strlen(line));
        fprintf(out, " & \\textit{");
        latex_text(out, next, word);
        fprintf(out, "} & %s \\\\\n", same ? "yes" : "no");
        rows++, copied += same;
        known_copied += same && rows % 2 == 1;     /* rows 1, 3: names the novels use */
        unseen_copied += same && rows % 2 == 0;    /* rows 2, 4: names they never use */
    }
    if (rows == 0)
        fprintf(out, "\\multicolumn{3}{l}{not made: see make circuit-figures} \\\\\n");
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
    fprintf(out, "\\gdef\\CircuitNamesCopied{%zu}\\gdef\\CircuitNamesCount{%zu}%%\n", copied,
            rows);
    fprintf(out, "\\gdef\\CircuitNamesKnown{%zu}\\gdef\\CircuitNamesUnseen{%zu}%%\n",
            known_copied, unseen_copied);
    if (f != NULL)
        fclose(f);
}
void mha_print_austen_circuit_names(FILE *out)
{
    print_names(out, "circuit", "circuit");
}
void mha_print_austen_pieces_names(FILE *out)
{
    print_renamed(out, print_names, "spread", "pieces");
}
