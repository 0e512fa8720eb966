/* generated from chapters/11-designed-heads.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include "designed.h"
#include "tables.h"

/* <<[[tables_designed.c]] data>> */
static const char *const table_sentences[] = {
    "the cat sat on the mat because the cat was tired",
    "a rose is a rose is a rose",
    "to be or not to be that is the question",
};
static const char *const wanted_descriptions[MHA_DESIGNED_HEADS] = {
    "the previous key", "the latest earlier occurrence, or itself", "the first key",
    "the last three keys", "every visible key, evenly",
};
/* <<[[tables_designed.c]] functions>> */
void mha_print_designed_table(FILE *out)
{
    double worst[MHA_DESIGNED_HEADS] = {0}, one[MHA_DESIGNED_HEADS];
    mha_status status = MHA_OK;
    for (size_t s = 0; status == MHA_OK && s < sizeof table_sentences / sizeof *table_sentences;
         s++) {
        status = mha_designed_worst_miss(table_sentences[s], one);
        for (size_t h = 0; status == MHA_OK && h < MHA_DESIGNED_HEADS; h++)
            worst[h] = fmax(worst[h], one[h]);
    }
    fprintf(out, "\\begin{tabular}{llr}\n\\toprule\nhead & wants & worst row: weight elsewhere \\\\\n"
                 "\\midrule\n");
    for (size_t h = 0; h < MHA_DESIGNED_HEADS; h++)
        if (status == MHA_OK)
            fprintf(out, "%s & %s & %.1e \\\\\n", mha_designed_head_names[h],
                    wanted_descriptions[h], worst[h]);
    if (status != MHA_OK)
        fprintf(out, "\\multicolumn{3}{c}{%s} \\\\\n", mha_status_message(status));
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
