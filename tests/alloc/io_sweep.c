/* generated from chapters/25-hardening.nw; edit the book, not this file */
#define _GNU_SOURCE                /* O_TMPFILE */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bpe_files.h"
#include "checkpoint.h"
#include "lm_files.h"
#include "npy.h"
#include "output.h"

/* <<[[io_sweep.c]] the failing system calls>> */
enum fault { NOSPACE_FFLUSH, EIO_FSYNC, EIO_FCLOSE, EIO_RENAME, SHORT_WRITE, NOSPACE_WRITE,
             EINTR_WRITE, NOMEM_FDOPEN, EMFILE_OPEN, EIO_LINKAT, FAULTS,
             SHRINKING_FREAD = FAULTS };                     /* the reader's only */
static const char *const fault_names[FAULTS + 1] = {
    "ENOSPC in fflush", "EIO in fsync", "EIO in fclose", "EIO in rename", "short write",
    "ENOSPC in write", "EINTR in write", "ENOMEM in fdopen", "EMFILE in open",
    "EIO in linkat", "a file shrinking under fread"};
static const int fault_call[FAULTS + 1] = {1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9};  /* the call */
static int fault = -1;   /* the fault injected; -1: none */
static long fail_at, made[10];
static int fail_now(int call)
{
    if (fault < 0 || fault_call[fault] != call)
        return 0;
    return ++made[call] == fail_at;
}
int __real_fflush(FILE *file);
int __real_fsync(int fd);
int __real_fclose(FILE *file);
int __real_rename(const char *from, const char *to);
ssize_t __real_write(int fd, const void *p, size_t n);
int __wrap_fflush(FILE *file);
int __wrap_fsync(int fd);
int __wrap_fclose(FILE *file);
int __wrap_rename(const char *from, const char *to);
ssize_t __wrap_write(int fd, const void *p, size_t n);
int __wrap_fflush(FILE *file)
{
    return fail_now(1) ? (errno = ENOSPC, EOF) : __real_fflush(file);
}
int __wrap_fsync(int fd) { return fail_now(2) ? (errno = EIO, -1) : __real_fsync(fd); }
int __wrap_fclose(FILE *file)
{
    if (!fail_now(3))
        return __real_fclose(file);
    (void)__real_fclose(file);
    errno = EIO;
    return EOF;
}
int __wrap_rename(const char *from, const char *to)
{
    return fail_now(4) ? (errno = EIO, -1) : __real_rename(from, to);
}
ssize_t __wrap_write(int fd, const void *p, size_t n)
{
    if (!fail_now(5))
        return __real_write(fd, p, n);
    if (fault == SHORT_WRITE)
        return __real_write(fd, p, n > 1 ? n / 2 : n);
    errno = fault == EINTR_WRITE ? EINTR : ENOSPC;
    return -1;
}
/* <<[[io_sweep.c]] the failing system calls>> */
FILE *__real_fdopen(int fd, const char *mode);
int __real_open(const char *path, int flags, ...);
int __real_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags);
size_t __real_fread(void *bytes, size_t size, size_t n, FILE *file);
FILE *__wrap_fdopen(int fd, const char *mode);
int __wrap_open(const char *path, int flags, ...);
int __wrap_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags);
size_t __wrap_fread(void *bytes, size_t size, size_t n, FILE *file);
FILE *__wrap_fdopen(int fd, const char *mode)
{
    return fail_now(6) ? (errno = ENOMEM, NULL) : __real_fdopen(fd, mode);
}
int __wrap_open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list rest;
        va_start(rest, flags);
        mode = va_arg(rest, mode_t);
        va_end(rest);
    }
    return fail_now(7) ? (errno = EMFILE, -1) : __real_open(path, flags, mode);
}
int __wrap_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags)
{
    return fail_now(8) ? (errno = EIO, -1) : __real_linkat(from_dir, from, to_dir, to, flags);
}
size_t __wrap_fread(void *bytes, size_t size, size_t n, FILE *file)
{
    return __real_fread(bytes, size, fail_now(9) ? n / 2 : n, file);
}
/* <<[[io_sweep.c]] the writers>> */
static char root[64], message[512];
static mha_induction_model induction[2];
static lm_model model[2];
static bpe tokenizer[2];
static float values[2][12];
static const size_t npy_shape[2] = {3, 4};
static const lm_provenance provenance = {1, "-", "-"};
static mha_status write_npy(const char *dir, int which)
{
    char path[128];
    snprintf(path, sizeof path, "%s/x.npy", dir);
    return mha_npy_write(path, values[which], 2, npy_shape, message, sizeof message);
}
static mha_status write_checkpoint(const char *dir, int which)
{
    return induction_checkpoint_write(dir, &induction[which], message, sizeof message);
}
static mha_status write_tokenizer(const char *dir, int which)
{
    return bpe_files_write(dir, &tokenizer[which], message, sizeof message);
}
static mha_status write_model(const char *dir, int which)
{
    const lm_model *m = &model[which];
    const size_t n = lm_model_file_count(m);
    char names[64][LM_NAME_MAX + 8];
    const char *list[64];
    if (n > 64)
        return MHA_ERR_ARG;
    for (size_t i = 0; i < n; i++) {
        lm_model_file_name(m, i, names[i], sizeof names[i]);
        list[i] = names[i];
    }
    mha_status status = mha_output_begin(dir, (int)n, list, message, sizeof message);
    if (status == MHA_OK)
        status = lm_model_put(dir, m, &tokenizer[which], &provenance, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    return status;
}
typedef struct io_case {
    const char *name;
    mha_status (*write)(const char *dir, int which);
    int set;          /* 1: a set of the writer, which keeps the old files and names the file;
                         0: mha_npy_write, which removes its file and leaves the name to its caller */
} io_case;
static const char *const texts[2] = {"the first table", "the second table"};
static int put_text(FILE *file, void *context)
{
    return fprintf(file, "%s\n", (const char *)context) < 0;
}
static mha_status write_text(const char *dir, int which)
{
    char path[128];
    snprintf(path, sizeof path, "%s/table.txt", dir);
    const mha_status status = mha_output_check(path, message, sizeof message);
    if (status != MHA_OK)
        return status;
    return mha_output_file(path, put_text, (void *)texts[which], message, sizeof message);
}
static const io_case cases[] = {
    {"mha_npy_write", write_npy, 0}, {"induction_checkpoint_write", write_checkpoint, 1},
    {"bpe_files_write", write_tokenizer, 1}, {"lm_model_put", write_model, 1},
    {"mha_output_file", write_text, 1}};
/* <<[[io_sweep.c]] a directory's contents>> */
typedef struct snapshot {
    char *bytes;
    size_t n;
} snapshot;
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static snapshot take(const char *dir)
{
    snapshot s = {NULL, 0};
    char *names[256];
    size_t count = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL && count < 256;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            names[count++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, count, sizeof names[0], by_name);
    FILE *out = open_memstream(&s.bytes, &s.n);
    for (size_t i = 0; i < count; i++) {
        char path[400], buffer[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        fprintf(out, "%s\n", names[i]);
        FILE *in = fopen(path, "rb");
        for (size_t k; in && (k = fread(buffer, 1, sizeof buffer, in)) > 0;)
            fwrite(buffer, 1, k, out);
        if (in)
            __real_fclose(in);
        free(names[i]);
    }
    __real_fclose(out);
    return s;
}
static int same(snapshot a, snapshot b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.bytes, b.bytes, a.n) == 0);
}
/* <<[[io_sweep.c]] the sweep>> */
static int sweep(const io_case *c, enum fault f, long *points)
{
    char dir[128], fresh[128];
    snprintf(dir, sizeof dir, "%s/%s", root, c->name);
    snprintf(fresh, sizeof fresh, "%s/%s-new", root, c->name);
    (void)mkdir(dir, 0700), (void)mkdir(fresh, 0700);
    if (c->write(dir, 0) != MHA_OK || c->write(fresh, 1) != MHA_OK)
        return fprintf(stderr, "io-sweep: %s: %s\n", c->name, message), 1;
    snapshot old = take(dir), new = take(fresh), now = {NULL, 0}, none = {NULL, 0};
    int bad = 0;
    *points = 0;
    for (long n = 1; !bad; n++) {
        memset(made, 0, sizeof made);
        fault = (int)f, fail_at = n, message[0] = 0;
        mha_status status = c->write(dir, 1);
        fault = -1;
        const int reached = made[fault_call[f]] >= n;
        now = take(dir);
        if (status == MHA_OK && reached && f != SHORT_WRITE && f != EINTR_WRITE)
            bad = fprintf(stderr, "io-sweep: %s, %s at call %ld: MHA_OK\n", c->name,
                          fault_names[f], n);
        else if (status == MHA_OK && !same(now, new))
            bad = fprintf(stderr, "io-sweep: %s, %s at call %ld: MHA_OK, and not the new files\n",
                          c->name, fault_names[f], n);
        else if (status != MHA_OK && !reached)
            bad = fprintf(stderr, "io-sweep: %s: %s\n", c->name, message);
        else if (status != MHA_OK && !same(now, c->set ? old : none))
            bad = fprintf(stderr, "io-sweep: %s, %s at call %ld: the old files changed (%s)\n",
                          c->name, fault_names[f], n, message);
        else if (status != MHA_OK && c->set && strstr(message, dir) == NULL)
            bad = fprintf(stderr, "io-sweep: %s, %s at call %ld: the message names no file "
                          "of %s: %s\n", c->name, fault_names[f], n, dir, message);
        else if (status != MHA_OK && (c->write(dir, 1) != MHA_OK || (free(now.bytes), now = take(dir),
                                                                    !same(now, new))))
            bad = fprintf(stderr, "io-sweep: %s, %s at call %ld: the next call fails: %s\n",
                          c->name, fault_names[f], n, message);
        free(now.bytes);
        if (!bad && (c->write(dir, 0) != MHA_OK || (now = take(dir), !same(now, old))))
            bad = fprintf(stderr, "io-sweep: %s: the old files cannot be written again\n", c->name);
        else if (!bad)
            free(now.bytes);
        if (!reached)
            break;
        *points += status != MHA_OK;
    }
    free(old.bytes), free(new.bytes);
    return bad;
}

