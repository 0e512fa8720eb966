/* generated from chapters/23-writing-results.nw; edit the book, not this file */
#define _DEFAULT_SOURCE            /* flock */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "layer_files.h"
#include "output.h"

/* <<[[output.c]] data>> */
enum { PLACES_MAX = 4, ADDED_MAX = 8, UNLOCKED = -1, HELD = -2 };
struct slot {
    char *final, *temporary, *backup;   /* one allocation; final's last part is name */
    const char *name;
    int place, kept;                    /* kept: backup holds the old file */
};
static struct {
    struct slot *slot;
    int n, named, capacity, places, open;
    struct { char path[MHA_PATH_SIZE]; dev_t dev; ino_t ino; int lock; } place[PLACES_MAX];
    const char *const *own;
} set;
static volatile sig_atomic_t temporaries, renaming, pending_signal;
/* <<[[output.c]] data>> */
static double wait_seconds = MHA_OUTPUT_WAIT;
static mha_output_notice wait_notice;
static void *wait_context;
/* <<[[output.c]] data>> */
static struct { dev_t dev; ino_t ino; int fd; } held[MHA_OUTPUT_HOLDS];
static int holds;
/* <<[[output.c]] data>> */
static const int cleanup_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM,
                                      SIGUSR1, SIGUSR2, SIGPIPE, SIGXCPU};
