/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layer_files.h"
#include "output.h"

static struct {
    char dir[MHA_PATH_SIZE];
    char final[MHA_OUTPUT_MAX][MHA_PATH_SIZE];
    const char *name[MHA_OUTPUT_MAX];
    int n, lock, open;
} set = {.lock = -1};
static char temporary_path[MHA_OUTPUT_MAX][MHA_PATH_SIZE];
static volatile sig_atomic_t temporaries, renaming, pending_signal, catching;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction previous_action[3];
static void catch_signals(void);
static mha_status lock_directory(const char *dir, char *message, size_t size);
static mha_status refuse_special(const char *path, char *message, size_t size);
static int join(char path[MHA_PATH_SIZE], const char *dir, const char *name)
{
    const int n = snprintf(path, MHA_PATH_SIZE, "%s/%s", dir, name);
    return n >= 0 && n < MHA_PATH_SIZE;
}

mha_status mha_output_begin(const char *dir, int n, const char *const names[],
                            char *message, size_t size)
{
    if (set.open)
        return mha_fail(MHA_ERR_ARG, message, size,
                        "%s: another set of outputs is being written", dir);
    if (n < 1 || n > MHA_OUTPUT_MAX)
        return mha_fail(MHA_ERR_ARG, message, size,
                        "%s: cannot write %d files at once (1 to %d)", dir, n, MHA_OUTPUT_MAX);
    if (!join(set.dir, dir, "."))
        return mha_fail(MHA_ERR_ARG, message, size, "%s: directory name too long", dir);
    snprintf(set.dir, sizeof set.dir, "%s", dir);
    for (int i = 0; i < n; i++) {
        if (!join(set.final[i], dir, names[i]))
            return mha_fail(MHA_ERR_ARG, message, size, "%s: directory name too long", dir);
        set.name[i] = names[i];
    }
    for (int i = 0; i < n; i++) {
        const mha_status refused = refuse_special(set.final[i], message, size);
        if (refused != MHA_OK)
            return refused;
    }
    if (n > 1) {
        const mha_status locked = lock_directory(dir, message, size);
        if (locked != MHA_OK)
            return locked;
    }
    set.n = n;
    set.open = 1;
    catch_signals();
    return MHA_OK;
}
static mha_status refuse_special(const char *path, char *message, size_t size)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s; no output was replaced", path,
                        S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
    return MHA_OK;
}
mha_status mha_output_commit(char *message, size_t size)
{
    if (!set.open || temporaries != set.n)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: %d of %d outputs were written",
                        set.dir, (int)temporaries, set.n);
    mha_status status = MHA_OK;
    renaming = 1;
    for (int i = set.n - 1; status == MHA_OK && i >= 0; i--)
        if (rename(temporary_path[i], set.final[i]) != 0)
            status = mha_fail(MHA_ERR_IO, message, size, "%s: cannot replace: %s",
                              set.final[i], strerror(errno));
    if (status == MHA_OK)
        temporaries = 0;
    renaming = 0;
    return status;
}
int mha_output_next(char *message, size_t size)
{
    const int slot = temporaries;
    if (!set.open || slot >= set.n) {
        mha_fail(MHA_ERR_ARG, message, size, "%s: no output is left to write", set.dir);
        return -1;
    }
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
        char base[MHA_PATH_SIZE];
        snprintf(base, sizeof base, ".%s.%ld.%u.tmp", set.name[slot], (long)getpid(), attempt);
        if (!join(temporary_path[slot], set.dir, base)) {
            mha_fail(MHA_ERR_ARG, message, size, "%s: directory name too long", set.dir);
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
        mha_fail(MHA_ERR_IO, message, size, "%s: cannot create a temporary file: %s",
                 set.final[slot], strerror(errno));
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

void mha_output_end(void)
{
    if (!set.open)
        return;
    for (sig_atomic_t i = 0; i < temporaries; i++)
        unlink(temporary_path[i]);
    temporaries = 0;
    if (set.lock >= 0)
        close(set.lock);                           /* releases the lock */
    set.lock = -1;
    set.open = 0;
    if (!catching)
        return;
    catching = 0;
    for (int i = 0; i < 3; i++)
        sigaction(cleanup_signals[i], &previous_action[i], NULL);
    if (pending_signal != 0)
        raise(pending_signal);
}
static mha_status lock_directory(const char *dir, char *message, size_t size)
{
    char path[MHA_PATH_SIZE];
    if (!join(path, dir, ".mha.lock"))
        return mha_fail(MHA_ERR_ARG, message, size, "%s: directory name too long", dir);
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int locked = fd >= 0 ? fcntl(fd, F_SETLKW, &whole) : -1;
    while (locked != 0 && fd >= 0 && errno == EINTR)
        locked = fcntl(fd, F_SETLKW, &whole);
    if (locked != 0) {
        const int error = errno;
        if (fd >= 0)
            close(fd);
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot lock: %s", path,
                        strerror(error));
    }
    set.lock = fd;
    return MHA_OK;
}
static mha_status split(const char *path, char dir[MHA_PATH_SIZE], const char **name,
                        char *message, size_t size)
{
    const char *slash = strrchr(path, '/');
    const int length = slash == NULL || slash == path ? 1 : (int)(slash - path);
    *name = slash != NULL ? slash + 1 : path;
    if (**name == '\0' || snprintf(dir, MHA_PATH_SIZE, "%.*s", length,
                                   slash == NULL ? "." : path) >= MHA_PATH_SIZE)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: not a file name", path);
    return MHA_OK;
}

mha_status mha_output_file(const char *path, mha_output_writer writer, void *context,
                           char *message, size_t size)
{
    char dir[MHA_PATH_SIZE];
    const char *name;
    mha_status status = split(path, dir, &name, message, size);
    const char *names[1] = {name};
    if (status == MHA_OK)
        status = mha_output_begin(dir, 1, names, message, size);
    const int fd = status == MHA_OK ? mha_output_next(message, size) : -1;
    FILE *file = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (status == MHA_OK && file == NULL) {
        if (fd >= 0)
            close(fd);
        status = fd >= 0 ? mha_fail(MHA_ERR_IO, message, size, "%s: %s", path, strerror(errno))
                         : MHA_ERR_IO;
    }
    if (file != NULL) {
        errno = 0;
        int failed = writer(file, context) != 0, error = failed ? errno : 0;
        if ((fflush(file) != 0 || ferror(file) || fsync(fileno(file)) != 0) && !failed)
            failed = 1, error = errno;
        if (fclose(file) != 0 && !failed)
            failed = 1, error = errno;
        if (failed)
            status = mha_fail(MHA_ERR_IO, message, size, "%s: cannot write: %s", path,
                              strerror(error != 0 ? error : EIO));
    }
    if (status == MHA_OK)
        status = mha_output_commit(message, size);
    mha_output_end();
    return status;
}
mha_status mha_output_check(const char *path, char *message, size_t size)
{
    char dir[MHA_PATH_SIZE];
    const char *name;
    mha_status status = split(path, dir, &name, message, size);
    if (status == MHA_OK)
        status = refuse_special(path, message, size);
    struct stat st;
    if (status == MHA_OK && stat(dir, &st) != 0)
        status = mha_fail(MHA_ERR_IO, message, size, "%s: %s", dir, strerror(errno));
    else if (status == MHA_OK && !S_ISDIR(st.st_mode))
        status = mha_fail(MHA_ERR_IO, message, size, "%s: not a directory", dir);
    else if (status == MHA_OK && access(dir, W_OK | X_OK) != 0)
        status = mha_fail(MHA_ERR_IO, message, size, "%s: cannot write there: %s", dir,
                          strerror(errno));
    return status;
}
