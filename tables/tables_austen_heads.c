/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tables.h"

static const char AUSTEN_HEADS[] = "figures/austen-heads.tsv";

int mha_read_austen_heads(const char *path, austen_heads *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    char line[1024];
    size_t tokens, seed, count = 0;
    int ok = f != NULL && fgets(line, sizeof line, f) != NULL &&
             sscanf(line, "# heads text=%*s tokens=%zu sha256=%*s context=%zu windows=%zu "
                          "seed=%zu", &tokens, &t->context, &t->windows, &seed) == 4 &&
             fgets(line, sizeof line, f) != NULL &&
             strcmp(line, "layer\thead\tprev_token\tinduction\tsame_token\tfirst_token\t"
                          "punctuation\tsentence_start\tmean_distance\tentropy_bits\t"
                          "prefix_matching\trole\n") == 0;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        austen_head *h = &t->head[count];
        size_t layer, head;
        double *s = h->score;
        ok = count < sizeof t->head / sizeof t->head[0] &&
             sscanf(line, "%zu %zu %lf %lf %lf %lf %lf %lf %lf %lf %lf %23s", &layer, &head,
                    &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7], &s[8], h->role) == 12;
        if (ok && layer == 0)
            t->heads = head + 1;
        ok = ok && t->heads > 0 && layer * t->heads + head == count;
        count += ok;
    }
    if (f != NULL)
        fclose(f);
    t->layers = t->heads ? count / t->heads : 0;
    return ok && count > 0 && count == t->layers * t->heads && t->context > 1;
}
static size_t role_count(const austen_heads *t, const char *role)
{
    size_t count = 0;
    for (size_t k = 0; k < t->layers * t->heads; k++)
        count += strcmp(t->head[k].role, role) == 0;
    return count;
}
/* "block 2", "blocks 0, 1 and 3" or "no block": the blocks where count[l] > 0 */
static void print_blocks(FILE *out, const size_t *count, size_t layers)
{
    size_t found = 0, shown = 0;
    for (size_t l = 0; l < layers; l++)
        found += count[l] > 0;
    fprintf(out, found == 0 ? "no block" : found == 1 ? "block " : "blocks ");
    for (size_t l = 0; l < layers; l++)
        if (count[l] > 0) {
            shown++;
            fprintf(out, "%s%zu", shown == 1 ? "" : shown == found ? " and " : ", ", l);
        }
}
static size_t strongest(const austen_heads *t, int score)
{
    size_t best = 0;
    for (size_t k = 1; k < t->layers * t->heads; k++)
        best = t->head[k].score[score] > t->head[best].score[score] ? k : best;
    return best;
}
void mha_print_austen_heads_numbers(FILE *out)
{
    austen_heads t;
    if (!mha_read_austen_heads(AUSTEN_HEADS, &t))
        memset(&t, 0, sizeof t), t.heads = 1, t.context = 2;
    double previous = 0, entropy = 0;
    for (size_t i = 1; i < t.context; i++)
        previous += 1.0 / (double)(i + 1), entropy += log2((double)(i + 1));
    previous /= (double)(t.context - 1), entropy /= (double)(t.context - 1);
    fprintf(out, "\\gdef\\AustenHeadsCount{%zu}\\gdef\\AustenHeadsWindows{%zu}%%\n",
            t.layers * t.heads, t.windows);
    fprintf(out, "\\gdef\\AustenHeadsContext{%zu}\\gdef\\AustenHeadsUniformPrevious{%.3f}%%\n",
            t.context, previous);
    fprintf(out, "\\gdef\\AustenHeadsUniformDistance{%.2f}"
                 "\\gdef\\AustenHeadsUniformEntropy{%.2f}%%\n", (double)t.context / 4, entropy);
    const char *roles[] = {"previous-token", "induction", "first-token", "same-token",
                           "sentence-start", "punctuation", "local", "broad"};
    size_t found = 0, listed = 0;
    for (size_t r = 0; r < 8; r++)
        found += role_count(&t, roles[r]) > 0;
    fprintf(out, "\\gdef\\AustenHeadsRoleList{");
    for (size_t r = 0; r < 8; r++) {
        const size_t count = role_count(&t, roles[r]);
        if (count == 0)
            continue;
        listed++;
        fprintf(out, "%s%zu %s", listed == 1 ? "" : listed == found ? " and " : ", ", count,
                roles[r]);
    }
    fprintf(out, "}%%\n");
    size_t per_block[3][sizeof t.head / sizeof t.head[0]] = {{0}}, even = 0;
    for (size_t k = 0; k < t.layers * t.heads; k++) {
        per_block[0][k / t.heads] += strcmp(t.head[k].role, roles[0]) == 0;
        per_block[1][k / t.heads] += strcmp(t.head[k].role, roles[1]) == 0;
        per_block[2][k / t.heads] += t.head[k].score[7] >= entropy - 0.25;
        even += t.head[k].score[7] >= entropy - 0.25;
    }
    const char *lists[3] = {"Previous", "Induction", "NearEven"};
    for (int kind = 0; kind < 3; kind++) {
        fprintf(out, "\\gdef\\AustenHeads%sBlocks{", lists[kind]);
        print_blocks(out, per_block[kind], t.layers);
        fprintf(out, "}%%\n");
    }
    fprintf(out, "\\gdef\\AustenHeadsNearEven{%zu}%%\n", even);
    const size_t inductive = role_count(&t, "induction"), copying = role_count(&t, roles[0]);
    fprintf(out, "\\gdef\\AustenHeadsCircuit{%s}%%\n",
            inductive ? "The induction heads are in \\AustenHeadsInductionBlocks, the "
                        "previous-token heads in \\AustenHeadsPreviousBlocks."
            : copying ? "Previous-token heads have formed, in "
                         "\\AustenHeadsPreviousBlocks, but no head in a later block completes "
                         "a repeated span."
                       : "No head passes either rule: none puts most of its weight on the "
                         "previous token, and none completes a repeated span.");
    const size_t NH = t.layers * t.heads;
    const size_t named = NH - role_count(&t, "local") - role_count(&t, "broad");
    fprintf(out, "\\gdef\\AustenHeadsSpecialiseVerdict{");
    if (named == 0)
        fprintf(out, "Refuted at this scale: the rule names no head.");
    else if (4 * named < NH)
        fprintf(out, "Qualified: the rule names %zu of the %zu heads; the others spread their "
                     "weight.", named, NH);
    else
        fprintf(out, "Confirmed: the rule names %zu of the %zu heads.", named, NH);
    fprintf(out, "}%%\n");
    const char *names[2] = {"Previous", "Induction"};
    for (int s = 0; s < 2; s++) {
        const size_t k = strongest(&t, s);
        fprintf(out, "\\gdef\\AustenHeadsTop%s{%.3f}\\gdef\\AustenHeadsTop%sHead{%zu}"
                     "\\gdef\\AustenHeadsTop%sLayer{%zu}%%\n", names[s], t.head[k].score[s],
                names[s], k % t.heads, names[s], k / t.heads);
    }
}
void mha_print_austen_heads(FILE *out)
{
    austen_heads t;
    if (!mha_read_austen_heads(AUSTEN_HEADS, &t)) {
        fprintf(out, "(run \\texttt{make austen-heads} to make this table)\n");
        return;
    }
    static const struct { const char *role, *label; int score; } shown[] = {
        {"induction", "ind", 1}, {"previous-token", "prev", 0},
        {"first-token", "first", 3}, {"same-token", "same", 2},
        {"sentence-start", "sent", 5}, {"punctuation", "punct", 4},
        {"local", "local", 6}, {"broad", "broad", 6}};
    fprintf(out, "\\begin{tabular}{r*{%zu}{c}}\n\\toprule\n & \\multicolumn{%zu}{c}{head} \\\\\n"
                 "block", t.heads, t.heads);
    for (size_t h = 0; h < t.heads; h++)
        fprintf(out, " & %zu", h);
    fprintf(out, " \\\\\n\\midrule\n");
    for (size_t l = 0; l < t.layers; l++) {
        fprintf(out, "%zu", l);
        for (size_t h = 0; h < t.heads; h++) {
            const austen_head *x = &t.head[l * t.heads + h];
            size_t r = 0;
            while (r + 1 < sizeof shown / sizeof shown[0] && strcmp(shown[r].role, x->role) != 0)
                r++;
            fprintf(out, " & \\begin{tabular}{@{}c@{}}\\textsf{%s}\\\\ %.*f\\end{tabular}",
                    shown[r].label, shown[r].score == 6 ? 1 : 2, x->score[shown[r].score]);
        }
        fprintf(out, " \\\\\n");
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
void mha_print_austen_heads_scores(FILE *out)
{
    austen_heads t;
    if (!mha_read_austen_heads(AUSTEN_HEADS, &t)) {
        fprintf(out, "(run \\texttt{make austen-heads} to make this table)\n");
        return;
    }
    fprintf(out, "\\setlength{\\tabcolsep}{3pt}\\footnotesize\n"
                 "\\begin{tabular}{rrrrrrrrrrl}\n\\toprule\n"
                 "block & head & prev. & induct. & same & first & punct. & sent. & dist. & bits "
                 "& role \\\\\n\\midrule\n");
    for (size_t k = 0; k < t.layers * t.heads; k++) {
        const double *s = t.head[k].score;
        fprintf(out, "%zu & %zu & %.2f & %.2f & %.2f & %.2f & %.2f & %.2f & %.1f & %.2f & %s "
                     "\\\\\n", k / t.heads, k % t.heads, s[0], s[1], s[2], s[3], s[4], s[5],
                s[6], s[7], t.head[k].role);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
