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
            r->previous[e] = r->prefix[e] = r->prefix_first[e] = -1;
            last = step;
        }
        size_t e = r->evals - 1;
        if (ok && layer == 0 && s[0] > r->previous[e])
            r->previous[e] = s[0], r->previous_head[e] = head;
        if (ok && layer == 0 && s[8] > r->prefix_first[e])
            r->prefix_first[e] = s[8];
        if (ok && layer > 0 && s[8] > r->prefix[e])
            r->prefix[e] = s[8], r->prefix_layer[e] = layer, r->prefix_head[e] = head;
    }
    if (f != NULL)
        fclose(f);
    return ok && r->evals > 0;
}
static const struct { const char *name, *label; } RUNS[] = {
    {"copy", "copy"}, {"bytes-256", "bytes"}, {"circuit", "bytes, longer"}};
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
void mha_print_austen_runs(FILE *out)
{
    fprintf(out, "\\begin{tabular}{lrrrrrrrr}\n\\toprule\n"
                 "run & $N{\\times}H$ & $T$ & $B$ & $p$ & tokens & previous & prefix & "
                 "in-context \\\\\n\\midrule\n");
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
        fprintf(out, "%s & $%zu\\times%zu$ & %zu & %zu & %.2f & %.1f & ", RUNS[k].label,
                r->layers, r->heads, r->context, r->batch, r->repeat, (double)r->tokens[e] / 1e6);
        if (at >= 0)
            fprintf(out, "%.1f", at);
        else
            fprintf(out, "---");
        fprintf(out, " & %.3f & $%+.3f$ \\\\\n", r->prefix[e], r->in_context[e]);
        free(r);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
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
    }
    if (f != NULL)
        fclose(f);
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
void mha_print_austen_forming(FILE *out)
{
    austen_run *r = malloc(sizeof *r);
    const int have = r && mha_read_austen_run("circuit", r);
    const char *series[3] = {"previous", "prefix", "in_context"};
    for (int s = 0; s < 3; s++) {
        fprintf(out, "\\addplot+[%s] coordinates {", s == 0 ? "blue!70!black,mark=none,thick"
                                                  : s == 1 ? "red!70!black,mark=none,thick"
                                                           : "black,dashed,mark=none,thick");
        for (size_t e = 0; have && e < r->evals; e++) {
            const double y = s == 0 ? r->previous[e] : s == 1 ? r->prefix[e] : r->in_context[e];
            fprintf(out, " (%.3f,%.4f)", (double)r->tokens[e] / 1e6, y);
        }
        fprintf(out, " };%% %s\n", series[s]);
    }
    free(r);
}
