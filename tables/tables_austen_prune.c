/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables.h"

static const char AUSTEN_PRUNE[] = "figures/austen-prune.tsv";
static const char AUSTEN_PRUNE_HEADS[] = "figures/austen-heads.tsv";

int mha_read_austen_prune(const char *path, austen_prune *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    char line[1024], loss[64];
    size_t tokens, count = 0;
    int ok = f != NULL && fgets(line, sizeof line, f) != NULL &&
             sscanf(line, "# prune text=%*s tokens=%zu sha256=%*s context=%zu windows=%zu "
                          "base=%lf", &tokens, &t->context, &t->windows, &t->base) == 4 &&
             fgets(line, sizeof line, f) != NULL &&
             strcmp(line, "layer\thead\timportance\tstep\tloss\n") == 0;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        size_t layer, head;
        ok = count < sizeof t->step / sizeof t->step[0] &&
             sscanf(line, "%zu %zu %lf %zu %63s", &layer, &head, &t->importance[count],
                    &t->step[count], loss) == 5;
        if (ok)
            t->loss[count] = strcmp(loss, "-") != 0 ? strtod(loss, NULL) : NAN;
        if (ok && layer == 0)
            t->heads = head + 1;
        ok = ok && t->heads > 0 && layer * t->heads + head == count &&
             (t->step[count] == 0) == isnan(t->loss[count]);
        count += ok;
    }
    if (f != NULL)
        fclose(f);
    t->layers = t->heads ? count / t->heads : 0;
    ok = ok && count > 0 && count == t->layers * t->heads && t->windows > 0;
    for (size_t k = 0; ok && k < count; k++)       /* the steps are 1..S, each once */
        for (size_t j = 0; j < k; j++)
            ok = ok && (t->step[k] == 0 || t->step[k] != t->step[j]) && t->step[k] <= count;
    austen_heads *roles = malloc(sizeof *roles);
    const int named = roles != NULL && mha_read_austen_heads(AUSTEN_PRUNE_HEADS, roles) &&
                      roles->layers == t->layers && roles->heads == t->heads;
    for (size_t k = 0; k < count; k++) {
        snprintf(t->role[k], sizeof t->role[k], "%s", named ? roles->head[k].role : "unmeasured");
        t->entropy[k] = named ? roles->head[k].score[7] : NAN;
    }
    free(roles);
    return ok;
}
static int named_role(const char *role)
{
    return strcmp(role, "local") != 0 && strcmp(role, "broad") != 0 &&
           strcmp(role, "unmeasured") != 0;
}
/* Spearman's rank correlation of x and y (n), ties given their mean rank */
static double rank_correlation(const double *x, const double *y, size_t n)
{
    double rx[1024], ry[1024], mean = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
    for (size_t k = 0; k < n; k++) {
        rx[k] = ry[k] = 1;
        for (size_t j = 0; j < n; j++) {
            rx[k] += (x[j] < x[k]) + 0.5 * (j != k && x[j] == x[k]);
            ry[k] += (y[j] < y[k]) + 0.5 * (j != k && y[j] == y[k]);
        }
    }
    for (size_t k = 0; k < n; k++) {
        sxy += (rx[k] - mean) * (ry[k] - mean);
        sxx += (rx[k] - mean) * (rx[k] - mean), syy += (ry[k] - mean) * (ry[k] - mean);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}
/* the loss after step s (0: every head kept) */
static double loss_after(const austen_prune *t, size_t s)
{
    for (size_t k = 0; s > 0 && k < t->layers * t->heads; k++)
        if (t->step[k] == s)
            return t->loss[k];
    return s == 0 ? t->base : NAN;
}
void mha_print_austen_prune_numbers(FILE *out)
{
    austen_prune *t = calloc(1, sizeof *t);
    if (t == NULL || !mha_read_austen_prune(AUSTEN_PRUNE, t)) {
        if (t != NULL)
            memset(t, 0, sizeof *t);
        fprintf(out, "\\gdef\\AustenPruneVerdict{(run \\texttt{make austen-prune} to measure "
                     "the heads)}%%\n");
    }
    const size_t NH = t ? t->layers * t->heads : 0;
    size_t top = 0, small = 0, free_steps = 0, named = 0, named_top = 0;
    double named_sum = 0, other_sum = 0;
    for (size_t k = 0; k < NH; k++) {
        top = t->importance[k] > t->importance[top] ? k : top;
        small += t->importance[k] < 0.01;
        named += named_role(t->role[k]);
        named_sum += named_role(t->role[k]) ? t->importance[k] : 0;
        other_sum += named_role(t->role[k]) ? 0 : t->importance[k];
    }
    while (free_steps < NH && loss_after(t, free_steps + 1) <= t->base + 0.1)
        free_steps++;
    const size_t top_count = t && t->heads ? t->heads : 0;   /* as many as a block has */
    for (size_t k = 0; k < NH; k++) {
        size_t above = 0;                          /* heads more important than k */
        for (size_t j = 0; j < NH; j++)
            above += t->importance[j] > t->importance[k];
        named_top += above < top_count && named_role(t->role[k]);
    }
    fprintf(out, "\\gdef\\AustenPruneWindows{%zu}\\gdef\\AustenPruneTokens{%zu}"
                 "\\gdef\\AustenPruneBase{%.3f}\\gdef\\AustenPruneCount{%zu}%%\n",
            t ? t->windows : 0, t ? t->windows * t->context : 0, t ? t->base : 0, NH);
    fprintf(out, "\\gdef\\AustenPruneTop{%.3f}\\gdef\\AustenPruneTopLayer{%zu}"
                 "\\gdef\\AustenPruneTopHead{%zu}\\gdef\\AustenPruneTopRole{%s}%%\n",
            NH ? t->importance[top] : 0, NH ? top / t->heads : 0, NH ? top % t->heads : 0,
            NH ? t->role[top] : "none");
    fprintf(out, "\\gdef\\AustenPruneSmall{%zu}\\gdef\\AustenPruneFree{%zu}"
                 "\\gdef\\AustenPruneHalf{%.3f}\\gdef\\AustenPruneAll{%.3f}%%\n", small,
            free_steps, NH ? loss_after(t, NH / 2) : 0, NH ? loss_after(t, NH) : 0);
    const double named_mean = named ? named_sum / (double)named : 0;
    const double other_mean = NH > named ? other_sum / (double)(NH - named) : 0;
    fprintf(out, "\\gdef\\AustenPruneSpecialisedCount{%zu}\\gdef\\AustenPruneSpecialisedMean"
                 "{%.3f}\\gdef\\AustenPruneOtherMean{%.3f}%%\n", named, named_mean, other_mean);
    fprintf(out, "\\gdef\\AustenPruneTopSpecialised{%zu}\\gdef\\AustenPruneTopCount{%zu}%%\n",
            named_top, top_count);
    if (NH > 0)
        fprintf(out, "\\gdef\\AustenPruneVerdict{%s}%%\n",
                named < 3 || NH - named < 3 ? "So few heads are on one side that the means "
                                              "say little."
                : named_mean > other_mean ? "The named heads are, on average, the ones the "
                                            "model needs more."
                                          : "The named heads are not, on average, the ones the "
                                            "model needs more.");
    fprintf(out, "\\gdef\\AustenPruneRedundantVerdict{%s}%%\n",
            NH && 4 * small >= NH ? "Confirmed, as Michel et al.\\ found for translation and "
                                    "BERT \\cite{michel2019}"
                                  : "Not confirmed here, as it was by Michel et al.\\ for "
                                    "translation and BERT \\cite{michel2019}");
    const double rho = NH && !isnan(t->entropy[0]) ? rank_correlation(t->importance, t->entropy,
                                                                       NH) : 0;
    fprintf(out, "\\gdef\\AustenPruneEntropyRank{%.2f}\\gdef\\AustenPruneEntropyVerdict{%s}%%\n",
            rho, rho <= -0.3 ? "the more a head concentrates its weight, the more the model "
                               "needs it"
                 : rho >= 0.3 ? "the heads that spread their weight are the ones the model "
                                "needs more"
                              : "how much a head concentrates its weight says little about "
                                "how much the model needs it");
    free(t);
}
static const char *role_label(const char *role)
{
    static const char *const names[][2] = {
        {"induction", "ind"}, {"previous-token", "prev"}, {"first-token", "first"},
        {"same-token", "same"}, {"sentence-start", "sent"}, {"punctuation", "punct"},
        {"local", "local"}, {"broad", "broad"}};
    for (size_t r = 0; r < sizeof names / sizeof names[0]; r++)
        if (strcmp(role, names[r][0]) == 0)
            return names[r][1];
    return "--";
}
void mha_print_austen_prune(FILE *out)
{
    austen_prune *t = calloc(1, sizeof *t);
    if (t == NULL || !mha_read_austen_prune(AUSTEN_PRUNE, t)) {
        fprintf(out, "(run \\texttt{make austen-prune} to make this table)\n");
        free(t);
        return;
    }
    fprintf(out, "\\begin{tabular}{r*{%zu}{c}}\n\\toprule\n & \\multicolumn{%zu}{c}{head} \\\\\n"
                 "block", t->heads, t->heads);
    for (size_t h = 0; h < t->heads; h++)
        fprintf(out, " & %zu", h);
    fprintf(out, " \\\\\n\\midrule\n");
    for (size_t l = 0; l < t->layers; l++) {
        fprintf(out, "%zu", l);
        for (size_t h = 0; h < t->heads; h++) {
            const size_t k = l * t->heads + h;
            const double shown = fabs(t->importance[k]) < 0.0005 ? 0.0 : t->importance[k];
            fprintf(out, " & \\begin{tabular}{@{}c@{}}\\textsf{%s}\\\\ %.3f\\\\ ",
                    role_label(t->role[k]), shown);
            if (t->step[k])
                fprintf(out, "\\#%zu\\end{tabular}", t->step[k]);
            else
                fprintf(out, "--\\end{tabular}");
        }
        fprintf(out, " \\\\\n");
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
    free(t);
}
void mha_print_austen_prune_curve(FILE *out)
{
    austen_prune *t = calloc(1, sizeof *t);
    if (t == NULL || !mha_read_austen_prune(AUSTEN_PRUNE, t)) {
        fprintf(out, "(run \\texttt{make austen-prune} to make this table)\n");
        free(t);
        return;
    }
    const size_t NH = t->layers * t->heads;
    fprintf(out, "\\begin{tabular}{rrlrr}\n\\toprule\nremoved & share & last removed & loss & "
                 "increase \\\\\n\\midrule\n0 & 0 & --- & %.3f & 0 \\\\\n", t->base);
    for (size_t s = 1; s <= NH; s++) {
        size_t k = 0;
        while (k < NH && t->step[k] != s)
            k++;
        if (k == NH || (s > 4 && s % 4 != 0 && s != NH))
            continue;
        fprintf(out, "%zu & %.3f & head %zu of block %zu (%s) & %.3f & %.3f \\\\\n", s,
                (double)s / (double)NH, k % t->heads, k / t->heads, role_label(t->role[k]),
                t->loss[k], t->loss[k] - t->base);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
    free(t);
}
void mha_print_austen_prune_plot(FILE *out)
{
    austen_prune *t = calloc(1, sizeof *t);
    if (t == NULL || !mha_read_austen_prune(AUSTEN_PRUNE, t)) {
        fprintf(out, "(run \\texttt{make austen-prune} to draw this figure)\n");
        free(t);
        return;
    }
    const size_t NH = t->layers * t->heads;
    double lo = floor(t->base), hi = lo + 1;
    for (size_t s = 1; s <= NH; s++)
        if (!isnan(loss_after(t, s)))
            hi = fmax(hi, ceil(loss_after(t, s)));
    const double ys = 5.0 / (hi - lo);
    fprintf(out, "\\begin{tikzpicture}[font=\\small]\n"
                 "\\draw[->] (0,0) -- (10.4,0);\n"
                 "\\node[below=14pt] at (5,0) {share of the heads removed};\n"
                 "\\draw[->] (0,0) -- (0,5.4) node[above] {nats per token};\n");
    for (double v = lo; v <= hi + 0.25; v += 0.5)
        fprintf(out, "\\draw (0,%.3f) -- (-0.1,%.3f) node[left] {%.1f};\n", (v - lo) * ys,
                (v - lo) * ys, v);
    for (int k = 0; k <= 4; k++)
        fprintf(out, "\\draw (%.1f,0) -- (%.1f,-0.1) node[below] {%.2f};\n", 2.5 * k, 2.5 * k,
                0.25 * k);
    fprintf(out, "\\draw[thick] plot coordinates {");
    for (size_t s = 0; s <= NH; s++)
        if (!isnan(loss_after(t, s)))
            fprintf(out, " (%.3f,%.3f)", 10.0 * (double)s / (double)NH,
                    (loss_after(t, s) - lo) * ys);
    fprintf(out, "};\n\\end{tikzpicture}\n");
    free(t);
}
void mha_print_austen_prune_roles(FILE *out)
{
    austen_prune *t = calloc(1, sizeof *t);
    if (t == NULL || !mha_read_austen_prune(AUSTEN_PRUNE, t)) {
        fprintf(out, "(run \\texttt{make austen-prune} to make this table)\n");
        free(t);
        return;
    }
    static const char *const roles[] = {"induction", "previous-token", "first-token",
                                        "same-token", "sentence-start", "punctuation", "local",
                                        "broad", "unmeasured"};
    fprintf(out, "\\begin{tabular}{lrrrr}\n\\toprule\nrole & heads & mean importance & largest "
                 "& mean step \\\\\n\\midrule\n");
    for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++) {
        size_t count = 0, stepped = 0;
        double sum = 0, most = -INFINITY, steps = 0;
        for (size_t k = 0; k < t->layers * t->heads; k++)
            if (strcmp(t->role[k], roles[r]) == 0) {
                count++, sum += t->importance[k], most = fmax(most, t->importance[k]);
                steps += (double)t->step[k], stepped += t->step[k] > 0;
            }
        if (count == 0)
            continue;
        fprintf(out, "%s & %zu & %.3f & %.3f & ", roles[r], count, sum / (double)count, most);
        if (stepped == count)
            fprintf(out, "%.1f \\\\\n", steps / (double)count);
        else
            fprintf(out, "--- \\\\\n");
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
    free(t);
}
