/* generated from chapters/37-tests-fast.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include "check.h"
#include "cli.h"

/* <<[[test_fast_command.c]] the bench command>> */
static int run_cli(char **argv, int argc, char **text, char **errors)
{
    size_t n1 = 0, n2 = 0;
    FILE *out = open_memstream(text, &n1), *err = open_memstream(errors, &n2);
    const int status = mha_cli_main(argc, argv, out, err);
    fclose(out); fclose(err);
    return status;
}
/* <<[[test_fast_command.c]] the bench command>> */
Test(fast, bench_fast_prints_the_keys_make_bench_reads) {
    char *cases[][16] = {
        {"mha", "bench", "--impl", "blocked", "--seq", "9", "--dim", "12", "--heads", "3",
         "--reps", "2", "--threads", "2", "--causal", NULL},
        {"mha", "bench", "--impl", "blocked", "--seq", "9", "--dim", "12", "--heads", "3",
         "--reps", "2", "--part", "attention", NULL},
        {"mha", "bench", "--decode", "--cache", "40", "--dim", "12", "--heads", "3",
         "--kv-heads", "1", "--impl", "blocked", "--reps", "2", NULL},
        {"mha", "bench", "--peak", "--threads", "1", NULL},
        {"mha", "bench", "--bandwidth", "--mib", "4", NULL},
    };
    const char *keys[][3] = {
        {"impl=blocked B=1 L=9 S=9 E=12 H=3 causal=1 reps=2 ms=", " peak=", " threads=2"},
        {" part=attention", " gflops=", " maxdiff="},
        {"impl=blocked decode=1 B=1 E=12 H=3 kv_heads=1 T=40", " gbs=", " bytes="},
        {"peak_gflops=", " threads=1", " isa="},
        {"bandwidth_gbs=", " mib=4", " threads="}};
    for (size_t t = 0; t < 5; t++) {
        char *text = NULL, *errors = NULL;
        int argc = 0;
        while (cases[t][argc]) argc++;
        cr_expect_eq(run_cli(cases[t], argc, &text, &errors), 0, "case %zu: %s", t, errors);
        for (int k = 0; k < 3; k++)
            cr_expect(strstr(text, keys[t][k]) != NULL, "case %zu: no '%s' in '%s'", t,
                      keys[t][k], text);
        free(text); free(errors);
    }
}
/* <<[[test_fast_command.c]] the bench command>> */
Test(fast, bench_stages_prints_every_stage) {
    char *argv[] = {"mha", "bench", "--impl", "blocked", "--batch", "2", "--seq", "9", "--dim",
                    "12", "--heads", "3", "--reps", "2", "--part", "stages", NULL};
    const char *keys[] = {"impl=blocked B=2 L=9 S=9 E=12 H=3 causal=0", " part=stages",
                          " ms=", " fresh_ms=", " pack_ms=", " proj_in_ms=", " attention_ms=",
                          " proj_out_ms=", " outside_ms="};
    char *text = NULL, *errors = NULL;
    cr_expect_eq(run_cli(argv, 16, &text, &errors), 0, "%s", errors);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        cr_expect(strstr(text, keys[k]) != NULL, "no '%s' in '%s'", keys[k], text);
    free(text); free(errors);
}
/* <<[[test_fast_command.c]] the bench command>> */
Test(fast, bench_backward_stages_add_up) {
    char *argv[] = {"mha", "bench", "--backward", "--causal", "--batch", "2", "--seq", "9",
                    "--dim", "12", "--heads", "3", "--reps", "2", "--part", "stages", NULL};
    const char *keys[] = {"ms=", "fwd_proj_ms=", "fwd_core_ms=", "fwd_out_ms=", "bwd_out_ms=",
                          "bwd_core_ms=", "bwd_in_ms=", "outside_ms="};
    char *text = NULL, *errors = NULL;
    cr_assert_eq(run_cli(argv, 16, &text, &errors), 0, "%s", errors);
    cr_expect(strstr(text, "impl=blocked backward=1 part=stages B=2 L=9 S=9 E=12 H=3 causal=1")
              == text, "'%s'", text);
    double v[8], parts = 0;
    for (size_t k = 0; k < 8; k++) {
        char key[32];
        snprintf(key, sizeof key, " %s", keys[k]);
        const char *at = strstr(text, key);
        cr_assert_not_null(at, "no '%s' in '%s'", key, text);
        v[k] = strtod(at + strlen(key), NULL);
        cr_expect(v[k] >= 0 || k == 7, "%s%g", keys[k], v[k]);
        parts += k >= 1 && k <= 6 ? v[k] : 0;
    }
    cr_expect(fabs(v[7] - (v[0] - parts)) < 0.005, "outside %g, whole %g, parts %g", v[7], v[0],
              parts);
    free(text); free(errors);
    char *bad[][4] = {{"--part", "proj", NULL}, {"--impl", "naive", "--part", "stages"}};
    for (size_t t = 0; t < 2; t++) {
        char *args[12] = {"mha", "bench", "--backward", "--seq", "9", "--dim", "12"};
        int argc = 7;
        for (int i = 0; i < 4 && bad[t][i]; i++)
            args[argc++] = bad[t][i];
        cr_expect_eq(run_cli(args, argc, &text, &errors), MHA_EXIT_USAGE, "case %zu", t);
        cr_expect(strncmp(errors, "mha: ", 5) == 0 && strstr(errors, "--part"), "'%s'", errors);
        cr_expect(text[0] == '\0', "nothing on stdout: '%s'", text);
        free(text); free(errors);
    }
}
/* <<[[test_fast_command.c]] the bench command>> */
#if defined(__SANITIZE_ADDRESS__)
#define BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif

