/* generated from chapters/27-book-tables.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include "example.h"
#include "tables.h"

/* <<[[tables_example.c]] functions>> */
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
        /* <<project the example onto head [[h]]: [[q]], [[k]], [[v]]>> */
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (0 * 4 + h * 2) * 4, 4, NULL, q, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (1 * 4 + h * 2) * 4, 4, NULL, k, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (2 * 4 + h * 2) * 4, 4, NULL, v, 2);
        mha_attend(3, 3, 2, q, 2, k, 2, v, 2, NULL, weights, context, 2);
        /* <<[[scores]] gets $QK^{\mathsf T}/\sqrt 2$ for head [[h]]>> */
        mha_product_nt_plain(3, 3, 2, q, 2, k, 2, NULL, scores, 3);
        for (size_t i = 0; i < 9; i++)
            scores[i] /= sqrtf(2.0f);
        /* <<print head [[h]]'s matrices>> */
        char nm[4][16];
        snprintf(nm[0], 16, "Q_%zu", h + 1);
        snprintf(nm[1], 16, "K_%zu", h + 1);
        snprintf(nm[2], 16, "V_%zu", h + 1);
        fprintf(out, "\\paragraph{Head %zu.}\n", h + 1);
        print_matrix(out, nm[0], q, 3, 2); fprintf(out, ",\\quad\n");
        print_matrix(out, nm[1], k, 3, 2); fprintf(out, ",\\quad\n");
        print_matrix(out, nm[2], v, 3, 2); fprintf(out, "\n\n\\smallskip\\noindent\n");
        print_matrix(out, "\\text{scores}", scores, 3, 3); fprintf(out, ",\\quad\n");
        print_matrix(out, "\\text{weights}", weights, 3, 3); fprintf(out, ",\n\n\\smallskip\\noindent\n");
        snprintf(nm[3], 16, "\\text{head}_%zu", h + 1);
        print_matrix(out, nm[3], context, 3, 2); fprintf(out, ".\n\n");
    }
}
/* <<[[tables_example.c]] functions>> */
void mha_print_erratum(FILE *out)
{
    float notes_scores[3] = {0.71f, 0.00f, 1.41f};
    mha_softmax_row(notes_scores, 3);
    fprintf(out, "$(%.2f, %.2f, %.2f)$", (double)notes_scores[0],
            (double)notes_scores[1], (double)notes_scores[2]);
}
/* <<[[tables_example.c]] functions>> */
void mha_print_example_heatmap(FILE *out)
{
    float in_w[48], out_w[16];
    mha_example_params(in_w, out_w);
    fprintf(out, "\\begin{tikzpicture}[x=1.1cm,y=0.8cm]\n");
    for (size_t h = 0; h < 2; h++) {
        float q[6], k[6], v[6], weights[9], context[6];
        const double x0 = 4.8 * (double)h;
        /* <<project the example onto head [[h]]: [[q]], [[k]], [[v]]>> */
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (0 * 4 + h * 2) * 4, 4, NULL, q, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (1 * 4 + h * 2) * 4, 4, NULL, k, 2);
        mha_product_nt_plain(3, 2, 4, mha_example_x, 4, in_w + (2 * 4 + h * 2) * 4, 4, NULL, v, 2);
        mha_attend(3, 3, 2, q, 2, k, 2, v, 2, NULL, weights, context, 2);
        /* <<draw head [[h]]'s weights as a 3 by 3 grid at [[x0]]>> */
        fprintf(out, "\\node at (%.2f,3.75) {head %zu};\n", x0 + 1.5, h + 1);
        for (int j = 0; j < 3; j++)
            fprintf(out, "\\node[font=\\scriptsize] at (%.2f,3.25) {key %d};\n", x0 + j + 0.5, j + 1);
        for (int i = 0; i < 3; i++) {
            fprintf(out, "\\node[font=\\scriptsize,anchor=east] at (%.2f,%.2f) {query %d};\n",
                    x0, 2.5 - i, i + 1);
            for (int j = 0; j < 3; j++) {
                const double w = (double)weights[i * 3 + j];
                fprintf(out, "\\filldraw[fill=blue!%.0f!white, draw=gray] (%.2f,%d) rectangle (%.2f,%d);\n"
                             "\\node[font=\\small] at (%.2f,%.2f) {%.3f};\n",
                        70 * w, x0 + j, 2 - i, x0 + j + 1, 3 - i, x0 + j + 0.5, 2.5 - i, w);
            }
        }
    }
    fprintf(out, "\\end{tikzpicture}\n");
}
