/* generated from chapters/25-hardening.nw, chapters/45-tests-command.nw; edit the book, not this file */
#define _DEFAULT_SOURCE            /* flock */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "child.h"
#include "cli.h"
#include "layer_dir.h"
#include "output.h"
#include "npy.h"
#include "run.h"
#include "scratch.h"
#include "signals.h"

/* <<[[test_output.c]] helpers>> */
static char *make_case(void)
{
    char *dir = make_temp_dir();
    write_random(dir, "query.npy", 1, 3, (const size_t[]){1, 3, 4});
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){12, 4});
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){4, 4});
    return dir;
}

static size_t count_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".tmp") != NULL;
    closedir(d);
    return n;
}

static int is_regular_npy(const char *path)
{
    struct stat st;
    char message[256];
    mha_npy a;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    const int ok = mha_npy_read(path, &a, message, sizeof message) == MHA_OK;
    mha_npy_free(&a);
    return ok;
}

static void expect_one_mha_line(const struct cli_result *r, const char *needle)
{
    const char *newline = strchr(r->err, '\n');
    cr_expect_neq(r->status, 0, "exit status 0; stderr: %s", r->err);
    cr_expect(strncmp(r->err, "mha: ", 5) == 0 && newline != NULL && newline[1] == '\0',
              "want one 'mha: ' line, got: %s", r->err);
    cr_expect(strstr(r->err, needle) != NULL, "'%s' not in: %s", needle, r->err);
}
/* <<[[test_output.c]] tests>> */
static size_t count_suffix(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t length = strlen(e->d_name), s = strlen(suffix);
        n += length >= s && strcmp(e->d_name + length - s, suffix) == 0;
    }
    closedir(d);
    return n;
}

static int exists(const char *dir, const char *name)
{
    struct stat st;
    return lstat(path_in(dir, name), &st) == 0;
}

static int holds(const char *dir, const char *name, const char *text)
{
    if (access(path_in(dir, name), F_OK) != 0)
        return 0;
    size_t size;
    char *bytes = slurp(path_in(dir, name), &size);
    const int same = size == strlen(text) && memcmp(bytes, text, size) == 0;
    free(bytes);
    return same;
}