enum { CLEANUP_SIGNALS = sizeof cleanup_signals / sizeof cleanup_signals[0] };
static struct sigaction previous_action[CLEANUP_SIGNALS], previous_xfsz;
static int caught[CLEANUP_SIGNALS];
/* <<[[output.c]] data>> */
enum { MADE_MAX = 4 };
static char made[MADE_MAX][MHA_PATH_SIZE];
static volatile sig_atomic_t made_count, committed;
static void catch_signals(void);
static void remove_made(void);
static mha_status refuse_special(const char *path, char *message, size_t size);
static mha_status check_roles(char *message, size_t size);
/* <<[[output.c]] functions>> */
static mha_status add_slot(const char *dir, const char *name, int check, char *message,
                           size_t size)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mha_fail(MHA_ERR_IO, message, size, "%s: not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot write there: %s", dir,
                        strerror(errno));
    int p = 0;
    while (p < set.places && !(set.place[p].dev == st.st_dev && set.place[p].ino == st.st_ino))
        p++;
    const size_t room = strlen(dir) + strlen(name) + 48;
    if (p == PLACES_MAX || set.n == set.capacity || room > MHA_PATH_SIZE)
        return mha_fail(MHA_ERR_ARG, message, size, "%s/%s: too many outputs, or too long a name",
                        dir, name);
    if (*name == '\0' || strchr(name, '/') != NULL)
        return mha_fail(MHA_ERR_ARG, message, size, "%s/%s: not a file name", dir, name);
    for (int i = 0; check && i < set.n; i++)
        if (set.slot[i].place == p && strcmp(set.slot[i].name, name) == 0)
            return mha_fail(MHA_ERR_ARG, message, size,
                            "%s/%s: named twice in one set of outputs; no output was replaced",
                            dir, name);
    char *memory = malloc(3 * room);
    if (memory == NULL)
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s/%s: out of memory", dir, name);
    if (p == set.places) {
        snprintf(set.place[p].path, MHA_PATH_SIZE, "%s", dir);
        set.place[p].dev = st.st_dev, set.place[p].ino = st.st_ino;
        set.place[p].lock = UNLOCKED;
        set.places++;
    }
    struct slot *s = &set.slot[set.n++];
    *s = (struct slot){memory, memory + room, memory + 2 * room, NULL, p, 0};
    (void)mha_join_path(s->final, room, dir, name);
    s->name = s->final + strlen(dir) + 1;
    s->temporary[0] = s->backup[0] = '\0';
    return refuse_special(s->final, message, size);
}
/* <<[[output.c]] functions>> */
static void free_set(void)
{
    for (int i = 0; i < set.n; i++)
        free(set.slot[i].final);
    free(set.slot);
    for (int p = 0; p < set.places; p++)
        if (set.place[p].lock >= 0)
            close(set.place[p].lock);                      /* releases the lock */
    set.slot = NULL, set.n = set.named = set.capacity = set.places = set.open = 0;
    set.own = NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **sorted_names(int n)              /* of slots 0..n-1, all in place 0 */
{
    const char **sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    for (int i = 0; sorted != NULL && i < n; i++)
        sorted[i] = set.slot[i].name;
    if (sorted != NULL)
        qsort(sorted, (size_t)n, sizeof *sorted, by_name);
    return sorted;
}

mha_status mha_output_begin(const char *dir, int n, const char *const names[],
                            char *message, size_t size)
{
    if (set.open)
        return mha_fail(MHA_ERR_ARG, message, size,
                        "%s: another set of outputs is being written", dir);
    if (n < 0 || n > MHA_OUTPUT_MAX)
        return mha_fail(MHA_ERR_ARG, message, size,
                        "%s: cannot write %d files at once (0 to %d)", dir, n, MHA_OUTPUT_MAX);
    set.slot = calloc((size_t)n + ADDED_MAX, sizeof *set.slot);
    if (set.slot == NULL)
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", dir);
    set.capacity = n + ADDED_MAX;
    mha_status status = MHA_OK;
    for (int i = 0; status == MHA_OK && i < n; i++)
        status = add_slot(dir, names[i], 0, message, size);
    const char **sorted = status == MHA_OK ? sorted_names(n) : NULL;
    if (status == MHA_OK && sorted == NULL && n > 0)
        status = mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", dir);
    for (int i = 1; status == MHA_OK && i < n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0)
            status = mha_fail(MHA_ERR_ARG, message, size, "%s/%s: named twice in one set of "
                              "outputs; no output was replaced", dir, sorted[i]);
    free(sorted);
    if (status != MHA_OK) {
        free_set();
        return status;
    }
    set.named = n;
    set.open = 1;
    catch_signals();
    return MHA_OK;
}

mha_status mha_output_add(const char *path, char *message, size_t size)
{
    char dir[MHA_PATH_SIZE];
    const char *slash = strrchr(path, '/');
    const int length = slash == NULL || slash == path ? 1 : (int)(slash - path);
    if (!set.open || temporaries != 0)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: no set of outputs is being begun", path);
    if (snprintf(dir, sizeof dir, "%.*s", length, slash == NULL ? "." : path) >= MHA_PATH_SIZE)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: not a file name", path);
    const mha_status status = add_slot(dir, slash != NULL ? slash + 1 : path, 1, message, size);
    return status == MHA_OK ? check_roles(message, size) : status;
}
/* <<[[output.c]] functions>> */
static mha_status refuse_special(const char *path, char *message, size_t size)
{
    struct stat st, target;
    if (lstat(path, &st) != 0)
        return MHA_OK;
    if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode))
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s; no output was replaced", path,
                        S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
    if (!S_ISLNK(st.st_mode) || stat(path, &target) != 0)
        return MHA_OK;                                  /* a file, or a dangling link */
    if (!S_ISREG(target.st_mode))
        return mha_fail(MHA_ERR_IO, message, size,
                        "%s: a link to %s, not a regular file; no output was replaced", path,
                        S_ISDIR(target.st_mode) ? "a directory" : "a device, a pipe or a socket");
    for (int fd = 0; fd < 3; fd++) {
        struct stat stream;
        if (fstat(fd, &stream) == 0 && stream.st_dev == target.st_dev &&
            stream.st_ino == target.st_ino)
            return mha_fail(MHA_ERR_IO, message, size,
                            "%s: a link to the standard %s; no output was replaced", path,
                            fd == 0 ? "input" : fd == 1 ? "output" : "error");
    }
    return MHA_OK;
}
/* <<[[output.c]] functions>> */
static int owned(const char *name)
{
    for (int k = 0; set.own != NULL && set.own[k] != NULL; k++) {
        const char *p = set.own[k], *c = name;
        for (; *p != '\0'; p++, c++) {
            if (*p == '#') {
                if (*c < '0' || *c > '9')
                    break;
                while (c[1] >= '0' && c[1] <= '9')
                    c++;
            } else if (*p != *c)
                break;
        }
        if (*p == '\0' && *c == '\0')
            return 1;
    }
    return 0;
}

