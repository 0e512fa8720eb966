/* generated from chapters/25-hardening.nw; edit the book, not this file */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "checkpoint.h"
#include "cli.h"
#include "fuzz_harness.h"
#include "npy.h"
#include "oracle.h"
#include "reentrancy.h"
#include "scratch.h"

static const mha_shape absurd_shapes[] = {
    {1u << 20, 1u << 16, 1u << 16, 1024, 1024},      /* B H L S = 2^62 weights */
    {(size_t)1 << 62, 1, 1, 4, 2},                   /* B L 3E */
    {1, 1, 1, (size_t)1 << 31, 1},                   /* 3E E */
    {1, (size_t)1 << 32, (size_t)1 << 32, 2, 1},     /* B H L S = 2^64 */
    {1, SIZE_MAX, 1, 1, 1},
};
/* run_argv (tests/check.h), for a NULL-terminated argument list. */
static struct cli_result run_command(char **argv)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    return run_argv(argc, argv);
}
static void expect_one_line(const struct cli_result *r, int status, const char *needle)
{
    const char *newline = strchr(r->err, '\n');
    cr_expect_eq(r->status, status, "status %d, want %d; stderr: %s", r->status, status, r->err);
    cr_expect(strncmp(r->err, "mha: ", 5) == 0 && newline != NULL && newline[1] == '\0',
              "want one 'mha: ' line, got: %s", r->err);
    cr_expect(strstr(r->err, needle) != NULL, "'%s' not in: %s", needle, r->err);
}

static void make_checkpoint(char *dir, induction_model *m)
{
    char message[512];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(induction_model_init(m, 7, 8, 4, 2, 2, 3), MHA_OK);
    cr_assert_eq(induction_checkpoint_write(dir, m, message, sizeof message), MHA_OK, "%s",
                 message);
}

static void remove_checkpoint(const char *dir)
{
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    cr_expect_eq(system(command), 0);
}

static void write_text_file(const char *dir, const char *name, const char *text, size_t length)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL && fwrite(text, 1, length, f) == length && fclose(f) == 0, "%s", path);
}

static void expect_checkpoint_refused(const char *dir, size_t legacy_heads, mha_status status,
                           const char *needle, const char *what)
{
    char message[512] = "";
    induction_model m;
    cr_expect_eq(induction_checkpoint_read(dir, legacy_heads, &m, message, sizeof message),
                 status, "%s: status, with '%s'", what, message);
    cr_expect(strstr(message, needle) != NULL, "%s: '%s' not in '%s'", what, needle, message);
    cr_expect(strchr(message, '\n') == NULL && strstr(message, dir) != NULL,
              "%s: want one line naming the file: '%s'", what, message);
    cr_expect_null(m.params, "%s: nothing is left allocated", what);
}
static const struct metadata_case {
    const char *from, *to;
    mha_status status;
    const char *needle;
} metadata_cases[] = {
    {"mha-checkpoint 1", "mha-checkpoint 2", MHA_ERR_FORMAT, "format version '2'"},
    {"format mha-checkpoint 1", "format npy", MHA_ERR_FORMAT, "line 1"},
    {"model induction", "model gpt", MHA_ERR_FORMAT, "line 2"},
    {"heads 2\n", "", MHA_ERR_FORMAT, "must all be given"},
    {"heads 2\n", "heads 2\nheads 2\n", MHA_ERR_FORMAT, "'heads' must appear once"},
    {"vocab 7\n", "vocab -7\n", MHA_ERR_FORMAT, "'vocab' must appear once"},
    {"heads 2\n", "heads 3\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"vocab 7\n", "vocab 999999999\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"layers 2\n", "layers 3\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"tensor unembed.npy 7 4\n", "", MHA_ERR_SHAPE, "tensor 3 is layers.0.in_proj_weight.npy"},
    {"pos_emb.npy 8 4", "pos_emb.npy 8 5", MHA_ERR_SHAPE, "tensor 2 is pos_emb.npy (8, 5)"},
    {"layers 2\n", "layers 1\n", MHA_ERR_SHAPE, "expected none"},
    {"dim 4\n", "dim 4\ncolour blue\n", MHA_ERR_FORMAT, "unknown key 'colour'"},
    {"dim 4\n", "dim 4 \n", MHA_ERR_FORMAT, "not words separated by single spaces"},
    {"dim 4\n", "dim\t4\n", MHA_ERR_FORMAT, "is not printable text"},
    {"layers.1.out_proj_bias.npy 4\n", "layers.1.out_proj_bias.npy 4", MHA_ERR_FORMAT,
     "does not end"},
};
typedef int poisoned_fn(size_t index, const mha_shape *s, int is_weight);

static void expect_poisoned(const char *what, const float *got, const float *clean, size_t n,
                            const mha_shape *s, int is_weight, poisoned_fn *poisoned)
{
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const int ok = poisoned(i, s, is_weight) ? isnan(got[i])
                                                 : memcmp(&got[i], &clean[i], sizeof(float)) == 0;
        if (!ok && wrong++ < 3)
            cr_log_error("%s[%zu] = %g, clean %g", what, i, (double)got[i], (double)clean[i]);
    }
    cr_expect_eq(wrong, 0, "%s: %zu elements break the NaN rule", what, wrong);
}
static int poisoned_by_query(size_t k, const mha_shape *s, int is_weight)
{
    const size_t H = s->heads, L = s->query_len, S = s->key_len, E = s->embed_dim;
    return is_weight ? k / (H * L * S) == 1 && k / S % L == 2 : k / E == 1 * L + 2;
}