static int mha_lines(const char *text)
{
    int n = 0;
    for (const char *line = text; line != NULL && *line != '\0';) {
        n += strncmp(line, "mha: ", 5) == 0;
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    return n;
}
/* <<[[test_output.c]] tests>> */
Test(output, a_commit_that_fails_half_way_is_undone) {
    for (int planted = 0; planted < 2; planted++) {
        char *dir = make_temp_dir(), message[1024] = "";
        write_bytes(dir, "out.npy", "old out", 7);
        if (!planted)
            write_bytes(dir, "attn_weights.npy", "old weights", 11);
        const char *names[] = {"out.npy", "attn_weights.npy"};
        cr_assert_eq(mha_output_begin(dir, 2, names, message, sizeof message), MHA_OK, "%s",
                     message);
        for (int i = 0; i < 2; i++) {
            const int fd = mha_output_next(message, sizeof message);
            cr_assert(fd >= 0 && write(fd, "new", 3) == 3, "%s", message);
            close(fd);
        }
        if (planted) {
            cr_assert_eq(unlink(path_in(dir, "out.npy")), 0);
            cr_assert_eq(mkdir(path_in(dir, "out.npy"), 0755), 0);
        } else {
            DIR *d = opendir(dir);
            for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
                if (strncmp(e->d_name, ".out.npy.", 9) == 0)
                    cr_assert_eq(unlink(path_in(dir, e->d_name)), 0);
            closedir(d);
        }
        cr_expect_neq(mha_output_commit(message, sizeof message), MHA_OK, "the commit worked");
        cr_expect(strstr(message, "out.npy") != NULL, "message: %s", message);
        mha_output_end();
        if (planted)
            cr_expect(!exists(dir, "attn_weights.npy"), "a new attn_weights.npy stayed");
        else
            cr_expect(holds(dir, "attn_weights.npy", "old weights"),
                      "attn_weights.npy stayed replaced");
        if (!planted)
            cr_expect(holds(dir, "out.npy", "old out"), "out.npy changed");
        cr_expect_eq(count_suffix(dir, ".tmp") + count_suffix(dir, ".old"), 0,
                     "temporaries or backups were left");
        rmdir(path_in(dir, "out.npy"));
        remove_dir(dir);
    }
}
/* <<[[test_output.c]] tests>> */

Test(output, an_output_set_replaces_the_whole_set, .timeout = 120) {
    char *dir = make_case();
    write_bytes(dir, "notes.txt", "mine", 4);
    struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_expect(r.status == 0 && exists(dir, "attn_weights.npy"), "%s", r.err);
    free_result(&r);
    r = run_mha("forward", dir, "--heads", "2", "--no-weights", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    cr_expect(!exists(dir, "attn_weights.npy"), "forward --no-weights kept old weights");
    cr_expect(exists(dir, "out.npy") && exists(dir, "query.npy") &&
              holds(dir, "notes.txt", "mine"), "a file that is not an output went");
    write_random(dir, "key.npy", 7, 3, (const size_t[]){1, 5, 4});
    write_random(dir, "value.npy", 8, 3, (const size_t[]){1, 5, 4});
    write_random(dir, "grad_out.npy", 9, 3, (const size_t[]){1, 3, 4});
    r = run_mha("backward", dir, "--heads", "2", NULL);
    cr_expect(r.status == 0 && exists(dir, "grad_key.npy"), "%s", r.err);
    free_result(&r);
    unlink(path_in(dir, "key.npy"));
    unlink(path_in(dir, "value.npy"));
    r = run_mha("backward", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    cr_expect(!exists(dir, "grad_key.npy") && !exists(dir, "grad_value.npy"),
              "backward kept the gradients of an earlier cross-attention run");
    cr_expect(exists(dir, "grad_query.npy") && exists(dir, "out.npy"));
    remove_dir(dir);

    char *checkpoint = make_temp_dir();
    write_bytes(checkpoint, "layers.1.notes.txt", "mine", 4);
    const char *layers[] = {"2", "1"};
    for (int k = 0; k < 2; k++) {
        r = run_mha("train", "--steps", "1", "--dim", "8", "--heads", "2", "--layers", layers[k],
                    "--out", checkpoint, NULL);
        cr_expect_eq(r.status, 0, "%s", r.err);
        free_result(&r);
    }
    cr_expect(!exists(checkpoint, "layers.1.in_proj_weight.npy") &&
              !exists(checkpoint, "layers.1.out_proj_bias.npy"),
              "a one-layer checkpoint kept the second layer of an older one");
    cr_expect(exists(checkpoint, "layers.0.in_proj_weight.npy"));
    cr_expect(holds(checkpoint, "layers.1.notes.txt", "mine"), "a file of the user's went");
    remove_dir(checkpoint);
}
/* <<[[test_output.c]] tests>> */
Test(output, checkpoint_and_history_are_one_set, .timeout = 120) {
    char *dir = make_temp_dir(), history[4200];
    const char *clashes[] = {"tok_emb.npy", "layers.1.in_proj_weight.npy"};
    for (int k = 0; k < 2; k++) {
        snprintf(history, sizeof history, "%s", path_in(dir, clashes[k]));
        struct cli_result r = run_mha("train", "--steps", "100000000", "--layers", "1",
                                      "--out", dir, "--history", history, NULL);
        expect_one_mha_line(&r, clashes[k]);
        cr_expect_str_eq(r.out, "", "it trained before refusing --history %s", history);
        free_result(&r);
    }
    cr_expect(!exists(dir, "tok_emb.npy"));
    snprintf(history, sizeof history, "%s", path_in(dir, "h.tsv"));
    fflush(NULL);
    const pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        child_limit_files(8192);                       /* the history passes it */
        /* a small model, so that the test is quick under valgrind too */
        FILE *quiet = fopen("/dev/null", "w");
        char *argv[] = {"mha", "train", "--steps", "300", "--every", "1", "--dim", "8",
                        "--heads", "2", "--layers", "1", "--batch", "1", "--vocab", "8",
                        "--length", "8", "--out", dir, "--history", history, NULL};
        child_exit(mha_cli_main(22, argv, quiet, quiet));
    }
    int wstatus;
    cr_assert_eq(waitpid(child, &wstatus, 0), child);
    cr_expect(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == MHA_EXIT_FAILURE,
              "status %#x", wstatus);
    cr_expect(!exists(dir, "tok_emb.npy") && !exists(dir, "h.tsv"),
              "part of the set was put in place");
    cr_expect_eq(count_temporaries(dir), 0);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
static volatile sig_atomic_t caller_saw_it;
static void callers_handler(int sig) { (void)sig; caller_saw_it = 1; }
static int raise_usr1(int argc, char **argv, FILE *out, FILE *err)
{
    (void)argc; (void)argv; (void)out; (void)err;
    return raise(SIGUSR1);
}

Test(output, a_signal_the_caller_handles_stays_its_own) {
    struct sigaction mine, before;
    memset(&mine, 0, sizeof mine);
    mine.sa_handler = callers_handler;
    cr_assert_eq(sigaction(SIGUSR1, &mine, &before), 0);
    caller_saw_it = 0;
    cr_expect_eq(mha_run_stoppable(raise_usr1, 0, NULL, stdout, stderr), 0);
    cr_expect(caller_saw_it, "the caller's handler did not run");
    cr_assert_eq(sigaction(SIGUSR1, &before, NULL), 0);
}
/* <<[[test_output.c]] tests>> */
Test(output, device_links_are_refused_and_kept, .timeout = 30) {
    char *dir = make_case(), history[4200];
    cr_assert_eq(mkfifo(path_in(dir, "pipe"), 0666), 0);
    cr_assert_eq(symlink("/dev/null", path_in(dir, "h.tsv")), 0);
    cr_assert_eq(symlink("pipe", path_in(dir, "attn_weights.npy")), 0);
    snprintf(history, sizeof history, "%s", path_in(dir, "h.tsv"));
    struct cli_result r = run_mha("train", "--steps", "100000000", "--history", history, NULL);
    expect_one_mha_line(&r, "h.tsv: a link to a device");
    cr_expect_str_eq(r.out, "", "it trained before refusing the history");
    free_result(&r);
    r = run_mha("forward", dir, "--heads", "2", NULL);
    expect_one_mha_line(&r, "attn_weights.npy: a link to a device, a pipe");
    free_result(&r);
    struct stat st;
    cr_expect(lstat(path_in(dir, "h.tsv"), &st) == 0 && S_ISLNK(st.st_mode), "h.tsv replaced");
    cr_expect(lstat(path_in(dir, "attn_weights.npy"), &st) == 0 && S_ISLNK(st.st_mode),
              "attn_weights.npy replaced");
    cr_expect(!exists(dir, "out.npy"));
    r = run_mha("train", "--steps", "2", "--every", "1", "--dim", "8", "--heads", "2",
                "--history", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "step\tloss\t", 10) == 0 && strstr(r.out, "step=") == NULL,
              "--history - did not print the table alone: %s", r.out);
    cr_expect(!exists(".", "-"), "a file named '-' was written");
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, stopping_signals_print_one_line, .timeout = 120) {
    const int signals[] = {SIGALRM, SIGUSR1, SIGPIPE, SIGTERM};
    const char *names[] = {"SIGALRM", "SIGUSR1", "SIGPIPE", "SIGTERM"};
    for (int s = 0; s < 4; s++) {
        char *dir = make_case(), err_path[] = "/tmp/mha-err-XXXXXX";
        write_bytes(dir, "out.npy", "old out", 7);
        const int lock = open(dir, O_RDONLY | O_DIRECTORY), efd = mkstemp(err_path);
        cr_assert(lock >= 0 && efd >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0);
        close(efd);
        fflush(NULL);
        const pid_t child = fork();
        cr_assert(child >= 0);
        if (child == 0) {
            close(lock);
            FILE *err = fopen(err_path, "w"), *out = fopen("/dev/null", "w");
            char *argv[] = {"mha", "forward", dir, "--heads", "2", NULL};
            child_exit(mha_cli_main(5, argv, out, err));
        }
        for (int wait = 0; wait < 1000 && count_temporaries(dir) < 2; wait++)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        cr_expect_eq(count_temporaries(dir), 2, "%s: the run did not wait to commit", names[s]);
        kill(child, signals[s]);
        int wstatus;
        cr_assert_eq(waitpid(child, &wstatus, 0), child);
        cr_expect(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == signals[s],
                  "%s: status %#x", names[s], wstatus);
        cr_expect_eq(count_temporaries(dir), 0, "%s left temporaries", names[s]);
        cr_expect(holds(dir, "out.npy", "old out"), "%s: out.npy was replaced", names[s]);
        size_t size;
        char *text = slurp(err_path, &size);
        cr_expect(mha_lines(text) == 1 && strstr(text, names[s]) != NULL,
                  "%s: want one 'mha: ' line naming it, got: %s", names[s], text);
        free(text);
        close(lock);
        unlink(err_path);
        remove_dir(dir);
    }
}
/* <<[[test_output.c]] tests>> */
Test(output, a_file_size_limit_is_reported_not_fatal) {
    char *dir = make_case(), err_path[] = "/tmp/mha-err-XXXXXX";
    write_random(dir, "query.npy", 1, 3, (const size_t[]){2, 40, 8});
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){24, 8});
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){8, 8});
    write_bytes(dir, "attn_weights.npy", "old weights", 11);
    const int efd = mkstemp(err_path);
    cr_assert(efd >= 0);
    close(efd);
    fflush(NULL);
    const pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        child_limit_files(4096);                       /* attn_weights is 25600 bytes */
        FILE *err = fopen(err_path, "w"), *out = fopen("/dev/null", "w");
        char *argv[] = {"mha", "forward", dir, "--heads", "2", NULL};
        const int status = mha_cli_main(5, argv, out, err);
        fclose(err);
        child_exit(status);
    }
    int wstatus;
    cr_assert_eq(waitpid(child, &wstatus, 0), child);
    cr_expect(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == MHA_EXIT_FAILURE,
              "status %#x", wstatus);
    size_t size;
    char *text = slurp(err_path, &size);
    cr_expect(mha_lines(text) == 1 && strstr(text, "attn_weights.npy") != NULL &&
              strstr(text, "File too large") != NULL, "got: %s", text);
    free(text);
    cr_expect(holds(dir, "attn_weights.npy", "old weights"));
    cr_expect(!exists(dir, "out.npy"));
    cr_expect_eq(count_temporaries(dir), 0);
    unlink(err_path);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_held_lock_is_waited_for_then_refused, .timeout = 30) {
    char *dir = make_case();
    const int lock = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0);
    struct cli_result r = run_mha("forward", dir, "--heads", "2", "--wait", "0.5", NULL);
    cr_expect_eq(r.status, MHA_EXIT_FAILURE, "%s", r.err);
    cr_expect(strstr(r.err, "waiting up to 0.5 s") != NULL, "no notice: %s", r.err);
    cr_expect(mha_lines(r.err) == 1 && strstr(r.err, "another run kept it locked") != NULL,
              "got: %s", r.err);
    free_result(&r);
    cr_expect(!exists(dir, "out.npy"));
    cr_expect_eq(count_temporaries(dir), 0);
    close(lock);
    cr_assert_eq(mkdir(path_in(dir, ".mha.lock"), 0700), 0);
    r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "a planted directory blocked the run: %s", r.err);
    free_result(&r);
    rmdir(path_in(dir, ".mha.lock"));
    cr_assert_eq(symlink("/nonexistent/lock", path_in(dir, ".mha.lock")), 0);
    r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "a planted link blocked the run: %s", r.err);
    free_result(&r);
    unlink(path_in(dir, ".mha.lock"));
    r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    cr_expect(!exists(dir, ".mha.lock"), "a lock file was left behind");
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, planted_links_at_temporary_names_are_not_followed) {
    char *dir = make_case(), victim[] = "/tmp/mha-victim-XXXXXX", name[256];
    const int fd = mkstemp(victim);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "precious", 8), 8);
    close(fd);
    const char *outputs[] = {"out.npy", "attn_weights.npy"};
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, ".%s.%ld.tmp", outputs[i], (long)getpid());
        cr_assert_eq(symlink(victim, path_in(dir, name)), 0);
        snprintf(name, sizeof name, ".%s.%ld.0.tmp", outputs[i], (long)getpid());
        cr_assert_eq(i == 0 ? symlink(victim, path_in(dir, name))
                            : link(victim, path_in(dir, name)), 0, "%s", strerror(errno));
    }
    struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    size_t size;
    char *bytes = slurp(victim, &size);
    cr_expect(size == 8 && memcmp(bytes, "precious", 8) == 0, "the victim was overwritten");
    free(bytes);
    cr_expect(is_regular_npy(path_in(dir, "out.npy")), "out.npy is not a new regular file");
    cr_expect(is_regular_npy(path_in(dir, "attn_weights.npy")),
              "attn_weights.npy is not a new regular file");
    unlink(victim);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_full_disk_is_an_error_and_keeps_old_results) {
    char *dir = make_case();
    write_random(dir, "query.npy", 1, 3, (const size_t[]){2, 40, 8});
    write_random(dir, "in_proj_weight.npy", 2, 2, (const size_t[]){24, 8});
    write_random(dir, "out_proj_weight.npy", 3, 2, (const size_t[]){8, 8});
    write_bytes(dir, "out.npy", "old out", 7);
    write_bytes(dir, "attn_weights.npy", "old weights", 11);
    fflush(NULL);
    const pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        child_limit_files(4096);                       /* attn_weights is 2*2*40*40*4 bytes */
        FILE *quiet = fopen("/dev/null", "w");
        char *argv[] = {"mha", "forward", dir, "--heads", "2", NULL};
        child_exit(mha_cli_main(5, argv, quiet, quiet));
    }
    int wstatus;
    cr_assert_eq(waitpid(child, &wstatus, 0), child);
    cr_expect(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == MHA_EXIT_FAILURE,
              "a run on a full disk did not fail (status %#x)", wstatus);
    size_t size;
    char *bytes = slurp(path_in(dir, "out.npy"), &size);
    cr_expect(size == 7 && memcmp(bytes, "old out", 7) == 0, "out.npy was replaced");
    free(bytes);
    bytes = slurp(path_in(dir, "attn_weights.npy"), &size);
    cr_expect(size == 11 && memcmp(bytes, "old weights", 11) == 0,
              "attn_weights.npy was replaced");
    free(bytes);
    cr_expect_eq(count_temporaries(dir), 0, "temporary files were left behind");
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_directory_at_an_output_name_replaces_nothing) {
    char *dir = make_case();
    write_bytes(dir, "attn_weights.npy", "old weights", 11);
    cr_assert_eq(mkdir(path_in(dir, "out.npy"), 0777), 0);
    write_bytes(path_in(dir, "out.npy"), "inside", "x", 1);
    struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
    expect_one_mha_line(&r, "out.npy");
    free_result(&r);
    size_t size;
    char *bytes = slurp(path_in(dir, "attn_weights.npy"), &size);
    cr_expect(size == 11 && memcmp(bytes, "old weights", 11) == 0,
              "attn_weights.npy was replaced by a run that failed");
    free(bytes);
    cr_expect_eq(count_temporaries(dir), 0);
    char inside[4200];
    snprintf(inside, sizeof inside, "%s/out.npy/inside", dir);
    unlink(inside);
    rmdir(path_in(dir, "out.npy"));
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_fifo_input_is_refused_at_once, .timeout = 30) {
    const char *commands[] = {"forward", "decode", "backward"};
    const char *inputs[] = {"query.npy", "attn_mask.npy", "key_padding_mask.npy"};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) {
            char *dir = make_case();
            write_random(dir, "grad_out.npy", 4, 3, (const size_t[]){1, 3, 4});
            unlink(path_in(dir, inputs[i]));
            cr_assert_eq(mkfifo(path_in(dir, inputs[i]), 0666), 0);
            struct cli_result r = run_mha(commands[c], dir, "--heads", "2", NULL);
            char needle[128];
            snprintf(needle, sizeof needle, "%s: not a regular file", inputs[i]);
            if (!(c == 1 && i == 1))                   /* decode reads no attn_mask */
                expect_one_mha_line(&r, needle);
            free_result(&r);
            remove_dir(dir);
        }
}
/* <<[[test_output.c]] tests>> */
Test(output, a_dangling_link_for_an_optional_input_is_an_error) {
    const char *inputs[] = {"attn_mask.npy", "key_padding_mask.npy", "in_proj_bias.npy"};
    for (int i = 0; i < 3; i++) {
        char *dir = make_case();
        cr_assert_eq(symlink("/nonexistent/mask.npy", path_in(dir, inputs[i])), 0);
        struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
        char needle[128];
        snprintf(needle, sizeof needle, "%s: a symbolic link to a missing file", inputs[i]);
        expect_one_mha_line(&r, needle);
        free_result(&r);
        cr_expect_neq(access(path_in(dir, "out.npy"), F_OK), 0, "a refused run wrote out.npy");
        remove_dir(dir);
    }
}
/* <<[[test_output.c]] tests>> */
Test(output, a_signal_removes_the_temporaries) {
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (int s = 0; s < 3; s++) {
        char *dir = make_temp_dir();
        fflush(NULL);
        const pid_t child = fork();
        cr_assert(child >= 0);
        if (child == 0) {
            const char *names[2] = {"out.npy", "attn_weights.npy"};
            char message[256];
            signal(signals[s], SIG_DFL);
            const mha_status begun = mha_output_begin(dir, 2, names, message,
                                                      sizeof message);
            const int a = mha_output_next(message, sizeof message);
            const int b = mha_output_next(message, sizeof message);
            if (begun != MHA_OK || a < 0 || b < 0 || write(a, "partial", 7) != 7 ||
                count_temporaries(dir) != 2)
                _exit(3);
            kill(getpid(), signals[s]);
            _exit(4);                                  /* the signal did not kill */
        }
        int wstatus;
        cr_assert_eq(waitpid(child, &wstatus, 0), child);
        cr_expect(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == signals[s],
                  "signal %d: the child did not die of it (status %#x)", signals[s], wstatus);
        cr_expect_eq(count_temporaries(dir), 0, "signal %d left temporaries", signals[s]);
        remove_dir(dir);
    }
}
/* <<[[test_output.c]] tests>> */
static int put_word(FILE *file, void *context)
{
    (void)context;
    return fputs("word", file) < 0;
}
Test(output, the_folders_a_set_made_go_with_it) {
    char *dir = make_temp_dir(), a[4200], b[4200], file[4300], message[256];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(file, sizeof file, "%s/x.txt", b);
    const char *names[1] = {"x.txt"};
    struct stat st;
    for (int commit = 0; commit < 2; commit++) {
        cr_assert_eq(mha_output_make_dir(a, message, sizeof message), MHA_OK, "%s", message);
        cr_assert_eq(mha_output_make_dir(b, message, sizeof message), MHA_OK, "%s", message);
        mha_status status = mha_output_begin(a, 1, names, message, sizeof message);
        if (status == MHA_OK)
            status = mha_output_add(file, message, sizeof message);
        for (int k = 0; status == MHA_OK && k < 2; k++)
            status = mha_output_stream(put_word, NULL, message, sizeof message);
        if (status == MHA_OK && commit)
            status = mha_output_commit(message, sizeof message);
        mha_output_end();
        cr_assert_eq(status, MHA_OK, "%s", message);
        cr_expect_eq(stat(a, &st) == 0 && stat(b, &st) == 0, commit,
                     "commit %d: the folders %s", commit, commit ? "went" : "stayed");
    }
    cr_assert_eq(mha_output_make_dir(a, message, sizeof message), MHA_OK, "%s", message);
    mha_output_end();
    cr_expect(stat(a, &st) == 0, "a folder that was there was removed");
    remove_dir(strdup(a));
    remove_dir(strdup(b));
    remove_dir(dir);
    char folder[4096];                   /* on the stack: the child dies holding nothing */
    dir = make_temp_dir();
    snprintf(folder, sizeof folder, "%s", dir);
    free(dir);
    snprintf(a, sizeof a, "%s/a", folder);
    snprintf(b, sizeof b, "%s/b", folder);
    snprintf(file, sizeof file, "%s/x.txt", b);
    fflush(NULL);
    const pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        signal(SIGTERM, SIG_DFL);
        if (mha_output_make_dir(a, message, sizeof message) != MHA_OK ||
            mha_output_make_dir(b, message, sizeof message) != MHA_OK ||
            mha_output_begin(a, 1, names, message, sizeof message) != MHA_OK ||
            mha_output_add(file, message, sizeof message) != MHA_OK ||
            mha_output_next(message, sizeof message) < 0 ||
            mha_output_next(message, sizeof message) < 0)
            _exit(3);
        kill(getpid(), SIGTERM);
        _exit(4);
    }
    int wstatus;
    cr_assert_eq(waitpid(child, &wstatus, 0), child);
    cr_expect(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM, "status %#x", wstatus);
    cr_expect(stat(a, &st) != 0 && stat(b, &st) != 0, "a stopped set left its folders");
    remove_dir(strdup(folder));
}
/* <<[[test_output.c]] tests>> */
Test(output, two_runs_on_one_directory_take_turns, .timeout = 30) {
    char *dir = make_case();
    const int lock = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0);
    fflush(NULL);
    const pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        char *argv[] = {"mha", "forward", dir, "--heads", "2", NULL};
        close(lock);                   /* the lock belongs to the parent's descriptor */
        child_exit(mha_cli_main(5, argv, stdout, stderr));
    }
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    int wstatus;
    cr_expect_eq(waitpid(child, &wstatus, WNOHANG), 0, "the second run did not wait");
    cr_expect_neq(access(path_in(dir, "out.npy"), F_OK), 0, "out.npy written under the lock");
    close(lock);                                       /* releases the lock */
    cr_assert_eq(waitpid(child, &wstatus, 0), child);
    cr_expect(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "status %#x", wstatus);
    cr_expect(is_regular_npy(path_in(dir, "out.npy")));
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, train_checks_out_before_training, .timeout = 30) {
    char *dir = make_temp_dir();
    write_bytes(dir, "file", "x", 1);
    const char *outs[] = {"/nonexistent/directory", path_in(dir, "file")};
    const char *why[] = {"No such file", "not a directory"};
    for (int i = 0; i < 2; i++) {
        char out_dir[4200];
        snprintf(out_dir, sizeof out_dir, "%s", outs[i]);
        struct cli_result r = run_mha("train", "--steps", "100000000", "--out", out_dir, NULL);
        expect_one_mha_line(&r, why[i]);
        cr_expect(strstr(r.err, out_dir) != NULL, "the message does not name %s", out_dir);
        cr_expect_str_eq(r.out, "", "it trained before checking --out");
        free_result(&r);
    }
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, train_checks_its_history_before_training, .timeout = 30) {
    char *dir = make_temp_dir();
    write_bytes(dir, "file", "x", 1);
    char in_file[4200];
    snprintf(in_file, sizeof in_file, "%s/h.tsv", path_in(dir, "file"));
    const char *places[] = {"/nonexistent/directory/h.tsv", in_file, "/dev/null"};
    const char *why[] = {"No such file", "not a directory", "is not a regular file"};
    for (int i = 0; i < 3; i++) {
        char history[4200];
        snprintf(history, sizeof history, "%s", places[i]);
        struct cli_result r = run_mha("train", "--steps", "100000000", "--history", history,
                                      NULL);
        expect_one_mha_line(&r, why[i]);
        cr_expect_str_eq(r.out, "", "it trained before checking --history %s", history);
        free_result(&r);
    }
    remove_dir(dir);
}

