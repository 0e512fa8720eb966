/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layer_dir.h"

static char temporary_path[MAX_OUTPUT_FILES][MHA_PATH_SIZE];
static volatile sig_atomic_t temporaries, renaming, pending_signal, catching;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction previous_action[3];
static void catch_signals(void);
static int lock_directory(const char *dir, FILE *err);
int parse_forward_options(int argc, char **argv, struct forward_options *o, FILE *err)
{
    memset(o, 0, sizeof *o);
    o->impl = &mha_impls[0];
    o->want_weights = 1;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int matched;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = 1;
            return MHA_EXIT_OK;
        } else if (strcmp(argv[i], "--causal") == 0) {
            o->causal = 1;
        } else if (strcmp(argv[i], "--no-weights") == 0) {
            o->want_weights = 0;
        } else if ((matched = mha_option_value(argc, argv, &i, "--heads", &value, err)) != 0) {
            if (matched < 0 || mha_parse_size("--heads", value, &o->heads, err) != 0)
                return MHA_EXIT_USAGE;
        } else if ((matched = mha_option_value(argc, argv, &i, "--impl", &value, err)) != 0) {
            if (matched < 0)
                return MHA_EXIT_USAGE;
            o->impl = mha_impl_find(value);
            if (o->impl == NULL) {
                char known[256];
                size_t used = 0;
                known[0] = '\0';
                for (size_t k = 0; k < mha_impl_count && used < sizeof known; k++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                             k ? ", " : "", mha_impls[k].name);
                mha_cli_error(err, "--impl: unknown implementation '%s' (known: %s)", value, known);
                return MHA_EXIT_USAGE;
            }
        } else if (argv[i][0] == '-') {
            mha_cli_error(err, "%s: unknown option '%s' (try 'mha %s --help')", argv[0], argv[i],
                          argv[0]);
            return MHA_EXIT_USAGE;
        } else if (o->dir != NULL) {
            mha_cli_error(err, "%s: '%s': only one directory, please (already have '%s')",
                          argv[0], argv[i], o->dir);
            return MHA_EXIT_USAGE;
        } else {
            o->dir = argv[i];
        }
    }
    if (o->dir == NULL) {
        mha_cli_error(err, "%s: no directory given (try 'mha %s --help')", argv[0], argv[0]);
        return MHA_EXIT_USAGE;
    }
    if (o->heads == 0) {
        mha_cli_error(err, "--heads: required (the number of heads, a divisor of E)");
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
/* The exit status for a loader's status: a head count that does not divide
   E is the command line's fault, anything else the directory's. */
static int report(mha_status status, const char *message, FILE *err)
{
    if (status == MHA_OK)
        return MHA_EXIT_OK;
    mha_cli_error(err, "%s", message);
    return status == MHA_ERR_HEADS ? MHA_EXIT_USAGE : MHA_EXIT_FAILURE;
}

int join_path(char path[MHA_PATH_SIZE], const char *dir, const char *name)
{
    int n = snprintf(path, MHA_PATH_SIZE, "%s/%s", dir, name);
    return n >= 0 && n < MHA_PATH_SIZE;
}

int load_input(const char *dir, const char *name, int required, int kinds,
               mha_npy *array, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read(dir, name, required, kinds, array, message, sizeof message),
                  message, err);
}

int check_shape(const char *dir, const char *name, const mha_npy *array,
                size_t rank, const mha_axis *axes, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_check_shape(dir, name, array, rank, axes, message, sizeof message),
                  message, err);
}

int load_checked(const char *dir, const char *name, int required, int kinds,
                 mha_npy *array, size_t rank, const mha_axis *axes, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_checked(dir, name, required, kinds, array, rank, axes,
                                         message, sizeof message), message, err);
}

int load_projections(const char *dir, const char *rows_letters, size_t rows, size_t E,
                     mha_layer_files *in, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_projections(dir, rows_letters, rows, E, in,
                                             message, sizeof message), message, err);
}

int load_query(const char *dir, mha_layer_files *in, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_query(dir, in, message, sizeof message), message, err);
}

