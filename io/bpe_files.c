/* generated from chapters/15-language-model.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bpe_files.h"
#include "layer_files.h"
#include "output.h"

static mha_status read_opened(int fd, const char *path, size_t limit, unsigned char **bytes,
                              size_t *n, char *message, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int error = errno, examined = fstat(fd, &st) == 0;
        close(fd);
        if (examined)
            return mha_fail(MHA_ERR_IO, message, size, "%s: not a regular file (a FIFO, a "
                            "device or a directory is refused)", path);
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot examine: %s", path,
                        strerror(error));
    }
    if ((uintmax_t)st.st_size > limit) {
        close(fd);
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: %jd bytes, longer than the %zu "
                        "this file may hold", path, (intmax_t)st.st_size, limit);
    }
    FILE *file = NULL;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        (file = fdopen(fd, "rb")) == NULL) {
        const int error = errno;
        close(fd);
        return mha_fail(MHA_ERR_IO, message, size, "%s: cannot read: %s", path,
                        strerror(error));
    }
    size_t capacity = (size_t)st.st_size + 1, length = 0;     /* the end, seen in one read */
    if (capacity < 4096)
        capacity = limit < 4096 ? limit + 1 : 4096;
    unsigned char *buffer = malloc(capacity);
    while (buffer != NULL) {
        length += fread(buffer + length, 1, capacity - length, file);
        if (length < capacity || length > limit)
            break;
        const size_t more = capacity <= limit / 2 ? 2 * capacity : limit + 1;
        unsigned char *bigger = realloc(buffer, more);
        if (bigger == NULL)
            free(buffer);
        buffer = bigger, capacity = more;
    }
    const int failed = ferror(file), error = errno;
    fclose(file);
    if (buffer == NULL)
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", path);
    if (failed || length > limit) {
        free(buffer);
        if (failed)
            return mha_fail(MHA_ERR_IO, message, size, "%s: cannot read: %s", path,
                            strerror(error));
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: grew past the %zu bytes this file "
                        "may hold", path, limit);
    }
    *bytes = buffer, *n = length;
    return MHA_OK;
}
mha_status mha_read_whole_file(const char *path, size_t limit, unsigned char **bytes,
                               size_t *n, char *message, size_t size)
{
    *bytes = NULL, *n = 0;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        mha_fail(MHA_ERR_IO, message, size, "%s: %s", path, strerror(error));
        errno = error;                             /* ENOENT: a missing file */
        return MHA_ERR_IO;
    }
    const mha_status status = read_opened(fd, path, limit, bytes, n, message, size);
    if (status != MHA_OK)
        errno = 0;                                 /* there, but refused */
    return status;
}
void bpe_escape(FILE *file, const unsigned char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (bytes[i] == '\\')
            fputs("\\\\", file);
        else if (bytes[i] >= 0x20 && bytes[i] < 0x7f)
            fputc(bytes[i], file);
        else
            fprintf(file, "\\x%02x", bytes[i]);
}
int bpe_write_merges(FILE *file, void *context)
{
    const bpe *t = context;
    fprintf(file, "%s\n", BPE_MERGES_HEADER);
    for (size_t i = 0; i + BPE_BYTES < t->vocab; i++)
        fprintf(file, "%u %u\n", (unsigned)t->merge[i].left, (unsigned)t->merge[i].right);
    return ferror(file) ? -1 : 0;
}
int bpe_write_vocab(FILE *file, void *context)
{
    const bpe *t = context;
    for (uint32_t id = 0; id < t->vocab; id++) {
        size_t length;
        const unsigned char *bytes = bpe_token(t, id, &length);
        fprintf(file, "%u\t", (unsigned)id);
        bpe_escape(file, bytes, length);
        fputc('\n', file);
    }
    return ferror(file) ? -1 : 0;
}
mha_status bpe_files_write(const char *dir, const bpe *tokenizer, char *message, size_t size)
{
    const char *const names[] = {BPE_MERGES_FILE, BPE_VOCAB_FILE};
    mha_status status = mha_output_begin(dir, 2, names, message, size);
    if (status == MHA_OK)
        status = mha_output_stream(bpe_write_merges, (void *)tokenizer, message, size);
    if (status == MHA_OK)
        status = mha_output_stream(bpe_write_vocab, (void *)tokenizer, message, size);
    if (status == MHA_OK)
        status = mha_output_commit(message, size);
    mha_output_end();
    return status;
}
static int read_id(const char **p, const char *end, uint32_t *id)
{
    const char *q = *p;
    uint32_t value = 0;
    if (q == end || *q < '0' || *q > '9' || (*q == '0' && q + 1 < end && q[1] >= '0' && q[1] <= '9'))
        return 0;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        value = value * 10 + (uint32_t)(*q - '0');
        if (value >= BPE_VOCAB_MAX)
            return 0;
    }
    *p = q, *id = value;
    return 1;
}
mha_status bpe_merges_parse(const char *name, const char *text, size_t n, bpe *tokenizer,
                            char *message, size_t size)
{
    const size_t header = strlen(BPE_MERGES_HEADER);
    if (n < header + 1 || memcmp(text, BPE_MERGES_HEADER, header) != 0 || text[header] != '\n')
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line 1: not '%s'", name,
                        BPE_MERGES_HEADER);
    size_t lines = 0;
    for (size_t i = header + 1; i < n; i++)
        lines += text[i] == '\n';
    if (n > header + 1 && text[n - 1] != '\n')
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: the last line has no newline", name);
    if (lines > BPE_VOCAB_MAX - BPE_BYTES)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: %zu merges, more than %d", name,
                        lines, BPE_VOCAB_MAX - BPE_BYTES);
    bpe_pair *merges = malloc((lines ? lines : 1) * sizeof *merges);
    unsigned char *length = malloc(BPE_BYTES + lines);     /* each token's, at most 64 */
    if (merges == NULL || length == NULL) {
        free(merges);
        free(length);
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", name);
    }
    memset(length, 1, BPE_BYTES);
    const char *p = text + header + 1, *end = text + n;
    mha_status status = MHA_OK;
    for (size_t i = 0; i < lines && status == MHA_OK; i++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        uint32_t left = 0, right = 0;
        if (!read_id(&p, eol, &left) || p == eol || *p++ != ' ' || !read_id(&p, eol, &right) ||
            p != eol)
            status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: not two ids 'LEFT "
                              "RIGHT'", name, i + 2);
        else if (left >= BPE_BYTES + i || right >= BPE_BYTES + i)
            status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: merge %zu names a "
                              "token not yet made (ids below %zu)", name, i + 2, i, BPE_BYTES + i);
        else if (length[left] + length[right] > BPE_PIECE_MAX)
            status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: merge %zu makes a "
                              "token of %d bytes, longer than a piece (%d)", name, i + 2, i,
                              length[left] + length[right], BPE_PIECE_MAX);
        else
            length[BPE_BYTES + i] = (unsigned char)(length[left] + length[right]);
        merges[i] = (bpe_pair){left, right};
        p = eol + 1;
    }
    free(length);
    if (status == MHA_OK) {
        status = bpe_from_merges(merges, lines, tokenizer);
        if (status == MHA_ERR_ARG)
            status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: a pair is merged twice", name);
        else if (status != MHA_OK)
            status = mha_fail(status, message, size, "%s: %s", name, mha_status_message(status));
    }
    free(merges);
    return status;
}
mha_status bpe_vocab_check(const char *name, const char *text, size_t n, const bpe *tokenizer,
                           char *message, size_t size)
{
    char *made = NULL;
    size_t length = 0;
    FILE *memory = open_memstream(&made, &length);
    if (memory == NULL)
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", name);
    const int failed = bpe_write_vocab(memory, (void *)tokenizer);
    if (fclose(memory) != 0 || failed) {
        free(made);
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", name);
    }
    size_t line = 1, i = 0;
    while (i < n && i < length && text[i] == made[i])
        line += text[i++] == '\n';
    const int same = i == n && i == length;
    free(made);
    if (same)
        return MHA_OK;
    return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: not the token that %s "
                    "makes (%zu tokens)", name, line, BPE_MERGES_FILE, tokenizer->vocab);
}
mha_status bpe_files_read(const char *dir, bpe *tokenizer, char *message, size_t size)
{
    char path[MHA_PATH_SIZE];
    unsigned char *text = NULL;
    size_t n = 0;
    if (!mha_join_path(path, sizeof path, dir, BPE_MERGES_FILE))
        return mha_fail(MHA_ERR_ARG, message, size, "%s: path too long", dir);
    mha_status status = mha_read_whole_file(path, MHA_READ_TABLE_MAX, &text, &n, message, size);
    if (status == MHA_OK)
        status = bpe_merges_parse(path, (const char *)text, n, tokenizer, message, size);
    free(text);
    text = NULL;
    if (status != MHA_OK)
        return status;
    _Static_assert(sizeof BPE_VOCAB_FILE <= sizeof BPE_MERGES_FILE, "vocab.txt fits");
    strcpy(path + strlen(path) - strlen(BPE_MERGES_FILE), BPE_VOCAB_FILE);
    status = mha_read_whole_file(path, MHA_READ_TABLE_MAX, &text, &n, message, size);
    if (status == MHA_OK)
        status = bpe_vocab_check(path, (const char *)text, n, tokenizer, message, size);
    free(text);
    if (status != MHA_OK)
        bpe_free(tokenizer);
    return status;
}
