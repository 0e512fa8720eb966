/* generated from chapters/25-hardening.nw; edit the book, not this file */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "mha_internal.h"
#include "checkpoint.h"
#include "cli.h"
#include "fuzz_harness.h"
#include "npy.h"
#include "oracle.h"
#include "printable.h"
#include "reentrancy.h"
#include "scratch.h"
#include "run.h"

/* <<[[test_hardening.c]] helpers>> */
static const mha_shape absurd_shapes[] = {
    {1u << 20, 1u << 16, 1u << 16, 1024, 1024},      /* B H L S = 2^62 weights */
    {(size_t)1 << 62, 1, 1, 4, 2},                   /* B L 3E */
    {1, 1, 1, (size_t)1 << 31, 1},                   /* 3E E */
    {1, (size_t)1 << 32, (size_t)1 << 32, 2, 1},     /* B H L S = 2^64 */
    {1, SIZE_MAX, 1, 1, 1},
};
/* <<[[test_hardening.c]] helpers>> */
/* run_argv (tests/check.h), for a NULL-terminated argument list. */
static struct cli_result run_command(char **argv)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    return run_argv(argc, argv);
}
/* <<[[test_hardening.c]] helpers>> */
static void expect_one_line(const struct cli_result *r, int status, const char *needle)
{
    const char *newline = strchr(r->err, '\n');
    cr_expect_eq(r->status, status, "status %d, want %d; stderr: %s", r->status, status, r->err);
    cr_expect(strncmp(r->err, "mha: ", 5) == 0 && newline != NULL && newline[1] == '\0',
              "want one 'mha: ' line, got: %s", r->err);
    cr_expect(strstr(r->err, needle) != NULL, "'%s' not in: %s", needle, r->err);
}