int load_forward_inputs(const struct forward_options *o, mha_layer_files *in,
                        mha_shape *shape, FILE *err)
{
    char message[MHA_PATH_SIZE + 512];
    return report(mha_layer_read_forward(o->dir, o->heads, in, shape, message, sizeof message),
                  message, err);
}
/* Write files[0..n-1] into dir, all or nothing; files[0] is renamed last. */
int write_files(const char *dir, int n, const struct output_file *files, FILE *err)
{
    char final[MAX_OUTPUT_FILES][MHA_PATH_SIZE];
    if (n < 0 || n > MAX_OUTPUT_FILES) {
        mha_cli_error(err, "%s: cannot write %d files at once (at most %d)", dir, n,
                      MAX_OUTPUT_FILES);
        return MHA_EXIT_FAILURE;
    }
    for (int i = 0; i < n; i++)
        join_path(final[i], dir, files[i].name);
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (lstat(final[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            mha_cli_error(err, "%s: is a directory; no output was replaced", final[i]);
            return MHA_EXIT_FAILURE;
        }
    }
    const int lock = lock_directory(dir, err);
    if (lock < 0)
        return MHA_EXIT_FAILURE;
    int status = MHA_EXIT_OK;
    for (int i = 0; status == MHA_EXIT_OK && i < n; i++) {
        char message[256];
        const int fd = open_temporary(dir, files[i].name, err);
        if (fd < 0)
            status = MHA_EXIT_FAILURE;
        else if (mha_npy_write_fd(fd, files[i].data, files[i].rank, files[i].shape,
                                  message, sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s: %s", final[i], message);
            status = MHA_EXIT_FAILURE;
        }
    }
    if (status == MHA_EXIT_OK) {
        renaming = 1;
        for (int i = n - 1; status == MHA_EXIT_OK && i >= 0; i--)
            if (rename(temporary_path[i], final[i]) != 0) {
                mha_cli_error(err, "%s: cannot replace: %s", final[i], strerror(errno));
                status = MHA_EXIT_FAILURE;
            }
        if (status == MHA_EXIT_OK)
            temporaries = 0;
        renaming = 0;
    }
    remove_temporaries();
    close(lock);                                   /* releases the lock */
    return status;
}
int open_temporary(const char *dir, const char *name, FILE *err)
{
    const int slot = temporaries;
    if (slot >= MAX_OUTPUT_FILES) {
        mha_cli_error(err, "%s: too many temporary files at once", dir);
        return -1;
    }
    if (!catching)
        catch_signals();
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
        char base[MHA_PATH_SIZE];
        snprintf(base, sizeof base, ".%s.%ld.%u.tmp", name, (long)getpid(), attempt);
        if (!join_path(temporary_path[slot], dir, base)) {
            mha_cli_error(err, "%s: directory name too long", dir);
            return -1;
        }
        temporaries = slot + 1;
        fd = open(temporary_path[slot], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0666);
        if (fd < 0)
            temporaries = slot;
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        mha_cli_error(err, "%s/%s: cannot create a temporary file: %s", dir, name,
                      strerror(errno));
    return fd;
}
static void remove_temporaries_and_die(int sig)
{
    if (renaming) {
        pending_signal = sig;
        return;
    }
    for (sig_atomic_t i = 0; i < temporaries; i++)
        unlink(temporary_path[i]);
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(sig, &fallback, NULL);
    raise(sig);
}

static void catch_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = remove_temporaries_and_die;
    sigfillset(&action.sa_mask);
    pending_signal = 0;
    for (int i = 0; i < 3; i++)
        sigaction(cleanup_signals[i], &action, &previous_action[i]);
    catching = 1;
}

void remove_temporaries(void)
{
    for (sig_atomic_t i = 0; i < temporaries; i++)
        unlink(temporary_path[i]);
    temporaries = 0;
    if (!catching)
        return;
    catching = 0;
    for (int i = 0; i < 3; i++)
        sigaction(cleanup_signals[i], &previous_action[i], NULL);
    if (pending_signal != 0)
        raise(pending_signal);
}
static int lock_directory(const char *dir, FILE *err)
{
    char path[MHA_PATH_SIZE];
    if (!join_path(path, dir, ".mha.lock")) {
        mha_cli_error(err, "%s: directory name too long", dir);
        return -1;
    }
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int locked = fd >= 0 ? fcntl(fd, F_SETLKW, &whole) : -1;
    while (locked != 0 && fd >= 0 && errno == EINTR)
        locked = fcntl(fd, F_SETLKW, &whole);
    if (locked != 0) {
        mha_cli_error(err, "%s: cannot lock: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}
int write_outputs(const char *dir, const char *label, int want_weights,
                  const mha_shape *shape, const float *output,
                  const float *weights, FILE *out, FILE *err)
{
    const size_t output_shape[3] = {shape->batch, shape->query_len, shape->embed_dim};
    const size_t weight_shape[4] = {shape->batch, shape->heads, shape->query_len,
                                    shape->key_len};
    const struct output_file files[2] = {{"out.npy", output, 3, output_shape},
                                         {"attn_weights.npy", weights, 4, weight_shape}};
    const int n = want_weights ? 2 : 1;
    int status = write_files(dir, n, files, err);
    if (status == MHA_EXIT_OK) {
        char text[2][128];
        mha_npy_shape_text(text[0], sizeof text[0], 3, output_shape);
        mha_npy_shape_text(text[1], sizeof text[1], 4, weight_shape);
        fprintf(out, "mha %s: wrote %s/out.npy %s", label, dir, text[0]);
        if (n == 2)
            fprintf(out, " and %s/attn_weights.npy %s", dir, text[1]);
        fputc('\n', out);
    }
    return status;
}
int check_directory(const char *dir, FILE *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        mha_cli_error(err, "%s: %s", dir, strerror(errno));
        return MHA_EXIT_FAILURE;
    }
    if (!S_ISDIR(st.st_mode)) {
        mha_cli_error(err, "%s: not a directory", dir);
        return MHA_EXIT_FAILURE;
    }
    if (strlen(dir) + 64 >= MHA_PATH_SIZE) {
        mha_cli_error(err, "%s: directory name too long", dir);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
