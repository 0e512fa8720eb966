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
static const char *format_millions(char buf[64], double flops)
{
    const double m = flops / 1e6;
    if (m >= 100)
        return format_count(buf, (unsigned long long)(m + 0.5));
    snprintf(buf, 64, "%.3g", m);
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
        char m[6][64];
        fprintf(out, "%zu & %zu & %zu & %zu & %s & %s & %s & %s & %s & %s \\\\\n",
                s->batch, s->query_len, s->embed_dim, s->heads,
                format_millions(m[0], f.q_proj), format_millions(m[1], f.kv_proj),
                format_millions(m[2], f.scores), format_millions(m[3], f.context),
                format_millions(m[4], f.out_proj), format_millions(m[5], f.softmax));
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
void mha_print_numbers(FILE *out)
{
    {
        mha_flops f = mha_flop_count(&flop_table_shapes[0]);
        fprintf(out, "\\newcommand{\\NotebookProjOverCore}{%.0f}\n",
                (f.q_proj + f.kv_proj + f.out_proj) / (f.scores + f.context));
    }
}
static void print_matrix(FILE *out, const char *name, const float *m,
                         size_t rows, size_t cols)
{
    fprintf(out, "$%s = \\begin{pmatrix}", name);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            fprintf(out, "%.3f%s", (double)m[r * cols + c],
                    c + 1 < cols ? " & " : r + 1 < rows ? " \\\\ " : "");
    fprintf(out, "\\end{pmatrix}$");
}

void mha_print_example_table(FILE *out)
{
    float in_w[48], out_w[16];
    mha_example_params(in_w, out_w);
    for (size_t h = 0; h < 2; h++) {
        float q[6], k[6], v[6], scores[9], weights[9], context[6];
        mha_matmul_nt(3, 2, 4, mha_example_x, 4, in_w + (0 * 4 + h * 2) * 4, 4, NULL, q, 2);
        mha_matmul_nt(3, 2, 4, mha_example_x, 4, in_w + (1 * 4 + h * 2) * 4, 4, NULL, k, 2);
        mha_matmul_nt(3, 2, 4, mha_example_x, 4, in_w + (2 * 4 + h * 2) * 4, 4, NULL, v, 2);
        mha_attend(3, 3, 2, q, 2, k, 2, v, 2, NULL, weights, context, 2);
        mha_matmul_nt(3, 3, 2, q, 2, k, 2, NULL, scores, 3);
        for (size_t i = 0; i < 9; i++)
            scores[i] /= sqrtf(2.0f);
        char nm[4][16];
        snprintf(nm[0], 16, "Q_%zu", h + 1);
        snprintf(nm[1], 16, "K_%zu", h + 1);
        snprintf(nm[2], 16, "V_%zu", h + 1);
        fprintf(out, "\\paragraph{Head %zu.}\n", h + 1);
        print_matrix(out, nm[0], q, 3, 2); fprintf(out, ",\\quad\n");
        print_matrix(out, nm[1], k, 3, 2); fprintf(out, ",\\quad\n");
        print_matrix(out, nm[2], v, 3, 2); fprintf(out, "\n\n\\smallskip\\noindent\n");
        print_matrix(out, "\\text{scores}", scores, 3, 3); fprintf(out, ",\\quad\n");
        print_matrix(out, "\\text{weights}", weights, 3, 3); fprintf(out, ",\\quad\n");
        snprintf(nm[3], 16, "\\text{head}_%zu", h + 1);
        print_matrix(out, nm[3], context, 3, 2); fprintf(out, ".\n\n");
    }
}
void mha_print_erratum(FILE *out)
{
    float notes_scores[3] = {0.71f, 0.00f, 1.41f};
    mha_softmax_row(notes_scores, 3);
    fprintf(out, "$(%.2f, %.2f, %.2f)$", (double)notes_scores[0],
            (double)notes_scores[1], (double)notes_scores[2]);
}
void mha_print_decode_flop_table(FILE *out)
{
    static const size_t positions[] = {127, 1023, 4095};
    char a[64];
    fprintf(out, "\\begin{tabular}{rrrr}\n\\toprule\n"
                 "token position $t$ & recompute (MFLOP) & with cache (MFLOP) & ratio \\\\\n"
                 "\\midrule\n");
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        const size_t t = positions[i];
        const mha_shape s = {1, t + 1, t + 1, 768, 12};
        const double full = mha_flop_count(&s).total, cached = mha_decode_flops(768, 12, 12, t);
        fprintf(out, "%zu & %s & %.3g & %.0f \\\\\n", t, format_millions(a, full),
                cached / 1e6, full / cached);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
static const struct cache_model {
    const char *name;
    size_t layers, embed_dim, heads, kv_heads;
} cache_models[] = {
    {"GPT-2 small", 12, 768, 12, 12},   {"Llama 2 7B", 32, 4096, 32, 32},
    {"Llama 2 70B", 80, 8192, 64, 8},   {"Mistral 7B", 32, 4096, 32, 8},
    {"Falcon 7B", 32, 4544, 71, 1},
};

void mha_print_cache_memory_table(FILE *out)
{
    char a[64];
    fprintf(out, "\\begin{tabular}{lrrrrrr}\n\\toprule\n"
                 "model & layers & $E$ & $H$ & $H_{kv}$ & bytes/token/layer & 4096 tokens (MiB) \\\\\n"
                 "\\midrule\n");
    for (size_t i = 0; i < sizeof cache_models / sizeof cache_models[0]; i++) {
        const struct cache_model *m = &cache_models[i];
        const size_t D = m->embed_dim / m->heads, per_token = 2 * m->kv_heads * D * 2;
        const double total = (double)per_token * (double)m->layers * 4096.0 / (1024.0 * 1024.0);
        fprintf(out, "%s & %zu & %zu & %zu & %zu & %s & %.0f \\\\\n", m->name, m->layers,
                m->embed_dim, m->heads, m->kv_heads, format_count(a, per_token), total);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
