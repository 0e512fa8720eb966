/* generated from chapters/39-tests-backward.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "cli.h"
#include "npy.h"
#include "run.h"

/* <<test the [[mha backward]] command>> */
Test(backward, command_matches_pytorch_autograd) {
    static const struct { const char *name, *heads; int causal; } cases[] = {
        {"self_attention", "2", 0}, {"cross_attention", "4", 0}, {"no_bias", "3", 0},
        {"combined_masks", "4", 0}, {"float_mask", "2", 0}, {"causal_mask", "2", 1},
        {"large_float_mask", "2", 0}, {"large_constant_mask", "4", 0},
    };
    const char *files[] = {"grad_query", "grad_key", "grad_value", "grad_in_proj_weight",
                           "grad_in_proj_bias", "grad_out_proj_weight", "grad_out_proj_bias"};
    for (size_t t = 0; t < 2 * sizeof cases / sizeof cases[0]; t++) {
        const char *impl = t % 2 ? "blocked" : "naive";
        char dir[] = "/tmp/mha-backward-XXXXXX", cmd[600], path[600];
        cr_assert_not_null(mkdtemp(dir));
        snprintf(cmd, sizeof cmd, "cp golden/%s/*.npy %s && rm -f %s/expected_*",
                 cases[t / 2].name, dir, dir);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        snprintf(path, sizeof path, "%s/attn_mask.npy", dir);
        if (cases[t / 2].causal)                  /* --causal instead of the mask file */
            cr_assert_eq(remove(path), 0);
        struct cli_result r = run_mha("backward", dir, "--heads", cases[t / 2].heads, "--impl",
                                      impl, cases[t / 2].causal ? "--causal" : NULL, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
        /* <<compare each gradient file of [[dir]] with the golden case's expected one>> */
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            snprintf(path, sizeof path, "golden/%s/expected_%s.npy", cases[t / 2].name, files[f]);
            const int expected = access(path, F_OK) == 0;
            size_t n_want, n_got;
            char got_path[600];
            snprintf(got_path, sizeof got_path, "%s/%s.npy", dir, files[f]);
            cr_expect_eq(access(got_path, F_OK) == 0, expected, "%s: %s written: %d, expected: %d",
                         cases[t / 2].name, files[f], access(got_path, F_OK) == 0, expected);
            if (!expected)
                continue;
            float *want = read_npy_floats(path, &n_want), *got = read_npy_floats(got_path, &n_got);
            cr_assert_eq(n_want, n_got, "%s %s", cases[t / 2].name, files[f]);
            double scale = 1.0;
            for (size_t i = 0; i < n_want; i++)
                scale = fmax(scale, fabs((double)want[i]));
            for (size_t i = 0; i < n_want; i++)
                cr_expect(fabs((double)got[i] - want[i]) <= 1e-5 * scale, "%s %s %s[%zu]: %g vs %g",
                          impl, cases[t / 2].name, files[f], i, (double)got[i], (double)want[i]);
            free(want); free(got);
        }
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        cr_expect_eq(system(cmd), 0);
    }
}
/* <<test the [[mha backward]] command>> */
Test(backward, command_refuses_bad_input) {
    char dir[] = "/tmp/mha-backward-XXXXXX", cmd[600];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp golden/self_attention/*.npy %s && rm -f %s/expected_* "
             "%s/grad_out.npy", dir, dir, dir);
    cr_assert_eq(system(cmd), 0);
    struct cli_result r = run_mha("backward", dir, "--heads", "2", NULL);
    cr_expect(r.status != 0 && strncmp(r.err, "mha: ", 5) == 0 && strstr(r.err, "grad_out.npy"),
              "%s", r.err);
    free_result(&r);
    snprintf(cmd, sizeof cmd, "cp %s/in_proj_bias.npy %s/grad_out.npy", dir, dir);
    cr_assert_eq(system(cmd), 0);
    r = run_mha("backward", dir, "--heads", "2", NULL);
    cr_expect(r.status != 0 && strstr(r.err, "grad_out.npy") && strstr(r.err, "(B, L, E)"),
              "%s", r.err);
    free_result(&r);
    r = run_mha("backward", dir, "--heads", "2", "--impl", "batched", NULL);
    cr_expect(r.status == 2 && strstr(r.err, "--impl") && strstr(r.err, "batched"), "%s", r.err);
    free_result(&r);
    r = run_mha("backward", dir, "--heads", "2", "--no-weights", NULL);
    cr_expect(r.status == 2 && strstr(r.err, "--no-weights"), "%s", r.err);
    free_result(&r);
    snprintf(cmd, sizeof cmd, "test ! -e %s/grad_query.npy; s=$?; rm -rf %s; exit $s", dir, dir);
    cr_expect_eq(system(cmd), 0, "a refused backward left files behind");
}
