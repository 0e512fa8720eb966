/* generated from chapters/15-language-model.nw; edit the book, not this file */
#include <stdio.h>
#include <string.h>
#include "tables.h"

int mha_read_austen_baselines(const char *path, austen_baselines *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    char line[512];
    int ok = f != NULL;
    for (int which = 0; ok && which < 2; which++) {
        char name[16], digest[65];
        size_t bytes;
        ok = fgets(line, sizeof line, f) != NULL &&
             sscanf(line, "# %15s %*s bytes=%zu sha256=%64[0-9a-f]", name, &bytes, digest) == 3 &&
             strcmp(name, which ? "valid" : "train") == 0 && strlen(digest) == 64;
        if (ok && which)
            memcpy(t->valid_sha256, digest, 65), t->valid_bytes = bytes;
        else if (ok)
            memcpy(t->train_sha256, digest, 65), t->train_bytes = bytes;
    }
    ok = ok && fgets(line, sizeof line, f) != NULL &&
         strcmp(line, "model\torder\tvocab\tscored_on\tsymbols\tbytes\tbits_per_char\n") == 0;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        austen_row *r = &t->row[t->rows];
        ok = t->rows < 32 && sscanf(line, "%15s %zu %zu %15s %zu %zu %lf", r->model, &r->order,
                                    &r->vocab, r->scored_on, &r->symbols, &r->bytes,
                                    &r->bits_per_char) == 7;
        t->rows += ok;
    }
    if (f != NULL)
        fclose(f);
    return ok && t->rows > 0;
}
void mha_print_austen_baselines(FILE *out)
{
    austen_baselines t;
    char count[64];
    if (!mha_read_austen_baselines("figures/austen-baselines.tsv", &t)) {
        fprintf(out, "(run \\texttt{make austen-baselines} to make this table)\n");
        return;
    }
    const char *names[] = {"unigram", "bigram", "trigram"};
    fprintf(out, "\\begin{tabular}{lrrr}\n\\toprule\n"
                 "model & order & symbols scored & bits per character \\\\\n\\midrule\n");
    for (size_t i = 0; i < t.rows; i++) {
        const austen_row *r = &t.row[i];
        if (strcmp(r->scored_on, "valid") != 0)
            continue;
        if (strcmp(r->model, "byte-kn") == 0)
            fprintf(out, "bytes, Kneser-Ney");
        else
            fprintf(out, "tokens ($V=%zu$), %s", r->vocab,
                    r->order >= 1 && r->order <= 3 ? names[r->order - 1] : "Kneser-Ney");
        fprintf(out, " & %zu & %s & %.3f \\\\\n", r->order, format_count(count, r->symbols),
                r->bits_per_char);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
void mha_print_austen_numbers(FILE *out)
{
    austen_baselines t;
    char a[64], b[64];
    if (!mha_read_austen_baselines("figures/austen-baselines.tsv", &t))
        memset(&t, 0, sizeof t);
    const austen_row *byte = NULL, *tokens = NULL, *holdout = NULL;
    for (size_t i = 0; i < t.rows; i++) {
        const int valid = strcmp(t.row[i].scored_on, "valid") == 0;
        if (valid && strcmp(t.row[i].model, "byte-kn") == 0)
            byte = &t.row[i];
        else if (valid)
            tokens = &t.row[i];
        else if (holdout == NULL)
            holdout = &t.row[i];
    }
    fprintf(out, "\\gdef\\AustenTrainBytes{%s}\\gdef\\AustenValidBytes{%s}%%\n",
            format_count(a, t.train_bytes), format_count(b, t.valid_bytes));
    fprintf(out, "\\gdef\\AustenByteOrder{%zu}%%\n", byte ? byte->order : 0);
    fprintf(out, "\\gdef\\AustenValidTokens{%s}\\gdef\\AustenBytesPerToken{%.2f}%%\n",
            format_count(a, tokens ? tokens->symbols : 0),
            tokens ? (double)tokens->bytes / (double)tokens->symbols : 0.0);
    fprintf(out, "\\gdef\\AustenHoldoutBytes{%s}%%\n", format_count(a, holdout ? holdout->bytes : 0));
    fprintf(out, "\\gdef\\AustenHoldoutScores{");
    for (size_t i = 0, first = 1; i < t.rows; i++)
        if (strcmp(t.row[i].scored_on, "train-holdout") == 0) {
            fprintf(out, "%s%.3f", first ? "" : ", ", t.row[i].bits_per_char);
            first = 0;
        }
    fprintf(out, "}%%\n");
}
