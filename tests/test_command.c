/* generated from chapters/45-tests-command.nw; edit the book, not this file */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "cli.h"
#include "layer_files.h"
#include "npy.h"
#include "run.h"
#include "scratch.h"

/* <<[[test_command.c]] helpers>> */
static void expect_one_error_line(const struct cli_result *r, const char *culprit)
{
    const char *nl = strchr(r->err, '\n');
    cr_expect_neq(r->status, 0, "exit status 0 for a bad input; stderr: %s", r->err);
    cr_expect(strncmp(r->err, "mha: ", 5) == 0, "stderr does not start with 'mha: ': '%s'",
              r->err);
    cr_expect(nl != NULL && nl[1] == '\0', "stderr is not exactly one line: '%s'", r->err);
    cr_expect(strstr(r->err, culprit) != NULL, "stderr does not name '%s': '%s'",
              culprit, r->err);
}
/* <<[[test_command.c]] helpers>> */
static int no_dots(const struct dirent *e)
{
    return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

static char *dir_state(const char *dir)
{
    struct dirent **entries;
    int n = scandir(dir, &entries, no_dots, alphasort);
    cr_assert(n >= 0);
    char *state = calloc((size_t)n + 1, 128);
    cr_assert_not_null(state);
    for (int i = 0; i < n; i++) {
        size_t size;
        char *bytes = slurp(path_in(dir, entries[i]->d_name), &size);
        uint64_t hash = 14695981039346656037ull;            /* FNV-1a */
        for (size_t k = 0; k < size; k++)
            hash = (hash ^ (unsigned char)bytes[k]) * 1099511628211ull;
        snprintf(state + strlen(state), 128, "%.60s %zu %016llx\n", entries[i]->d_name, size,
                 (unsigned long long)hash);
        free(bytes);
        free(entries[i]);
    }
    free(entries);
    return state;
}
/* <<[[test_command.c]] helpers>> */
static void expect_refused(const char *dir, const char *culprit, int argc, char **argv)
{
    char *before = dir_state(dir);
    struct cli_result r = run_argv(argc, argv);
    expect_one_error_line(&r, culprit);
    char *after = dir_state(dir);
    cr_expect_str_eq(after, before, "the directory changed");
    free(before);
    free(after);
    free_result(&r);
}

#define REFUSED(dir, culprit, ...)                                              \
    do {                                                                         \
        char *argv_[] = {"mha", __VA_ARGS__, NULL};                              \
        expect_refused(dir, culprit, (int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_); \
    } while (0)
/* <<[[test_command.c]] helpers>> */
static char *make_good_case(void)
{
    char *dir = make_temp_dir();
    write_random(dir, "query.npy", 1, 3, (const size_t[]){1, 3, 4});
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){12, 4});
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){4, 4});
    return dir;
}
/* <<[[test_command.c]] helpers>> */
static double *load_expected(const char *path, mha_npy *array)
{
    char message[256];
    cr_assert_eq(mha_npy_read(path, array, message, sizeof message), MHA_OK, "%s: %s",
                 path, message);
    double *want = malloc(array->count * sizeof *want);
    cr_assert_not_null(want);
    for (size_t i = 0; i < array->count; i++)
        want[i] = array->values[i];
    return want;
}

