/* generated from chapters/11-designed-heads.nw, chapters/40-tests-demo.nw; edit the book, not this file */
#define _XOPEN_SOURCE 700          /* posix_openpt, grantpt, unlockpt, ptsname */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "child.h"
#include "cli.h"
#include "example.h"
#include "run.h"
#include "tables.h"

/* <<[[test_demo.c]] helpers>> */
static size_t occurrences(const char *text, const char *word)
{
    size_t n = 0;
    for (const char *p = strstr(text, word); p != NULL; p = strstr(p + 1, word))
        n++;
    return n;
}
/* <<[[test_demo.c]] tests>> */
Test(demo, draws_a_map_per_head) {
    struct cli_result r = run_argv(2, (char *[]){"mha", "demo", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect_eq(occurrences(r.out, "head "), 6, "%s", r.out);
    for (int h = 1; h <= 4; h++) {
        char title[32];
        snprintf(title, sizeof title, "head %d of %d", h, h <= 2 ? 2 : 4);
        cr_expect(strstr(r.out, title) != NULL, "no '%s'", title);
    }
    cr_expect(strstr(r.out, "because") != NULL);
    cr_expect(strchr(r.out, '\x1b') == NULL, "escape sequences in plain output");
    free(r.out);
    free(r.err);
}
/* <<[[test_demo.c]] tests>> */
static void example_weights(double weights[2][3][3])
{
    float in_w[48], out_w[16];
    mha_example_params(in_w, out_w);
    for (size_t h = 0; h < 2; h++)
        for (size_t i = 0; i < 3; i++) {
            double scores[3], q[2], k[2], total = 0;
            for (size_t j = 0; j < 3; j++) {
                for (size_t c = 0; c < 2; c++) {
                    q[c] = k[c] = 0;
                    for (size_t e = 0; e < 4; e++) {
                        const size_t row = h * 2 + c;      /* of W_Q; W_K is 4 rows on */
                        q[c] += (double)mha_example_x[i * 4 + e] * in_w[row * 4 + e];
                        k[c] += (double)mha_example_x[j * 4 + e] * in_w[(4 + row) * 4 + e];
                    }
                }
                scores[j] = exp((q[0] * k[0] + q[1] * k[1]) / sqrt(2.0));
                total += scores[j];
            }
            for (size_t j = 0; j < 3; j++)
                weights[h][i][j] = scores[j] / total;
        }
}
/* <<[[test_demo.c]] tests>> */
Test(demo, worked_example_matches_independent_weights) {
    double w[2][3][3];
    example_weights(w);
    const double e = exp(1 / sqrt(2.0));
    cr_expect(fabs(w[0][0][0] - 1 / (1 + 2 * e)) < 1e-12);
    cr_expect(fabs(w[0][0][1] - e / (1 + 2 * e)) < 1e-12);
    cr_expect(fabs(w[0][0][0] - 0.198) < 5e-4 && fabs(w[0][0][2] - 0.401) < 5e-4);
    struct cli_result r = run_argv(2, (char *[]){"mha", "demo", NULL});
    for (int h = 0; h < 2; h++) {
        char title[32], row[64];
        snprintf(title, sizeof title, "head %d of 2", h + 1);
        const char *at = strstr(r.out, title);
        cr_assert_not_null(at, "no '%s'", title);
        for (int i = 0; i < 3; i++) {
            snprintf(row, sizeof row, "x%d  %5.3f %5.3f %5.3f\n", i + 1, w[h][i][0], w[h][i][1],
                     w[h][i][2]);
            const char *found = strstr(at, row);
            cr_expect_not_null(found, "head %d lacks the row '%s'", h + 1, row);
            at = found ? found : at;
        }
    }
    free(r.out);
    free(r.err);
}
/* <<test [[demo]]'s options>> */
#define RUN_DEMO(...) \
    run_argv((int)(sizeof (char *[]){"mha", "demo", __VA_ARGS__} / sizeof(char *)), \
             (char *[]){"mha", "demo", __VA_ARGS__, NULL})
/* <<test [[demo]]'s options>> */
Test(demo, heads_and_text) {
    struct cli_result r = RUN_DEMO("--heads", "3", "--text", "a rose is a rose");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(occurrences(r.out, "head "), 2 + 3);
    cr_expect(strstr(r.out, "head 3 of 3") != NULL);
    cr_expect(strstr(r.out, "     a  rose    is     a  rose\n") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "   a  1.000 0.000 0.000 0.000 0.000\n") != NULL, "%s", r.out);
    free(r.out);
    free(r.err);
}
/* <<test [[demo]]'s options>> */
static void expect_demo_refused(struct cli_result r, const char *culprit)
{
    cr_expect_neq(r.status, 0);
    const char *newline = strchr(r.err, '\n');
    cr_expect(strncmp(r.err, "mha: ", 5) == 0 && newline && newline[1] == '\0',
              "not one 'mha: ' line: '%s'", r.err);
    cr_expect(strstr(r.err, culprit) != NULL, "'%s' does not name '%s'", r.err, culprit);
    cr_expect_str_eq(r.out, "", "output despite the error");
    free(r.out);
    free(r.err);
}

Test(demo, bad_options) {
    char many[200] = "";
    for (int i = 0; i < 33; i++)
        strcat(many, "word ");
    expect_demo_refused(RUN_DEMO("--heads", "0"), "--heads");
    expect_demo_refused(RUN_DEMO("--heads", "17"), "--heads: at most 16");
    expect_demo_refused(RUN_DEMO("--heads", "four"), "--heads");
    expect_demo_refused(RUN_DEMO("--heads"), "--heads: missing value");
    expect_demo_refused(RUN_DEMO("--text", "   "), "--text: no words");
    expect_demo_refused(RUN_DEMO("--text", many), "--text: more than 32 words");
    expect_demo_refused(RUN_DEMO("--shiny"), "'--shiny'");
}
/* <<test colour, forced and on a terminal>> */
Test(demo, colour_when_asked) {
    struct cli_result r = RUN_DEMO("--color");
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\x1b[48;2;68;1;84m  ") != NULL, "no viridis 0 cell");
    cr_expect(strstr(r.out, "\x1b[48;2;253;231;37m  ") != NULL, "no viridis 1 cell");
    cr_expect(strstr(r.out, "0.198") == NULL, "digits in colour output");
    free(r.out);
    free(r.err);
    r = RUN_DEMO("--help");
    cr_expect(r.status == 0 && strstr(r.out, "NO_COLOR") != NULL);
    free(r.out);
    free(r.err);
}
/* <<test colour, forced and on a terminal>> */
static int open_terminal(int *master)
{
    *master = posix_openpt(O_RDWR | O_NOCTTY);
    if (*master < 0 || grantpt(*master) != 0 || unlockpt(*master) != 0)
        return -1;
    const char *name = ptsname(*master);
    return name ? open(name, O_RDWR | O_NOCTTY) : -1;
}
/* <<test colour, forced and on a terminal>> */
Test(demo, no_color_decides_on_a_terminal) {
    int master, slave = open_terminal(&master);
    if (slave < 0)
        cr_skip_test("no pseudo-terminal: %s", strerror(errno));
    FILE *tty = fdopen(slave, "w");
    cr_assert_not_null(tty);
    unsetenv("NO_COLOR");
    cr_expect_eq(mha_demo_wants_colour(tty), 1, "a terminal without NO_COLOR");
    setenv("NO_COLOR", "1", 1);
    cr_expect_eq(mha_demo_wants_colour(tty), 0, "NO_COLOR=1");
    setenv("NO_COLOR", "", 1);
    cr_expect_eq(mha_demo_wants_colour(tty), 1, "NO_COLOR set but empty");
    unsetenv("NO_COLOR");
    char *text;
    size_t size;
    FILE *memory = open_memstream(&text, &size);
    cr_expect_eq(mha_demo_wants_colour(memory), 0, "memory is not a terminal");
    fclose(memory);
    free(text);
    fclose(tty);
    close(master);
}
/* <<test colour, forced and on a terminal>> */
static char *demo_on_terminal(const char *no_color)
{
    int master, slave = open_terminal(&master);
    if (slave < 0)
        return NULL;
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        /* <<in the child, run the demo with its output on the terminal>> */
        close(master);
        if (no_color != NULL)
            setenv("NO_COLOR", no_color, 1);
        else
            unsetenv("NO_COLOR");
        FILE *tty = fdopen(slave, "w");
        int status = tty ? mha_cli_main(2, (char *[]){"mha", "demo", NULL}, tty, stderr) : 1;
        if (tty != NULL)
            fclose(tty);
        child_exit(status);
    }
    close(slave);
    /* <<read everything the child writes, until it closes the terminal>> */
    size_t size = 0, capacity = 1 << 16;
    char *text = malloc(capacity + 1);
    cr_assert_not_null(text);
    for (;;) {
        ssize_t n = read(master, text + size, capacity - size);
        if (n <= 0 || (size += (size_t)n) == capacity)
            break;
    }
    text[size] = '\0';
    int status;
    waitpid(pid, &status, 0);
    close(master);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return text;
}
/* <<test colour, forced and on a terminal>> */
Test(demo, no_color_respected_on_a_terminal) {
    char *coloured = demo_on_terminal(NULL);
    if (coloured == NULL)
        cr_skip_test("no pseudo-terminal");
    char *plain = demo_on_terminal("1");
    cr_assert_not_null(plain);
    cr_expect(strstr(coloured, "\x1b[48;2;") != NULL, "no colour on a terminal");
    cr_expect(strchr(plain, '\x1b') == NULL, "colour despite NO_COLOR");
    cr_expect(strstr(plain, "0.198 0.401 0.401") != NULL, "no digits with NO_COLOR");
    free(coloured);
    free(plain);
}
/* <<test the figure of the terminal's maps>> */
Test(demo, terminal_figure_has_the_colours_worked_by_hand) {
    char *text = NULL;
    size_t size = 0;
    FILE *figure = open_memstream(&text, &size);
    cr_assert_not_null(figure);
    mha_print_demo_terminal(figure);
    fclose(figure);
    static const int first_row[3][3] = {{65, 67, 135}, {42, 120, 142}, {42, 120, 142}};
    const char *at = strstr(text, "{x1};");
    cr_assert_not_null(at, "no row x1 in:\n%s", text);
    size_t line = 0;
    for (int j = 0; j < 3; j++) {
        /* <<expect cell [[j]] of the row at [[at]] to be square and of colour [[first_row[j]]]>> */
        int rgb[3];
        size_t x0, y0, x1, y1;
        at = strstr(at, "\\fill[fill=");
        cr_assert_not_null(at, "cell %d of row x1 missing", j + 1);
        cr_assert_eq(sscanf(at, "\\fill[fill={rgb,255:red,%d;green,%d;blue,%d}] (%zu,-%zu) rectangle "
                                "(%zu,-%zu);", &rgb[0], &rgb[1], &rgb[2], &x0, &y0, &x1, &y1), 7,
                     "%.80s", at);
        cr_expect(rgb[0] == first_row[j][0] && rgb[1] == first_row[j][1] && rgb[2] == first_row[j][2],
                  "cell %d: (%d, %d, %d)", j + 1, rgb[0], rgb[1], rgb[2]);
        cr_expect(x0 == 3 + 2 * (size_t)j && x1 == x0 + 2 && y1 == y0 + 1,
                  "cell %d: (%zu,-%zu) to (%zu,-%zu)", j + 1, x0, y0, x1, y1);
        if (j > 0)
            cr_expect_eq(y0, line, "cell %d on another line", j + 1);
        line = y0;
        at++;
    }
    cr_expect(strstr(text, "{rgb,255:red,68;green,1;blue,84}") != NULL, "no viridis(0)");
    cr_expect(strstr(text, "{rgb,255:red,253;green,231;blue,37}") != NULL, "no viridis(1)");
    free(text);
}
