/* generated from chapters/01-shape.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tables.h"

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
                 "\\textcolor{blue}{- -} best previous-token score, layer 1\\\\"
                 "\\textcolor{red}{$\\cdots$} best induction score, layer 2\\\\"
                 "\\textcolor{gray}{---} one layer: accuracy};\n"
                 "\\end{tikzpicture}\n");
}
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
}
