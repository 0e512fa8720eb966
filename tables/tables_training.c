/* generated from chapters/13-learning.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tables.h"

/* <<[[tables_training.c]] functions>> */
/* Read a history written by 'mha train --history'; 0 if it cannot. */
int mha_read_training_history(const char *path, training_curve *c)
{
    FILE *f = fopen(path, "r");
    char line[256];
    memset(c, 0, sizeof *c);
    if (f == NULL || fgets(line, sizeof line, f) == NULL) {
        if (f) fclose(f);
        return 0;
    }
    size_t step, layer, head;
    double loss, accuracy, previous, induction;
    while (fscanf(f, "%zu %lf %lf %zu %zu %lf %lf", &step, &loss, &accuracy, &layer, &head,
                  &previous, &induction) == 7) {
        /* <<add the row to [[c]], starting a new point at a new step>> */
        if (c->points == 0 || c->step[c->points - 1] != (double)step) {
            if (c->points == 256)
                break;
            c->step[c->points] = (double)step, c->accuracy[c->points] = accuracy;
            c->points++;
        }
        const size_t p = c->points - 1;
        if (layer == 0 && previous > c->best_previous[p])
            c->best_previous[p] = previous;
        if (layer == 1 && induction > c->best_induction[p])
            c->best_induction[p] = induction;
    }
    fclose(f);
    return c->points > 0;
}
/* <<[[tables_training.c]] functions>> */
static void plot_curve(FILE *out, const training_curve *c, const double *y,
                       const char *style, double x_scale)
{
    fprintf(out, "\\draw[%s] plot coordinates {", style);
    for (size_t i = 0; i < c->points; i++)
        fprintf(out, " (%.2f,%.3f)", c->step[i] * x_scale, 5.0 * y[i]);
    fprintf(out, " };\n");
}

void mha_print_training_figure(FILE *out)
{
    training_curve two, one;
    if (!mha_read_training_history("figures/training-2layer.tsv", &two) ||
        !mha_read_training_history("figures/training-1layer.tsv", &one)) {
        fprintf(out, "(run \\texttt{make train-figure} to draw this figure)\n");
        return;
    }
    const double x_scale = 10.0 / two.step[two.points - 1];      /* 10 cm wide */
    /* <<draw the axes, the four curves and their legend>> */
    fprintf(out, "\\begin{tikzpicture}[font=\\small]\n"
                 "\\draw[->] (0,0) -- (10.4,0) node[right] {step};\n"
                 "\\draw[->] (0,0) -- (0,5.4);\n");
    for (int k = 0; k <= 4; k++)
        fprintf(out, "\\draw (0,%.2f) -- (-0.1,%.2f) node[left] {%.2f};\n", 1.25 * k, 1.25 * k,
                0.25 * k);
    for (int k = 0; k <= 4; k++)
        fprintf(out, "\\draw (%.2f,0) -- (%.2f,-0.1) node[below] {%.0f};\n", 2.5 * k, 2.5 * k,
                0.25 * k * two.step[two.points - 1]);
    plot_curve(out, &two, two.accuracy, "thick,black", x_scale);
    plot_curve(out, &two, two.best_previous, "thick,blue,dashed", x_scale);
    plot_curve(out, &two, two.best_induction, "thick,red,dotted", x_scale);
    plot_curve(out, &one, one.accuracy, "thick,gray", x_scale);
    fprintf(out, "\\node[anchor=north west,align=left] at (0.3,5.3) {"
                 "\\textcolor{black}{---} two layers: accuracy\\\\"
                 "\\textcolor{blue}{- -} best previous-token score, layer 0\\\\"
                 "\\textcolor{red}{$\\cdots$} best induction score, layer 1\\\\"
                 "\\textcolor{gray}{---} one layer: accuracy};\n"
                 "\\end{tikzpicture}\n");
}
/* <<[[tables_training.c]] functions>> */
void mha_print_training_summary(FILE *out)
{
    training_curve two, one;
    if (!mha_read_training_history("figures/training-2layer.tsv", &two) ||
        !mha_read_training_history("figures/training-1layer.tsv", &one))
        return;
    const size_t a = two.points - 1, b = one.points - 1;
    fprintf(out, "After %.0f steps the two-layer model predicts %.0f\\%% of the predictable "
                 "tokens (chance is %.1f\\%%), its best induction head puts %.2f of its "
                 "weight on the right key and its best previous-token head %.2f; the "
                 "one-layer model, after the same %.0f steps, is at %.0f\\%%.\n",
            two.step[a], 100 * two.accuracy[a], 100.0 / 64, two.best_induction[a],
            two.best_previous[a], one.step[b], 100 * one.accuracy[b]);
    const size_t quiet = mha_training_quiet_point(&two), jump = mha_training_jump_point(&two);
    fprintf(out, "\\newcommand{\\TrainQuietStep}{%.0f}\\newcommand{\\TrainQuietAccuracy}{%.0f}"
                 "\\newcommand{\\TrainQuietInduction}{%.2f}\\newcommand{\\TrainJumpStep}{%.0f}"
                 "\\newcommand{\\TrainJumpInduction}{%.2f}%%\n",
            two.step[quiet], 100 * two.accuracy[quiet], two.best_induction[quiet],
            two.step[jump], two.best_induction[jump]);
    fprintf(out, "\\newcommand{\\TrainLastPrevious}{%.2f}%%\n", two.best_previous[a]);
}
/* <<[[tables_training.c]] functions>> */
size_t mha_training_quiet_point(const training_curve *c)
{
    size_t p = 0;
    for (size_t i = 0; i < c->points; i++)
        if (c->accuracy[i] < 0.3)
            p = i;
    return p;
}

size_t mha_training_jump_point(const training_curve *c)
{
    for (size_t i = 0; i < c->points; i++)
        if (c->accuracy[i] >= 0.9)
            return i;
    return c->points - 1;
}