static mha_status check_roles(char *message, size_t size)
{
    for (int i = set.named; i < set.n; i++)
        if (set.slot[i].place == 0 && owned(set.slot[i].name))
            return mha_fail(MHA_ERR_ARG, message, size, "%s: a name that the outputs in %s "
                            "own; no output was replaced", set.slot[i].final, set.place[0].path);
    return MHA_OK;
}

mha_status mha_output_own(const char *const patterns[], char *message, size_t size)
{
    if (!set.open || temporaries != 0)
        return mha_fail(MHA_ERR_ARG, message, size, "no set of outputs is being begun");
    set.own = patterns;
    DIR *d = opendir(set.place[0].path);
    if (d == NULL)
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s", set.place[0].path, strerror(errno));
    mha_status status = MHA_OK;
    for (struct dirent *e; status == MHA_OK && (e = readdir(d)) != NULL;) {
        char path[MHA_PATH_SIZE];
        if (owned(e->d_name) && mha_join_path(path, sizeof path, set.place[0].path, e->d_name))
            status = refuse_special(path, message, size);
    }
    closedir(d);
    return status == MHA_OK ? check_roles(message, size) : status;
}
/* <<[[output.c]] functions>> */
int mha_output_next(char *message, size_t size)
{
    const int i = temporaries;
    if (!set.open || i >= set.n) {
        mha_fail(MHA_ERR_ARG, message, size, "no output is left to write");
        return -1;
    }
    struct slot *s = &set.slot[i];
    const size_t room = (size_t)(s->temporary - s->final);
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(s->temporary, room, "%s/.%s.%ld.%u.tmp", set.place[s->place].path, s->name,
                 (long)getpid(), attempt);
        temporaries = i + 1;
        fd = open(s->temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            temporaries = i;
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        mha_fail(MHA_ERR_IO, message, size, "%s: cannot create a temporary file: %s",
                 s->final, strerror(errno));
    return fd;
}
/* <<[[output.c]] functions>> */
mha_status mha_output_stream(mha_output_writer writer, void *context,
                             char *message, size_t size)
{
    const int fd = mha_output_next(message, size);
    if (fd < 0)
        return MHA_ERR_IO;
    const char *path = set.slot[temporaries - 1].final;
    FILE *file = fdopen(fd, "wb");
    if (file == NULL) {
        const int error = errno;
        close(fd);
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s", path, strerror(error));
    }
    errno = 0;
    int failed = writer(file, context) != 0, error = failed ? errno : 0;
    if ((fflush(file) != 0 || ferror(file) || fsync(fileno(file)) != 0) && !failed)
        failed = 1, error = errno;
    if (fclose(file) != 0 && !failed)
        failed = 1, error = errno;
    if (failed)
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot write: %s", path,
                        strerror(error != 0 ? error : EIO));
    return MHA_OK;
}
/* <<[[output.c]] functions>> */
void mha_output_wait(double seconds, mha_output_notice notice, void *context)
{
    wait_seconds = seconds >= 0 ? seconds : MHA_OUTPUT_WAIT;
    wait_notice = notice;
    wait_context = context;
}

static mha_status lock_place(int p, char *message, size_t size)
{
    const char *dir = set.place[p].path;
    for (int h = 0; h < holds; h++)
        if (held[h].dev == set.place[p].dev && held[h].ino == set.place[p].ino) {
            set.place[p].lock = HELD;                  /* this run's own, for its whole run */
            return MHA_OK;
        }
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot lock: %s", dir, strerror(errno));
    set.place[p].lock = fd;
    const double deadline = mha_seconds() + wait_seconds;
    int noticed = 0;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            return mha_fail(MHA_ERR_IO, message, size, "%s: cannot lock: %s", dir,
                            strerror(errno));
        if (mha_seconds() >= deadline)
            return mha_fail(MHA_ERR_IO, message, size, "%s: another run kept it locked for "
                            "%g s; no output was replaced", dir, wait_seconds);
        if (!noticed && wait_notice != NULL)
            wait_notice(dir, wait_seconds, wait_context);
        noticed = 1;
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    return MHA_OK;
}