static void copy_file(const char *from, const char *to_dir, const char *name)
{
    size_t size;
    char *bytes = slurp(from, &size);
    write_bytes(to_dir, name, bytes, size);
    free(bytes);
}
/* <<[[test_command.c]] helpers>> */
static void compare_result(const char *what, const char *got_path, const char *want_path)
{
    mha_npy got, want_array;
    char message[256];
    double *want = load_expected(want_path, &want_array);
    cr_assert_eq(mha_npy_read(got_path, &got, message, sizeof message), MHA_OK,
                 "%s: %s: %s", what, got_path, message);
    cr_expect_eq(got.rank, want_array.rank, "%s: rank", what);
    cr_expect_arr_eq(got.shape, want_array.shape, want_array.rank * sizeof got.shape[0],
                     "%s: shape", what);
    if (got.count == want_array.count) {
        const double scale = fmax(1.0, max_abs_value(want, want_array.count));
        expect_close(what, got.values, want, got.count, 1e-5 * scale);
    }
    free(want);
    mha_npy_free(&got);
    mha_npy_free(&want_array);
}
/* <<[[test_command.c]] helpers>> */
static void run_golden(const char *name, const char *skip_input, const char *extra_option)
{
    char golden[256], expected[300], what[300];
    snprintf(golden, sizeof golden, "golden/%s", name);
    snprintf(expected, sizeof expected, "%s/expected_attn_weights.npy", golden);
    mha_npy weights;
    free(load_expected(expected, &weights));
    char heads[32];
    snprintf(heads, sizeof heads, "%zu", weights.shape[1]);
    mha_npy_free(&weights);
    for (size_t impl = 0; impl < mha_impl_count; impl++)
        for (int with_weights = 1; with_weights >= 0; with_weights--) {
            char *dir = make_temp_dir();
            /* <<copy the inputs of [[golden]] into [[dir]], all but [[skip_input]]>> */
            DIR *d = opendir(golden);
            cr_assert_not_null(d, "%s: %s", golden, strerror(errno));
            struct dirent *entry;
            while ((entry = readdir(d)) != NULL) {
                char from[600];
                if (entry->d_name[0] == '.' || strncmp(entry->d_name, "expected_", 9) == 0 ||
                    (skip_input != NULL && strcmp(entry->d_name, skip_input) == 0))
                    continue;
                snprintf(from, sizeof from, "%s/%s", golden, entry->d_name);
                copy_file(from, dir, entry->d_name);
            }
            closedir(d);
            /* <<run [[mha forward]] on [[dir]] and compare with the expected files>> */
            char *argv[10] = {"mha", "forward", dir, "--heads", heads, "--impl",
                              (char *)mha_impls[impl].name};
            int argc = 7;
            if (!with_weights)
                argv[argc++] = "--no-weights";
            if (extra_option != NULL)
                argv[argc++] = (char *)extra_option;
            struct cli_result r = run_argv(argc, argv);
            cr_expect_eq(r.status, 0, "%s, %s: %s", name, mha_impls[impl].name, r.err);
            snprintf(what, sizeof what, "%s/%s out", name, mha_impls[impl].name);
            snprintf(expected, sizeof expected, "%s/expected_out.npy", golden);
            compare_result(what, path_in(dir, "out.npy"), expected);
            if (with_weights) {
                snprintf(what, sizeof what, "%s/%s attn_weights", name, mha_impls[impl].name);
                snprintf(expected, sizeof expected, "%s/expected_attn_weights.npy", golden);
                compare_result(what, path_in(dir, "attn_weights.npy"), expected);
            } else
                cr_expect_eq(access(path_in(dir, "attn_weights.npy"), F_OK), -1);
            free_result(&r);
            remove_dir(dir);
        }
}
/* <<[[test_command.c]] helpers>> */
static double bench_value(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, " %s=", key);
    const char *at = strstr(line, pattern);
    cr_assert_not_null(at, "no %s in '%s'", key, line);
    char *end;
    const double value = strtod(at + strlen(pattern), &end);
    const int number = end != at + strlen(pattern) && (*end == ' ' || *end == '\n');
    cr_assert(number && isfinite(value), "%s is not a number in '%s'", key, line);
    return value;
}
/* <<[[test_command.c]] tests>> */
Test(command, forward_writes_out_and_weights) {
    char *dir = make_good_case(), message[256];
    struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(strstr(r.out, "out.npy (1, 3, 4)") != NULL, "%s", r.out);
    mha_npy out, weights;
    cr_assert_eq(mha_npy_read(path_in(dir, "out.npy"), &out, message, sizeof message), MHA_OK);
    cr_assert_eq(mha_npy_read(path_in(dir, "attn_weights.npy"), &weights, message,
                              sizeof message), MHA_OK);
    cr_expect(out.rank == 3 && out.shape[0] == 1 && out.shape[1] == 3 && out.shape[2] == 4);
    cr_expect(weights.rank == 4 && weights.shape[1] == 2 && weights.shape[3] == 3);
    for (size_t row = 0; row < 2 * 3; row++) {
        double sum = 0;
        for (size_t j = 0; j < 3; j++)
            sum += weights.values[row * 3 + j];
        cr_expect(fabs(sum - 1) < 1e-6, "row %zu sums to %g", row, sum);
    }
    char *state = dir_state(dir);
    cr_expect(strstr(state, ".tmp") == NULL, "a temporary file survived:\n%s", state);
    free(state);
    mha_npy_free(&out);
    mha_npy_free(&weights);
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(command, no_weights_and_option_forms) {
    char *dir = make_good_case();
    struct cli_result r = run_mha("forward", "--heads=4", "--impl=batched", "--no-weights",
                                  dir, NULL);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(access(path_in(dir, "out.npy"), F_OK), 0);
    cr_expect_eq(access(path_in(dir, "attn_weights.npy"), F_OK), -1);
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(command, every_command_reads_options_by_the_same_rules) {
    static const char *const commands[][2] = {
        {"forward", "--causal"}, {"decode", "--no-weights"}, {"backward", "--causal"},
        {"train", NULL}, {"demo", "--color"}, {"bench", "--peak"},
    };
    char *dir = make_good_case();
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        char *name = (char *)commands[c][0], flag[32];
        REFUSED(dir, "--heads: must be positive, got '0'", name, "--heads=0", dir);
        REFUSED(dir, "unknown option '--head'", name, "--head", "2", dir);
        REFUSED(dir, "unknown option '--head=2'", name, "--head=2", dir);
        REFUSED(dir, "--heads: given more than once", name, "--heads", "1", "--heads=1", dir);
        REFUSED(dir, "--heads: missing value: got '-1'", name, "--heads", "-1", dir);
        REFUSED(dir, "--heads: '1e3' is not a positive integer", name, "--heads=1e3", dir);
        REFUSED(dir, "--heads: missing value", name, "--heads");
        if (commands[c][1] == NULL)
            continue;
        snprintf(flag, sizeof flag, "%s=1", commands[c][1]);
        char want[64];
        snprintf(want, sizeof want, "%s: takes no value, got '%s'", commands[c][1], flag);
        REFUSED(dir, want, name, flag, dir);
    }
    struct cli_result r = run_mha("forward", "--heads", "2", "--", dir, NULL);
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    free_result(&r);
    r = run_mha("bench", "--seq", "3", "--help", NULL);
    cr_expect(r.status == MHA_EXIT_OK && strstr(r.out, "usage: mha bench") != NULL,
              "status %d, err: %s", r.status, r.err);
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(command, help_describes_everything) {
    static const char *const words[] = {
        "forward", "help", "query.npy", "key.npy", "value.npy", "in_proj_weight.npy",
        "in_proj_bias.npy", "out_proj_weight.npy", "out_proj_bias.npy", "attn_mask.npy",
        "key_padding_mask.npy", "out.npy", "attn_weights.npy", "--heads", "--impl",
        "--causal", "--no-weights", "naive", "batched", "(B, H, L, S)", "(3E, E)"};
    struct cli_result general = run_mha("--help", NULL), help = run_mha("help", NULL);
    struct cli_result forward = run_mha("forward", "--help", NULL);
    struct cli_result help_forward = run_mha("help", "forward", NULL);
    cr_expect(general.status == 0 && help.status == 0 && forward.status == 0 &&
              help_forward.status == 0);
    cr_expect_str_eq(general.out, help.out);
    cr_expect_str_eq(forward.out, help_forward.out);
    cr_expect_str_eq(general.err, "");
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        cr_expect(strstr(general.out, words[i]) || strstr(forward.out, words[i]),
                  "no help mentions '%s'", words[i]);
    free_result(&general);
    free_result(&help);
    free_result(&forward);
    free_result(&help_forward);
}
/* <<[[test_command.c]] tests>> */
Test(command, bad_command_lines) {
    char *dir = make_good_case();
    expect_refused(dir, "no command", 1, (char *[]){"mha", NULL});
    REFUSED(dir, "'frobnicate'", "frobnicate");
    REFUSED(dir, "'nosuch'", "help", "nosuch");
    REFUSED(dir, "'--frobnicate'", "forward", dir, "--heads", "2", "--frobnicate");
    REFUSED(dir, "no directory", "forward", "--heads", "2");
    REFUSED(dir, "only one directory", "forward", dir, dir, "--heads", "2");
    REFUSED(dir, "--heads: required", "forward", dir);
    REFUSED(dir, "--heads: missing value", "forward", dir, "--heads");
    REFUSED(dir, "--heads: 'two'", "forward", dir, "--heads", "two");
    REFUSED(dir, "--heads: '2x'", "forward", dir, "--heads", "2x");
    REFUSED(dir, "--heads: missing value: got '-2'", "forward", dir, "--heads", "-2");
    REFUSED(dir, "--heads: must be positive", "forward", dir, "--heads", "0");
    REFUSED(dir, "--heads: expected a positive integer", "forward", dir, "--heads", "");
    REFUSED(dir, "--heads: '99999999999999999999999' is too large", "forward", dir,
            "--heads", "99999999999999999999999");
    REFUSED(dir, "--heads: 3 does not divide", "forward", dir, "--heads", "3");
    REFUSED(dir, "--heads: 8 does not divide", "forward", dir, "--heads", "8");
    REFUSED(dir, "--impl: unknown implementation 'fast' (known: naive", "forward", dir,
            "--heads", "2", "--impl", "fast");
    remove_dir(dir);
}

Test(command, parse_size) {
    char m[256];
    size_t v = 0;
    cr_expect(mha_option_size("--n", "1", 1, SIZE_MAX, &v, m, sizeof m) == MHA_OK && v == 1);
    cr_expect(mha_option_size("--n", "007", 1, SIZE_MAX, &v, m, sizeof m) == MHA_OK && v == 7);
    cr_expect(mha_option_size("--n", "18446744073709551615", 1, SIZE_MAX, &v, m, sizeof m) ==
              MHA_OK && v == SIZE_MAX);
    cr_expect(mha_option_size("--n", "0", 0, 9, &v, m, sizeof m) == MHA_OK && v == 0);
    const char *bad[] = {"", "0", "-1", "+1", " 1", "1 ", "1e3", "0x10",
                         "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(mha_option_size("--n", bad[i], 1, SIZE_MAX, &v, m, sizeof m), MHA_ERR_ARG,
                     "'%s'", bad[i]);
    cr_expect_eq(mha_option_size("--n", "10", 1, 9, &v, m, sizeof m), MHA_ERR_ARG);
    cr_expect_str_eq(m, "--n: 10 is out of range (1 to 9)");
}
/* <<[[test_command.c]] tests>> */
Test(command, missing_and_broken_files) {
    char *dir = make_good_case(), absent[4200];
    snprintf(absent, sizeof absent, "%s/nowhere", dir);
    REFUSED(dir, absent, "forward", absent, "--heads", "2");
    REFUSED(dir, "not a directory", "forward", path_in(dir, "query.npy"), "--heads", "2");
    remove(path_in(dir, "in_proj_weight.npy"));
    REFUSED(dir, "in_proj_weight.npy: cannot open", "forward", dir, "--heads", "2");
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){12, 4});
    remove(path_in(dir, "out_proj_weight.npy"));
    REFUSED(dir, "out_proj_weight.npy: cannot open", "forward", dir, "--heads", "2");
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){4, 4});
    /* <<break [[query.npy]] in every way a file can be broken, and check each>> */
    unsigned char data[48] = {0};
    write_bytes(dir, "query.npy", "", 0);
    REFUSED(dir, "query.npy: empty file", "forward", dir, "--heads", "2");
    write_bytes(dir, "query.npy", "query = [[1, 2]]\n", 17);
    REFUSED(dir, "query.npy: not a .npy file", "forward", dir, "--heads", "2");
    write_npy_raw(dir, "query.npy", 1, HEADER("<f4", "False", "(1, 3, 4)"), data, 20);
    REFUSED(dir, "query.npy: truncated: header says 12 values", "forward", dir, "--heads", "2");
    write_npy_raw(dir, "query.npy", 1, HEADER("<f4", "False", "(1, 3, 5)"), data, 48);
    REFUSED(dir, "query.npy: truncated", "forward", dir, "--heads", "2");
    write_npy_raw(dir, "query.npy", 1, HEADER("<f4", "False", "(1, 2, 4)"), data, 48);
    REFUSED(dir, "query.npy: 16 bytes of unexpected data", "forward", dir, "--heads", "2");
    write_npy_raw(dir, "query.npy", 1, HEADER("<f4", "False", "(4294967296, 4294967296, 16)"),
                  data, 48);
    REFUSED(dir, "query.npy: shape (4294967296, 4294967296, 16) is too large", "forward", dir,
            "--heads", "2");
    write_npy_raw(dir, "query.npy", 1, HEADER("|b1", "False", "(1, 3, 4)"), data, 12);
    REFUSED(dir, "query.npy: holds booleans", "forward", dir, "--heads", "2");
    write_random(dir, "query.npy", 1, 2, (const size_t[]){3, 4});
    REFUSED(dir, "query.npy: shape (3, 4) has rank 2; it should be (B, L, E)", "forward", dir,
            "--heads", "2");
    write_random(dir, "query.npy", 1, 3, (const size_t[]){1, 0, 4});
    REFUSED(dir, "query.npy: shape (1, 0, 4) should be (B, L, E), with no empty axis", "forward",
            dir, "--heads", "2");
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(command, files_that_do_not_fit_together) {
    char *dir = make_good_case();
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){12, 5});
    REFUSED(dir, "in_proj_weight.npy: shape (12, 5) should be (3E, E) = (12, 4)",
            "forward", dir, "--heads", "2");
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){12, 4});
    write_random(dir, "out_proj_weight.npy", 3, 1, (const size_t[]){16});
    REFUSED(dir, "out_proj_weight.npy: shape (16,) has rank 1", "forward", dir, "--heads", "2");
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){4, 4});
    write_random(dir, "in_proj_bias.npy", 4, 1, (const size_t[]){4});
    REFUSED(dir, "in_proj_bias.npy: shape (4,) should be (3E,) = (12,)", "forward", dir,
            "--heads", "2");
    remove(path_in(dir, "in_proj_bias.npy"));
    write_random(dir, "out_proj_bias.npy", 4, 1, (const size_t[]){5});
    REFUSED(dir, "out_proj_bias.npy", "forward", dir, "--heads", "2");
    remove(path_in(dir, "out_proj_bias.npy"));
    /* <<check the rules for [[key.npy]] and [[value.npy]]>> */
    write_random(dir, "key.npy", 5, 3, (const size_t[]){1, 5, 4});
    REFUSED(dir, "value.npy: missing", "forward", dir, "--heads", "2");
    write_random(dir, "value.npy", 6, 3, (const size_t[]){1, 6, 4});
    REFUSED(dir, "value.npy: shape (1, 6, 4) should be (B, S, E) = (1, 5, 4)", "forward", dir,
            "--heads", "2");
    remove(path_in(dir, "key.npy"));
    REFUSED(dir, "key.npy: missing", "forward", dir, "--heads", "2");
    write_random(dir, "key.npy", 5, 3, (const size_t[]){2, 6, 4});
    REFUSED(dir, "key.npy: shape (2, 6, 4) should be (B, S, E) = (1, S, 4)", "forward", dir,
            "--heads", "2");
    remove(path_in(dir, "key.npy"));
    remove(path_in(dir, "value.npy"));
    /* <<check the rules for the two masks>> */
    unsigned char flags[16] = {0};
    write_npy_raw(dir, "attn_mask.npy", 1, HEADER("|b1", "False", "(3, 4)"), flags, 12);
    REFUSED(dir, "attn_mask.npy: shape (3, 4) should be (L, S) = (3, 3)", "forward", dir,
            "--heads", "2");
    write_random(dir, "attn_mask.npy", 7, 3, (const size_t[]){1, 3, 3});
    REFUSED(dir, "attn_mask.npy: shape (1, 3, 3) has rank 3", "forward", dir, "--heads", "2");
    remove(path_in(dir, "attn_mask.npy"));
    write_npy_raw(dir, "key_padding_mask.npy", 1, HEADER("|b1", "False", "(2, 3)"), flags, 6);
    REFUSED(dir, "key_padding_mask.npy: shape (2, 3) should be (B, S) = (1, 3)", "forward", dir,
            "--heads", "2");
    write_random(dir, "key_padding_mask.npy", 8, 2, (const size_t[]){1, 3});
    REFUSED(dir, "key_padding_mask.npy: holds floats", "forward", dir, "--heads", "2");
    remove(path_in(dir, "key_padding_mask.npy"));
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(command, failure_keeps_previous_results) {
    char *dir = make_good_case();
    struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){4, 5});
    REFUSED(dir, "out_proj_weight.npy", "forward", dir, "--heads", "2");
    REFUSED(dir, "--heads", "forward", dir, "--heads", "3");
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
static struct cli_result run_program(const char *out, char *const argv[])
{
    char *dir = make_temp_dir(), err_path[4200];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
    const char *program = getenv("MHA_BINARY") ? getenv("MHA_BINARY") : "../build/mha";
    fflush(NULL);
    const pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (freopen(err_path, "w", stderr) != NULL && freopen(out, "w", stdout) != NULL)
            execv(program, argv);
        _exit(127);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status), "the program was killed by signal %d",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    cr_expect_neq(WEXITSTATUS(status), 127, "could not run %s", program);
    size_t size;
    struct cli_result r = {WEXITSTATUS(status), NULL, slurp(err_path, &size)};
    remove_dir(dir);
    return r;
}

