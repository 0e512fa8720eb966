/* generated from chapters/45-tests-command.nw; edit the book, not this file */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "cli.h"
#include "npy.h"
#include "run.h"

/* <<[[run.c]] functions>> */
struct cli_result run_argv(int argc, char **argv)
{
    struct cli_result r;
    size_t out_size, err_size;
    FILE *out = open_memstream(&r.out, &out_size), *err = open_memstream(&r.err, &err_size);
    cr_assert(out != NULL && err != NULL);
    r.status = mha_cli_main(argc, argv, out, err);
    fclose(out);
    fclose(err);
    return r;
}

struct cli_result run_mha(const char *first, ...)
{
    char *argv[32] = {"mha"};
    int argc = 1;
    va_list args;
    va_start(args, first);
    for (const char *a = first; a != NULL && argc < 31; a = va_arg(args, const char *))
        argv[argc++] = (char *)a;
    va_end(args);
    argv[argc] = NULL;
    return run_argv(argc, argv);
}

void free_result(struct cli_result *r)
{
    free(r->out);
    free(r->err);
}
/* <<[[run.c]] functions>> */
void expect_help(const char *command, const char *sub)
{
    struct cli_result r = sub ? run_mha(command, sub, "--help", NULL)
                              : run_mha(command, "--help", NULL);
    char usage[64];
    snprintf(usage, sizeof usage, "usage: mha %s%s%s ", command, sub ? " " : "",
             sub ? sub : "");
    cr_expect_eq(r.status, 0, "%s: %s", usage, r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(strncmp(r.out, usage, strlen(usage)) == 0, "want '%s': %s", usage, r.out);
    free_result(&r);
}
/* <<[[run.c]] functions>> */
float *read_npy_floats(const char *path, size_t *count)
{
    mha_npy a;
    char message[256];
    cr_assert_eq(mha_npy_read(path, &a, message, sizeof message), MHA_OK, "%s: %s", path,
                 message);
    cr_assert_not_null(a.values, "%s holds no floats", path);
    float *values = a.values;
    *count = a.count;
    a.values = NULL;
    mha_npy_free(&a);
    return values;
}