static mha_status lock_places(char *message, size_t size)
{
    mha_status status = MHA_OK;
    for (int locked = 0; status == MHA_OK && locked < set.places; locked++) {
        int next = -1;
        for (int p = 0; p < set.places; p++)
            if (set.place[p].lock == UNLOCKED &&
                (next < 0 || set.place[p].ino < set.place[next].ino))
                next = p;
        status = lock_place(next, message, size);
    }
    return status;
}
/* <<[[output.c]] functions>> */
mha_status mha_output_hold(const char *dir, char *message, size_t size)
{
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno == ENOENT)
        return MHA_OK;                                  /* held once it is made */
    if (fd < 0 || fstat(fd, &st) != 0) {
        const int error = errno;
        if (fd >= 0)
            close(fd);
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot lock: %s", dir, strerror(error));
    }
    for (int h = 0; h < holds; h++)
        if (held[h].dev == st.st_dev && held[h].ino == st.st_ino) {
            close(fd);
            return MHA_OK;
        }
    if (holds == MHA_OUTPUT_HOLDS) {
        close(fd);
        return mha_fail(MHA_ERR_ARG, message, size, "%s: more than %d folders held by one run",
                        dir, MHA_OUTPUT_HOLDS);
    }
    const double deadline = mha_seconds() + 1;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        if ((error != EWOULDBLOCK && error != EINTR) || mha_seconds() >= deadline) {
            close(fd);
            return error == EWOULDBLOCK || error == EINTR
                 ? mha_fail(MHA_ERR_IO, message, size, "%s: another run is writing in it; "
                            "wait for it to end, or choose another folder", dir)
                 : mha_fail(MHA_ERR_IO, message, size, "%s: cannot lock: %s", dir,
                            strerror(error));
        }
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    held[holds].dev = st.st_dev, held[holds].ino = st.st_ino, held[holds].fd = fd;
    holds++;
    return MHA_OK;
}

void mha_output_release(void)
{
    while (holds > 0)
        close(held[--holds].fd);                          /* releases the lock */
}
/* <<[[output.c]] functions>> */
static mha_status find_removals(char *message, size_t size)
{
    DIR *d = set.own != NULL ? opendir(set.place[0].path) : NULL;
    if (set.own != NULL && d == NULL)
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s", set.place[0].path, strerror(errno));
    const int n = set.n;
    const char **sorted = d != NULL ? sorted_names(set.named) : NULL;
    mha_status status = d == NULL || sorted != NULL ? MHA_OK
                      : mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory",
                                 set.place[0].path);
    for (struct dirent *e; d != NULL && status == MHA_OK && (e = readdir(d)) != NULL;) {
        const char *name = e->d_name;
        int written = bsearch(&name, sorted, (size_t)set.named, sizeof *sorted, by_name) != NULL;
        for (int i = set.named; i < n && !written; i++)
            written = set.slot[i].place == 0 && strcmp(set.slot[i].name, name) == 0;
        if (!written && owned(name)) {
            if (set.n == set.capacity) {
                struct slot *more = realloc(set.slot, 2 * (size_t)set.capacity * sizeof *more);
                if (more == NULL)
                    status = mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory",
                                      set.place[0].path);
                else
                    set.slot = more, set.capacity *= 2;
            }
            if (status == MHA_OK)
                status = add_slot(set.place[0].path, name, 0, message, size);
        }
    }
    free(sorted);
    if (d != NULL)
        closedir(d);
    return status;
}
/* <<[[output.c]] functions>> */
static mha_status keep_old(struct slot *s, char *message, size_t size)
{
    struct stat st;
    if (lstat(s->final, &st) != 0)
        return MHA_OK;                                      /* nothing to keep */
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return refuse_special(s->final, message, size);
    const size_t room = (size_t)(s->temporary - s->final);
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        snprintf(s->backup, room, "%s/.%s.%ld.%u.old", set.place[s->place].path, s->name,
                 (long)getpid(), attempt);
        if (linkat(AT_FDCWD, s->final, AT_FDCWD, s->backup, 0) == 0) {
            s->kept = 1;
            return MHA_OK;
        }
        if (errno != EEXIST)
            break;
    }
    return mha_fail(MHA_ERR_IO, message, size, "%s: cannot keep the old file while it is "
                    "replaced: %s; no output was replaced", s->final, strerror(errno));
}

