/* generated from chapters/10-terminal-heads.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tables.h"

/* <<[[tables_terminal.c]] data>> */
enum { FIGURE_COLUMNS = 94, BLOCK_GAP = 4 };    /* in characters */
static char *demo_argv[] = {"demo", "--heads", "2", "--text", "a rose is a rose", "--color",
                            NULL};
/* <<[[tables_terminal.c]] functions>> */
static size_t utf8_length(unsigned char lead)
{
    return lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
}
static void put_tex_char(FILE *out, const char *c, size_t n)
{
    if (n == 1 && strchr("\\{}$&%#_^~", *c) != NULL)
        fprintf(out, "\\char%d{}", (unsigned char)*c);
    else
        fwrite(c, 1, n, out);
}
/* <<[[tables_terminal.c]] functions>> */
static size_t line_columns(const char *line)
{
    size_t columns = 0;
    for (const char *c = line; *c != '\0';) {
        if (*c == '\x1b') {
            const char *m = strchr(c, 'm');
            c = m != NULL ? m + 1 : c + strlen(c);
        } else
            c += utf8_length((unsigned char)*c), columns++;
    }
    return columns;
}
/* <<[[tables_terminal.c]] functions>> */
static void draw_line(FILE *out, const char *line, size_t x, size_t y)
{
    int rgb[3] = {-1, -1, -1}, run_rgb[3] = {-1, -1, -1};
    size_t column = x, run_from = x, word_from = x;
    char word[256];
    size_t word_length = 0;
    for (const char *c = line;; ) {
        int is_cell = *c != '\0' && *c != '\x1b' && rgb[0] >= 0;
        /* <<end the rectangle when the cell's colour changes>> */
        if (run_rgb[0] >= 0 && (!is_cell || memcmp(run_rgb, rgb, sizeof rgb) != 0)) {
            fprintf(out, "\\fill[fill={rgb,255:red,%d;green,%d;blue,%d}] (%zu,-%zu) rectangle (%zu,-%zu);\n",
                    run_rgb[0], run_rgb[1], run_rgb[2], run_from, y, column, y + 1);
            run_rgb[0] = -1;
        }
        /* <<end the word at a space, a cell or the end of the line>> */
        if (word_length > 0 && (*c == '\0' || *c == ' ' || is_cell)) {
            fprintf(out, "\\node at (%zu,-%zu.78) {", word_from, y);
            for (size_t k = 0; k < word_length; k += utf8_length((unsigned char)word[k]))
                put_tex_char(out, word + k, utf8_length((unsigned char)word[k]));
            fprintf(out, "};\n");
            word_length = 0;
        }
        if (*c == '\0')
            break;
        if (*c == '\x1b') {
            /* <<read the escape sequence at [[c]] into [[rgb]]>> */
            int r, g, b;
            if (sscanf(c, "\x1b[48;2;%d;%d;%dm", &r, &g, &b) == 3)
                rgb[0] = r, rgb[1] = g, rgb[2] = b;
            else if (strncmp(c, "\x1b[0m", 4) == 0)
                rgb[0] = rgb[1] = rgb[2] = -1;
            const char *m = strchr(c, 'm');
            c = m != NULL ? m + 1 : c + strlen(c);
            continue;
        }
        const size_t n = utf8_length((unsigned char)*c);
        if (is_cell) {
            if (run_rgb[0] < 0)
                run_from = column, memcpy(run_rgb, rgb, sizeof rgb);
        } else if (*c != ' ' && word_length + n < sizeof word) {
            if (word_length == 0)
                word_from = column;
            memcpy(word + word_length, c, n), word_length += n;
        }
        c += n, column++;
    }
}
/* <<[[tables_terminal.c]] functions>> */
static void draw_blocks(FILE *out, char *text)
{
    size_t x = 0, y = 0, row_height = 0;
    for (char *block = text; *block != '\0';) {
        char *end = strstr(block, "\n\n");
        end = end != NULL ? end : block + strlen(block);
        /* <<measure the block from [[block]] to [[end]]: [[lines]] and [[width]]>> */
        size_t lines = 0, width = 0;
        for (char *line = block; line < end; lines++) {
            char *newline = strchr(line, '\n');
            char *stop = newline != NULL && newline < end ? newline : end;
            const char kept = *stop;
            *stop = '\0';
            const size_t columns = line_columns(line);
            width = columns > width ? columns : width;
            *stop = kept;
            line = stop + 1;
        }
        if (x > 0 && x + width > FIGURE_COLUMNS)
            x = 0, y += row_height + 1, row_height = 0;
        size_t line_y = y;
        for (char *line = block; line < end; line_y++) {
            char *newline = strchr(line, '\n');
            char *stop = newline != NULL && newline < end ? newline : end;
            const char kept = *stop;
            *stop = '\0';
            draw_line(out, line, x, line_y);
            *stop = kept;
            line = stop + 1;
        }
        x += width + BLOCK_GAP;
        row_height = lines > row_height ? lines : row_height;
        block = end;
        while (*block == '\n')
            block++;
    }
}
/* <<[[tables_terminal.c]] functions>> */
void mha_print_demo_terminal(FILE *out)
{
    char *text = NULL;
    size_t size = 0;
    FILE *terminal = open_memstream(&text, &size);
    const int status = terminal != NULL ? mha_cmd_demo(6, demo_argv, terminal, stderr) : -1;
    if (terminal != NULL)
        fclose(terminal);
    if (status != MHA_EXIT_OK || text == NULL) {
        fprintf(out, "(mha demo failed when the book was built)\n");
        free(text);
        return;
    }
    fprintf(out, "{\\scriptsize\\ttfamily\\begin{tikzpicture}[x=0.525em,y=1.05em,"
                 "every node/.style={anchor=base west,inner sep=0pt}]\n");
    draw_blocks(out, text);
    fprintf(out, "\\end{tikzpicture}}\n");
    free(text);
}