/* The reader under fault f: every failure is MHA_ERR_IO with the reason, or for a file
   shrunk before its header is read, MHA_ERR_FORMAT (it is now too short to be a .npy
   file); no array is left. */
static int sweep_reader(enum fault f, long *points)
{
    char path[128], why[64];
    snprintf(path, sizeof path, "%s/read.npy", root);
    snprintf(why, sizeof why, "%s", f == SHRINKING_FREAD ? "the file shrank"
                                    : strerror(f == NOMEM_FDOPEN ? ENOMEM : EMFILE));
    if (mha_npy_write(path, values[0], 2, npy_shape, message, sizeof message) != MHA_OK)
        return fprintf(stderr, "io-sweep: mha_npy_read: %s\n", message), 1;
    int bad = 0;
    *points = 0;
    for (long n = 1; !bad; n++) {
        mha_npy array;
        memset(made, 0, sizeof made);
        fault = (int)f, fail_at = n, message[0] = 0;
        const mha_status status = mha_npy_read(path, &array, message, sizeof message);
        fault = -1;
        const int reached = made[fault_call[f]] >= n;
        const int told = status == MHA_ERR_IO ? strstr(message, why) != NULL
                       : f == SHRINKING_FREAD && status == MHA_ERR_FORMAT && message[0] != 0;
        if (reached && (!told || array.values != NULL || array.count != 0))
            bad = fprintf(stderr, "io-sweep: mha_npy_read, %s at call %ld: status %d (%s)\n",
                          fault_names[f], n, (int)status, message);
        else if (!reached && (status != MHA_OK || array.count != 12 ||
                              memcmp(array.values, values[0], sizeof values[0]) != 0))
            bad = fprintf(stderr, "io-sweep: mha_npy_read: not the file written (%s)\n",
                          message);
        mha_npy_free(&array);
        if (!reached)
            break;
        *points += 1;
    }
    return bad;
}

