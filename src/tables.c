/* generated from chapters/01-shape.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mha.h"

static const char *format_count(char buf[64], unsigned long long n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", n), out = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out += snprintf(buf + out, 64 - (size_t)out, "\\,");
        buf[out++] = digits[i];
    }
    buf[out] = '\0';
    return buf;
}
void mha_print_param_table(FILE *out)
{
    static const size_t widths[] = {4, 512, 768, 1024, 4096};
    char a[64], b[64], c[64];
    fprintf(out, "\\begin{tabular}{rrrr}\n\\toprule\n"
                 "$E$ & weights $4E^2$ & biases $4E$ & total \\\\\n\\midrule\n");
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        size_t E = widths[i];
        fprintf(out, "%zu & %s & %s & %s \\\\\n", E,
                format_count(a, mha_param_count(E, 0)),
                format_count(b, 4 * E),
                format_count(c, mha_param_count(E, 1)));
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
static const mha_shape flop_table_shapes[] = {
    {32, 10, 10, 512, 8}, {1, 512, 512, 768, 12}, {1, 2048, 2048, 768, 12},
};

void mha_print_flop_table(FILE *out)
{
    fprintf(out, "\\begin{tabular}{rrrrrrrrrr}\n\\toprule\n"
                 "$B$ & $L$ & $E$ & $H$ & $Q$ proj & $K,V$ proj & scores & context"
                 " & out proj & softmax \\\\\n\\midrule\n");
    for (size_t i = 0; i < sizeof flop_table_shapes / sizeof flop_table_shapes[0]; i++) {
        const mha_shape *s = &flop_table_shapes[i];
        mha_flops f = mha_flop_count(s);
        fprintf(out, "%zu & %zu & %zu & %zu & %.3g & %.3g & %.3g & %.3g & %.3g & %.3g \\\\\n",
                s->batch, s->query_len, s->embed_dim, s->heads,
                f.q_proj / 1e6, f.kv_proj / 1e6, f.scores / 1e6,
                f.context / 1e6, f.out_proj / 1e6, f.softmax / 1e6);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