static int poisoned_by_key(size_t k, const mha_shape *s, int is_weight)
{
    const size_t H = s->heads, L = s->query_len, S = s->key_len, E = s->embed_dim;
    return is_weight ? k / (H * L * S) == 1 : k / (L * E) == 1;
}
static void write_clean_case(const char *dir, float *values)
{
    for (size_t i = 0; i < 48; i++)
        values[i] = (float)((i * 5) % 13) / 13.0f - 0.5f;
    write_floats(dir, "query.npy", values, 3, (size_t[]){1, 3, 4});
    write_floats(dir, "in_proj_weight.npy", values, 2, (size_t[]){12, 4});
    write_floats(dir, "out_proj_weight.npy", values, 2, (size_t[]){4, 4});
}
static void expect_refused(char *dir, const char *needle)
{
    char path[4200];
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    expect_one_line(&r, MHA_EXIT_FAILURE, needle);
    free_result(&r);
    snprintf(path, sizeof path, "%s/out.npy", dir);
    cr_expect(access(path, F_OK) != 0, "%s exists after a refusal", path);
}
typedef void fuzz_target(const uint8_t *data, size_t size);

static size_t replay_dir(const char *dir, fuzz_target *target)
{
    size_t count = 0;
    DIR *d = opendir(dir);
    char path[4200];
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = e->d_name[0] == '.' ? NULL : fopen(path, "rb");
        if (f == NULL)
            continue;
        uint8_t *data = NULL;
        size_t size = 0, got;
        uint8_t chunk[4096];
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            data = realloc(data, size + got);
            cr_assert_not_null(data);
            memcpy(data + size, chunk, got);
            size += got;
        }
        fclose(f);
        target(data != NULL ? data : chunk, size);
        free(data);
        count++;
    }
    if (d != NULL)
        closedir(d);
    return count;
}
static void replay(const char *name, fuzz_target *target, size_t at_least)
{
    char here[4096], corpus[4200], regressions[4200];
    cr_assert_not_null(getcwd(here, sizeof here));
    snprintf(corpus, sizeof corpus, "%s/fuzz/corpus/%s", here, name);
    snprintf(regressions, sizeof regressions, "%s/fuzz/regressions/%s", here, name);
    cr_assert_eq(fuzz_setup(), 0, "cannot make the fuzz directory");
    const size_t seeds = replay_dir(corpus, target);
    replay_dir(regressions, target);
    fuzz_teardown();
    cr_expect_geq(seeds, at_least, "%s: found %zu seeds in %s", name, seeds, corpus);
}
Test(hardening, absurd_shapes_are_refused_by_the_library) {
    float one[1] = {0}, out[1], weights[1];
    const mha_params params = {one, one, one, one};
    for (size_t i = 0; i < sizeof absurd_shapes / sizeof absurd_shapes[0]; i++) {
        cr_expect_eq(mha_shape_check(&absurd_shapes[i]), MHA_ERR_OVERFLOW, "shape %zu", i);
        for (size_t k = 0; k < mha_impl_count; k++)
            cr_expect_eq(mha_impls[k].forward(&absurd_shapes[i], &params, one, NULL, NULL,
                                               NULL, out, weights),
                         MHA_ERR_OVERFLOW, "shape %zu, %s", i, mha_impls[k].name);
    }
}
Test(hardening, absurd_shapes_are_refused_by_bench) {
    struct cli_result r = run_command((char *[]){"mha", "bench", "--batch", "1048576",
                                                 "--seq", "65536", "--dim", "1024",
                                                 "--heads", "1024", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "overflows size_t");
    free_result(&r);
    r = run_command((char *[]){"mha", "bench", "--seq", "18446744073709551615", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "overflows size_t");
    free_result(&r);
}
Test(hardening, bench_refuses_repetitions_it_cannot_count, .timeout = 60) {
    struct cli_result r = run_command((char *[]){"mha", "bench", "--seq", "2", "--dim", "2",
                                                 "--heads", "1",
                                                 "--reps", "2305843009213693953", NULL});
    expect_one_line(&r, MHA_EXIT_FAILURE, "out of memory");
    free_result(&r);
}
Test(hardening, bench_bounds_sizes_and_counts, .timeout = 60) {
    static const char *const cases[][9] = {
        {"--decode", "--batch", "4611686018427387904", "--dim", "1", "--heads", "1", NULL},
        {"--decode", "--dim", "2147483648", "--heads", "1", NULL},
        {"--threads", "100000", NULL},
        {"--threads", "99999999999", NULL},
        {"--threads", "0", NULL},
        {"--bandwidth", "--mib", "100000000", NULL},
        {"--bandwidth", "--mib", "17592186044417", NULL},       /* 2^44 + 1: wraps << 20 */
        {"--bandwidth", "--mib", "0", NULL},
    };
    static const char *const culprits[] = {"--decode", "--decode", "--threads", "--threads",
                                           "--threads", "--mib", "--mib", "--mib"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *argv[12] = {"mha", "bench"};
        int argc = 2;
        for (size_t i = 0; cases[c][i] != NULL; i++)
            argv[argc++] = (char *)cases[c][i];
        struct cli_result r = run_argv(argc, argv);
        expect_one_line(&r, MHA_EXIT_USAGE, culprits[c]);
        free_result(&r);
    }
    char *dir = make_temp_dir(), command[4600];
    float values[48];
    write_clean_case(dir, values);
    const char *program = getenv("MHA_BINARY") ? getenv("MHA_BINARY") : "../build/mha";
    snprintf(command, sizeof command, "OMP_NUM_THREADS=100000 %s forward %s --heads 2 "
             "--impl blocked 2>%s/err.txt", program, dir, dir);
    const int status = system(command);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == MHA_EXIT_USAGE, "status %#x", status);
    size_t size;
    char *text = slurp(path_in(dir, "err.txt"), &size);
    cr_expect(strncmp(text, "mha: OMP_NUM_THREADS=100000: ", 29) == 0, "%s", text);
    free(text);
    remove_dir(dir);
}
Test(hardening, absurd_shapes_are_refused_by_forward) {
    char *dir = make_temp_dir();
    write_npy_raw(dir, "query.npy", 1, "{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (4294967296, 4294967296, 4294967296), }\n", "", 0);
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "1", NULL});
    expect_one_line(&r, MHA_EXIT_FAILURE, "overflows size_t");
    free_result(&r);
    remove_dir(dir);
}
Test(hardening, checkpoint_metadata_is_checked_field_by_field) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", good[CHECKPOINT_TEXT_MAX];
    char text[2 * CHECKPOINT_TEXT_MAX];
    induction_model m;
    make_checkpoint(dir, &m);
    const size_t length = induction_checkpoint_metadata(&m, good, sizeof good);
    for (size_t c = 0; c < sizeof metadata_cases / sizeof metadata_cases[0]; c++) {
        const struct metadata_case *k = &metadata_cases[c];
        const char *at = strstr(good, k->from);
        cr_assert_not_null(at, "case %zu: '%s' not in model.txt", c, k->from);
        const int n = snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, k->to,
                               at + strlen(k->from));
        write_text_file(dir, "model.txt", text, (size_t)n);
        expect_checkpoint_refused(dir, 0, k->status, k->needle, k->to);
    }
    memset(text, '#', sizeof text);
    memcpy(text, good, length);
    write_text_file(dir, "model.txt", text, CHECKPOINT_TEXT_MAX + 1);
    expect_checkpoint_refused(dir, 0, MHA_ERR_FORMAT, "longer than 4096 bytes",
                              "a long model.txt");
    write_text_file(dir, "model.txt", good, length);
    char message[512];
    induction_model back;
    cr_expect_eq(induction_checkpoint_read(dir, 0, &back, message, sizeof message), MHA_OK,
                 "%s", message);
    induction_model_free(&back);
    induction_model_free(&m);
    remove_checkpoint(dir);
}
Test(hardening, checkpoint_refuses_a_boolean_tensor_by_its_type) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", npy[128 + 28] = "\x93NUMPY\x01";
    induction_model m;
    make_checkpoint(dir, &m);
    const char *header = "{'descr': '|b1', 'fortran_order': False, 'shape': (7, 4), }";
    memset(npy + 8, ' ', 120);
    npy[8] = 118, npy[9] = 0;                      /* header length: 128 bytes in all */
    memcpy(npy + 10, header, strlen(header));
    npy[127] = '\n';
    memset(npy + 128, 1, 28);
    write_text_file(dir, "tok_emb.npy", npy, sizeof npy);
    expect_checkpoint_refused(dir, 0, MHA_ERR_FORMAT,
                              "tok_emb.npy: element type '|b1', expected float32",
                              "a boolean tok_emb.npy");
    char message[512];
    induction_model back;
    induction_checkpoint_read(dir, 0, &back, message, sizeof message);
    cr_expect(strstr(message, "(0, 0)") == NULL, "%s", message);
    induction_model_free(&m);
    remove_checkpoint(dir);
}