Test(output, train_history_is_replaced_whole, .timeout = 60) {
    char *dir = make_temp_dir();
    write_bytes(dir, "h.tsv", "old", 3);
    char history[4200];
    snprintf(history, sizeof history, "%s", path_in(dir, "h.tsv"));
    cr_assert_eq(mkdir(path_in(dir, "tok_emb.npy"), 0755), 0);
    struct cli_result r = run_mha("train", "--steps", "2", "--every", "1", "--out", dir,
                                  "--history", history, NULL);
    expect_one_mha_line(&r, "tok_emb.npy");
    free_result(&r);
    char text[64] = {0};
    FILE *f = fopen(history, "r");
    cr_assert_not_null(f);
    cr_expect_eq(fread(text, 1, sizeof text - 1, f), 3);
    fclose(f);
    cr_expect_str_eq(text, "old", "a failed run replaced the history");
    cr_assert_eq(rmdir(path_in(dir, "tok_emb.npy")), 0);
    r = run_mha("train", "--steps", "2", "--every", "1", "--history", history, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    f = fopen(history, "r");
    cr_assert_not_null(f);
    cr_expect_eq(fread(text, 1, 5, f), 5);
    fclose(f);
    cr_expect(strncmp(text, "step\t", 5) == 0, "the new history does not start with its header");
    cr_expect_eq(count_temporaries(dir), 0);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, train_checkpoint_is_all_or_nothing, .timeout = 60) {
    char *dir = make_temp_dir();
    cr_assert_eq(mkdir(path_in(dir, "tok_emb.npy"), 0755), 0);
    struct cli_result r = run_mha("train", "--steps", "2", "--every", "1", "--out", dir, NULL);
    expect_one_mha_line(&r, "tok_emb.npy");
    cr_expect_neq(access(path_in(dir, "layers.0.in_proj_weight.npy"), F_OK), 0,
                  "part of a checkpoint was put in place");
    cr_expect_neq(access(path_in(dir, "unembed.npy"), F_OK), 0, "unembed.npy was put in place");
    cr_expect_eq(count_temporaries(dir), 0);
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, one_set_at_a_time) {
    char *dir = make_temp_dir(), *other = make_temp_dir(), message[512] = "";
    const char *const two[] = {"a.npy", "b.npy"}, *const one[] = {"c.npy"};
    cr_assert_eq(mha_output_begin(dir, 2, two, message, sizeof message), MHA_OK, "%s", message);
    const int fd = mha_output_next(message, sizeof message);
    cr_assert_geq(fd, 0, "%s", message);
    close(fd);
    cr_expect_eq(mha_output_begin(other, 1, one, message, sizeof message), MHA_ERR_ARG);
    cr_expect(strstr(message, "another set of outputs") != NULL, "message: %s", message);
    cr_expect_eq(count_temporaries(dir), 1, "the open set lost its temporary");
    mha_output_end();
    cr_expect_eq(count_temporaries(dir), 0);
    cr_expect_neq(access(path_in(dir, "a.npy"), F_OK), 0, "an uncommitted output was put in place");
    cr_expect_eq(mha_output_begin(other, 1, one, message, sizeof message), MHA_OK, "%s", message);
    mha_output_end();
    remove_dir(dir);
    remove_dir(other);
}
/* <<[[test_output.c]] tests>> */
Test(output, messages_name_the_real_rule) {
    struct { const char *argv[8]; const char *needle; } cases[] = {
        {{"train", "--batch", "65537"}, "--batch: 65537 is out of range (1 to 65536)"},
        {{"train", "--vocab", "1"}, "--vocab: 1 is out of range (2 to 65536)"},
        {{"train", "--layers", "0"}, "--layers"},
        {{"train", "--heads", "3"}, "--heads: 3 does not divide --dim 32"},
        {{"train", "--dim", "5000"}, "--dim: 5000 is out of range (1 to 4096)"},
        {{"demo", "--text", "a \033]0;owned\007 b"}, "--text: control character 0x1b"},
        {{"demo", "--text", "ring\007"}, "--text: control character 0x07"},
        {{"decode", NULL, "--heads", "2", "--kv-heads", "3"},
         "--kv-heads: 3 does not divide --heads 2"},
    };
    char *dir = make_case();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *argv[10] = {"mha"};
        int argc = 1;
        for (int i = 0; i < 8 && (cases[c].argv[i] != NULL || (i == 1 && argc == 2)); i++)
            argv[argc++] = cases[c].argv[i] != NULL ? (char *)cases[c].argv[i] : dir;
        struct cli_result r = run_argv(argc, argv);
        expect_one_mha_line(&r, cases[c].needle);
        free_result(&r);
    }
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
static void expect_refused(mha_status got, mha_status want, const char *message,
                           const char *needle, const char *what)
{
    cr_expect_eq(got, want, "%s: status %d, not %d (%s)", what, got, want, message);
    cr_expect(strstr(message, needle) != NULL, "%s: '%s' not in '%s'", what, needle, message);
}
Test(output, the_writer_refuses_what_it_cannot_do) {
    char *dir = make_temp_dir(), message[MHA_PATH_SIZE + 512] = "";
    char missing[MHA_PATH_SIZE], file[MHA_PATH_SIZE], long_dir[MHA_PATH_SIZE + 16];
    snprintf(missing, sizeof missing, "%s", path_in(dir, "missing"));
    snprintf(file, sizeof file, "%s", path_in(dir, "plain"));
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fclose(f);
    memset(long_dir, 'd', sizeof long_dir - 1);
    long_dir[sizeof long_dir - 1] = '\0';
    const char *const one[] = {"a.npy"}, *const twice[] = {"a.npy", "b.npy", "a.npy"};
    const char *const empty[] = {""}, *const slashed[] = {"x/a.npy"};
    expect_refused(mha_output_begin(missing, 1, one, message, sizeof message), MHA_ERR_IO,
                   message, missing, "a missing directory");
    expect_refused(mha_output_begin(file, 1, one, message, sizeof message), MHA_ERR_IO,
                   message, "plain: not a directory", "a file for a directory");
    expect_refused(mha_output_begin(dir, 1, empty, message, sizeof message), MHA_ERR_ARG,
                   message, "not a file name", "an empty name");
    expect_refused(mha_output_begin(dir, 1, slashed, message, sizeof message), MHA_ERR_ARG,
                   message, "x/a.npy: not a file name", "a name with a slash");
    expect_refused(mha_output_begin(dir, -1, one, message, sizeof message), MHA_ERR_ARG,
                   message, "cannot write -1 files at once", "a negative count");
    expect_refused(mha_output_begin(dir, MHA_OUTPUT_MAX + 1, one, message, sizeof message),
                   MHA_ERR_ARG, message, "files at once (0 to 100000)", "too many files");
    expect_refused(mha_output_begin(dir, 3, twice, message, sizeof message), MHA_ERR_ARG,
                   message, "a.npy: named twice", "a name given twice");
    expect_refused(mha_output_check_dir(missing, message, sizeof message), MHA_ERR_IO,
                   message, missing, "checking a missing directory");
    expect_refused(mha_output_check_dir(file, message, sizeof message), MHA_ERR_IO,
                   message, "plain: not a directory", "checking a file as a directory");
    expect_refused(mha_output_check(path_in(dir, ""), message, sizeof message), MHA_ERR_ARG,
                   message, "not a file name", "checking a path that ends in a slash");
    expect_refused(mha_output_file("", NULL, NULL, message, sizeof message), MHA_ERR_ARG,
                   message, "not a file name", "writing a file of no name");
    /* out of order: nothing begun */
    expect_refused(mha_output_add(path_in(dir, "c.npy"), message, sizeof message), MHA_ERR_ARG,
                   message, "c.npy: no set of outputs is being begun", "add before begin");
    static const char *const patterns[] = {"x.#.npy", NULL};
    expect_refused(mha_output_own(patterns, message, sizeof message), MHA_ERR_ARG, message,
                   "no set of outputs is being begun", "own before begin");
    message[0] = '\0';
    cr_expect_eq(mha_output_next(message, sizeof message), -1);
    cr_expect(strstr(message, "no output is left to write") != NULL, "%s", message);
    expect_refused(mha_output_commit(message, sizeof message), MHA_ERR_ARG, message,
                   "0 of 0 outputs were written", "commit before begin");
    /* begun: a path too long to add, a commit with one of two written, an add after a write */
    const char *const two[] = {"a.npy", "b.npy"};
    cr_assert_eq(mha_output_begin(dir, 2, two, message, sizeof message), MHA_OK, "%s", message);
    char long_path[sizeof long_dir + 8];
    snprintf(long_path, sizeof long_path, "%s/c.npy", long_dir);
    expect_refused(mha_output_add(long_path, message, sizeof message), MHA_ERR_ARG, message,
                   "not a file name", "a path too long");
    const int fd = mha_output_next(message, sizeof message);
    cr_assert_geq(fd, 0, "%s", message);
    close(fd);
    expect_refused(mha_output_add(path_in(dir, "c.npy"), message, sizeof message), MHA_ERR_ARG,
                   message, "no set of outputs is being begun", "add after a write");
    expect_refused(mha_output_commit(message, sizeof message), MHA_ERR_ARG, message,
                   "1 of 2 outputs were written", "a commit with one output missing");
    mha_output_end();
    cr_expect_eq(count_temporaries(dir), 0);
    cr_expect(!exists(dir, "a.npy") && !exists(dir, "b.npy"), "an output was put in place");
    unlink(file);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, abandoning_a_set_removes_its_temporaries) {
    char *dir = make_temp_dir(), message[512] = "";
    const char *const two[] = {"a.npy", "b.npy"};
    cr_assert_eq(mha_output_begin(dir, 2, two, message, sizeof message), MHA_OK, "%s",
                 message);
    for (int i = 0; i < 2; i++) {
        const int fd = mha_output_next(message, sizeof message);
        cr_assert_geq(fd, 0, "%s", message);
        close(fd);
    }
    cr_expect_eq(count_temporaries(dir), 2);
    cr_expect_eq(mha_output_abandon(SIGTERM), 1, "outside a commit, the handler goes on");
    cr_expect_eq(count_temporaries(dir), 0, "a temporary survived");
    mha_output_end();
    cr_expect(!exists(dir, "a.npy") && !exists(dir, "b.npy"), "an output appeared");
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_link_to_a_standard_stream_is_refused) {
    char *dir = make_case(), *outside = make_temp_dir(), text[16] = "", kept[4200];
    write_bytes(outside, "kept.txt", "precious", 8);
    snprintf(kept, sizeof kept, "%s", path_in(outside, "kept.txt"));
    cr_assert_eq(symlink(kept, path_in(dir, "out.npy")), 0);
    struct cli_result r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    cr_expect(is_regular_npy(path_in(dir, "out.npy")), "the link was not replaced");
    FILE *f = fopen(kept, "r");
    cr_assert_not_null(f);
    cr_expect(fread(text, 1, sizeof text - 1, f) == 8 && strcmp(text, "precious") == 0);
    fclose(f);
    remove(path_in(dir, "attn_weights.npy"));
    cr_assert_eq(symlink(kept, path_in(dir, "attn_weights.npy")), 0);
    const int saved = dup(0), input = open(kept, O_RDONLY);
    cr_assert(saved >= 0 && input >= 0 && dup2(input, 0) == 0);
    r = run_mha("forward", dir, "--heads", "2", NULL);
    cr_assert_eq(dup2(saved, 0), 0);
    close(saved);
    close(input);
    expect_one_mha_line(&r, "attn_weights.npy: a link to the standard input");
    free_result(&r);
    cr_expect_eq(count_temporaries(dir), 0);
    remove_dir(dir);
    remove_dir(outside);
}
/* <<[[test_output.c]] tests>> */
Test(output, the_command_writer_refuses_too_many_files) {
    char *dir = make_temp_dir(), *text;
    size_t size;
    FILE *err = open_memstream(&text, &size);
    cr_assert_not_null(err);
    static const struct mha_written_file files[MHA_OUTPUT_FILES_MAX + 1];
    cr_expect_eq(mha_write_files(dir, MHA_OUTPUT_FILES_MAX + 1, files, NULL, err),
                 MHA_EXIT_FAILURE);
    fclose(err);
    cr_expect(strncmp(text, "mha: ", 5) == 0, "%s", text);
    cr_expect(strstr(text, "too many files") != NULL, "%s", text);
    cr_expect(strchr(text, '\n') == text + strlen(text) - 1, "not one line: %s", text);
    cr_expect_eq(count_temporaries(dir), 0);
    struct dirent **entries;
    const int n = scandir(dir, &entries, NULL, NULL);
    cr_expect_eq(n, 2, "something was written");             /* "." and ".." */
    for (int i = 0; i < n; i++)
        free(entries[i]);
    free(entries);
    free(text);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_commit_removes_every_owned_file_it_did_not_write) {
    char *dir = make_temp_dir(), message[512] = "", name[32];
    enum { OLD = 12 };
    for (int i = 0; i < OLD; i++) {
        snprintf(name, sizeof name, "frame-%d.png", i);
        write_bytes(dir, name, "old", 3);
    }
    write_bytes(dir, "notes.txt", "mine", 4);
    const char *const one[] = {"frame-0.png"};
    static const char *const own[] = {"frame-#.png", NULL};
    cr_assert_eq(mha_output_begin(dir, 1, one, message, sizeof message), MHA_OK, "%s", message);
    cr_assert_eq(mha_output_own(own, message, sizeof message), MHA_OK, "%s", message);
    const int fd = mha_output_next(message, sizeof message);
    cr_assert_geq(fd, 0, "%s", message);
    cr_assert_eq(write(fd, "new", 3), 3);
    close(fd);
    cr_expect_eq(mha_output_commit(message, sizeof message), MHA_OK, "%s", message);
    mha_output_end();
    for (int i = 1; i < OLD; i++) {
        snprintf(name, sizeof name, "frame-%d.png", i);
        cr_expect(!exists(dir, name), "%s was not removed", name);
    }
    size_t size = 0;
    char *bytes = slurp(path_in(dir, "frame-0.png"), &size);
    cr_expect(size == 3 && memcmp(bytes, "new", 3) == 0, "frame-0.png is not the new file");
    free(bytes);
    bytes = slurp(path_in(dir, "notes.txt"), &size);
    cr_expect(size == 4 && memcmp(bytes, "mine", 4) == 0, "a file outside the family changed");
    free(bytes);
    struct dirent **entries;
    const int n = scandir(dir, &entries, NULL, NULL);
    cr_expect_eq(n, 4, "%d entries, not the two files, \".\" and \"..\"", n);
    for (int i = 0; i < n; i++)
        free(entries[i]);
    free(entries);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_set_has_room_for_eight_more_files_in_four_places) {
    char *dir = make_temp_dir(), *other[4], message[MHA_PATH_SIZE + 512] = "";
    char long_name[MHA_PATH_SIZE], path[4200];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    const char *const one[] = {"a.npy"}, *const too_long[] = {long_name};
    expect_refused(mha_output_begin(dir, 1, too_long, message, sizeof message),
                   MHA_ERR_ARG, message, "too long a name", "a name too long for a path");
    for (int k = 0; k < 4; k++)
        other[k] = make_temp_dir();
    cr_assert_eq(mha_output_begin(dir, 1, one, message, sizeof message), MHA_OK, "%s",
                 message);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(mha_output_add(path_in(other[k], "x.npy"), message, sizeof message),
                     MHA_OK, "%s", message);
    expect_refused(mha_output_add(path_in(other[3], "x.npy"), message, sizeof message),
                   MHA_ERR_ARG, message, "x.npy: too many outputs", "a fifth directory");
    snprintf(path, sizeof path, "%s/./a.npy", dir);
    expect_refused(mha_output_add(path, message, sizeof message), MHA_ERR_ARG, message,
                   "a.npy: named twice", "a.npy spelt another way");
    for (char c = 'c'; c <= 'g'; c++) {
        snprintf(path, sizeof path, "%s/./%c.npy", dir, c);
        cr_assert_eq(mha_output_add(path, message, sizeof message), MHA_OK, "%s", message);
    }
    snprintf(path, sizeof path, "%s/./h.npy", dir);
    expect_refused(mha_output_add(path, message, sizeof message), MHA_ERR_ARG, message,
                   "h.npy: too many outputs", "a ninth added file");
    for (int i = 0; i < 9; i++) {
        const int fd = mha_output_next(message, sizeof message);
        cr_assert_geq(fd, 0, "%s", message);
        close(fd);
    }
    message[0] = '\0';
    cr_expect_eq(mha_output_next(message, sizeof message), -1, "a tenth temporary");
    cr_expect(strstr(message, "no output is left to write") != NULL, "%s", message);
    static const char *const patterns[] = {"x.#.npy", NULL};
    expect_refused(mha_output_own(patterns, message, sizeof message), MHA_ERR_ARG,
                   message, "no set of outputs is being begun", "own after a write");
    cr_expect_eq(mha_output_commit(message, sizeof message), MHA_OK, "%s", message);
    mha_output_end();
    cr_expect(exists(dir, "a.npy") && exists(dir, "c.npy") && exists(dir, "g.npy") &&
              !exists(dir, "h.npy"));
    for (int k = 0; k < 4; k++) {
        cr_expect_eq(exists(other[k], "x.npy"), k < 3, "%s/x.npy", other[k]);
        remove_dir(other[k]);
    }
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, empty_sets_and_impossible_paths_are_refused) {
    char *dir = make_temp_dir(), message[MHA_PATH_SIZE + 512] = "";
    char long_path[MHA_PATH_SIZE + 16], missing[4200];
    cr_assert_eq(mha_output_begin(dir, 0, NULL, message, sizeof message), MHA_OK, "%s",
                 message);
    expect_refused(mha_output_commit(message, sizeof message), MHA_ERR_ARG, message,
                   "0 of 0 outputs were written", "a commit of no files");
    mha_output_end();
    memset(long_path, 'd', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    memcpy(long_path + sizeof long_path - 7, "/a.txt", 6);
    expect_refused(mha_output_check(long_path, message, sizeof message), MHA_ERR_ARG,
                   message, "not a file name", "checking a path too long");
    snprintf(missing, sizeof missing, "%s", path_in(dir, "missing/a.txt"));
    expect_refused(mha_output_file(missing, NULL, NULL, message, sizeof message),
                   MHA_ERR_IO, message, "missing: No such file", "a missing directory");
    const char *const one[] = {"a.npy"};
    cr_expect_eq(mha_output_begin(dir, 1, one, message, sizeof message), MHA_OK, "%s",
                 message);
    mha_output_end();
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
static int put_new(FILE *file, void *context)
{
    (void)context;
    return fputs("new", file) < 0;
}
Test(output, links_at_output_names_are_judged_by_what_they_name) {
    char *dir = make_temp_dir(), *elsewhere = make_temp_dir(), message[1024] = "";
    char target[4200], output[4200];
    const char *const one[] = {"a.npy"};
    snprintf(target, sizeof target, "%s", path_in(elsewhere, "missing.npy"));
    snprintf(output, sizeof output, "%s", path_in(dir, "a.npy"));
    cr_assert_eq(symlink(target, output), 0);
    cr_expect_eq(mha_output_file(output, put_new, NULL, message, sizeof message), MHA_OK,
                 "%s", message);
    size_t size = 0;
    char *bytes = slurp(output, &size);
    cr_expect(size == 3 && memcmp(bytes, "new", 3) == 0, "a.npy is not the new file");
    free(bytes);
    struct stat st;
    cr_expect(lstat(output, &st) == 0 && S_ISREG(st.st_mode), "the dangling link stayed");
    cr_expect(!exists(elsewhere, "missing.npy"), "a file was written through the link");
    cr_assert_eq(unlink(output), 0);
    cr_assert_eq(symlink(elsewhere, output), 0);
    expect_refused(mha_output_begin(dir, 1, one, message, sizeof message), MHA_ERR_IO,
                   message, "a.npy: a link to a directory", "a link to a directory");
    cr_assert_eq(unlink(output), 0);
    write_bytes(elsewhere, "stream.txt", "kept", 4);
    cr_assert_eq(symlink(path_in(elsewhere, "stream.txt"), output), 0);
    const char *const stream[] = {"output", "error"};
    for (int fd = 1; fd <= 2; fd++) {
        fflush(NULL);
        const int saved = dup(fd);
        const int file = open(path_in(elsewhere, "stream.txt"), O_WRONLY);
        cr_assert(saved >= 0 && file >= 0 && dup2(file, fd) == fd);
        const mha_status status = mha_output_begin(dir, 1, one, message, sizeof message);
        mha_output_end();
        cr_assert_eq(dup2(saved, fd), fd);
        close(saved);
        close(file);
        char needle[64];
        snprintf(needle, sizeof needle, "a.npy: a link to the standard %s",
                 stream[fd - 1]);
        expect_refused(status, MHA_ERR_IO, message, needle, needle);
    }
    remove_dir(dir);
    remove_dir(elsewhere);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_family_of_names_is_matched_exactly) {
    char *dir = make_temp_dir(), message[1024] = "";
    const char *const one[] = {"frame-0.png"};
    static const char *const own[] = {"frame-#.png", NULL};
    const char *const names[] = {"frame-7.png", "frame-x.png", "frame-7.png.bak",
                                 "frame-.png"};
    for (int i = 0; i < 4; i++)
        write_bytes(dir, names[i], "old", 3);
    cr_assert_eq(mha_output_begin(dir, 1, one, message, sizeof message), MHA_OK, "%s",
                 message);
    cr_assert_eq(mha_output_own(own, message, sizeof message), MHA_OK, "%s", message);
    cr_assert_eq(mha_output_stream(put_new, NULL, message, sizeof message), MHA_OK, "%s",
                 message);
    cr_expect_eq(mha_output_commit(message, sizeof message), MHA_OK, "%s", message);
    mha_output_end();
    cr_expect(exists(dir, "frame-0.png") && !exists(dir, "frame-7.png"));
    for (int i = 1; i < 4; i++)
        cr_expect(exists(dir, names[i]), "%s, not of the family, was removed", names[i]);
    cr_assert_eq(mkdir(path_in(dir, "frame-12.png"), 0700), 0);
    cr_assert_eq(mha_output_begin(dir, 1, one, message, sizeof message), MHA_OK, "%s",
                 message);
    expect_refused(mha_output_own(own, message, sizeof message), MHA_ERR_IO, message,
                   "frame-12.png: is a directory", "a directory in the family");
    mha_output_end();
    cr_assert_eq(rmdir(path_in(dir, "frame-12.png")), 0);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
static void write_two(const char *dir, char *message, size_t size)
{
    const char *const two[] = {"a.npy", "b.npy"};
    cr_assert_eq(mha_output_begin(dir, 2, two, message, size), MHA_OK, "%s", message);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(mha_output_stream(put_new, NULL, message, size), MHA_OK, "%s",
                     message);
}
static void expect_old(const char *dir, const char *name, const char *old)
{
    size_t size = 0;
    char *bytes = slurp(path_in(dir, name), &size);
    cr_expect(size == strlen(old) && memcmp(bytes, old, size) == 0, "%s was replaced",
              name);
    free(bytes);
}
Test(output, a_commit_refused_late_replaces_nothing, .timeout = 30) {
    char *dir = make_temp_dir(), message[1024] = "", name[128];
    write_bytes(dir, "a.npy", "old a", 5);
    write_two(dir, message, sizeof message);
    cr_assert_eq(mkdir(path_in(dir, "b.npy"), 0700), 0);
    expect_refused(mha_output_commit(message, sizeof message), MHA_ERR_IO, message,
                   "b.npy: is a directory", "a directory made before the commit");
    mha_output_end();
    cr_assert_eq(rmdir(path_in(dir, "b.npy")), 0);
    expect_old(dir, "a.npy", "old a");
    write_bytes(dir, "b.npy", "old b", 5);
    for (int k = 0; k < 100; k++) {
        snprintf(name, sizeof name, ".b.npy.%ld.%d.old", (long)getpid(), k);
        write_bytes(dir, name, "taken", 5);
    }
    write_two(dir, message, sizeof message);
    expect_refused(mha_output_commit(message, sizeof message), MHA_ERR_IO, message,
                   "b.npy: cannot keep the old file", "every backup name taken");
    mha_output_end();
    expect_old(dir, "a.npy", "old a");
    expect_old(dir, "b.npy", "old b");
    for (int k = 0; k < 100; k++) {
        snprintf(name, sizeof name, ".b.npy.%ld.%d.old", (long)getpid(), k);
        cr_assert_eq(unlink(path_in(dir, name)), 0);
    }
    const int lock = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0);
    mha_output_wait(0.1, NULL, NULL);
    write_two(dir, message, sizeof message);
    expect_refused(mha_output_commit(message, sizeof message), MHA_ERR_IO, message,
                   "another run kept it locked for 0.1 s", "a lock held too long");
    mha_output_end();
    close(lock);
    expect_old(dir, "a.npy", "old a");
    expect_old(dir, "b.npy", "old b");
    cr_expect_eq(count_temporaries(dir), 0);
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
static void own_handler(int sig, siginfo_t *info, void *context)
{
    (void)sig, (void)info, (void)context;
}
Test(output, a_set_leaves_ignored_and_handled_signals_alone) {
    char *dir = make_temp_dir(), message[1024] = "";
    struct sigaction ignore, handle, now;
    memset(&ignore, 0, sizeof ignore);
    memset(&handle, 0, sizeof handle);
    ignore.sa_handler = SIG_IGN;
    handle.sa_sigaction = own_handler;
    handle.sa_flags = SA_SIGINFO;
    cr_assert_eq(sigaction(SIGUSR1, &ignore, NULL), 0);
    cr_assert_eq(sigaction(SIGUSR2, &handle, NULL), 0);
    const char *const one[] = {"a.npy"};
    cr_assert_eq(mha_output_begin(dir, 1, one, message, sizeof message), MHA_OK, "%s",
                 message);
    cr_assert_eq(sigaction(SIGUSR1, NULL, &now), 0);
    cr_expect(now.sa_handler == SIG_IGN, "an ignored SIGUSR1 is no longer ignored");
    cr_assert_eq(sigaction(SIGUSR2, NULL, &now), 0);
    cr_expect((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == own_handler,
              "the program's own SIGUSR2 handler was replaced");
    mha_output_end();
    remove_dir(dir);
}
/* <<[[test_output.c]] tests>> */
Test(output, a_directory_name_too_long_for_the_outputs_is_refused) {
    char *dir = make_case(), spelt[MHA_PATH_SIZE];
    size_t n = (size_t)snprintf(spelt, sizeof spelt, "%s", dir);
    while (n + 64 < MHA_PATH_SIZE)
        n += (size_t)snprintf(spelt + n, sizeof spelt - n, "/.");
    struct cli_result r = run_mha("forward", spelt, "--heads", "2", NULL);
    expect_one_mha_line(&r, "directory name too long");
    free_result(&r);
    cr_expect(!exists(dir, "out.npy"), "a refused run wrote out.npy");
    remove_dir(dir);
}
