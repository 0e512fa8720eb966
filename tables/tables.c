/* generated from chapters/27-book-tables.nw, chapters/95-answers.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tables.h"

/* <<[[tables.c]] number formats>> */
const char *format_count(char buf[64], unsigned long long n)
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
/* <<[[tables.c]] number formats>> */
const char *format_millions(char buf[64], double flops)
{
    const double m = flops / 1e6;
    if (m >= 100)
        return format_count(buf, (unsigned long long)(m + 0.5));
    snprintf(buf, 64, "%.3g", m);
    return buf;
}
/* <<[[tables.c]] number formats>> */
static void size_macro(FILE *out, const char *name, double bytes, double unit,
                       const char *unit_name)
{
    fprintf(out, "\\newcommand{\\%s}{%.0f\\,%s}\n", name, bytes / unit, unit_name);
}
/* <<[[tables.c]] printers>> */
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
/* <<[[tables.c]] printers>> */
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
        char m[6][64];
        fprintf(out, "%zu & %zu & %zu & %zu & %s & %s & %s & %s & %s & %s \\\\\n",
                s->batch, s->query_len, s->embed_dim, s->heads,
                format_millions(m[0], f.q_proj), format_millions(m[1], f.kv_proj),
                format_millions(m[2], f.scores), format_millions(m[3], f.context),
                format_millions(m[4], f.out_proj), format_millions(m[5], f.softmax));
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
/* <<[[tables.c]] printers>> */
void mha_print_numbers(FILE *out)
{
    /* <<numbers the prose quotes>> */
    {
        mha_flops f = mha_flop_count(&flop_table_shapes[0]);
        fprintf(out, "\\newcommand{\\NotebookProjOverCore}{%.0f}\n",
                (f.q_proj + f.kv_proj + f.out_proj) / (f.scores + f.context));
    }
    /* <<numbers the prose quotes>> */
    {
        const double kib = 1024.0, mib = 1024.0 * 1024.0, mb = 1e6, E = 768;
        size_macro(out, "SizeScoresHead", 2048.0 * 2048 * 4, mib, "MiB");
        size_macro(out, "SizeKeyRowStride", 2048.0 * 4, kib, "KiB");
        size_macro(out, "SizeForwardScratch", 6.0 * 8 * 512 * 512 * 4, mb, "MB");
        size_macro(out, "SizeDecodeNear", (2 * 4096 * E + 4 * E * E) * 4, mb, "MB");
        size_macro(out, "SizeDecodeMid", 2 * 16384 * E * 4, mb, "MB");
        size_macro(out, "SizeDecodeMidGqa", 2 * 16384 * E * 4 / 4, mb, "MB");
        size_macro(out, "SizeDecodeFar", 2 * 65536 * E * 4, mb, "MB");
        size_macro(out, "SizeDecodeFarGqa", 2 * 65536 * E * 4 / 4, mb, "MB");
        size_macro(out, "SizeDecodeLongestGqa", 2 * 262144 * E * 4 / 4, mb, "MB");
    }
    /* <<numbers the prose quotes>> */
    {
        /* Answers appendix: the scale, the limits of expf, counts of a head. */
        int over = 0, under = 0, under_normal = 0;
        while (!isinf(expf((float)over)))
            over++;
        while (expf((float)under) != 0.0f)
            under--;
        while (expf((float)under_normal) >= 0x1p-126f)      /* FLT_MIN */
            under_normal--;
        fprintf(out, "\\newcommand{\\AnsExpOverflow}{%d}\n", over);
        fprintf(out, "\\newcommand{\\AnsExpUnderflow}{%d}\n", under);
        fprintf(out, "\\newcommand{\\AnsExpUnderflowNormal}{%d}\n", under_normal);
        /* <<print the answers' counts for $E=512$, $H=8$ and $E=768$, $H=12$>> */
        char count[64];
        const size_t E = 512, D = 512 / 8, L = 128;
        fprintf(out, "\\newcommand{\\AnsRootDStd}{%.0f}\n", sqrt(64.0));
        fprintf(out, "\\newcommand{\\AnsRootDRatio}{%.0f}\n", exp(sqrt(64.0)));
        fprintf(out, "\\newcommand{\\AnsRootDScaledRatio}{%.2f}\n", exp(1.0));
        fprintf(out, "\\newcommand{\\AnsParams}{%s}\n", format_count(count, mha_param_count(E, 1)));
        fprintf(out, "\\newcommand{\\AnsHeadParams}{%s}\n", format_count(count, 3 * D * E + 3 * D + E * D));
        fprintf(out, "\\newcommand{\\AnsHeadMacs}{%s}\n", format_count(count, 3 * L * D * E));
        size_t balance = 1;
        for (;; balance++) {
            mha_shape s = {1, balance, balance, 768, 12};
            mha_flops f = mha_flop_count(&s);
            if (f.scores + f.context >= f.q_proj + f.kv_proj + f.out_proj)
                break;
        }
        fprintf(out, "\\newcommand{\\AnsBalanceLength}{%zu}\n", balance);
        fprintf(out, "\\newcommand{\\AnsWeightsMiB}{%.0f}\n", 12.0 * 2048 * 2048 * sizeof(float) / (1 << 20));
    }
}