/* <<[[test_hardening.c]] helpers>> */
static void make_checkpoint(char *dir, mha_induction_model *m)
{
    char message[512];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(mha_induction_model_init(m, 7, 8, 4, 2, 2, 3), MHA_OK);
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
    mha_induction_model m;
    cr_expect_eq(induction_checkpoint_read(dir, legacy_heads, &m, message, sizeof message),
                 status, "%s: status, with '%s'", what, message);
    cr_expect(strstr(message, needle) != NULL, "%s: '%s' not in '%s'", what, needle, message);
    cr_expect(strchr(message, '\n') == NULL && strstr(message, dir) != NULL,
              "%s: want one line naming the file: '%s'", what, message);
    cr_expect_null(m.params, "%s: nothing is left allocated", what);
}
/* <<[[test_hardening.c]] helpers>> */
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
    {"format mha", "formats mha", MHA_ERR_FORMAT, "line 1: not 'format mha-checkpoint 1'"},
    {"mha-checkpoint 1", "mha-checkpoints 1", MHA_ERR_FORMAT, "line 1"},
    {"model induction", "models induction", MHA_ERR_FORMAT, "line 2: not 'model induction'"},
    {"model induction", "model induction 2", MHA_ERR_FORMAT, "line 2"},
    {"heads 2\n", "heads 2 2\n", MHA_ERR_FORMAT, "'heads' must appear once"},
    {"vocab 7\n", "vocab 1000000000\n", MHA_ERR_FORMAT, "line 5: 'vocab' must appear once"},
    {"dim 4\ntensor tok_emb.npy 7 4\n", "tensor tok_emb.npy 7 4\ndim 4\n", MHA_ERR_FORMAT,
     "line 8: 'dim' must appear once, before the tensors"},
    {"dim 4\n", "dim  4\n", MHA_ERR_FORMAT, "line 7: not words separated by single spaces"},
    {"dim 4\n", "dim 4\n\n", MHA_ERR_FORMAT, "line 8: not words separated by single spaces"},
    {"dim 4\n", "dim 4 4 4 4 4 4 4 4\n", MHA_ERR_FORMAT, "line 7: not words separated"},
    {"dim 4\n", "dim 4\x7f\n", MHA_ERR_FORMAT, "byte 79 is not printable text"},
    {"tensor pos_emb.npy 8 4", "tensor pos_emb.npy", MHA_ERR_FORMAT,
     "line 9: not 'tensor FILE SIZE [SIZE]'"},
    {"pos_emb.npy 8 4", "pos_emb.npy 8 4 1", MHA_ERR_FORMAT, "line 9: not 'tensor FILE"},
    {"pos_emb.npy 8 4", "pos_emb.npy eight 4", MHA_ERR_FORMAT, "line 9: not 'tensor FILE"},
    {"pos_emb.npy 8 4", "pos_emb.npy 8 four", MHA_ERR_FORMAT, "line 9: not 'tensor FILE"},
    {"pos_emb.npy 8 4", "position_embeddings_of_the_model_in_format_one.npy 8 4",
     MHA_ERR_FORMAT, "line 9: not 'tensor FILE"},
    {"layers.1.out_proj_bias.npy 4\n", "layers.1.out_proj_bias.npy 4\ntensor more.npy 4\n",
     MHA_ERR_FORMAT, "line 19: not 'tensor FILE SIZE [SIZE]', or one tensor too many"},
    {"layers 2\n", "layers 0\n", MHA_ERR_SHAPE, "layers 0, heads 2, vocab 7, length 8, dim 4"},
    {"heads 2\n", "heads 0\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"heads 2\nvocab 7\nlength 8\ndim 4\n", "heads 32\nvocab 7\nlength 8\ndim 32\n",
     MHA_ERR_SHAPE, "heads 32, vocab 7, length 8, dim 32: not a model the trainer makes"},
    {"vocab 7\n", "vocab 1\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"length 8\n", "length 5\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"length 8\n", "length 4097\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"dim 4\n", "dim 0\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"dim 4\n", "dim 4098\n", MHA_ERR_SHAPE, "not a model the trainer makes"},
    {"tensor unembed.npy", "tensor unembedding.npy", MHA_ERR_SHAPE,
     "tensor 3 is unembedding.npy (7, 4), expected unembed.npy (7, 4)"},
    {"tok_emb.npy 7 4", "tok_emb.npy 28", MHA_ERR_SHAPE,
     "tensor 1 is tok_emb.npy (28,), expected tok_emb.npy (7, 4)"},
    {"pos_emb.npy 8 4", "pos_emb.npy 9 4", MHA_ERR_SHAPE,
     "tensor 2 is pos_emb.npy (9, 4), expected pos_emb.npy (8, 4)"},
    {"tensor layers.1.out_proj_bias.npy 4\n", "", MHA_ERR_SHAPE,
     "tensor 11 is missing , expected layers.1.out_proj_bias.npy (4,)"},
};
/* <<[[test_hardening.c]] helpers>> */
static void write_tensor(const char *dir, const char *name, const float *values, size_t rank,
                         size_t rows, size_t columns)
{
    char path[256], message[512];
    const size_t shape[2] = {rows, columns};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(mha_npy_write(path, values, rank, shape, message, sizeof message), MHA_OK,
                 "%s", message);
}
/* <<[[test_hardening.c]] helpers>> */
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
/* <<[[test_hardening.c]] helpers>> */
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
/* <<[[test_hardening.c]] helpers>> */
static void write_clean_case(const char *dir, float *values)
{
    for (size_t i = 0; i < 48; i++)
        values[i] = (float)((i * 5) % 13) / 13.0f - 0.5f;
    write_floats(dir, "query.npy", values, 3, (size_t[]){1, 3, 4});
    write_floats(dir, "in_proj_weight.npy", values, 2, (size_t[]){12, 4});
    write_floats(dir, "out_proj_weight.npy", values, 2, (size_t[]){4, 4});
}
/* <<[[test_hardening.c]] helpers>> */
static void expect_refused(char *dir, const char *needle)
{
    char path[4200];
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    expect_one_line(&r, MHA_EXIT_FAILURE, needle);
    free_result(&r);
    snprintf(path, sizeof path, "%s/out.npy", dir);
    cr_expect(access(path, F_OK) != 0, "%s exists after a refusal", path);
}
/* <<[[test_hardening.c]] helpers>> */
static int run_with(const char *environment, const char *arguments, char **err)
{
    char *dir = make_temp_dir(), command[4600];
    const char *program = getenv("MHA_BINARY") ? getenv("MHA_BINARY") : "../build/mha";
    snprintf(command, sizeof command, "%s %s %s >/dev/null 2>%s", environment, program,
             arguments, path_in(dir, "err.txt"));
    const int status = system(command);
    size_t size;
    *err = slurp(path_in(dir, "err.txt"), &size);
    remove_dir(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
/* <<[[test_hardening.c]] helpers>> */
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
        /* <<read [[f]] whole and run [[target]] on it>> */
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
/* <<[[test_hardening.c]] helpers>> */
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
/* <<[[test_hardening.c]] helpers>> */
#include "learning.h"

/* Sequence 1 of c's query (B >= 2), every element 3e38. */
static void flood_query(mha_case *c)
{
    const mha_shape *s = &c->shape;
    const size_t row = s->query_len * s->embed_dim;
    for (size_t i = 0; i < row; i++)
        c->query[row + i] = 3e38f;
}
/* <<[[test_hardening.c]] helpers>> */
/* Version k of a pass answered st at 10^(tenth/10): an answer of the rule, the
   answer of version 0 (*first), and a finite result (n) when it accepted. */
static void expect_same_answer(const char *pass, const char *name, size_t k, int tenth,
                               mha_status st, mha_status *first, const float *result, size_t n)
{
    cr_assert(st == MHA_OK || st == MHA_ERR_RANGE, "%s %s: status %d", pass, name, (int)st);
    if (k == 0)
        *first = st;
    cr_expect_eq(st, *first, "%s %s at 1e%.1f", pass, name, tenth / 10.0);
    for (size_t i = 0; st == MHA_OK && i < n; i++)
        cr_assert(isfinite(result[i]), "%s %s at 1e%.1f", pass, name, tenth / 10.0);
}
/* <<[[test_hardening.c]] tests>> */
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
/* <<[[test_hardening.c]] tests>> */
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
/* <<[[test_hardening.c]] tests>> */
Test(hardening, bench_refuses_repetitions_it_cannot_count, .timeout = 60) {
    struct cli_result r = run_command((char *[]){"mha", "bench", "--seq", "2", "--dim", "2",
                                                 "--heads", "1",
                                                 "--reps", "2305843009213693953", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--reps");
    free_result(&r);
}
/* <<[[test_hardening.c]] tests>> */
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
/* <<[[test_hardening.c]] tests>> */
Test(hardening, absurd_shapes_are_refused_by_forward) {
    char *dir = make_temp_dir();
    write_npy_raw(dir, "query.npy", 1, "{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (4294967296, 4294967296, 4294967296), }\n", "", 0);
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "1", NULL});
    expect_one_line(&r, MHA_EXIT_FAILURE, "overflows size_t");
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, checkpoint_metadata_is_checked_field_by_field) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", good[CHECKPOINT_TEXT_MAX];
    char text[2 * CHECKPOINT_TEXT_MAX];
    mha_induction_model m;
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
    expect_checkpoint_refused(dir, 0, MHA_ERR_FORMAT, "longer than the 4096",
                              "a long model.txt");
    write_text_file(dir, "model.txt", good, length);
    char message[512];
    mha_induction_model back;
    cr_expect_eq(induction_checkpoint_read(dir, 0, &back, message, sizeof message), MHA_OK,
                 "%s", message);
    mha_induction_model_free(&back);
    mha_induction_model_free(&m);
    remove_checkpoint(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, checkpoint_metadata_is_cut_as_snprintf_cuts) {
    char whole[CHECKPOINT_TEXT_MAX], cut[CHECKPOINT_TEXT_MAX];
    mha_induction_model m;
    cr_assert_eq(mha_induction_model_init(&m, 7, 8, 4, 2, 2, 3), MHA_OK);
    const size_t length = induction_checkpoint_metadata(&m, whole, sizeof whole);
    cr_assert(length > 40 && length < sizeof whole && strlen(whole) == length);
    const size_t sizes[4] = {0, 1, 40, length};
    for (size_t i = 0; i < 4; i++) {
        memset(cut, '#', sizeof cut);
        cr_expect_eq(induction_checkpoint_metadata(&m, cut, sizes[i]), length);
        const size_t kept = sizes[i] > 0 ? sizes[i] - 1 : 0;
        cr_expect(memcmp(cut, whole, kept) == 0, "size %zu: not the text's beginning", sizes[i]);
        cr_expect(sizes[i] == 0 ? cut[0] == '#' : cut[kept] == '\0' && cut[kept + 1] == '#',
                  "size %zu: written past its end, or not ended", sizes[i]);
    }
    mha_induction_model_free(&m);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, checkpoint_refuses_a_boolean_tensor_by_its_type) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", npy[128 + 28] = "\x93NUMPY\x01";
    mha_induction_model m;
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
    mha_induction_model back;
    cr_expect_eq(induction_checkpoint_read(dir, 0, &back, message, sizeof message),
                 MHA_ERR_FORMAT);
    cr_expect(strstr(message, "(0, 0)") == NULL, "%s", message);
    mha_induction_model_free(&m);
    remove_checkpoint(dir);
}

Test(hardening, checkpoint_refuses_weights_that_are_not_finite) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", path[256], message[512];
    mha_induction_model m;
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
    mha_induction_model_free(&m);
    remove_checkpoint(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, checkpoint_refuses_what_is_not_a_checkpoint_directory) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", path[256], want[300], message[512] = "";
    char long_name[4001];
    mha_induction_model m, back;
    make_checkpoint(dir, &m);
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    cr_expect_eq(induction_checkpoint_read(long_name, 2, &back, message, sizeof message),
                 MHA_ERR_ARG);
    cr_expect_str_eq(message, "directory name too long (4000 bytes)");
    cr_expect_null(back.params);
    snprintf(path, sizeof path, "%s/tok_emb.npy", dir);
    snprintf(want, sizeof want, "%s/model.txt: %s", path, strerror(ENOTDIR));
    expect_checkpoint_refused(path, 0, MHA_ERR_IO, want, "a file for a directory");
    expect_checkpoint_refused(path, 2, MHA_ERR_IO, want, "a file, even for format 0");
    /* <<refuse a [[model.txt]] that is a directory or a FIFO, then one that is empty>> */
    char good[CHECKPOINT_TEXT_MAX];
    const size_t length = induction_checkpoint_metadata(&m, good, sizeof good);
    snprintf(path, sizeof path, "%s/model.txt", dir);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0700), 0);
    expect_checkpoint_refused(dir, 0, MHA_ERR_IO, "model.txt: not a regular file",
                              "a folder model.txt");
    cr_assert_eq(rmdir(path), 0);
    cr_assert_eq(mkfifo(path, 0600), 0);                  /* a reader would wait for a writer */
    expect_checkpoint_refused(dir, 0, MHA_ERR_IO, "model.txt: not a regular file",
                              "a FIFO model.txt");
    cr_assert_eq(unlink(path), 0);
    write_text_file(dir, "model.txt", "", 0);
    expect_checkpoint_refused(dir, 0, MHA_ERR_FORMAT, "model.txt: does not end with a line end",
                              "an empty model.txt");
    write_text_file(dir, "model.txt", good, length);
    /* <<refuse a tensor file that is missing, or of the wrong rank or shape>> */
    const float zeros[32] = {0};
    snprintf(path, sizeof path, "%s/unembed.npy", dir);
    cr_assert_eq(unlink(path), 0);
    expect_checkpoint_refused(dir, 0, MHA_ERR_IO, "/unembed.npy: ", "no unembed.npy");
    write_tensor(dir, "unembed.npy", zeros, 1, 28, 0);
    expect_checkpoint_refused(dir, 0, MHA_ERR_SHAPE, "unembed.npy: shape (28,), expected (7, 4)",
                              "a vector unembed.npy");
    write_tensor(dir, "unembed.npy", zeros, 2, 4, 7);
    expect_checkpoint_refused(dir, 0, MHA_ERR_SHAPE, "unembed.npy: shape (4, 7), expected (7, 4)",
                              "a transposed unembed.npy");
    write_tensor(dir, "unembed.npy", zeros, 2, 7, 4);
    cr_expect_eq(induction_checkpoint_read(dir, 0, &back, message, sizeof message), MHA_OK,
                 "%s", message);
    mha_induction_model_free(&back);
    mha_induction_model_free(&m);
    remove_checkpoint(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, checkpoint_of_format_0_takes_its_sizes_from_its_files) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", path[256], message[512];
    const char *heads_3 = "tok_emb.npy and pos_emb.npy (format 0) do not make a model of 3 heads";
    const char *heads_2 = "(format 0) do not make a model of 2 heads";
    const float zeros[32] = {0};
    mha_induction_model m, back;
    make_checkpoint(dir, &m);
    snprintf(path, sizeof path, "%s/model.txt", dir);
    cr_assert_eq(unlink(path), 0);
    expect_checkpoint_refused(dir, 3, MHA_ERR_SHAPE, heads_3, "three heads of a width of four");
    snprintf(path, sizeof path, "%s/layers.1.in_proj_weight.npy", dir);
    cr_assert_eq(unlink(path), 0);
    /* <<read the format-0 checkpoint as one layer, every weight unchanged>> */
    checkpoint_file want[CHECKPOINT_FILES_MAX], got[CHECKPOINT_FILES_MAX];
    const size_t n = induction_checkpoint_files(&m, want);
    cr_assert_eq(induction_checkpoint_read(dir, 2, &back, message, sizeof message), MHA_OK,
                 "%s", message);
    cr_assert(back.layers == 1 && back.heads == 2 && back.vocab == 7 && back.length == 8 &&
              back.embed_dim == 4);
    cr_assert_eq(induction_checkpoint_files(&back, got), n - 4);
    for (size_t f = 0; f < n - 4; f++)
        cr_expect(strcmp(got[f].name, want[f].name) == 0 &&
                  memcmp(got[f].data, want[f].data, got[f].shape[0] *
                         (got[f].rank == 2 ? got[f].shape[1] : 1) * sizeof(float)) == 0,
                  "%s differs", want[f].name);
    mha_induction_model_free(&back);
    write_tensor(dir, "pos_emb.npy", zeros, 1, 32, 0);
    expect_checkpoint_refused(dir, 2, MHA_ERR_SHAPE, heads_2, "a vector pos_emb.npy");
    snprintf(path, sizeof path, "%s/pos_emb.npy", dir);
    cr_assert_eq(unlink(path), 0);
    expect_checkpoint_refused(dir, 2, MHA_ERR_IO, "/pos_emb.npy: ", "no pos_emb.npy");
    write_tensor(dir, "tok_emb.npy", zeros, 1, 28, 0);
    expect_checkpoint_refused(dir, 2, MHA_ERR_SHAPE, heads_2, "a vector tok_emb.npy");
    snprintf(path, sizeof path, "%s/tok_emb.npy", dir);
    cr_assert_eq(unlink(path), 0);
    expect_checkpoint_refused(dir, 2, MHA_ERR_IO, "/tok_emb.npy: ", "no tok_emb.npy");
    write_tensor(dir, "tok_emb.npy", zeros, 2, 7, 4);
    write_tensor(dir, "pos_emb.npy", zeros, 2, 8, 4);
    snprintf(path, sizeof path, "%s/layers.0.in_proj_weight.npy", dir);
    cr_assert_eq(unlink(path), 0);
    expect_checkpoint_refused(dir, 2, MHA_ERR_IO,
                              "no model.txt and no layers.0.in_proj_weight.npy", "no layers");
    mha_induction_model_free(&m);
    remove_checkpoint(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, checkpoint_of_format_0_is_refused_by_name_or_read) {
    char dir[] = "/tmp/mha-checkpoint-XXXXXX", path[256], message[512];
    mha_induction_model m, back;
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
    mha_induction_model_free(&back);
    mha_induction_model_free(&m);
    remove_checkpoint(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, train_from_rewrites_a_checkpoint_bit_for_bit, .timeout = 60) {
    char old[] = "/tmp/mha-checkpoint-XXXXXX", fresh[] = "/tmp/mha-checkpoint-XXXXXX";
    char path[256], command[600];
    mha_induction_model m;
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
    mha_induction_model_free(&m);
    remove_checkpoint(old);
    remove_checkpoint(fresh);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, train_from_a_refused_checkpoint_writes_nothing, .timeout = 60) {
    char old[] = "/tmp/mha-checkpoint-XXXXXX", fresh[] = "/tmp/mha-checkpoint-XXXXXX";
    char want[256];
    mha_induction_model m;
    make_checkpoint(old, &m);
    cr_assert_not_null(mkdtemp(fresh));
    write_text_file(old, "model.txt", "format mha-checkpoint 2\n", 24);
    struct cli_result r = run_command((char *[]){"mha", "train", "--from", old, "--steps", "0",
                                                 "--out", fresh, NULL});
    snprintf(want, sizeof want, "mha: %s/model.txt: format version '2'", old);
    cr_expect_neq(r.status, 0);
    cr_expect(strncmp(r.err, want, strlen(want)) == 0 && strchr(r.err, '\n') != NULL &&
              strchr(r.err, '\n')[1] == '\0', "want one line '%s...', got '%s'", want, r.err);
    free_result(&r);
    cr_expect_eq(rmdir(fresh), 0, "%s is not left empty", fresh);
    mha_induction_model_free(&m);
    remove_checkpoint(old);
}
/* <<[[test_hardening.c]] tests>> */
Test(hardening, committed_model_is_format_1) {
    char message[512], text[CHECKPOINT_TEXT_MAX], committed[CHECKPOINT_TEXT_MAX + 1];
    mha_induction_model m;
    cr_assert_eq(induction_checkpoint_read("../models/induction", 0, &m, message, sizeof message),
                 MHA_OK, "%s", message);
    const size_t length = induction_checkpoint_metadata(&m, text, sizeof text);
    FILE *f = fopen("../models/induction/model.txt", "rb");
    cr_assert_not_null(f);
    const size_t got = fread(committed, 1, sizeof committed, f);
    fclose(f);
    cr_expect(got == length && memcmp(committed, text, length) == 0, "model.txt differs");
    cr_expect(m.layers == 2 && m.heads == 2);
    mha_induction_model_free(&m);
}
/* <<[[test_hardening.c]] tests>> */
Test(fuzz_replay, checkpoint) { replay("checkpoint", fuzz_checkpoint_one, 5); }
/* <<[[test_hardening.c]] tests>> */
Test(nan_policy, first_nonfinite_finds_the_first_bad_value) {
    const float x[] = {0.0f, -FLT_MAX, FLT_MAX, 1e-45f, -INFINITY, NAN, INFINITY};
    cr_expect_eq(mha_first_nonfinite(x, 4, 0), 4);
    cr_expect_eq(mha_first_nonfinite(x, 7, 0), 4);
    cr_expect_eq(mha_first_nonfinite(x, 7, 1), 5);
    cr_expect_eq(mha_first_nonfinite(x + 6, 1, 1), 0);
    cr_expect_eq(mha_first_nonfinite(x, 0, 0), 0);
}
/* <<[[test_hardening.c]] tests>> */
Test(nan_policy, the_library_propagates_nan_to_the_rows_it_reaches) {
    const mha_shape shape = {2, 5, 6, 8, 2};
    const size_t n_out = 2 * 5 * 8, n_w = 2 * 2 * 5 * 6;
    mha_case c = case_random(shape, 12, CASE_CROSS);
    float *out = malloc(n_out * sizeof *out), *w = malloc(n_w * sizeof *w);
    float *clean = malloc(n_out * sizeof *clean), *clean_w = malloc(n_w * sizeof *clean_w);
    cr_assert(out && w && clean && clean_w);
    for (size_t k = 0; k < mha_impl_count; k++) {
        const mha_impl *impl = &mha_impls[k];
        /* <<run [[impl]] clean, with a NaN query row, and with a NaN key row>> */
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
/* <<[[test_hardening.c]] tests>> */
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
    /* <<check that a float64 query too large for a float is refused>> */
    double wide[12];
    for (size_t i = 0; i < 12; i++)
        wide[i] = i == 9 ? 1e300 : 0.5;
    write_npy_raw(dir, "query.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3, 4), }\n",
              wide, sizeof wide);
    expect_refused(dir, "/query.npy: not finite at index 9");
    remove_dir(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(nan_policy, a_float_mask_may_block_with_minus_infinity) {
    char *dir = make_temp_dir(), path[4200], message[256];
    float values[48], mask[9] = {0};
    const unsigned char masked_bytes[9] = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    write_clean_case(dir, values);
    for (size_t i = 0; i < 9; i++)
        mask[i] = masked_bytes[i] ? -INFINITY : 0.0f;
    write_floats(dir, "attn_mask.npy", mask, 2, (size_t[]){3, 3});
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    free_result(&r);
    mha_npy with_float, with_bool;
    snprintf(path, sizeof path, "%s/out.npy", dir);
    cr_assert_eq(mha_npy_read(path, &with_float, message, sizeof message), MHA_OK, "%s", message);
    /* <<run the same case with the boolean mask into [[with_bool]]>> */
    char header[] = "{'descr': '|b1', 'fortran_order': False, 'shape': (3, 3), }\n";
    write_npy_raw(dir, "attn_mask.npy", 1, header, masked_bytes, 9);
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
/* <<[[test_hardening.c]] tests>> */
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
/* <<[[test_hardening.c]] tests>> */
Test(reentrancy, two_threads_match_one_after_the_other) {
    cr_expect_eq(reentrancy_check(stderr), 0);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, printable_characters) {
    static const struct { const char *text; size_t length; } cases[] = {
        {"a", 1}, {"~", 1}, {" ", 1}, {"\xc3\xa9", 2}, {"\xc2\xa0", 2}, {"\xe2\x80\x99", 3},
        {"\xf0\x9f\x98\x80", 4}, {"", 0}, {"\x1b", 0}, {"\x7f", 0}, {"\n", 0}, {"\x9b", 0},
        {"\xc2\x9b", 0}, {"\xc2\x80", 0}, {"\xc3", 0}, {"\xe2\x80", 0}, {"\xc0\xaf", 0},
        {"\xe0\x80\xaf", 0}, {"\xed\xa0\x80", 0}, {"\xf4\x90\x80\x80", 0}, {"\xff", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        cr_expect_eq(mha_printable_char(cases[c].text), cases[c].length, "case %zu", c);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, a_missing_value_swallows_nothing) {
    struct cli_result r = run_command((char *[]){"mha", "train", "--history", "--steps", "1",
                                                 NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--history: missing value: got '--steps'");
    free_result(&r);
    r = run_command((char *[]){"mha", "forward", "d", "--impl=--causal", "--heads", "2", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--impl: missing value: got '--causal'");
    free_result(&r);
    r = run_command((char *[]){"mha", "demo", "--heads", "1", "--text", "-", NULL});
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    free_result(&r);
}
Test(options, are_given_once_and_in_full) {
    char *dir = make_temp_dir();
    float values[48];
    write_clean_case(dir, values);
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "2",
                                                 "--heads=1", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--heads: given more than once");
    free_result(&r);
    r = run_command((char *[]){"mha", "bench", "--backward", "--backward", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--backward: given more than once");
    free_result(&r);
    r = run_command((char *[]){"mha", "forward", dir, "--head", "2", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "unknown option '--head'");
    free_result(&r);
    cr_expect_eq(access(path_in(dir, "out.npy"), F_OK), -1, "a refused command wrote out.npy");
    remove_dir(dir);
}
Test(options, implementations_are_taken_as_given, .timeout = 60) {
    struct cli_result r = run_command((char *[]){"mha", "bench", "--backward", "--impl",
                                                 "batched", "--seq", "4", "--dim", "4",
                                                 "--heads", "2", "--reps", "1", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--impl: no backward pass named 'batched'");
    cr_expect_str_empty(r.out);
    free_result(&r);
    r = run_command((char *[]){"mha", "decode", "--help", NULL});
    for (size_t k = 0; k < mha_decode_impl_count; k++)
        cr_expect(strstr(r.out, mha_decode_impls[k].name) != NULL, "'%s' not in: %s",
                  mha_decode_impls[k].name, r.out);
    free_result(&r);
}
Test(options, refusals_name_the_option) {
    static const char *const cases[][3] = {
        {"--impl", "nope", "--impl: unknown decode implementation 'nope' (known: naive"},
        {"--kv-heads", "x", "--kv-heads: 'x'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct cli_result r = run_command((char *[]){"mha", "decode", "d", "--heads", "2",
                                                     (char *)cases[c][0], (char *)cases[c][1],
                                                     NULL});
        expect_one_line(&r, MHA_EXIT_USAGE, cases[c][2]);
        cr_expect_str_empty(r.out, "a refused option printed: %s", r.out);
        free_result(&r);
    }
    struct cli_result r = run_command((char *[]){"mha", "bench", "--reps", "1000000000000",
                                                 NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--reps: 1000000000000 is more than");
    free_result(&r);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, decode_refuses_an_attention_mask) {
    char *dir = make_temp_dir();
    float values[48];
    write_clean_case(dir, values);
    write_floats(dir, "attn_mask.npy", values, 2, (size_t[]){3, 3});
    struct cli_result r = run_command((char *[]){"mha", "decode", dir, "--heads", "2", NULL});
    expect_one_line(&r, MHA_EXIT_FAILURE, "attn_mask.npy: decoding applies the causal mask");
    free_result(&r);
    cr_expect_eq(access(path_in(dir, "out.npy"), F_OK), -1, "decode wrote out.npy");
    remove_dir(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, a_long_path_keeps_its_reason) {
    char dir[3100] = "/";
    memset(dir + 1, 'a', 3000);
    dir[3001] = '\0';
    struct cli_result r = run_command((char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    char reason[200];
    snprintf(reason, sizeof reason, "%s: %s\n", dir + 2990, strerror(ENAMETOOLONG));
    expect_one_line(&r, MHA_EXIT_FAILURE, reason);
    free_result(&r);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, names_and_tables_too_long_are_refused) {
    static char dir[4001];
    memset(dir, 'a', 4000);
    dir[0] = '/';
    char message[256] = "";
    mha_induction_model m;
    cr_expect_eq(induction_checkpoint_read(dir, 2, &m, message, sizeof message),
                 MHA_ERR_ARG);
    cr_expect_str_eq(message, "directory name too long (4000 bytes)");
    cr_expect_null(m.params, "nothing is left allocated");
    static mha_option options[MHA_OPTIONS_MAX + 1];
    for (size_t i = 0; i <= MHA_OPTIONS_MAX; i++)
        options[i] = (mha_option){.name = "--flag", .kind = MHA_OPTION_FLAG};
    char *argv[] = {"mha", NULL};
    mha_command_line line = {.program = "mha many", .prefix = ""};
    cr_expect_eq(mha_options_parse(1, argv, options, MHA_OPTIONS_MAX + 1, &line, message,
                                   sizeof message), MHA_ERR_ARG);
    char want[64];
    snprintf(want, sizeof want, "mha many: more than %d options", MHA_OPTIONS_MAX);
    cr_expect_str_eq(message, want);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, messages_escape_controls) {
    struct cli_result r = run_command((char *[]){"mha", "x\x1b[31m\x9b\xc2\x9b\xc3\xa9\n", NULL});
    cr_expect_str_eq(r.err, "mha: unknown command 'x\\x1b[31m\\x9b\\xc2\\x9b\xc3\xa9\\x0a' "
                            "(try 'mha --help')\n");
    free_result(&r);
}
Test(options, demo_prints_no_control_characters) {
    struct cli_result r = run_command((char *[]){"mha", "demo", "--text", "a \x9b[31m", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE, "--text: control character 0x9b at position 2");
    cr_expect_str_empty(r.out);
    free_result(&r);
    r = run_command((char *[]){"mha", "demo", "--color", "--heads", "1", "--text",
                               "caf\xc3\xa9 \xc4\x81", NULL});
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    for (const char *p = r.out; *p != '\0'; p++)
        if ((unsigned char)*p == 0x81 || (unsigned char)*p == 0xa9)
            cr_expect(p > r.out && ((unsigned char)p[-1] == 0xc4 || (unsigned char)p[-1] == 0xc3),
                      "a lone continuation byte 0x%02x at %td", (unsigned char)*p, p - r.out);
    free_result(&r);
}
/* <<[[test_hardening.c]] tests>> */
Test(options, environment_is_checked_by_name, .timeout = 60) {
    static const struct { const char *environment, *arguments, *err; int status; } cases[] = {
        {"OMP_NUM_THREADS=abc", "bench --seq 3 --dim 4 --heads 2 --reps 1",
         "mha: OMP_NUM_THREADS: 'abc' is not a positive integer\n", MHA_EXIT_USAGE},
        {"OMP_NUM_THREADS=4,2", "demo", "mha: OMP_NUM_THREADS: '4,2' is not", MHA_EXIT_USAGE},
        {"OMP_NUM_THREADS=100000", "help", "", MHA_EXIT_OK},
        {"OMP_NUM_THREADS=100000", "bench --help", "", MHA_EXIT_OK},
        {"OMP_NUM_THREADS=100000", "bench --seq 3 --dim 4 --heads 2 --reps 1 --threads 1", "",
         MHA_EXIT_OK},
        {"OMP_NUM_THREADS=abc", "bench --seq 3 --dim 4 --heads 2 --reps 1 --threads=1", "",
         MHA_EXIT_OK},
        {"OMP_NUM_THREADS=1", "bench --seq 3 --dim 4 --heads 2 --reps 1", "", MHA_EXIT_OK},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *err;
        const int status = run_with(cases[c].environment, cases[c].arguments, &err);
        cr_expect_eq(status, cases[c].status, "%s mha %s: status %d: %s", cases[c].environment,
                     cases[c].arguments, status, err);
        cr_expect(cases[c].err[0] == '\0' ? err[0] == '\0'
                                          : strncmp(err, cases[c].err, strlen(cases[c].err)) == 0,
                  "%s mha %s: stderr '%s', want '%s'", cases[c].environment, cases[c].arguments,
                  err, cases[c].err);
        free(err);
    }
    cr_assert_eq(setenv("MHA_ISA", "avx", 1), 0);
    struct cli_result r = run_command((char *[]){"mha", "demo", NULL});
    expect_one_line(&r, MHA_EXIT_USAGE,
                    "MHA_ISA: unknown instruction set 'avx' (known: scalar, avx2, avx512)");
    cr_expect_str_empty(r.out);
    free_result(&r);
    r = run_command((char *[]){"mha", "help", NULL});
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    free_result(&r);
    unsetenv("MHA_ISA");
}
/* <<[[test_hardening.c]] tests>> */
Test(fuzz_replay, npy)     { replay("npy", fuzz_npy_one, 5); }
Test(fuzz_replay, cli, .timeout = 600) { replay("cli", fuzz_cli_one, 5); }
Test(fuzz_replay, forward) { replay("forward", fuzz_forward_one, 5); }
/* <<[[test_hardening.c]] tests>> */
Test(contract, overflow_forward) {
    const mha_shape shape = {2, 3, 3, 8, 2};
    mha_case c = case_random(shape, 21, CASE_SELF);
    float out[2 * 3 * 8], weights[2 * 2 * 3 * 3];
    for (size_t k = 0; k < mha_impl_count; k++)
        cr_expect_eq(mha_impls[k].forward(&shape, &c.params, c.query, NULL, NULL, NULL,
                                          out, weights), MHA_OK, "%s", mha_impls[k].name);
    flood_query(&c);
    const mha_mask causal = {.causal = 1};
    for (size_t k = 0; k < mha_impl_count; k++) {
        cr_expect_eq(mha_impls[k].forward(&shape, &c.params, c.query, NULL, NULL, NULL,
                                          out, weights), MHA_ERR_RANGE, "%s", mha_impls[k].name);
        cr_expect_eq(mha_impls[k].forward(&shape, &c.params, c.query, NULL, NULL, &causal,
                                          out, NULL), MHA_ERR_RANGE, "%s", mha_impls[k].name);
    }
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, overflow_backward) {
    const mha_shape shape = {2, 3, 3, 8, 2};
    mha_case c = case_random(shape, 22, CASE_SELF);
    float out[2 * 3 * 8], gy[2 * 3 * 8], gx[2 * 3 * 8], gw[3 * 8 * 8], gwo[8 * 8];
    for (size_t i = 0; i < 2 * 3 * 8; i++)
        gy[i] = 0.25f;
    const mha_grads grads = {gx, NULL, NULL, gw, NULL, gwo, NULL};
    flood_query(&c);
    for (size_t k = 0; k < mha_backward_impl_count; k++)
        cr_expect_eq(mha_backward_impls[k].backward(&shape, &c.params, c.query, NULL, NULL, NULL,
                                                    gy, &grads),
                     MHA_ERR_RANGE, "%s", mha_backward_impls[k].name);
    mha_saved saved;
    cr_expect_eq(mha_forward_saving(&shape, &c.params, c.query, NULL, NULL, NULL, out, &saved),
                 MHA_ERR_RANGE);
    mha_saved_free(&saved);
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
static void expect_rule(const mha_case *c, const mha_mask *mask, const float *gy,
                        mha_status want, const char *what)
{
    const mha_shape *shape = &c->shape;
    float out[2 * 3 * 8], gq[2 * 3 * 8], gk[2 * 3 * 8], gv[2 * 3 * 8], gw[3 * 8 * 8];
    float gb[3 * 8], gwo[8 * 8], gbo[8];
    const mha_grads grads = {gq, gk, gv, gw, gb, gwo, gbo};
    for (size_t k = 0; k < mha_impl_count; k++)
        cr_expect_eq(mha_impls[k].forward(shape, &c->params, c->query, c->key, c->value, mask,
                                          out, NULL), want, "%s: %s", mha_impls[k].name, what);
    for (size_t k = 0; k < mha_backward_impl_count; k++)
        cr_expect_eq(mha_backward_impls[k].backward(shape, &c->params, c->query, c->key,
                                                    c->value, mask, gy, &grads),
                     want, "%s backward: %s", mha_backward_impls[k].name, what);
}

static void expect_backward(const mha_case *c, const float *gy, mha_status want,
                            const char *what)
{
    float gq[2 * 3 * 8], gk[2 * 3 * 8], gv[2 * 3 * 8], gw[3 * 8 * 8], gb[3 * 8];
    float gwo[8 * 8], gbo[8];
    const mha_grads grads = {gq, gk, gv, gw, gb, gwo, gbo};
    for (size_t k = 0; k < mha_backward_impl_count; k++)
        cr_expect_eq(mha_backward_impls[k].backward(&c->shape, &c->params, c->query, c->key,
                                                    c->value, NULL, gy, &grads),
                     want, "%s backward: %s", mha_backward_impls[k].name, what);
}

Test(contract, every_input_is_measured_for_finiteness) {
    const mha_shape shape = {2, 3, 3, 8, 2};
    mha_case c = case_random(shape, 24, CASE_CROSS);
    float gy[2 * 3 * 8], mask_values[3 * 3] = {0};
    for (size_t i = 0; i < 2 * 3 * 8; i++)
        gy[i] = 0.25f;
    const mha_mask mask = {.attn_mask_float = mask_values};
    flood_query(&c);
    expect_rule(&c, &mask, gy, MHA_ERR_RANGE, "flooded");
    struct { const char *name; float *x; } inputs[] = {
        {"query", c.query}, {"key", c.key}, {"value", c.value}, {"in_proj_weight", c.in_w},
        {"in_proj_bias", c.in_b}, {"out_proj_weight", c.out_w}, {"out_proj_bias", c.out_b},
        {"attn_mask", mask_values},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        const float saved = inputs[i].x[5];
        inputs[i].x[5] = INFINITY;
        expect_rule(&c, &mask, gy, MHA_OK, inputs[i].name);
        inputs[i].x[5] = saved;
    }
    mask_values[5] = -INFINITY;
    expect_rule(&c, &mask, gy, MHA_ERR_RANGE, "-inf in the mask");
    case_free(&c);
    c = case_random(shape, 24, CASE_CROSS);
    for (size_t i = 0; i < 2 * 3 * 8; i++)
        gy[i] = 3e38f;
    expect_backward(&c, gy, MHA_ERR_RANGE, "huge grad_out");
    gy[5] = INFINITY;
    expect_backward(&c, gy, MHA_OK, "infinite grad_out");
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, overflow_decode) {
    const mha_shape shape = {2, 2, 2, 8, 2};
    mha_case c = case_random(shape, 23, CASE_SELF);
    const mha_decoder dec = {8, 2, 2, c.params, 0, 0.0f};
    float out[2 * 2 * 8], weights[2 * 2 * 2 * 4];
    flood_query(&c);
    for (size_t k = 0; k < mha_decode_impl_count; k++) {
        mha_kv_cache cache;
        cr_assert_eq(mha_kv_cache_init(&cache, 2, 2, 4, 4), MHA_OK);
        cr_expect_eq(mha_decode_impls[k].step(&dec, &cache, 2, c.query, NULL, out, weights),
                     MHA_ERR_RANGE, "%s", mha_decode_impls[k].name);
        cr_expect(cache.length[0] == 0 && cache.length[1] == 0, "%s: the cache changed",
                  mha_decode_impls[k].name);
        cr_expect_eq(mha_decode_impls[k].step(&dec, &cache, 1, c.query, NULL, out, weights),
                     MHA_OK, "%s: the clean row after a refusal", mha_decode_impls[k].name);
        mha_kv_cache_free(&cache);
    }
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, held_positions_are_inputs) {
    const mha_shape shape = {1, 1, 1, 8, 2};
    mha_case c = case_random(shape, 25, CASE_SELF);
    const mha_decoder dec = {8, 2, 2, c.params, 0, 0.0f};
    float huge[8], nan_row[8], out[8];
    for (size_t i = 0; i < 8; i++)
        huge[i] = 3e37f, nan_row[i] = i == 3 ? NAN : 0.5f;
    for (size_t k = 0; k < mha_decode_impl_count; k++) {
        mha_kv_cache cache;
        cr_assert_eq(mha_kv_cache_init(&cache, 1, 2, 4, 4), MHA_OK);
        cr_assert_eq(mha_kv_cache_append(&cache, 0, 1, huge, c.query, 8, NULL), MHA_OK);
        cr_expect_eq(mha_decode_impls[k].step(&dec, &cache, 1, c.query, NULL, out, NULL),
                     MHA_ERR_RANGE, "%s: huge held keys", mha_decode_impls[k].name);
        cr_expect_eq(cache.length[0], 1, "%s: the cache changed", mha_decode_impls[k].name);
        mha_kv_cache_reset(&cache);
        cr_assert_eq(mha_kv_cache_append(&cache, 0, 1, c.query, nan_row, 8, NULL), MHA_OK);
        cr_expect_eq(mha_decode_impls[k].step(&dec, &cache, 1, c.query, NULL, out, NULL),
                     MHA_OK, "%s: a NaN held value", mha_decode_impls[k].name);
        int any_nan = 0;
        for (size_t i = 0; i < 8; i++)
            any_nan |= isnan(out[i]);
        cr_expect(any_nan, "%s: the held NaN did not reach the output", mha_decode_impls[k].name);
        mha_kv_cache_free(&cache);
    }
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, versions_agree_near_the_bound) {
    const mha_shape shape = {2, 3, 3, 8, 2};
    mha_case c = case_random(shape, 24, CASE_SELF);
    const mha_decoder dec = {8, 2, 2, c.params, 0, 0.0f};
    float clean[2 * 3 * 8], gy[2 * 3 * 8], gx[2 * 3 * 8], gw[3 * 8 * 8], gwo[8 * 8];
    float prompt[2 * 2 * 8], row[2 * 8], out[2 * 3 * 8];
    const mha_mask causal = {.causal = 1};
    memcpy(clean, c.query, sizeof clean);
    for (size_t b = 0; b < 2; b++)                     /* positions 0, 1 of each sequence */
        memcpy(prompt + b * 2 * 8, clean + b * 3 * 8, 2 * 8 * sizeof *prompt);
    for (size_t i = 0; i < 2 * 3 * 8; i++)
        gy[i] = 0.25f;
    const mha_grads grads = {gx, NULL, NULL, gw, NULL, gwo, NULL};
    int seen[2][2] = {{0, 0}, {0, 0}};                 /* [backward, decode][refused] */
    for (int tenth = 80; tenth <= 220; tenth++) {
        const float scale = (float)pow(10.0, tenth / 10.0);
        for (size_t i = 0; i < 3 * 8; i++)
            c.query[3 * 8 + i] = clean[3 * 8 + i] * scale;
        memcpy(row, clean + 2 * 8, 8 * sizeof *row);   /* position 2: sequence 1's scaled */
        memcpy(row + 8, c.query + 3 * 8 + 2 * 8, 8 * sizeof *row);
        mha_status first = MHA_OK;
        for (size_t k = 0; k < mha_backward_impl_count; k++) {
            const mha_status st = mha_backward_impls[k].backward(&shape, &c.params, c.query,
                                                                 NULL, NULL, NULL, gy, &grads);
            expect_same_answer("backward", mha_backward_impls[k].name, k, tenth, st, &first, gx,
                               2 * 3 * 8);
        }
        seen[0][first == MHA_ERR_RANGE] = 1;
        const mha_status forward = mha_impls[0].forward(&shape, &c.params, c.query, NULL, NULL,
                                                        &causal, out, NULL);
        first = MHA_OK;
        for (size_t k = 0; k < mha_decode_impl_count; k++) {
            mha_kv_cache cache;
            cr_assert_eq(mha_kv_cache_init(&cache, 2, 2, 4, 4), MHA_OK);
            mha_status st = mha_decode_impls[k].step(&dec, &cache, 2, prompt, NULL, out, NULL);
            cr_assert_eq(st, MHA_OK, "%s", mha_decode_impls[k].name);
            st = mha_decode_impls[k].step(&dec, &cache, 1, row, NULL, out, NULL);
            expect_same_answer("decode", mha_decode_impls[k].name, k, tenth, st, &first, out,
                               2 * 8);
            mha_kv_cache_free(&cache);
            cr_assert_eq(mha_kv_cache_init(&cache, 2, 2, 4, 4), MHA_OK);
            cr_expect_eq(mha_decode_impls[k].step(&dec, &cache, 3, c.query, NULL, out, NULL),
                         forward, "prefill %s at 1e%.1f", mha_decode_impls[k].name,
                         tenth / 10.0);
            mha_kv_cache_free(&cache);
        }
        seen[1][first == MHA_ERR_RANGE] = 1;
    }
    cr_expect(seen[0][0] && seen[0][1], "backward: accepted %d, refused %d", seen[0][0],
              seen[0][1]);
    cr_expect(seen[1][0] && seen[1][1], "decode: accepted %d, refused %d", seen[1][0],
              seen[1][1]);
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, overflow_command) {
    char *dir = make_temp_dir(), path[4200];
    float values[48], flood[12];
    write_clean_case(dir, values);
    write_floats(dir, "grad_out.npy", values, 3, (size_t[]){1, 3, 4});
    for (size_t i = 0; i < 12; i++)
        flood[i] = 3e38f;
    write_floats(dir, "query.npy", flood, 3, (size_t[]){1, 3, 4});
    const char *runs[][2] = {{"forward", "naive"}, {"forward", "batched"},
                             {"forward", "blocked"}, {"decode", "naive"},
                             {"decode", "blocked"}, {"backward", "naive"},
                             {"backward", "blocked"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *argv[] = {"mha", (char *)runs[i][0], dir, "--heads", "2", "--impl",
                        (char *)runs[i][1], NULL};
        struct cli_result r = run_command(argv);
        expect_one_line(&r, MHA_EXIT_FAILURE, "values overflow float");
        free_result(&r);
        snprintf(path, sizeof path, "%s/out.npy", dir);
        cr_expect(access(path, F_OK) != 0, "%s %s left %s", runs[i][0], runs[i][1], path);
    }
    remove_dir(dir);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, products_check_their_arguments) {
    typedef mha_status product_fn(size_t, size_t, size_t, const float *, size_t,
                                  const float *, size_t, float *, size_t);
    product_fn *const products[3] = {mha_product_nt, mha_product_nn, mha_product_tn};
    const float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
    float c[4];
    const size_t huge = SIZE_MAX / 2;
    for (int p = 0; p < 3; p++) {
        cr_expect_eq(products[p](2, 2, 2, NULL, 2, b, 2, c, 2), MHA_ERR_NULL, "product %d", p);
        cr_expect_eq(products[p](2, 2, 2, a, 2, NULL, 2, c, 2), MHA_ERR_NULL, "product %d", p);
        cr_expect_eq(products[p](2, 2, 2, a, 2, b, 2, NULL, 2), MHA_ERR_NULL, "product %d", p);
        cr_expect_eq(products[p](0, 2, 2, a, 2, b, 2, c, 2), MHA_ERR_SHAPE, "product %d", p);
        cr_expect_eq(products[p](2, 2, 0, a, 2, b, 2, c, 2), MHA_ERR_SHAPE, "product %d", p);
        cr_expect_eq(products[p](2, 2, 2, a, 1, b, 2, c, 2), MHA_ERR_SHAPE, "product %d", p);
        cr_expect_eq(products[p](huge, 2, huge, a, huge, b, huge, c, 2), MHA_ERR_OVERFLOW,
                     "product %d", p);
        cr_expect_eq(products[p](2, huge, 2, a, 2, b, huge, c, huge), MHA_ERR_OVERFLOW,
                     "product %d", p);
        cr_assert_eq(products[p](2, 2, 2, a, 2, b, 2, c, 2), MHA_OK, "product %d", p);
        cr_expect(memcmp(c, a, sizeof c) == 0 ||                   /* a times the identity */
                  (p == 2 && c[0] == 1 && c[1] == 3 && c[2] == 2 && c[3] == 4),
                  "product %d: %g %g %g %g", p, c[0], c[1], c[2], c[3]);
    }
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, decode_check_bounds_every_product) {
    float one[4] = {0}, out[4];
    const size_t wide = (size_t)1 << 32;
    const mha_decoder dec = {wide, wide, 1, {one, NULL, one, NULL}, 0, 0.0f};
    mha_kv_cache cache;
    cr_assert_eq(mha_kv_cache_init(&cache, 1, 1, 4, 1), MHA_OK);
    cr_expect_eq(mha_decode_check(&dec, &cache, 1, one, out), MHA_ERR_OVERFLOW);
    for (size_t k = 0; k < mha_decode_impl_count; k++)
        cr_expect_eq(mha_decode_impls[k].step(&dec, &cache, 1, one, NULL, out, NULL),
                     MHA_ERR_OVERFLOW, "%s", mha_decode_impls[k].name);
    mha_kv_cache_free(&cache);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, null_arguments_are_refused) {
    const mha_shape shape = {1, 2, 2, 4, 2};
    mha_case c = case_random(shape, 24, CASE_SELF);
    float out[8], bias[4];
    cr_expect_eq(mha_forward_saving(&shape, &c.params, c.query, NULL, NULL, NULL, out, NULL),
                 MHA_ERR_NULL);
    mha_saved_free(NULL);
    const mha_mask causal = {.causal = 1};
    cr_expect_eq(mha_mask_bias(&causal, NULL, 0, bias), -1);
    cr_expect_eq(mha_mask_bias(&causal, &shape, 0, NULL), -1);
    cr_expect_eq(mha_mask_bias(&causal, &shape, 1, bias), -1);
    cr_expect_eq(mha_mask_bias(&causal, &shape, 0, bias), 1);
    mha_kv_cache_reset(NULL);
    mha_kv_cache empty = {0};
    mha_kv_cache_reset(&empty);
    mha_kv_cache_free(NULL);
    char *dir = make_temp_dir(), message[256];
    mha_npy array;
    cr_expect_eq(mha_npy_read(NULL, &array, message, sizeof message), MHA_ERR_NULL);
    cr_expect_eq(mha_npy_read(path_in(dir, "x.npy"), NULL, message, sizeof message),
                 MHA_ERR_NULL);
    cr_expect_eq(mha_npy_write(NULL, out, 1, (size_t[]){8}, message, sizeof message),
                 MHA_ERR_NULL);
    cr_expect_eq(mha_npy_write(path_in(dir, "x.npy"), NULL, 1, (size_t[]){8}, message,
                               sizeof message), MHA_ERR_NULL);
    cr_expect_eq(mha_npy_write(path_in(dir, "x.npy"), out, 1, NULL, message, sizeof message),
                 MHA_ERR_NULL);
    cr_expect(access(path_in(dir, "x.npy"), F_OK) != 0, "a refused write left a file");
    remove_dir(dir);
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, absurd_thread_counts_are_refused) {
    const size_t before = mha_threads();
    const mha_shape shape = {2, 64, 64, 16, 2};
    mha_case c = case_random(shape, 25, CASE_SELF);
    float *out = malloc(2 * 64 * 16 * sizeof *out);
    cr_assert_not_null(out);
    cr_expect_eq(mha_set_threads(100000), MHA_ERR_ARG);
    cr_expect_eq(mha_forward_blocked(&shape, &c.params, c.query, NULL, NULL, NULL, out, NULL),
                 MHA_OK);
    cr_expect_eq(mha_threads(), before);
    cr_expect_eq(mha_set_threads(mha_threads_max() + 1), MHA_ERR_ARG);
    cr_expect_eq(mha_set_threads(2), MHA_OK);
    cr_expect_eq(mha_threads(), 2);
    cr_expect_eq(mha_set_threads(0), MHA_OK);
    free(out);
    case_free(&c);
}
/* <<[[test_hardening.c]] tests>> */
Test(contract, a_failed_training_step_changes_nothing) {
    const size_t batches[2] = {2, 2 * MHA_LEARNING_SLICE};     /* one slice, then two */
    for (int t = 0; t < 2; t++) {
        mha_induction_model model;
        mha_learning_workspace ws;
        mha_induction_batch batch;
        cr_assert_eq(mha_induction_model_init(&model, 8, 8, 8, 2, 2, 5), MHA_OK);
        cr_assert_eq(mha_learning_workspace_init(&ws, &model, batches[t]), MHA_OK);
        cr_assert_eq(mha_induction_batch_init(&batch, batches[t], 8), MHA_OK);
        uint64_t state = 6;
        mha_induction_batch_fill(&batch, 8, &state);
        const mha_model_tensors tensors = mha_induction_model_tensors(&model);
        for (size_t i = 0; i < 8 * 8; i++)
            tensors.tok_emb[i] = 3e38f;
        float *kept = malloc(3 * model.count * sizeof *kept);
        cr_assert_not_null(kept);
        memcpy(kept, model.params, model.count * sizeof *kept);
        memcpy(kept + model.count, model.m, model.count * sizeof *kept);
        memcpy(kept + 2 * model.count, model.v, model.count * sizeof *kept);
        const mha_train_options o = {1e-2, 0.01, 0.9, 0.98, 1e-8, 10};
        mha_train_stats stats;
        cr_expect_eq(mha_induction_train_step(&model, &ws, &batch, &o, &stats), MHA_ERR_RANGE,
                     "batch of %zu", batches[t]);
        cr_expect_eq(model.steps_taken, 0);
        cr_expect(memcmp(kept, model.params, model.count * sizeof *kept) == 0 &&
                  memcmp(kept + model.count, model.m, model.count * sizeof *kept) == 0 &&
                  memcmp(kept + 2 * model.count, model.v, model.count * sizeof *kept) == 0,
                  "batch of %zu: the failed step changed the model", batches[t]);
        free(kept);
        mha_induction_batch_free(&batch);
        mha_learning_workspace_free(&ws);
        mha_induction_model_free(&model);
    }
}
