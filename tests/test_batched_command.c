/* generated from chapters/34-tests-batched.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "cli.h"

Test(batched, bench_checks_then_prints_one_line) {
    char *text = NULL, *errors = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *out = open_memstream(&text, &n1), *err = open_memstream(&errors, &n2);
    char *argv[] = {"mha", "bench", "--impl", "batched", "--batch", "2", "--seq", "5",
                    "--kv-len", "7", "--dim", "12", "--heads", "3", "--reps", "3", "--causal"};
    int status = mha_cli_main(17, argv, out, err);
    fclose(out); fclose(err);
    cr_expect_eq(status, 0, "stderr: %s", errors);
    cr_expect(strstr(text, "impl=batched B=2 L=5 S=7 E=12 H=3 causal=1 reps=3 ms=") == text,
              "%s", text);
    cr_expect(strstr(text, " gflops=") && strstr(text, " maxdiff="), "%s", text);
    free(text); free(errors);
}

Test(batched, bench_refuses_bad_options) {
    char *bad[][4] = {{"bench", "--impl", "fastest", NULL},
                      {"bench", "--heads", "0", NULL},
                      {"bench", "--dim", "10", NULL} /* 4 heads do not divide 10 */,
                      {"bench", "--frobnicate", NULL, NULL},
                      {"bench", "--reps", "x", NULL}};
    const char *named[] = {"--impl", "--heads", "heads", "--frobnicate", "--reps"};
    for (size_t t = 0; t < 5; t++) {
        char *text = NULL, *errors = NULL;
        size_t n1 = 0, n2 = 0, argc = 0;
        char *argv[5] = {"mha"};
        while (argc < 4 && bad[t][argc]) { argv[argc + 1] = bad[t][argc]; argc++; }
        FILE *out = open_memstream(&text, &n1), *err = open_memstream(&errors, &n2);
        int status = mha_cli_main((int)argc + 1, argv, out, err);
        fclose(out); fclose(err);
        cr_expect_neq(status, 0, "case %zu", t);
        cr_expect(strncmp(errors, "mha: ", 5) == 0 && strstr(errors, named[t]) != NULL,
                  "case %zu: '%s'", t, errors);
        cr_expect(strchr(errors, '\n') == errors + strlen(errors) - 1, "one line: '%s'", errors);
        cr_expect_eq(n1, 0, "nothing on stdout");
        free(text); free(errors);
    }
}