static mha_status operate(const struct slot *s, char *message, size_t size)
{
    const int removal = s->temporary[0] == '\0';
    if (removal ? unlink(s->final) == 0 || errno == ENOENT
                : rename(s->temporary, s->final) == 0)
        return MHA_OK;
    return mha_fail(MHA_ERR_IO, message, size, "%s: cannot %s: %s; no output was replaced",
                    s->final, removal ? "remove" : "replace", strerror(errno));
}
/* <<[[output.c]] functions>> */
static void undo(struct slot *const order[], int done, char *message, size_t size)
{
    for (int k = done - 1; k >= 0; k--) {
        struct slot *s = order[k];
        if (s->kept ? rename(s->backup, s->final) == 0 : unlink(s->final) == 0) {
            s->kept = 0;
            continue;
        }
        const size_t used = strlen(message);
        if (s->kept && used < size)
            snprintf(message + used, size - used, "; the old %s is kept as %s", s->name,
                     s->backup);
        s->kept = 0;                                        /* leave the backup */
    }
}
/* <<[[output.c]] functions>> */
mha_status mha_output_commit(char *message, size_t size)
{
    if (!set.open || set.n == 0 || temporaries != set.n)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: %d of %d outputs were written",
                        set.open ? set.place[0].path : "?", (int)temporaries, set.n);
    mha_status status = lock_places(message, size);
    if (status != MHA_OK)
        return status;
    renaming = 1;
    const int written = set.n;
    status = find_removals(message, size);
    const int total = set.n;
    struct slot **order = status == MHA_OK ? malloc((size_t)total * sizeof *order) : NULL;
    if (status == MHA_OK && order == NULL)
        status = mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", set.place[0].path);
    int k = 0, done = 0;
    if (order != NULL) {
        for (int i = written - 1; i >= 1; i--)
            order[k++] = &set.slot[i];
        for (int i = written; i < total; i++)
            order[k++] = &set.slot[i];
        order[k++] = &set.slot[0];
        for (int i = 0; status == MHA_OK && i < total - 1; i++)
            status = keep_old(order[i], message, size);
        while (status == MHA_OK && done < total)
            if ((status = operate(order[done], message, size)) == MHA_OK)
                done++;
        if (status != MHA_OK)
            undo(order, done, message, size);
        for (int i = 0; i < total; i++)
            if (order[i]->kept)
                unlink(order[i]->backup);
    }
    free(order);
    if (status == MHA_OK)
        temporaries = 0, committed = 1;
    renaming = 0;
    return status;
}
/* <<[[output.c]] functions>> */
int mha_output_abandon(int sig)
{
    if (renaming) {
        pending_signal = sig;
        return 0;
    }
    for (sig_atomic_t i = 0; i < temporaries; i++)
        unlink(set.slot[i].temporary);
    temporaries = 0;
    remove_made();
    return 1;
}

static void remove_temporaries_and_die(int sig)
{
    if (!mha_output_abandon(sig))
        return;
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(sig, &fallback, NULL);
    raise(sig);
}

