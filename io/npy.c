/* generated from chapters/19-npy-format.nw; edit the book, not this file */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "npy.h"

/* <<[[npy.c]] macros>> */
#if defined(__GNUC__)
#define PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define PRINTF_LIKE(format_index, first_arg)
#endif
/* <<[[npy.c]] types>> */
struct npy_reader {
    FILE *file;
    uintmax_t file_size;         /* bytes, from fstat */
    uintmax_t data_offset;       /* preamble plus header: where the data begins */
    char *header;                /* header_length bytes, not NUL-terminated */
    size_t header_length;
    const char *at;              /* the header parser's position in header */
    char descr[16];              /* the header's 'descr', e.g. "<f4" */
    int fortran_order;
    size_t itemsize;             /* bytes per element, from descr */
    char *message;               /* the caller's buffer */
    size_t message_size;
};
/* <<[[npy.c]] data>> */
static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
/* <<[[npy.c]] data>> */
static const struct npy_dtype {
    const char *descr;
    mha_npy_kind kind;
    size_t itemsize;
} npy_dtypes[] = {
    {"<f4", MHA_NPY_FLOAT, 4}, {"<f8", MHA_NPY_FLOAT, 8},
    {"|b1", MHA_NPY_BOOL, 1},  {"|u1", MHA_NPY_BOOL, 1},
};
/* <<[[npy.c]] helpers>> */
PRINTF_LIKE(4, 5)
static mha_status report(char *message, size_t message_size, mha_status status,
                         const char *format, ...)
{
    if (message != NULL && message_size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(message, message_size, format, args);
        va_end(args);
    }
    return status;
}
/* <<[[npy.c]] helpers>> */
PRINTF_LIKE(4, 5)
static void append(char *text, size_t size, size_t *used, const char *format, ...)
{
    if (*used >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text + *used, size - *used, format, args);
    va_end(args);
    if (n > 0)
        *used += (size_t)n;
}
/* <<[[npy.c]] helpers>> */
static mha_status measure_file(struct npy_reader *r);
static mha_status read_preamble(struct npy_reader *r);
static mha_status parse_header(struct npy_reader *r, mha_npy *array);
static mha_status check_data_length(struct npy_reader *r, mha_npy *array);
static mha_status read_data(struct npy_reader *r, mha_npy *array);
/* <<[[npy.c]] helpers>> */
PRINTF_LIKE(2, 3)
static mha_status header_error(struct npy_reader *r, const char *format, ...)
{
    char what[160];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return report(r->message, r->message_size, MHA_ERR_FORMAT,
                  "bad header at byte %zu: %s", (size_t)(r->at - r->header), what);
}
/* <<[[npy.c]] helpers>> */
static const char *header_end(const struct npy_reader *r)
{
    return r->header + r->header_length;
}

static void skip_space(struct npy_reader *r)
{
    while (r->at < header_end(r) && (*r->at == ' ' || *r->at == '\t' ||
                                     *r->at == '\n' || *r->at == '\r'))
        r->at++;
}

static int accept(struct npy_reader *r, char c)
{
    if (r->at < header_end(r) && *r->at == c) {
        r->at++;
        return 1;
    }
    return 0;
}

static int accept_word(struct npy_reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(header_end(r) - r->at) < n || memcmp(r->at, word, n) != 0)
        return 0;
    r->at += n;
    return 1;
}
/* <<[[npy.c]] helpers>> */
static mha_status parse_string(struct npy_reader *r, char *text, size_t size)
{
    if (r->at == header_end(r) || (*r->at != '\'' && *r->at != '"'))
        return header_error(r, "expected a quoted string");
    const char quote = *r->at++;
    size_t n = 0;
    while (r->at < header_end(r) && *r->at != quote) {
        if (*r->at == '\\')
            return header_error(r, "escapes in strings are not supported");
        if ((unsigned char)*r->at < 0x20 || (unsigned char)*r->at > 0x7e)
            return header_error(r, "byte 0x%02x in a string is not printable ASCII",
                                (unsigned)(unsigned char)*r->at);
        if (n + 1 < size)
            text[n] = *r->at;
        n++;
        r->at++;
    }
    if (!accept(r, quote))
        return header_error(r, "unterminated string");
    if (n + 1 > size)
        return header_error(r, "a string of %zu characters is too long here", n);
    text[n] = '\0';
    return MHA_OK;
}

