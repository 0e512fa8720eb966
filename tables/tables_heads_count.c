/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables.h"

static const char HEADS_COUNT[] = "figures/heads-count.tsv";
static const char HEADS_COUNT_HEADER[] =
    "heads\thead_dim\tseed\tlayers\tdim\tcontext\tbatch\tsteps\ttokens_seen\tparameters\t"
    "bits_per_char\tloss\tseconds\tresumed\n";

static int same_recipe(const heads_run *a, const heads_run *b)
{
    return a->layers == b->layers && a->dim == b->dim && a->context == b->context &&
           a->batch == b->batch && a->steps == b->steps && a->parameters == b->parameters;
}
static int read_run(const char *line, heads_run *r)
{
    int resumed, used = 0;
    return sscanf(line, "%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%lf\t%lf\t%lf\t%d\n%n",
                  &r->heads, &r->head_dim, &r->seed, &r->layers, &r->dim, &r->context,
                  &r->batch, &r->steps, &r->tokens_seen, &r->parameters, &r->bits_per_char,
                  &r->loss, &r->seconds, &resumed, &used) == 14 &&
           line[used] == '\0' && r->heads > 0 && r->head_dim * r->heads == r->dim &&
           r->tokens_seen == r->steps * r->batch * r->context && isfinite(r->bits_per_char) &&
           r->bits_per_char > 0 && (resumed == 0 || resumed == 1);
}
static int group_runs(heads_count *t)
{
    const size_t most = sizeof t->group / sizeof t->group[0];
    t->groups = 0;
    for (size_t k = 0; k < t->runs; k++) {
        if (k == 0 || t->run[k].heads != t->run[k - 1].heads) {
            if (t->groups == most)
                return 0;
            t->group[t->groups++] =
                (heads_group){.heads = t->run[k].heads, .best = INFINITY, .worst = -INFINITY};
        }
        heads_group *g = &t->group[t->groups - 1];
        const double x = t->run[k].bits_per_char;
        g->runs++, g->mean += x, g->best = fmin(g->best, x), g->worst = fmax(g->worst, x);
    }
    for (size_t q = 0; q < t->groups; q++) {
        heads_group *g = &t->group[q];
        g->mean /= (double)g->runs;
        for (size_t k = 0; k < t->runs; k++)
            if (t->run[k].heads == g->heads)
                g->spread += (t->run[k].bits_per_char - g->mean) *
                             (t->run[k].bits_per_char - g->mean);
        g->spread = g->runs > 1 ? sqrt(g->spread / (double)(g->runs - 1)) : 0;
    }
    return 1;
}
int mha_read_heads_count(const char *path, heads_count *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    char line[1024];
    int ok = f != NULL && fgets(line, sizeof line, f) != NULL &&
             sscanf(line, "# heads-study\ttrain_sha256=%*s\tvalid_sha256=%*s\ttokenizer=%*s\t"
                          "cpu=%127[^\t\n]", t->cpu) == 1 &&
             fgets(line, sizeof line, f) != NULL && strcmp(line, HEADS_COUNT_HEADER) == 0;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        heads_run *r = &t->run[t->runs];
        ok = t->runs < sizeof t->run / sizeof t->run[0] && read_run(line, r) &&
             (t->runs == 0 || (same_recipe(r, &t->run[0]) &&
                               (r->heads > r[-1].heads ||
                                (r->heads == r[-1].heads && r->seed > r[-1].seed))));
        t->runs += ok;
    }
    if (f != NULL)
        fclose(f);
    return ok && t->runs > 0 && group_runs(t);
}
static const heads_group *group_of(const heads_count *t, size_t heads)
{
    for (size_t q = 0; q < t->groups; q++)
        if (t->group[q].heads == heads)
            return &t->group[q];
    return NULL;
}
static int clearly_apart(const heads_group *a, const heads_group *b)
{
    return a->worst < b->best || b->worst < a->best;
}
static const char *heads_phrase(char buf[64], size_t heads)
{
    snprintf(buf, 64, heads == 1 ? "one head" : "%zu heads", heads);
    return buf;
}
void mha_write_heads_count_numbers(FILE *out, const heads_count *t)
{
    char a[64], b[64];
    const heads_run *r = &t->run[0];
    double seconds = 0, spread = 0;
    const heads_group *best = &t->group[0];
    for (size_t k = 0; k < t->runs; k++)
        seconds += t->run[k].seconds;
    for (size_t q = 0; q < t->groups; q++) {
        spread = fmax(spread, t->group[q].worst - t->group[q].best);
        best = t->group[q].mean < best->mean ? &t->group[q] : best;
    }
    fprintf(out, "\\gdef\\HeadsCountLayers{%zu}\\gdef\\HeadsCountDim{%zu}"
                 "\\gdef\\HeadsCountContext{%zu}%%\n", r->layers, r->dim, r->context);
    fprintf(out, "\\gdef\\HeadsCountParameters{%s}\\gdef\\HeadsCountSteps{%s}"
                 "\\gdef\\HeadsCountBatch{%zu}%%\n", format_count(a, r->parameters),
            format_count(b, r->steps), r->batch);
    fprintf(out, "\\gdef\\HeadsCountTokens{%s}\\gdef\\HeadsCountRuns{%zu}"
                 "\\gdef\\HeadsCountHours{%.1f}%%\n", format_count(a, r->tokens_seen), t->runs,
            seconds / 3600);
    fprintf(out, "\\gdef\\HeadsCountCPU{%s}%%\n", t->cpu);
    fprintf(out, "\\gdef\\HeadsCountBest{%s}\\gdef\\HeadsCountBestBPC{%.3f}"
                 "\\gdef\\HeadsCountSpread{%.3f}%%\n", heads_phrase(a, best->heads), best->mean,
            spread);
    const heads_group *one = group_of(t, 1), *eight = group_of(t, 8), *sixteen = group_of(t, 16);
    fprintf(out, "\\gdef\\HeadsCountOne{%.3f}\\gdef\\HeadsCountOneGap{%.3f}%%\n",
            one ? one->mean : 0.0, one ? one->mean - best->mean : 0.0);
    /* <<the verdict on more heads up to eight>> */
    size_t falls = 0, steps = 0;
    for (size_t q = 1; q < t->groups && t->group[q].heads <= 8; q++)
        steps++, falls += t->group[q].mean < t->group[q - 1].mean;
    const char *rise =
        one == NULL || eight == NULL ? "The table lacks one head or eight, so the first claim "
                                       "is not measured here."
        : falls == steps && clearly_apart(one, eight)
            ? "The first claim holds: the mean falls at every doubling from one head to "
              "eight, and every run of one head is worse than every run of eight."
        : clearly_apart(one, eight) && one->mean > eight->mean
            ? "The first claim holds only in part: every run of one head is worse than "
              "every run of eight, "
              "but the mean does not fall at every doubling between them."
            : "The first claim does not hold here: not every run of one head is worse "
              "than every run of eight.";
    fprintf(out, "\\gdef\\HeadsCountRiseVerdict{%s}%%\n", rise);
    /* <<the verdict on sixteen heads>> */
    if (eight == NULL || sixteen == NULL)
        fprintf(out, "\\gdef\\HeadsCountSixteenVerdict{The table lacks eight heads or sixteen.}%%\n");
    else
        fprintf(out, "\\gdef\\HeadsCountSixteenVerdict{Sixteen heads score %.3f, %.3f %s than "
                     "eight: %s}%%\n", sixteen->mean, fabs(sixteen->mean - eight->mean),
                sixteen->mean > eight->mean ? "worse" : "better",
                !clearly_apart(eight, sixteen)
                    ? "within the runs' spread, flat, as claimed."
                : sixteen->mean > eight->mean
                    ? "clearly worse, so the quality falls at sixteen, as the claim allows."
                    : "clearly better, so the claim that the gains stop at eight is "
                      "refuted at this width.");
    /* <<the verdict on a head width of 64>> */
    const heads_group *wide = r->dim % 64 == 0 ? group_of(t, r->dim / 64) : NULL;
    size_t beaten = 0;
    for (size_t q = 0; wide && q < t->groups; q++)
        beaten += &t->group[q] != wide && t->group[q].mean > wide->mean &&
                  clearly_apart(&t->group[q], wide);
    if (wide == NULL)
        fprintf(out, "\\gdef\\HeadsCountSweetVerdict{No run here has heads of width 64.}%%\n");
    else
        fprintf(out, "\\gdef\\HeadsCountSweetVerdict{Heads of width 64 --- %s at this width ---"
                     " score %.3f; %s}%%\n", heads_phrase(a, wide->heads), wide->mean,
                beaten + 1 == t->groups ? "they are clearly the best, and the claimed sweet spot "
                                          "holds here."
                : wide == best ? "they have the lowest mean but are not clearly better than every "
                                 "other width, so the sweet spot is not confirmed."
                               : "other widths do better, so the claimed sweet spot does not hold "
                                 "at this width.");
}
void mha_print_heads_count_numbers(FILE *out)
{
    heads_count *t = malloc(sizeof *t);
    if (t != NULL && mha_read_heads_count(HEADS_COUNT, t))
        mha_write_heads_count_numbers(out, t);
    else {
        static const char *const names[] = {
            "Layers", "Dim", "Context", "Parameters", "Steps", "Batch", "Tokens", "Runs",
            "Hours", "CPU", "Best", "BestBPC", "Spread", "One", "OneGap", "RiseVerdict",
            "SixteenVerdict", "SweetVerdict"};
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            fprintf(out, "\\gdef\\HeadsCount%s{(run \\texttt{make heads-study})}%%\n", names[k]);
    }
    free(t);
}
void mha_print_heads_count(FILE *out)
{
    heads_count *t = malloc(sizeof *t);
    if (t == NULL || !mha_read_heads_count(HEADS_COUNT, t)) {
        fprintf(out, "(run \\texttt{make heads-study} to make this table)\n");
        free(t);
        return;
    }
    fprintf(out, "\\begin{tabular}{rrrrrrr}\n\\toprule\n & head & & \\multicolumn{4}{c}{bits "
                 "per character} \\\\\nheads & width & runs & mean & spread & best & worst "
                 "\\\\\n\\midrule\n");
    for (size_t q = 0; q < t->groups; q++) {
        const heads_group *g = &t->group[q];
        fprintf(out, "%zu & %zu & %zu & %.3f & %.3f & %.3f & %.3f \\\\\n", g->heads,
                t->run[0].dim / g->heads, g->runs, g->mean, g->spread, g->best, g->worst);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
    free(t);
}
void mha_print_heads_count_figure(FILE *out)
{
    heads_count *t = malloc(sizeof *t);
    if (t == NULL || !mha_read_heads_count(HEADS_COUNT, t)) {
        fprintf(out, "(run \\texttt{make heads-study} to draw this figure)\n");
        free(t);
        return;
    }
    double lo = INFINITY, hi = -INFINITY, tick = 0.01;
    for (size_t q = 0; q < t->groups; q++)
        lo = fmin(lo, t->group[q].best), hi = fmax(hi, t->group[q].worst);
    while ((hi - lo) / tick > 5)
        tick = tick == 0.01 ? 0.02 : tick == 0.02 ? 0.05 : tick * 2;
    lo = floor(lo / tick) * tick, hi = ceil(hi / tick) * tick;
    if (hi - lo < tick)
        hi = lo + tick;
    const double ys = 5.0 / (hi - lo);
#define X(h) (2.4 * log2((double)(h)) + 0.4)
#define Y(v) (((v) - lo) * ys)
    const double right = X(t->group[t->groups - 1].heads) + 0.4;
    fprintf(out, "\\begin{tikzpicture}[font=\\small]\n"
                 "\\draw[->] (0,0) -- (%.2f,0);\n\\node[below=14pt] at (%.2f,0) {heads};\n"
                 "\\draw[->] (0,0) -- (0,5.4) node[above] {bits per character};\n", right,
            right / 2);
    for (double v = lo; v <= hi + tick / 2; v += tick)
        fprintf(out, "\\draw (0,%.3f) -- (-0.1,%.3f) node[left] {%.2f};\n", Y(v), Y(v), v);
    for (size_t q = 0; q < t->groups; q++) {
        const heads_group *g = &t->group[q];
        fprintf(out, "\\draw (%.3f,0) -- (%.3f,-0.1) node[below] {%zu};\n", X(g->heads),
                X(g->heads), g->heads);
        fprintf(out, "\\draw[gray] (%.3f,%.3f) -- (%.3f,%.3f);\n", X(g->heads), Y(g->best),
                X(g->heads), Y(g->worst));
    }
    for (size_t k = 0; k < t->runs; k++)
        fprintf(out, "\\fill[red] (%.3f,%.3f) circle (1.5pt);\n", X(t->run[k].heads),
                Y(t->run[k].bits_per_char));
    fprintf(out, "\\draw[thick] plot coordinates {");
    for (size_t q = 0; q < t->groups; q++)
        fprintf(out, " (%.3f,%.3f)", X(t->group[q].heads), Y(t->group[q].mean));
    fprintf(out, "};\n\\end{tikzpicture}\n");
#undef X
#undef Y
    free(t);
}
