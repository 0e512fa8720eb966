/* generated from chapters/27-book-tables.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "block.h"
#include "designed.h"
#include "random.h"
#include "tables.h"

/* <<[[tables_figures.c]] functions>> */
void mha_print_sqrt_d(FILE *out)
{
    enum { ROWS = 200, S = 32, DMAX = 512 };
    static float q[DMAX], k[S * DMAX];
    uint64_t state = mha_random_seeded(1);
    const double half = sqrt(3.0);
    fprintf(out, "\\begin{tikzpicture}\n\\begin{axis}[width=0.7\\textwidth,height=4.8cm,"
                 "xmode=log,log basis x=2,xlabel={head width $D$},\n"
                 "  ylabel={largest weight},ymin=0,ymax=1,grid=major,grid style={gray!25},"
                 "legend cell align=left,legend style={at={(0.03,0.97)},anchor=north west}]\n");
    double largest[2][10];
    size_t points = 0;
    for (size_t D = 1; D <= DMAX; D *= 2, points++) {
        double sum[2] = {0, 0};
        for (size_t r = 0; r < ROWS; r++) {
            float raw[S], scaled[S];
            for (size_t d = 0; d < D; d++)
                q[d] = (float)mha_random_between(&state, -half, half);
            for (size_t i = 0; i < S * D; i++)
                k[i] = (float)mha_random_between(&state, -half, half);
            for (size_t j = 0; j < S; j++) {
                double dot = 0;
                for (size_t d = 0; d < D; d++)
                    dot += (double)q[d] * k[j * D + d];
                raw[j] = (float)dot;
                scaled[j] = (float)(dot / sqrt((double)D));
            }
            mha_softmax_row(raw, S);
            mha_softmax_row(scaled, S);
            float best[2] = {0, 0};
            for (size_t j = 0; j < S; j++) {
                best[0] = raw[j] > best[0] ? raw[j] : best[0];
                best[1] = scaled[j] > best[1] ? scaled[j] : best[1];
            }
            sum[0] += best[0];
            sum[1] += best[1];
        }
        largest[0][points] = sum[0] / ROWS;
        largest[1][points] = sum[1] / ROWS;
    }
    static const char *const styles[2] = {"orange!80!black,thick,mark=square*",
                                          "blue!70!black,thick,mark=*"};
    static const char *const names[2] = {"scores $q\\cdot k$", "scores $q\\cdot k/\\sqrt D$"};
    for (size_t v = 0; v < 2; v++) {
        fprintf(out, "\\addplot[%s] coordinates {", styles[v]);
        for (size_t p = 0; p < points; p++)
            fprintf(out, " (%zu,%.4f)", (size_t)1 << p, largest[v][p]);
        fprintf(out, " };\n\\addlegendentry{%s}\n", names[v]);
    }
    fprintf(out, "\\end{axis}\n\\end{tikzpicture}\n");
}
/* <<[[tables_figures.c]] functions>> */
void mha_print_softmax_temperature(FILE *out)
{
    static const float scores[] = {2.0f, 1.0f, 0.5f, 0.0f, -1.0f};
    static const float temperatures[] = {0.5f, 1.0f, 2.0f};
    static const char *const styles[] = {"blue!70!black,fill=blue!50", "gray,fill=gray!40",
                                         "orange!80!black,fill=orange!40"};
    enum { N = sizeof scores / sizeof scores[0] };
    fprintf(out, "\\begin{tikzpicture}\n\\begin{axis}[width=0.8\\textwidth,height=4.8cm,"
                 "ybar,bar width=5pt,ymin=0,ylabel={weight},xlabel={score $s_j$},\n"
                 "  xtick=data,xticklabels={");
    for (size_t j = 0; j < N; j++)
        fprintf(out, "%s$%.1f$", j ? "," : "", (double)scores[j]);
    fprintf(out, "},ymajorgrids,grid style={gray!25},legend cell align=left]\n");
    for (size_t t = 0; t < sizeof temperatures / sizeof temperatures[0]; t++) {
        float w[N];
        for (size_t j = 0; j < N; j++)
            w[j] = scores[j] / temperatures[t];
        mha_softmax_row(w, N);
        fprintf(out, "\\addplot[%s] coordinates {", styles[t]);
        for (size_t j = 0; j < N; j++)
            fprintf(out, " (%zu,%.4f)", j, (double)w[j]);
        fprintf(out, " };\n\\addlegendentry{$\\tau = %.1f$}\n", (double)temperatures[t]);
    }
    fprintf(out, "\\end{axis}\n\\end{tikzpicture}\n");
}
/* <<[[tables_figures.c]] functions>> */
void mha_print_designed_heatmaps(FILE *out)
{
    static const char *const words[] = {"a", "rose", "is", "a", "rose", "is", "a", "rose"};
    enum { L = sizeof words / sizeof words[0], E = MHA_DESIGNED_EMBED, H = MHA_DESIGNED_HEADS };
    static float x[L * E], y[L * E], weights[H * L * L];
    float *in_w = malloc(3 * (size_t)E * E * sizeof *in_w),
          *out_w = malloc((size_t)E * E * sizeof *out_w);
    mha_status status = in_w && out_w ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK) {
        const mha_shape shape = {1, L, L, E, H};
        const mha_params params = {in_w, NULL, out_w, NULL};
        const mha_mask causal = {1, NULL, NULL, NULL};
        mha_designed_params(in_w, out_w);
        status = mha_designed_embed(words, L, x);
        if (status == MHA_OK)
            status = mha_forward_naive(&shape, &params, x, NULL, NULL, &causal, y, weights);
    }
    free(in_w);
    free(out_w);
    if (status != MHA_OK) {
        fprintf(out, "(not computed: %s)\n", mha_status_message(status));
        return;
    }
    /* <<draw each designed head's weights as an [[L]] by [[L]] grid>> */
    const double cell = 0.28, gap = 0.55;
    fprintf(out, "\\begin{tikzpicture}[font=\\scriptsize]\n");
    for (size_t h = 0; h < H; h++) {
        const double x0 = (double)h * (L * cell + gap);
        fprintf(out, "\\node[font=\\footnotesize] at (%.3f,%.3f) {%s};\n",
                x0 + L * cell / 2, 0.3, mha_designed_head_names[h]);
        for (size_t i = 0; i < L; i++)
            for (size_t j = 0; j < L; j++) {
                const double w = (double)weights[(h * L + i) * L + j];
                fprintf(out, "\\filldraw[draw=gray!60,fill=%s%.0f!white] (%.3f,%.3f) "
                             "rectangle +(%.3f,%.3f);\n", j > i ? "gray!" : "blue!",
                        j > i ? 15.0 : 80 * w, x0 + (double)j * cell, -(double)i * cell, cell, -cell);
            }
        for (size_t j = 0; j < L; j++)
            fprintf(out, "\\node[rotate=90,anchor=east] at (%.3f,%.3f) {%s};\n",
                    x0 + ((double)j + 0.5) * cell, -(double)L * cell - 0.05, words[j]);
    }
    for (size_t i = 0; i < L; i++)
        fprintf(out, "\\node[anchor=east] at (-0.05,%.3f) {%s};\n", -((double)i + 0.5) * cell,
                words[i]);
    fprintf(out, "\\end{tikzpicture}\n");
}
/* <<[[tables_figures.c]] functions>> */
void mha_print_sinusoidal_table(FILE *out)
{
    enum { T = 32, W = 32 };
    float table[T * W];
    const double cell = 0.16;
    mha_positions_sinusoidal(T, W, table);
    fprintf(out, "\\begin{tikzpicture}[font=\\footnotesize]\n");
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < W; c++) {
            const double v = (double)table[t * W + c];
            fprintf(out, "\\fill[%s!%.0f!white] (%.2f,%.2f) rectangle +(%.2f,%.2f);\n",
                    v >= 0 ? "blue" : "orange", 80 * fabs(v), (double)c * cell,
                    -(double)t * cell, cell, -cell);
        }
    fprintf(out, "\\draw[gray] (0,0) rectangle (%.2f,%.2f);\n", W * cell, -T * cell);
    fprintf(out, "\\node[above] at (%.2f,0) {column $j$ $\\rightarrow$};\n"
                 "\\node[rotate=90,above] at (0,%.2f) {$\\leftarrow$ position $t$};\n",
            W * cell / 2, -T * cell / 2);
    fprintf(out, "\\end{tikzpicture}\n");
}
/* <<[[tables_figures.c]] functions>> */
void mha_print_gelu_curve(FILE *out)
{
    enum { N = 81 };
    float x[N], y[N];
    for (size_t i = 0; i < N; i++)
        x[i] = -4.0f + 8.0f * (float)i / (N - 1);
    mha_gelu(N, x, y);
    fprintf(out, "\\begin{tikzpicture}\n\\begin{axis}[width=0.62\\textwidth,height=4.6cm,"
                 "xlabel={$x$},grid=major,grid style={gray!25},legend cell align=left,\n"
                 "  legend style={at={(0.03,0.97)},anchor=north west}]\n"
                 "\\addplot[blue!70!black,thick] coordinates {");
    for (size_t i = 0; i < N; i++)
        fprintf(out, " (%.2f,%.5f)", (double)x[i], (double)y[i]);
    fprintf(out, " };\n\\addlegendentry{GELU$(x)$}\n"
                 "\\addplot[gray,dashed] coordinates {");
    for (size_t i = 0; i < N; i++)
        fprintf(out, " (%.2f,%.5f)", (double)x[i], x[i] > 0 ? (double)x[i] : 0.0);
    fprintf(out, " };\n\\addlegendentry{ReLU$(x)$}\n\\end{axis}\n\\end{tikzpicture}\n");
}