static mha_status parse_bool(struct npy_reader *r, int *value)
{
    if (accept_word(r, "True"))
        *value = 1;
    else if (accept_word(r, "False"))
        *value = 0;
    else
        return header_error(r, "expected True or False");
    return MHA_OK;
}
/* <<[[npy.c]] helpers>> */
static mha_status parse_shape(struct npy_reader *r, mha_npy *array)
{
    if (!accept(r, '('))
        return header_error(r, "expected '(' to start the shape");
    array->rank = 0;
    for (;;) {
        skip_space(r);
        if (accept(r, ')'))
            return MHA_OK;
        if (array->rank == MHA_NPY_MAX_RANK)
            return header_error(r, "the shape has more than %d dimensions", MHA_NPY_MAX_RANK);
        /* <<parse one dimension and append it to the shape>> */
        if (r->at == header_end(r) || *r->at < '0' || *r->at > '9')
            return header_error(r, "expected a dimension (a non-negative integer)");
        size_t dimension = 0;
        while (r->at < header_end(r) && *r->at >= '0' && *r->at <= '9') {
            const size_t digit = (size_t)(*r->at++ - '0');
            if (dimension > (SIZE_MAX - digit) / 10)
                return report(r->message, r->message_size, MHA_ERR_OVERFLOW,
                              "dimension %zu of the shape does not fit in size_t", array->rank + 1);
            dimension = dimension * 10 + digit;
        }
        accept(r, 'L');
        array->shape[array->rank++] = dimension;
        skip_space(r);
        if (accept(r, ','))
            continue;
        skip_space(r);
        if (accept(r, ')'))
            return MHA_OK;
        return header_error(r, "expected ',' or ')' in the shape");
    }
}
/* <<[[npy.c]] helpers>> */
static mha_status interpret_descr(struct npy_reader *r, mha_npy *array)
{
    for (size_t i = 0; i < sizeof npy_dtypes / sizeof npy_dtypes[0]; i++)
        if (strcmp(r->descr, npy_dtypes[i].descr) == 0) {
            array->kind = npy_dtypes[i].kind;
            r->itemsize = npy_dtypes[i].itemsize;
            memcpy(array->dtype, npy_dtypes[i].descr, 4);
            return MHA_OK;
        }
    return report(r->message, r->message_size, MHA_ERR_FORMAT,
                  "unsupported element type '%s' (supported: '<f4', '<f8', '|b1', '|u1')",
                  r->descr);
}
/* <<[[npy.c]] helpers>> */
static uint64_t little_endian(const unsigned char *bytes, size_t width)
{
    uint64_t u = 0;
    for (size_t i = width; i-- > 0;)
        u = (u << 8) | bytes[i];
    return u;
}
/* <<[[npy.c]] helpers>> */
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8, "IEEE single and double");