Test(fast, bench_parts_time_only_written_memory, .timeout = 180) {
#if defined(BUILT_WITH_ASAN)
    cr_skip_test("memcheck cannot run a program built with AddressSanitizer");
#endif
    if (system("valgrind --version > /dev/null 2>&1") != 0)
        cr_skip_test("valgrind is not installed");
    const char *program = getenv("MHA_BINARY") ? getenv("MHA_BINARY") : "../build/mha";
    const char *parts[] = {"attention", "proj", "stages"};
    for (size_t i = 0; i < 3; i++) {
        char command[512];
        snprintf(command, sizeof command, "MHA_ISA=scalar valgrind -q --error-exitcode=99 %s "
                 "bench --impl blocked --seq 9 --dim 12 --heads 3 --reps 1 --threads 1 "
                 "--part %s > /dev/null", program, parts[i]);
        const int status = system(command);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "--part %s: status %d",
                  parts[i], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}
/* <<[[test_fast_command.c]] the bench command>> */
Test(fast, bench_fast_refuses_bad_options) {
    char *bad[][6] = {{"bench", "--impl", "batched", "--part", "proj", NULL},
                      {"bench", "--part", "everything", NULL},
                      {"bench", "--impl", "fastest", NULL},
                      {"bench", "--decode", "--kv-heads", "3", NULL},
                      {"bench", "--threads", "0", NULL},
                      {"bench", "--warp", NULL},
                      {"bench", "--impl", "blocked", "--half-kc", NULL}};
    const char *named[] = {"--part", "--part", "--impl", "--kv-heads", "--threads", "--warp",
                           "--half-kc"};
    for (size_t t = 0; t < 7; t++) {
        char *argv[7] = {"mha"}, *text = NULL, *errors = NULL;
        int argc = 1;
        while (bad[t][argc - 1]) { argv[argc] = bad[t][argc - 1]; argc++; }
        cr_expect_eq(run_cli(argv, argc, &text, &errors), MHA_EXIT_USAGE, "case %zu", t);
        cr_expect(strncmp(errors, "mha: ", 5) == 0 && strstr(errors, named[t]),
                  "%zu: '%s'", t, errors);
        cr_expect(strchr(errors, '\n') == errors + strlen(errors) - 1, "one line: '%s'", errors);
        cr_expect(text[0] == '\0', "nothing on stdout: '%s'", text);
        free(text); free(errors);
    }
}