Test(hardening, checkpoint_refuses_weights_that_are_not_finite) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", path[256], message[512];
    induction_model m;
    make_checkpoint(dir, &m);
    const size_t bias[1] = {4}, emb[2] = {7, 4};
    float values[28] = {0};
    values[2] = NAN;
    snprintf(path, sizeof path, "%s/layers.1.out_proj_bias.npy", dir);
    cr_assert_eq(mha_npy_write(path, values, 1, bias, message, sizeof message), MHA_OK);
    expect_checkpoint_refused(dir, 0, MHA_ERR_FORMAT,
                              "layers.1.out_proj_bias.npy: weight 2 is not finite", "a NaN");
    values[2] = 0, values[27] = -INFINITY;
    cr_assert_eq(mha_npy_write(path, values, 1, bias, message, sizeof message), MHA_OK);
    snprintf(path, sizeof path, "%s/unembed.npy", dir);
    cr_assert_eq(mha_npy_write(path, values, 2, emb, message, sizeof message), MHA_OK);
    expect_checkpoint_refused(dir, 0, MHA_ERR_FORMAT,
                              "unembed.npy: weight 27 is not finite (-inf)", "an infinity");
    induction_model_free(&m);
    remove_checkpoint(dir);
}
Test(hardening, checkpoint_of_format_0_is_refused_by_name_or_read) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", path[256], message[512];
    induction_model m, back;
    make_checkpoint(dir, &m);
    snprintf(path, sizeof path, "%s/model.txt", dir);
    cr_assert_eq(unlink(path), 0);
    expect_checkpoint_refused(dir, 0, MHA_ERR_IO,
                              "model.txt: No such file or directory; a checkpoint of format 0",
                              "format 0, heads unknown");
    cr_assert_eq(induction_checkpoint_read(dir, 2, &back, message, sizeof message), MHA_OK,
                 "%s", message);
    cr_expect(back.heads == 2 && back.layers == 2 && back.vocab == 7 && back.length == 8 &&
              back.embed_dim == 4 && back.count == m.count);
    cr_expect(memcmp(back.params, m.params, m.count * sizeof(float)) == 0);
    induction_model_free(&back);
    induction_model_free(&m);
    remove_checkpoint(dir);
}
Test(hardening, train_from_rewrites_a_checkpoint_bit_for_bit, .timeout = 60) {
    char old[] = "/tmp/mha-checkpoint-XXXXXX", fresh[] = "/tmp/mha-checkpoint-XXXXXX";
    char path[256], command[600];
    induction_model m;
    make_checkpoint(old, &m);
    cr_assert_not_null(mkdtemp(fresh));
    snprintf(path, sizeof path, "%s/model.txt", old);
    cr_assert_eq(unlink(path), 0);
    struct cli_result r = run_command((char *[]){"mha", "train", "--from", old, "--steps", "0",
                                                 "--out", fresh, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    checkpoint_file files[CHECKPOINT_FILES_MAX];
    const size_t n = induction_checkpoint_files(&m, files);
    for (size_t f = 0; f < n; f++) {
        snprintf(command, sizeof command, "cmp -s %s/%s %s/%s", old, files[f].name, fresh,
                 files[f].name);
        cr_expect_eq(system(command), 0, "%s differs", files[f].name);
    }
    snprintf(path, sizeof path, "%s/model.txt", fresh);
    cr_expect_eq(access(path, F_OK), 0, "no model.txt was written");
    induction_model_free(&m);
    remove_checkpoint(old);
    remove_checkpoint(fresh);
}
Test(hardening, committed_model_is_format_1) {
    char message[512], text[CHECKPOINT_TEXT_MAX], committed[CHECKPOINT_TEXT_MAX + 1];
    induction_model m;
    cr_assert_eq(induction_checkpoint_read("../models/induction", 0, &m, message, sizeof message),
                 MHA_OK, "%s", message);
    const size_t length = induction_checkpoint_metadata(&m, text, sizeof text);
    FILE *f = fopen("../models/induction/model.txt", "rb");
    cr_assert_not_null(f);
    const size_t got = fread(committed, 1, sizeof committed, f);
    fclose(f);
    cr_expect(got == length && memcmp(committed, text, length) == 0, "model.txt differs");
    cr_expect(m.layers == 2 && m.heads == 2);
    induction_model_free(&m);
}
Test(fuzz_replay, checkpoint) { replay("checkpoint", fuzz_checkpoint_one, 5); }
Test(nan_policy, first_nonfinite_finds_the_first_bad_value) {
    const float x[] = {0.0f, -FLT_MAX, FLT_MAX, 1e-45f, -INFINITY, NAN, INFINITY};
    cr_expect_eq(mha_first_nonfinite(x, 4, 0), 4);
    cr_expect_eq(mha_first_nonfinite(x, 7, 0), 4);
    cr_expect_eq(mha_first_nonfinite(x, 7, 1), 5);
    cr_expect_eq(mha_first_nonfinite(x + 6, 1, 1), 0);
    cr_expect_eq(mha_first_nonfinite(x, 0, 0), 0);
}
Test(nan_policy, the_library_propagates_nan_to_the_rows_it_reaches) {
    const mha_shape shape = {2, 5, 6, 8, 2};
    const size_t n_out = 2 * 5 * 8, n_w = 2 * 2 * 5 * 6;
    mha_case c = case_random(shape, 12, CASE_CROSS);
    float *out = malloc(n_out * sizeof *out), *w = malloc(n_w * sizeof *w);
    float *clean = malloc(n_out * sizeof *clean), *clean_w = malloc(n_w * sizeof *clean_w);
    cr_assert(out && w && clean && clean_w);
    for (size_t k = 0; k < mha_impl_count; k++) {
        const mha_impl *impl = &mha_impls[k];
        char what[64];
        cr_assert_eq(impl->forward(&shape, &c.params, c.query, c.key, c.value, NULL, clean, clean_w),
                     MHA_OK);
        const size_t query_at = (1 * 5 + 2) * 8 + 3, key_at = (1 * 6 + 3) * 8 + 5;
        const float saved_query = c.query[query_at], saved_key = c.key[key_at];
        c.query[query_at] = NAN;
        cr_assert_eq(impl->forward(&shape, &c.params, c.query, c.key, c.value, NULL, out, w), MHA_OK);
        c.query[query_at] = saved_query;
        snprintf(what, sizeof what, "%s: query NaN: out", impl->name);
        expect_poisoned(what, out, clean, n_out, &shape, 0, poisoned_by_query);
        snprintf(what, sizeof what, "%s: query NaN: weights", impl->name);
        expect_poisoned(what, w, clean_w, n_w, &shape, 1, poisoned_by_query);
        c.key[key_at] = NAN;
        cr_assert_eq(impl->forward(&shape, &c.params, c.query, c.key, c.value, NULL, out, w), MHA_OK);
        c.key[key_at] = saved_key;
        snprintf(what, sizeof what, "%s: key NaN: out", impl->name);
        expect_poisoned(what, out, clean, n_out, &shape, 0, poisoned_by_key);
        snprintf(what, sizeof what, "%s: key NaN: weights", impl->name);
        expect_poisoned(what, w, clean_w, n_w, &shape, 1, poisoned_by_key);
    }
    free(out); free(w); free(clean); free(clean_w);
    case_free(&c);
}
Test(nan_policy, the_command_refuses_non_finite_inputs) {
    char *dir = make_temp_dir(), path[4200];
    float values[48], bad[48];
    write_clean_case(dir, values);
    memcpy(bad, values, sizeof bad);
    bad[5] = NAN;
    write_floats(dir, "query.npy", bad, 3, (size_t[]){1, 3, 4});
    expect_refused(dir, "/query.npy: not finite at index 5");
    write_floats(dir, "query.npy", values, 3, (size_t[]){1, 3, 4});
    bad[5] = values[5];
    bad[7] = INFINITY;
    write_floats(dir, "in_proj_bias.npy", bad, 1, (size_t[]){12});
    expect_refused(dir, "/in_proj_bias.npy: not finite at index 7");
    bad[7] = -INFINITY;
    write_floats(dir, "in_proj_bias.npy", bad, 1, (size_t[]){12});
    expect_refused(dir, "/in_proj_bias.npy: not finite at index 7");
    snprintf(path, sizeof path, "%s/in_proj_bias.npy", dir);
    remove(path);
    double wide[12];
    for (size_t i = 0; i < 12; i++)
        wide[i] = i == 9 ? 1e300 : 0.5;
    write_npy_raw(dir, "query.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3, 4), }\n",
              wide, sizeof wide);
    expect_refused(dir, "/query.npy: not finite at index 9");
    remove_dir(dir);
}
Test(nan_policy, a_float_mask_may_block_with_minus_infinity) {
    char *dir = make_temp_dir(), path[4200], message[256];
    float values[48], mask[9] = {0};
    const unsigned char blocked_bytes[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    write_clean_case(dir, values);
    for (size_t i = 0; i < 9; i++)
        mask[i] = blocked_bytes[i] ? -INFINITY : 0.0f;
    write_floats(dir, "attn_mask.npy", mask, 2, (size_t[]){3, 3});
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    free_result(&r);
    mha_npy with_float, with_bool;
    snprintf(path, sizeof path, "%s/out.npy", dir);
    cr_assert_eq(mha_npy_read(path, &with_float, message, sizeof message), MHA_OK, "%s", message);
    char header[] = "{'descr': '|b1', 'fortran_order': False, 'shape': (3, 3), }\n";
    write_npy_raw(dir, "attn_mask.npy", 1, header, blocked_bytes, 9);
    remove(path);
    r = run_command((char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    free_result(&r);
    cr_assert_eq(mha_npy_read(path, &with_bool, message, sizeof message), MHA_OK, "%s", message);
    cr_expect(memcmp(with_float.values, with_bool.values, 12 * sizeof(float)) == 0);
    mha_npy_free(&with_float);
    mha_npy_free(&with_bool);
    remove(path);
    mask[4] = NAN;
    write_floats(dir, "attn_mask.npy", mask, 2, (size_t[]){3, 3});
    expect_refused(dir, "/attn_mask.npy: not finite at index 4 (a float mask may hold -inf");
    mask[4] = INFINITY;
    write_floats(dir, "attn_mask.npy", mask, 2, (size_t[]){3, 3});
    expect_refused(dir, "/attn_mask.npy: not finite at index 4");
    remove_dir(dir);
}
Test(nan_policy, decode_and_backward_refuse_non_finite_inputs) {
    char *dir = make_temp_dir(), path[4200];
    float values[48], bad[48], mask[9] = {0};
    write_clean_case(dir, values);
    write_floats(dir, "grad_out.npy", values, 3, (size_t[]){1, 3, 4});
    const char *commands[] = {"decode", "backward"};
    for (int c = 0; c < 2; c++) {
        char *argv[] = {"mha", (char *)commands[c], dir, "--heads", "2", NULL};
        struct cli_result r = run_command(argv);
        cr_expect_eq(r.status, MHA_EXIT_OK, "%s on the clean case: %s", commands[c], r.err);
        free_result(&r);
        memcpy(bad, values, sizeof bad);
        bad[5] = NAN;
        write_floats(dir, "query.npy", bad, 3, (size_t[]){1, 3, 4});
        r = run_command(argv);
        expect_one_line(&r, MHA_EXIT_FAILURE, "/query.npy: not finite at index 5");
        free_result(&r);
        write_floats(dir, "query.npy", values, 3, (size_t[]){1, 3, 4});
        bad[5] = values[5];
        bad[7] = -INFINITY;
        write_floats(dir, "in_proj_bias.npy", bad, 1, (size_t[]){12});
        r = run_command(argv);
        expect_one_line(&r, MHA_EXIT_FAILURE, "/in_proj_bias.npy: not finite at index 7");
        free_result(&r);
        snprintf(path, sizeof path, "%s/in_proj_bias.npy", dir);
        remove(path);
        bad[7] = INFINITY;
        write_floats(dir, "out_proj_weight.npy", bad, 2, (size_t[]){4, 4});
        r = run_command(argv);
        expect_one_line(&r, MHA_EXIT_FAILURE, "/out_proj_weight.npy: not finite at index 7");
        free_result(&r);
        write_floats(dir, "out_proj_weight.npy", values, 2, (size_t[]){4, 4});
    }
    char *argv[] = {"mha", "backward", dir, "--heads", "2", NULL};
    memcpy(bad, values, sizeof bad);
    bad[2] = NAN;
    write_floats(dir, "grad_out.npy", bad, 3, (size_t[]){1, 3, 4});
    struct cli_result r = run_command(argv);
    expect_one_line(&r, MHA_EXIT_FAILURE, "/grad_out.npy: not finite at index 2");
    free_result(&r);
    write_floats(dir, "grad_out.npy", values, 3, (size_t[]){1, 3, 4});
    mask[4] = NAN;
    write_floats(dir, "attn_mask.npy", mask, 2, (size_t[]){3, 3});
    r = run_command(argv);
    expect_one_line(&r, MHA_EXIT_FAILURE, "/attn_mask.npy: not finite at index 4 (a float mask");
    free_result(&r);
    remove_dir(dir);
}
Test(reentrancy, two_threads_match_one_after_the_other) {
    cr_expect_eq(reentrancy_check(stderr), 0);
}
Test(fuzz_replay, npy)     { replay("npy", fuzz_npy_one, 5); }
Test(fuzz_replay, cli, .timeout = 600) { replay("cli", fuzz_cli_one, 5); }
Test(fuzz_replay, forward) { replay("forward", fuzz_forward_one, 5); }