static float decode_f4(const unsigned char *bytes)
{
    const uint32_t u = (uint32_t)little_endian(bytes, 4);
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static float decode_f8(const unsigned char *bytes)
{
    const uint64_t u = little_endian(bytes, 8);
    double x;
    memcpy(&x, &u, sizeof x);
    if (x > FLT_MAX)
        return INFINITY;
    if (x < -FLT_MAX)
        return -INFINITY;
    return (float)x;
}
/* <<[[npy.c]] functions>> */
char *mha_npy_shape_text(char *text, size_t size, size_t rank, const size_t *shape)
{
    size_t used = 0;
    if (size > 0)
        text[0] = '\0';
    append(text, size, &used, "(");
    for (size_t i = 0; i < rank; i++)
        append(text, size, &used, i == 0 ? "%zu" : ", %zu", shape[i]);
    append(text, size, &used, rank == 1 ? ",)" : ")");
    return text;
}
/* <<[[npy.c]] functions>> */
static mha_status read_npy(struct npy_reader *r, mha_npy *array);

mha_status mha_npy_read(const char *path, mha_npy *array,
                        char *message, size_t message_size)
{
    struct npy_reader r;
    if (path == NULL || array == NULL)
        return report(message, message_size, MHA_ERR_NULL, "no %s", path ? "array" : "path");
    memset(&r, 0, sizeof r);
    memset(array, 0, sizeof *array);
    r.message = message;
    r.message_size = message_size;
    if (message != NULL && message_size > 0)
        message[0] = '\0';
    /* <<open [[path]] without blocking, and refuse anything but a regular file>> */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return report(message, message_size, MHA_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int saved = errno, examined = fstat(fd, &st) == 0;
        close(fd);
        if (examined)
            return report(message, message_size, MHA_ERR_IO,
                          "not a regular file (a FIFO, a device or a directory is refused)");
        return report(message, message_size, MHA_ERR_IO, "cannot examine: %s", strerror(saved));
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        (r.file = fdopen(fd, "rb")) == NULL) {
        const int saved = errno;
        close(fd);
        return report(message, message_size, MHA_ERR_IO, "cannot open: %s", strerror(saved));
    }
    r.file_size = (uintmax_t)st.st_size;
    mha_status status = read_npy(&r, array);
    fclose(r.file);
    free(r.header);
    if (status != MHA_OK)
        mha_npy_free(array);
    return status;
}

void mha_npy_free(mha_npy *array)
{
    if (array == NULL)
        return;
    free(array->values);
    free(array->flags);
    memset(array, 0, sizeof *array);
}
/* <<[[npy.c]] functions>> */
static mha_status read_npy(struct npy_reader *r, mha_npy *array)
{
    mha_status status;
    if ((status = measure_file(r)) != MHA_OK ||
        (status = read_preamble(r)) != MHA_OK ||
        (status = parse_header(r, array)) != MHA_OK ||
        (status = check_data_length(r, array)) != MHA_OK)
        return status;
    return read_data(r, array);
}
/* <<[[npy.c]] functions>> */
static mha_status measure_file(struct npy_reader *r)
{
    if (r->file_size == 0)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "empty file (a .npy file starts with \\x93NUMPY)");
    return MHA_OK;
}
/* <<[[npy.c]] functions>> */
static mha_status read_preamble(struct npy_reader *r)
{
    unsigned char pre[12];
    size_t got = fread(pre, 1, 8, r->file);
    if (got < 6 || memcmp(pre, npy_magic, 6) != 0)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "not a .npy file (it does not start with \\x93NUMPY)");
    if (got < 8)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "truncated: the file ends inside the format version");
    /* <<decide the width of the header length from the version>> */
    size_t width;
    if (pre[6] == 1 && pre[7] == 0)
        width = 2;
    else if ((pre[6] == 2 || pre[6] == 3) && pre[7] == 0)
        width = 4;
    else
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "unsupported .npy format version %u.%u (known: 1.0, 2.0, 3.0)",
                      (unsigned)pre[6], (unsigned)pre[7]);
    if (fread(pre + 8, 1, width, r->file) != width)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "truncated: the file ends inside the header length");
    /* <<decode the little-endian header length from [[pre + 8]]>> */
    uint32_t length = 0;
    for (size_t i = width; i-- > 0;)
        length = (length << 8) | pre[8 + i];
    r->header_length = length;
    r->data_offset = 8 + (uintmax_t)width + length;
    /* <<refuse a header that runs past the end of the file>> */
    if (r->data_offset > r->file_size)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "truncated: the header length says %zu bytes, the file holds %ju",
                      r->header_length, r->file_size - 8 - width);
    /* <<read the header into [[r->header]]>> */
    r->header = malloc(r->header_length + 1);
    if (r->header == NULL)
        return report(r->message, r->message_size, MHA_ERR_NOMEM,
                      "out of memory for a header of %zu bytes", r->header_length);
    if (fread(r->header, 1, r->header_length, r->file) != r->header_length)
        return report(r->message, r->message_size, MHA_ERR_IO,
                      "read failed inside the header: %s",
                      ferror(r->file) ? strerror(errno) : "the file shrank");
    return MHA_OK;
}
/* <<[[npy.c]] functions>> */
static mha_status parse_header(struct npy_reader *r, mha_npy *array)
{
    int seen_descr = 0, seen_order = 0, seen_shape = 0;
    mha_status status;
    r->at = r->header;
    skip_space(r);
    if (!accept(r, '{'))
        return header_error(r, "expected '{' (the header is a Python dict)");
    for (;;) {
        skip_space(r);
        if (accept(r, '}'))
            break;
        /* <<parse one [[key: value]] entry of the header>> */
        char key[32];
        if ((status = parse_string(r, key, sizeof key)) != MHA_OK)
            return status;
        skip_space(r);
        if (!accept(r, ':'))
            return header_error(r, "expected ':' after the key '%s'", key);
        skip_space(r);
        if (strcmp(key, "descr") == 0 && !seen_descr++)
            status = parse_string(r, r->descr, sizeof r->descr);
        else if (strcmp(key, "fortran_order") == 0 && !seen_order++)
            status = parse_bool(r, &r->fortran_order);
        else if (strcmp(key, "shape") == 0 && !seen_shape++)
            status = parse_shape(r, array);
        else if (seen_descr > 1 || seen_order > 1 || seen_shape > 1)
            return header_error(r, "the key '%s' appears twice", key);
        else
            return header_error(r, "unknown key '%s' (expected 'descr', 'fortran_order', 'shape')",
                                key);
        if (status != MHA_OK)
            return status;
        skip_space(r);
        if (accept(r, ','))
            continue;
        if (accept(r, '}'))
            break;
        return header_error(r, "expected ',' or '}'");
    }
    /* <<make sure nothing but space follows the closing brace>> */
    skip_space(r);
    if (r->at != header_end(r))
        return header_error(r, "unexpected text after the closing '}'");
    /* <<make sure the header had all three keys and C order>> */
    if (!seen_descr || !seen_order || !seen_shape)
        return header_error(r, "the header lacks '%s'",
                            !seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape");
    if (r->fortran_order)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "fortran_order is True: only C-order arrays are supported"
                      " (save np.ascontiguousarray(x))");
    return interpret_descr(r, array);
}
/* <<[[npy.c]] functions>> */
static mha_status check_data_length(struct npy_reader *r, mha_npy *array)
{
    char shape[256];
    size_t count = 1, bytes;
    for (size_t i = 0; i < array->rank; i++)
        if (mha_mul_overflows(count, array->shape[i], &count))
            return report(r->message, r->message_size, MHA_ERR_OVERFLOW,
                          "shape %s is too large: its element count overflows size_t",
                          mha_npy_shape_text(shape, sizeof shape, array->rank, array->shape));
    if (mha_mul_overflows(count, r->itemsize, &bytes))
        return report(r->message, r->message_size, MHA_ERR_OVERFLOW,
                      "shape %s is too large: its byte count overflows size_t",
                      mha_npy_shape_text(shape, sizeof shape, array->rank, array->shape));
    /* <<refuse data that is shorter or longer than [[bytes]]>> */
    const uintmax_t present = r->file_size - r->data_offset;
    if (present < bytes)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "truncated: header says %zu values (%zu bytes), file holds %ju (%ju bytes)",
                      count, bytes, present / r->itemsize, present);
    if (present > bytes)
        return report(r->message, r->message_size, MHA_ERR_FORMAT,
                      "%ju bytes of unexpected data after the %zu values the header describes",
                      present - bytes, count);
    array->count = count;
    return MHA_OK;
}
/* <<[[npy.c]] functions>> */
static mha_status read_data(struct npy_reader *r, mha_npy *array)
{
    const size_t bytes = array->count * r->itemsize;   /* checked above */
    unsigned char *raw = malloc(bytes > 0 ? bytes : 1);
    if (raw == NULL)
        return report(r->message, r->message_size, MHA_ERR_NOMEM,
                      "out of memory for %zu bytes of data", bytes);
    if (fread(raw, 1, bytes, r->file) != bytes) {
        free(raw);
        return report(r->message, r->message_size, MHA_ERR_IO,
                      "read failed inside the data: %s",
                      ferror(r->file) ? strerror(errno) : "the file shrank");
    }
    /* <<turn [[raw]] into [[array->values]] or [[array->flags]]>> */
    if (array->kind == MHA_NPY_BOOL) {
        for (size_t i = 0; i < array->count; i++)
            raw[i] = raw[i] != 0;
        array->flags = raw;
    } else if (r->itemsize == 4) {
        float *values = (float *)(void *)raw;     /* malloc'd memory suits any type */
        for (size_t i = 0; i < array->count; i++)
            values[i] = decode_f4(raw + 4 * i);
        array->values = values;
    } else {
        float *values = malloc(array->count > 0 ? array->count * sizeof *values : 1);
        if (values == NULL) {
            free(raw);
            return report(r->message, r->message_size, MHA_ERR_NOMEM,
                          "out of memory converting %zu float64 values", array->count);
        }
        for (size_t i = 0; i < array->count; i++)
            values[i] = decode_f8(raw + 8 * i);
        free(raw);
        array->values = values;
    }
    return MHA_OK;
}
/* <<[[npy.c]] functions>> */
mha_status mha_npy_write_fd(int fd, const float *values, size_t rank, const size_t *shape,
                            char *message, size_t message_size)
{
    size_t count = 1, bytes = 0;
    mha_status refused = MHA_OK;
    if (rank > MHA_NPY_MAX_RANK)
        refused = report(message, message_size, MHA_ERR_ARG,
                         "rank %zu exceeds the limit of %d", rank, MHA_NPY_MAX_RANK);
    else if (rank > 0 && shape == NULL)
        refused = report(message, message_size, MHA_ERR_NULL, "no shape");
    for (size_t i = 0; refused == MHA_OK && i < rank; i++)
        if (mha_mul_overflows(count, shape[i], &count))
            refused = report(message, message_size, MHA_ERR_OVERFLOW, "shape too large");
    if (refused == MHA_OK && mha_mul_overflows(count, sizeof(float), &bytes))
        refused = report(message, message_size, MHA_ERR_OVERFLOW, "shape too large");
    if (refused == MHA_OK && count > 0 && values == NULL)
        refused = report(message, message_size, MHA_ERR_NULL, "no values");
    if (refused != MHA_OK) {
        close(fd);
        return refused;
    }
    /* <<format the preamble and header for [[shape]], padded to 64 bytes>> */
    unsigned char header[512];
    char shape_text[256];
    mha_npy_shape_text(shape_text, sizeof shape_text, rank, shape);
    const int dict_length = snprintf((char *)header + 10, sizeof header - 10,
            "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape_text);
    const size_t unpadded = 10 + (size_t)dict_length + 1;      /* preamble, dict, newline */
    const size_t total = (unpadded + 63) / 64 * 64;
    memset(header + 10 + dict_length, ' ', total - unpadded);
    header[total - 1] = '\n';
    memcpy(header, npy_magic, sizeof npy_magic);
    header[6] = 1;
    header[7] = 0;
    header[8] = (unsigned char)((total - 10) & 0xff);
    header[9] = (unsigned char)((total - 10) >> 8);
    /* <<write the preamble, the header and the data to [[fd]], and close it>> */
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        const int saved = errno;
        close(fd);
        return report(message, message_size, MHA_ERR_IO, "cannot write: %s", strerror(saved));
    }
    int ok = fwrite(header, 1, total, f) == total;
    unsigned char buffer[4096];
    for (size_t i = 0; ok && i < count;) {
        size_t used = 0;
        for (; i < count && used < sizeof buffer; i++, used += 4) {
            uint32_t u;
            memcpy(&u, &values[i], sizeof u);
            for (size_t b = 0; b < 4; b++)
                buffer[used + b] = (unsigned char)(u >> (8 * b));
        }
        ok = fwrite(buffer, 1, used, f) == used;
    }
    ok = ok && fflush(f) == 0 && (fsync(fd) == 0 || errno == EINVAL);
    int saved_errno = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved_errno = errno;
    }
    if (!ok)
        return report(message, message_size, MHA_ERR_IO, "write failed: %s",
                      strerror(saved_errno ? saved_errno : EIO));
    return MHA_OK;
}
/* <<[[npy.c]] functions>> */
mha_status mha_npy_write(const char *path, const float *values,
                         size_t rank, const size_t *shape,
                         char *message, size_t message_size)
{
    if (path == NULL)
        return report(message, message_size, MHA_ERR_NULL, "no path");
    if (unlink(path) != 0 && errno != ENOENT && errno != EISDIR && errno != EPERM)
        return report(message, message_size, MHA_ERR_IO, "cannot replace: %s",
                      strerror(errno));
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return report(message, message_size, MHA_ERR_IO, "cannot create: %s", strerror(errno));
    const mha_status status = mha_npy_write_fd(fd, values, rank, shape, message, message_size);
    if (status != MHA_OK)
        unlink(path);
    return status;
}