Test(program, exits_normally_on_bad_input) {
    char *dir = make_good_case();
    unsigned char data[8] = {0};
    write_npy_raw(dir, "query.npy", 1, HEADER("<f4", "False", "(1, 3, 4)"), data, 5);
    struct cli_result r = run_program("/dev/null",
                                      (char *[]){"mha", "forward", dir, "--heads", "2", NULL});
    cr_expect_eq(r.status, 1);
    expect_one_error_line(&r, "query.npy: truncated");
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
static int attention_case(const struct dirent *e)
{
    return no_dots(e) && strncmp(e->d_name, "block_", 6) != 0 &&
           strncmp(e->d_name, "lm_", 3) != 0;
}

static const char *const golden_cases[] = {
    "self_attention", "cross_attention", "no_bias", "odd_sizes", "causal_mask",
    "float_mask", "key_padding_mask", "combined_masks", "float64", "large_float_mask",
    "large_constant_mask",
};

Test(golden, every_case_is_tested) {
    struct dirent **entries;
    int n = scandir("golden", &entries, attention_case, alphasort);
    cr_assert(n >= 0, "golden/: %s", strerror(errno));
    cr_expect_eq((size_t)n, sizeof golden_cases / sizeof golden_cases[0]);
    for (int i = 0; i < n; i++) {
        int listed = 0;
        for (size_t k = 0; k < sizeof golden_cases / sizeof golden_cases[0]; k++)
            listed |= strcmp(entries[i]->d_name, golden_cases[k]) == 0;
        cr_expect(listed, "golden/%s is not in golden_cases", entries[i]->d_name);
        free(entries[i]);
    }
    free(entries);
}

Test(golden, self_attention)   { run_golden("self_attention", NULL, NULL); }
Test(golden, cross_attention)  { run_golden("cross_attention", NULL, NULL); }
Test(golden, no_bias)          { run_golden("no_bias", NULL, NULL); }
Test(golden, odd_sizes)        { run_golden("odd_sizes", NULL, NULL); }
Test(golden, causal_mask)      { run_golden("causal_mask", NULL, NULL); }
Test(golden, float_mask)       { run_golden("float_mask", NULL, NULL); }
Test(golden, key_padding_mask) { run_golden("key_padding_mask", NULL, NULL); }
Test(golden, combined_masks)   { run_golden("combined_masks", NULL, NULL); }
Test(golden, float64)          { run_golden("float64", NULL, NULL); }
Test(golden, large_float_mask) { run_golden("large_float_mask", NULL, NULL); }
Test(golden, large_constant_mask) { run_golden("large_constant_mask", NULL, NULL); }
/* <<[[test_command.c]] tests>> */
Test(golden, causal_flag_equals_causal_mask) {
    run_golden("causal_mask", "attn_mask.npy", "--causal");
}
/* <<[[test_command.c]] tests>> */
Test(command, a_path_too_long_for_the_loader_is_refused) {
    char dir[MHA_PATH_SIZE + 16], message[MHA_PATH_SIZE + 512];
    memset(dir, 'd', sizeof dir - 1);
    dir[sizeof dir - 1] = '\0';
    mha_layer_files files;
    memset(&files, 0, sizeof files);
    cr_expect_eq(mha_layer_read(dir, "query.npy", 1, MHA_WANT_FLOAT, &files.query,
                                message, sizeof message), MHA_ERR_ARG);
    cr_expect(strstr(message, "the path of query.npy is too long") != NULL, "%.80s", message);
    mha_layer_files_free(&files);
}
/* <<[[test_command.c]] tests>> */
Test(command, the_environment_chooses_the_instruction_set) {
    static const char *const variables[2][2] = {{"MHA_ISA", "scalar"},
                                                {"MHA_FORCE_SCALAR", "1"}};
    for (int v = 0; v < 2; v++) {
        cr_assert_eq(setenv(variables[v][0], variables[v][1], 1), 0);
        struct cli_result r = run_mha("bench", "--impl", "blocked", "--seq", "4", "--dim", "8",
                                      "--heads", "2", "--reps", "1", NULL);
        cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
        cr_expect(strstr(r.out, " isa=scalar ") != NULL, "%s=%s: %s", variables[v][0],
                  variables[v][1], r.out);
        free_result(&r);
        unsetenv(variables[v][0]);
    }
}
/* <<[[test_command.c]] tests>> */
Test(command, train_help_names_every_option) {
    static const char *const options[] = {
        "--steps", "--seed", "--layers", "--every", "--out", "--from", "--history",
        "--batch", "--vocab", "--length", "--dim", "--heads", "--lr", "--wait"};
    struct cli_result r = run_mha("train", "--help", NULL);
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(strncmp(r.out, "usage: mha train", 16) == 0, "%s", r.out);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        cr_expect(strstr(r.out, options[i]) != NULL, "the help lacks %s", options[i]);
    free_result(&r);
}
/* <<[[test_command.c]] tests>> */
Test(command, demo_and_decode_refuse_what_does_not_fit) {
    char *dir = make_good_case(), text[1100];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    REFUSED(dir, "--text: longer than", "demo", "--text", text);
    REFUSED(dir, "--heads 3", "decode", dir, "--heads", "3");
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(command, stray_words_bad_rates_and_no_threads) {
    char *dir = make_temp_dir();
    REFUSED(dir, "bench: unknown argument 'stray'", "bench", "stray");
    REFUSED(dir, "--lr: 'abc' is not a learning rate", "train", "--lr", "abc");
    REFUSED(dir, "--lr: '1e999' is not a learning rate", "train", "--lr", "1e999");
    cr_assert_eq(setenv("OMP_NUM_THREADS", "0", 1), 0);
    REFUSED(dir, "OMP_NUM_THREADS=0: not a positive integer", "bench", "--seq", "2",
            "--dim", "2", "--heads", "1", "--reps", "1");
    unsetenv("OMP_NUM_THREADS");
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(program, a_full_standard_output_is_an_error) {
    struct cli_result r = run_program("/dev/full", (char *[]){"mha", "help", NULL});
    cr_expect_eq(r.status, 1);
    expect_one_error_line(&r, "standard output");
    free_result(&r);
}
/* <<[[test_command.c]] tests>> */
Test(measuring, backward_prints_one_line_in_key_value_form) {
    static const char *const impls[] = {"naive", "blocked"};
    for (size_t i = 0; i < 2; i++) {
        struct cli_result r = run_mha("bench", "--backward", "--impl", impls[i], "--seq",
                                      "3", "--dim", "4", "--heads", "2", "--reps", "1",
                                      NULL);
        cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
        char want[96];
        snprintf(want, sizeof want,
                 "impl=%s backward=1 B=1 L=3 S=3 E=4 H=2 causal=0 reps=1 ", impls[i]);
        cr_expect(strncmp(r.out, want, strlen(want)) == 0, "'%s' does not start '%s'",
                  r.out, want);
        cr_expect(strchr(r.out, '\n') == r.out + strlen(r.out) - 1, "not one line: %s",
                  r.out);
        cr_expect(bench_value(r.out, "ms") >= 0);
        const double maxdiff = bench_value(r.out, "maxdiff");
        cr_expect(maxdiff >= 0 && maxdiff <= 1e-4, "maxdiff %g", maxdiff);
        free_result(&r);
    }
}
/* <<[[test_command.c]] tests>> */
Test(measuring, backward_refuses_what_it_cannot_time) {
    char *dir = make_temp_dir();
    REFUSED(dir, "self-attention only (no --kv-len)", "bench", "--backward", "--kv-len",
            "3", "--seq", "3", "--dim", "4", "--heads", "2", "--reps", "1");
    REFUSED(dir, "--part: 'all' or 'stages'", "bench", "--backward", "--part", "proj",
            "--seq", "3", "--dim", "4", "--heads", "2", "--reps", "1");
    REFUSED(dir, "no backward pass named 'batched'", "bench", "--backward", "--impl",
            "batched", "--seq", "3", "--dim", "4", "--heads", "2", "--reps", "1");
    REFUSED(dir, "--half-kc: only with --part proj", "bench", "--impl", "blocked",
            "--half-kc", "--seq", "3", "--dim", "8", "--heads", "2", "--reps", "1");
    remove_dir(dir);
}
/* <<[[test_command.c]] tests>> */
Test(measuring, half_depth_projections_print_their_line) {
    struct cli_result r = run_mha("bench", "--impl", "blocked", "--part", "proj",
                                  "--half-kc", "--seq", "3", "--dim", "8", "--heads", "2",
                                  "--reps", "1", NULL);
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    cr_expect(strncmp(r.out, "impl=blocked B=1 L=3 S=3 E=8 H=2 ", 33) == 0, "%s", r.out);
    cr_expect(strstr(r.out, " part=proj half_kc=1 ") != NULL, "%s", r.out);
    const double maxdiff = bench_value(r.out, "maxdiff");
    cr_expect(maxdiff >= 0 && maxdiff <= 1e-4, "maxdiff %g", maxdiff);
    cr_expect(bench_value(r.out, "bytes") > 0);
    free_result(&r);
}
/* <<[[test_command.c]] tests>> */
Test(measuring, denormals_print_two_times_and_their_ratio) {
    struct cli_result r = run_mha("bench", "--denormals", NULL);
    cr_expect_eq(r.status, MHA_EXIT_OK, "%s", r.err);
    cr_expect(strncmp(r.out, "denormals normal_ms=", 20) == 0, "%s", r.out);
    const double normal = bench_value(r.out, "normal_ms");
    const double denormal = bench_value(r.out, "denormal_ms");
    const double slowdown = bench_value(r.out, "slowdown");
    cr_expect(normal > 0 && denormal > 0, "%s", r.out);
    const double low = (denormal - 5e-4) / (normal + 5e-4);
    const double high = (denormal + 5e-4) / (normal - 5e-4);
    cr_expect(slowdown >= low - 0.05 && slowdown <= high + 0.05, "%s", r.out);
    const char *isa = strstr(r.out, " isa=");
    cr_expect(isa != NULL && (strcmp(isa, " isa=scalar\n") == 0 ||
                              strcmp(isa, " isa=avx2\n") == 0 ||
                              strcmp(isa, " isa=avx512\n") == 0), "%s", r.out);
    free_result(&r);
}