static void catch_signals(void)
{
    struct sigaction action, ignore;
    memset(&action, 0, sizeof action);
    memset(&ignore, 0, sizeof ignore);
    action.sa_handler = remove_temporaries_and_die;
    sigfillset(&action.sa_mask);
    ignore.sa_handler = SIG_IGN;
    pending_signal = 0;
    for (int i = 0; i < CLEANUP_SIGNALS; i++) {
        sigaction(cleanup_signals[i], NULL, &previous_action[i]);
        caught[i] = !(previous_action[i].sa_flags & SA_SIGINFO) &&
                    previous_action[i].sa_handler == SIG_DFL;
        if (caught[i])
            sigaction(cleanup_signals[i], &action, NULL);
    }
    sigaction(SIGXFSZ, &ignore, &previous_xfsz);
}

void mha_output_end(void)
{
    for (sig_atomic_t i = 0; set.open && i < temporaries; i++)
        unlink(set.slot[i].temporary);
    temporaries = 0;
    if (!committed)
        remove_made();                            /* emptied of the temporaries first */
    made_count = 0, committed = 0;
    if (!set.open)
        return;
    free_set();
    for (int i = 0; i < CLEANUP_SIGNALS; i++)
        if (caught[i])
            sigaction(cleanup_signals[i], &previous_action[i], NULL);
    sigaction(SIGXFSZ, &previous_xfsz, NULL);
    if (pending_signal != 0)
        raise(pending_signal);
}
/* <<[[output.c]] functions>> */
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
    if (status == MHA_OK)
        status = mha_output_stream(writer, context, message, size);
    if (status == MHA_OK)
        status = mha_output_commit(message, size);
    mha_output_end();
    return status;
}
/* <<[[output.c]] functions>> */
mha_status mha_output_check_dir(const char *dir, char *message, size_t size)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mha_fail(MHA_ERR_IO, message, size, "%s: not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot write there: %s", dir,
                        strerror(errno));
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot lock: %s", dir, strerror(errno));
    close(fd);
    return MHA_OK;
}

mha_status mha_output_check(const char *path, char *message, size_t size)
{
    char dir[MHA_PATH_SIZE];
    const char *name;
    mha_status status = split(path, dir, &name, message, size);
    if (status == MHA_OK)
        status = refuse_special(path, message, size);
    return status == MHA_OK ? mha_output_check_dir(dir, message, size) : status;
}
/* <<[[output.c]] functions>> */
static void remove_made(void)
{
    for (sig_atomic_t i = made_count; i > 0; i--)
        rmdir(made[i - 1]);
    made_count = 0;
}
mha_status mha_output_make_dir(const char *dir, char *message, size_t size)
{
    if (temporaries != 0 || made_count == MADE_MAX || strlen(dir) >= MHA_PATH_SIZE)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: cannot make a folder for this set "
                        "of outputs", dir);
    if (mkdir(dir, 0777) != 0)
        return errno == EEXIST ? MHA_OK
               : mha_fail(MHA_ERR_IO, message, size, "%s: cannot make it: %s", dir,
                          strerror(errno));
    snprintf(made[made_count], MHA_PATH_SIZE, "%s", dir);
    made_count++;                                  /* after the name: a handler reads it */
    return MHA_OK;
}
mha_status mha_output_check_new_dir(const char *dir, char *message, size_t size)
{
    struct stat st;
    if (stat(dir, &st) == 0 || errno != ENOENT)
        return mha_output_check_dir(dir, message, size);
    char path[MHA_PATH_SIZE], parent[MHA_PATH_SIZE], why[MHA_PATH_SIZE + 64];
    const char *name;
    size_t length = strlen(dir);
    while (length > 1 && dir[length - 1] == '/')
        length--;
    if (length >= sizeof path)
        return mha_fail(MHA_ERR_ARG, message, size, "%s: name too long", dir);
    memcpy(path, dir, length);
    path[length] = '\0';
    mha_status status = split(path, parent, &name, message, size);
    if (status == MHA_OK && (status = mha_output_check_dir(parent, why, sizeof why)) != MHA_OK)
        mha_fail(status, message, size, "%s: cannot be made: %s", dir, why);
    return status;
}