int main(void)
{
    strcpy(root, "/tmp/mha-io-sweep-XXXXXX");
    if (!mkdtemp(root))
        return perror("io-sweep: mkdtemp"), 1;
    static const char text[] = "the cat sat on the mat; the cat ate the rat, "
                               "and the rat sat on the hat.";
    mha_status status = MHA_OK;
    for (int k = 0; k < 2 && status == MHA_OK; k++) {
        const lm_config config = {BPE_BYTES + 4 + (size_t)k, 8, 8, 2, 1, 16};
        for (size_t i = 0; i < 12; i++)
            values[k][i] = (float)(i * (k + 1)) / 7.0f;
        status = mha_induction_model_init(&induction[k], 8, 12, 8, 2, 1, 1 + (uint64_t)k);
        if (status == MHA_OK)
            status = bpe_learn((const unsigned char *)text, sizeof text - 1, config.vocab,
                               &tokenizer[k]);
        if (status == MHA_OK)
            status = lm_model_init(&model[k], &config, 1 + (uint64_t)k);
    }
    if (status != MHA_OK)
        return fprintf(stderr, "io-sweep: setting up: %s\n", mha_status_message(status)), 1;
    int bad = 0;
    printf("%-28s", "writer");
    for (int f = 0; f < FAULTS; f++)
        printf(" %s,", fault_names[f]);
    printf(" calls failed in turn that failed the writer\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        printf("%-28s", cases[i].name);
        for (int f = 0; f < FAULTS; f++) {
            long points = 0;
            bad |= sweep(&cases[i], (enum fault)f, &points);
            printf(" %ld", points);
        }
        printf("\n");
    }
    static const enum fault reading[] = {NOMEM_FDOPEN, EMFILE_OPEN, SHRINKING_FREAD};
    printf("%-28s", "mha_npy_read");
    for (int k = 0; k < 3; k++) {
        long points = 0;
        bad |= sweep_reader(reading[k], &points);
        printf(" %s: %ld,", fault_names[reading[k]], points);
    }
    printf(" calls failed in turn that failed the reader\n");
    printf("io-sweep: %s\n", bad ? "FAILED" : "every failure left the old files and named its file");
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    return (system(command) != 0) | bad;
}
