/* generated from chapters/36-tests-kv-cache.nw; edit the book, not this file */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "check.h"
#include "cli.h"
#include "npy.h"
#include "run.h"

/* <<test the [[mha decode]] command>> */
Test(kv_cache, decode_command_equals_forward_causal) {
    const char *cases[] = {"golden/self_attention", "golden/key_padding_mask"};
    const char *heads[] = {"2", "2"};
    for (int t = 0; t < 2; t++) {
        char dir[] = "/tmp/mha-decode-XXXXXX", cmd[512];
        cr_assert_not_null(mkdtemp(dir));
        snprintf(cmd, sizeof cmd, "cp %s/*.npy %s && rm -f %s/expected_* %s/attn_mask.npy",
                 cases[t], dir, dir, dir);
        cr_assert_eq(system(cmd), 0);
        struct cli_result r = run_mha("forward", dir, "--heads", heads[t], "--causal", NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
        char path[600];
        size_t n_out, n_w, m_out, m_w;
        snprintf(path, sizeof path, "%s/out.npy", dir);
        float *f_out = read_npy_floats(path, &n_out);
        snprintf(path, sizeof path, "%s/attn_weights.npy", dir);
        float *f_w = read_npy_floats(path, &n_w);
        /* <<run [[mha decode]] on [[dir]] and compare with [[f_out]] and [[f_w]]>> */
        for (size_t i = 0; i < mha_decode_impl_count; i++) {
            struct cli_result d = run_mha("decode", dir, "--heads", heads[t], "--impl",
                                          mha_decode_impls[i].name, NULL);
            cr_assert_eq(d.status, 0, "%s", d.err);
            free_result(&d);
            snprintf(path, sizeof path, "%s/out.npy", dir);
            float *d_out = read_npy_floats(path, &m_out);
            snprintf(path, sizeof path, "%s/attn_weights.npy", dir);
            float *d_w = read_npy_floats(path, &m_w);
            cr_assert(m_out == n_out && m_w == n_w);
            for (size_t k = 0; k < n_out; k++)
                cr_expect(fabsf(d_out[k] - f_out[k]) <= 1e-6f * fmaxf(1.0f, fabsf(f_out[k])),
                          "%s out[%zu]: %g vs %g", cases[t], k, (double)d_out[k], (double)f_out[k]);
            for (size_t k = 0; k < n_w; k++)
                cr_expect(fabsf(d_w[k] - f_w[k]) <= 1e-6f, "%s weights[%zu]", cases[t], k);
            free(d_out); free(d_w);
        }
        free(f_out); free(f_w);
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        cr_expect_eq(system(cmd), 0);
    }
}
/* <<test the [[mha decode]] command>> */
Test(kv_cache, decode_command_refuses_bad_input) {
    char dir[] = "/tmp/mha-decode-XXXXXX", cmd[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp golden/cross_attention/*.npy %s && rm -f %s/expected_*",
             dir, dir);
    cr_assert_eq(system(cmd), 0);
    struct cli_result r = run_mha("decode", dir, "--heads", "2", NULL);
    cr_expect(r.status != 0 && strncmp(r.err, "mha: ", 5) == 0 && strstr(r.err, "key.npy"),
              "%s", r.err);
    free_result(&r);
    snprintf(cmd, sizeof cmd, "rm -f %s/key.npy %s/value.npy", dir, dir);
    cr_assert_eq(system(cmd), 0);
    r = run_mha("decode", dir, "--heads", "2", "--kv-heads", "1", NULL);
    cr_expect(r.status != 0 && strstr(r.err, "in_proj_weight.npy") && strstr(r.err, "E+2KD"),
              "%s", r.err);
    free_result(&r);
    r = run_mha("decode", dir, "--heads", "2", "--kv-heads", "3", NULL);
    cr_expect(r.status != 0 && strstr(r.err, "--kv-heads"), "%s", r.err);
    free_result(&r);
    r = run_mha("decode", dir, "--heads", "2", "--causal", NULL);
    cr_expect(r.status == 2 && strstr(r.err, "decode: --causal"), "%s", r.err);
    free_result(&r);
    snprintf(cmd, sizeof cmd, "test ! -e %s/out.npy; s=$?; rm -rf %s; exit $s", dir, dir);
    cr_expect_eq(system(cmd), 0, "a refused decode left out.npy behind");
}
