/* generated from chapters/45-tests-command.nw; edit the book, not this file */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "npy.h"
#include "scratch.h"

/* <<[[test_npy.c]] tests>> */
Test(npy, round_trip_every_rank) {
    char *dir = make_temp_dir(), message[256];
    const size_t shape[MHA_NPY_MAX_RANK] = {2, 1, 3, 1, 2, 1, 1, 2};
    float values[48];
    for (size_t i = 0; i < 48; i++)
        values[i] = (float)i * 0.37f - 5.0f;
    values[1] = -INFINITY;
    values[2] = NAN;
    for (size_t rank = 0; rank <= MHA_NPY_MAX_RANK; rank++) {
        mha_npy a;
        size_t count = 1;
        for (size_t i = 0; i < rank; i++)
            count *= shape[i];
        write_floats(dir, "x.npy", values, rank, shape);
        cr_assert_eq(mha_npy_read(path_in(dir, "x.npy"), &a, message, sizeof message),
                     MHA_OK, "rank %zu: %s", rank, message);
        cr_expect_eq(a.kind, MHA_NPY_FLOAT);
        cr_expect_str_eq(a.dtype, "<f4");
        cr_expect_eq(a.rank, rank);
        cr_expect_eq(a.count, count);
        cr_expect_arr_eq(a.shape, shape, rank * sizeof shape[0]);
        for (size_t i = 0; i < count; i++)
            cr_expect(isnan(values[i]) ? isnan(a.values[i]) : a.values[i] == values[i],
                      "rank %zu, element %zu", rank, i);
        mha_npy_free(&a);
    }
    remove_dir(dir);
}
/* <<[[test_npy.c]] tests>> */
Test(npy, writer_matches_numpy_byte_for_byte) {
    char *dir = make_temp_dir(), message[256];
    const char *numpy_file = "golden/self_attention/in_proj_weight.npy";
    mha_npy a;
    cr_assert_eq(mha_npy_read(numpy_file, &a, message, sizeof message), MHA_OK, "%s", message);
    write_floats(dir, "copy.npy", a.values, a.rank, a.shape);
    size_t n1, n2;
    char *original = slurp(numpy_file, &n1), *copy = slurp(path_in(dir, "copy.npy"), &n2);
    cr_expect_eq(n1, n2);
    cr_expect_eq(memcmp(original, copy, n1 < n2 ? n1 : n2), 0, "bytes differ");
    cr_expect_eq(n1 % 64, (n1 - 4 * a.count) % 64, "data starts at a multiple of 64");
    free(original);
    free(copy);
    mha_npy_free(&a);
    remove_dir(dir);
}
/* <<[[test_npy.c]] tests>> */
Test(npy, header_variants) {
    static const struct { int major; const char *header; size_t rank, d0, d1; } cases[] = {
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 2, 2, 3},
        {1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}", 2, 2, 3},
        {1, "{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(6,)}\n", 1, 6, 0},
        {1, "  {  'descr' : '<f4' ,\n 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }   \n",
         2, 2, 3},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6)}", 1, 6, 0},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", 2, 2, 3},
        {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 2, 3, 2},
        {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6), }", 2, 1, 6},
        {1, "{'descr':\t'<f4',\r\n'fortran_order':\tFalse,\r\n'shape': (2, 3)}\r\n", 2, 2, 3},
    };
    const float data[6] = {1, 2, 3, 4, 5, 6};
    char *dir = make_temp_dir(), message[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mha_npy a;
        write_npy_raw(dir, "x.npy", cases[i].major, cases[i].header, data, sizeof data);
        cr_expect_eq(mha_npy_read(path_in(dir, "x.npy"), &a, message, sizeof message),
                     MHA_OK, "case %zu: %s", i, message);
        cr_expect_eq(a.rank, cases[i].rank, "case %zu", i);
        cr_expect_eq(a.shape[0], cases[i].d0, "case %zu", i);
        if (cases[i].rank == 2)
            cr_expect_eq(a.shape[1], cases[i].d1, "case %zu", i);
        cr_expect(a.values != NULL && a.values[5] == 6.0f, "case %zu", i);
        mha_npy_free(&a);
    }
    remove_dir(dir);
}
/* <<[[test_npy.c]] tests>> */
Test(npy, float64_scalars_and_booleans) {
    char *dir = make_temp_dir(), message[256];
    const double wide[4] = {1.5, -2.25, 1e300, -1e300};
    const float half = 0.5f;
    const unsigned char bytes[4] = {0, 1, 255, 0};
    mha_npy a;
    write_npy_raw(dir, "d.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
                  wide, sizeof wide);
    cr_assert_eq(mha_npy_read(path_in(dir, "d.npy"), &a, message, sizeof message), MHA_OK,
                 "%s", message);
    cr_expect_str_eq(a.dtype, "<f8");
    cr_expect(a.values[0] == 1.5f && a.values[1] == -2.25f);
    cr_expect(isinf(a.values[2]) && a.values[2] > 0 && isinf(a.values[3]) && a.values[3] < 0);
    mha_npy_free(&a);
    write_npy_raw(dir, "e.npy", 1, HEADER("<f8", "False", "(0, 3)"), NULL, 0);
    cr_assert_eq(mha_npy_read(path_in(dir, "e.npy"), &a, message, sizeof message), MHA_OK,
                 "%s", message);
    cr_expect(a.kind == MHA_NPY_FLOAT && a.rank == 2 && a.count == 0 && a.values != NULL);
    mha_npy_free(&a);
    mha_npy_free(NULL);
    write_npy_raw(dir, "s.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
                  &half, sizeof half);
    cr_assert_eq(mha_npy_read(path_in(dir, "s.npy"), &a, message, sizeof message), MHA_OK);
    cr_expect(a.rank == 0 && a.count == 1 && a.values[0] == 0.5f);
    mha_npy_free(&a);
    for (int u = 0; u < 2; u++) {
        write_npy_raw(dir, "b.npy", 1, u ? HEADER("|u1", "False", "(2, 2)")
                                         : HEADER("|b1", "False", "(2, 2)"),
                      bytes, sizeof bytes);
        cr_assert_eq(mha_npy_read(path_in(dir, "b.npy"), &a, message, sizeof message), MHA_OK);
        cr_expect(a.kind == MHA_NPY_BOOL && a.values == NULL);
        cr_expect(a.flags[0] == 0 && a.flags[1] == 1 && a.flags[2] == 1 && a.flags[3] == 0);
        mha_npy_free(&a);
    }
    remove_dir(dir);
}
/* <<[[test_npy.c]] tests>> */
struct broken_npy {
    const char *raw;            /* if not NULL: the whole file, raw_size bytes */
    size_t raw_size;
    int major;                  /* else: a file built by write_npy_raw */
    const char *header;
    size_t data_bytes;
    mha_status status;
    const char *message;
};
/* <<[[test_npy.c]] tests>> */
static const struct broken_npy broken_files[] = {
    {NULL, 0, 1, HEADER("<f4", "False", "(4, 6)"), 22, MHA_ERR_FORMAT,
     "truncated: header says 24 values (96 bytes), file holds 5 (22 bytes)"},
    {NULL, 0, 1, HEADER("<f4", "False", "(2, 3)"), 26, MHA_ERR_FORMAT,
     "2 bytes of unexpected data after the 6 values"},
    {"", 0, 0, NULL, 0, MHA_ERR_FORMAT, "empty file"},
    {"hello, world\n", 13, 0, NULL, 0, MHA_ERR_FORMAT, "not a .npy file"},
    {"\x93NUM", 4, 0, NULL, 0, MHA_ERR_FORMAT, "not a .npy file"},
    {"\x93NUMPY\x01", 7, 0, NULL, 0, MHA_ERR_FORMAT, "inside the format version"},
    {"\x93NUMPY\x01\x00\x10", 9, 0, NULL, 0, MHA_ERR_FORMAT, "inside the header length"},
    {"\x93NUMPY\x01\x00\x00\x10{}", 12, 0, NULL, 0, MHA_ERR_FORMAT,
     "header length says 4096 bytes, the file holds 2"},
    {"\x93NUMPY\x04\x00\x02\x00{}", 12, 0, NULL, 0, MHA_ERR_FORMAT, "version 4.0"},
    {"\x93NUMPY\x01\x01\x02\x00{}", 12, 0, NULL, 0, MHA_ERR_FORMAT, "version 1.1"},
    {"\x93NUMPY\x02\x01\x02\x00\x00\x00{}", 14, 0, NULL, 0, MHA_ERR_FORMAT, "version 2.1"},
    {NULL, 0, 1, "[1, 2, 3]", 0, MHA_ERR_FORMAT, "expected '{'"},
    {NULL, 0, 1, "{'descr': '<f4', 'fortran_order': False}", 0, MHA_ERR_FORMAT,
     "lacks 'shape'"},
    {NULL, 0, 1, "{}", 0, MHA_ERR_FORMAT, "lacks 'descr'"},
    {NULL, 0, 1, "{'descr': '<f4'}", 0, MHA_ERR_FORMAT, "lacks 'fortran_order'"},
    {NULL, 0, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", 4,
     MHA_ERR_FORMAT, "unknown key 'extra'"},
    {NULL, 0, 1, "{'shape': (1,), 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
     MHA_ERR_FORMAT, "'shape' appears twice"},
    {NULL, 0, 1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
     MHA_ERR_FORMAT, "'descr' appears twice"},
    {NULL, 0, 1, "{'fortran_order': False, 'fortran_order': False}", 0,
     MHA_ERR_FORMAT, "'fortran_order' appears twice"},
    {NULL, 0, 1, "{'descr': '<f4', 'fortran_order': Fal", 0, MHA_ERR_FORMAT, "True or False"},
    {NULL, 0, 1, "{'descr': ", 0, MHA_ERR_FORMAT, "expected a quoted string"},
    {NULL, 0, 1, HEADER("<f4", "True", "(2, 3)"), 24, MHA_ERR_FORMAT, "fortran_order is True"},
    {NULL, 0, 1, HEADER("<f4", "Nope", "(2, 3)"), 24, MHA_ERR_FORMAT, "True or False"},
    {NULL, 0, 1, HEADER(">f4", "False", "(2, 3)"), 24, MHA_ERR_FORMAT, "element type '>f4'"},
    {NULL, 0, 1, HEADER("<i4", "False", "(2, 3)"), 24, MHA_ERR_FORMAT, "element type '<i4'"},
    {NULL, 0, 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", 4,
     MHA_ERR_FORMAT, "expected a quoted string"},
    {NULL, 0, 1, "{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
     MHA_ERR_FORMAT, "expected ':' after the key 'descr'"},
    {NULL, 0, 1, "{'descr': '<f4", 0, MHA_ERR_FORMAT, "unterminated string"},
    {NULL, 0, 1, HEADER("<f4f4f4f4f4f4f4f4f4f4", "False", "(1,)"), 4, MHA_ERR_FORMAT,
     "a string of 21 characters is too long here"},
    {NULL, 0, 1, "{'descr': '<\\f4'}", 0, MHA_ERR_FORMAT, "escapes"},
    {NULL, 0, 1, "{'descr': '<f4'", 0, MHA_ERR_FORMAT, "expected ',' or '}'"},
    {NULL, 0, 1, HEADER("<f4", "False", "(2, 3)") " x", 24, MHA_ERR_FORMAT,
     "after the closing"},
    {NULL, 0, 1, HEADER("<f4", "False", "(2, -3)"), 24, MHA_ERR_FORMAT, "expected a dimension"},
    {NULL, 0, 1, HEADER("<f4", "False", "(2, x)"), 24, MHA_ERR_FORMAT, "expected a dimension"},
    {NULL, 0, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (", 0, MHA_ERR_FORMAT,
     "expected a dimension"},
    {NULL, 0, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (12", 0, MHA_ERR_FORMAT,
     "expected ',' or ')'"},
    {NULL, 0, 1, HEADER("<f4", "False", "(2 3)"), 24, MHA_ERR_FORMAT, "expected ',' or ')'"},
    {NULL, 0, 1, HEADER("<f4", "False", "[2, 3]"), 24, MHA_ERR_FORMAT, "expected '('"},
    {NULL, 0, 1, HEADER("<f4", "False", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), 4, MHA_ERR_FORMAT,
     "more than 8 dimensions"},
    {NULL, 0, 1, HEADER("<f4", "False", "(99999999999999999999999,)"), 4, MHA_ERR_OVERFLOW,
     "dimension 1 of the shape does not fit"},
    {NULL, 0, 1, HEADER("<f4", "False", "(4294967296, 4294967296, 4294967296)"), 4,
     MHA_ERR_OVERFLOW, "element count overflows"},
    {NULL, 0, 1, HEADER("<f8", "False", "(4611686018427387904,)"), 8, MHA_ERR_OVERFLOW,
     "byte count overflows"},
};
/* <<[[test_npy.c]] tests>> */
Test(npy, every_broken_file_is_refused_with_its_reason) {
    char *dir = make_temp_dir(), message[256];
    unsigned char data[64] = {0};
    for (size_t i = 0; i < sizeof broken_files / sizeof broken_files[0]; i++) {
        const struct broken_npy *b = &broken_files[i];
        if (b->raw != NULL)
            write_bytes(dir, "bad.npy", b->raw, b->raw_size);
        else
            write_npy_raw(dir, "bad.npy", b->major, b->header, data, b->data_bytes);
        mha_npy a;
        mha_status status = mha_npy_read(path_in(dir, "bad.npy"), &a, message, sizeof message);
        cr_expect_eq(status, b->status, "case %zu: status %d, message '%s'",
                     i, status, message);
        cr_expect(strstr(message, b->message) != NULL,
                  "case %zu: message '%s' lacks '%s'", i, message, b->message);
        cr_expect(a.values == NULL && a.flags == NULL, "case %zu: array not empty", i);
        cr_expect(strchr(message, '\n') == NULL, "case %zu: message has a newline", i);
    }
    remove_dir(dir);
}
/* <<[[test_npy.c]] tests>> */
Test(npy, io_errors_and_writer_refusals) {
    char *dir = make_temp_dir(), message[256];
    mha_npy a;
    cr_expect_eq(mha_npy_read(path_in(dir, "absent.npy"), &a, message, sizeof message),
                 MHA_ERR_IO);
    cr_expect(strstr(message, "cannot open") != NULL, "%s", message);
    cr_expect_eq(mha_npy_read(dir, &a, message, sizeof message), MHA_ERR_IO);
    cr_expect(strstr(message, "not a regular file") != NULL, "%s", message);
    cr_expect_eq(mha_npy_read(path_in(dir, "absent.npy"), &a, NULL, 0), MHA_ERR_IO);
    const float x[1] = {1};
    const size_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, huge[2] = {SIZE_MAX / 2, 4};
    const size_t quarter[1] = {SIZE_MAX / 4 + 1};   /* the count fits, the bytes do not */
    cr_expect_eq(mha_npy_write(path_in(dir, "x.npy"), x, 9, nine, message, sizeof message),
                 MHA_ERR_ARG);
    cr_expect_eq(mha_npy_write(path_in(dir, "x.npy"), x, 2, huge, message, sizeof message),
                 MHA_ERR_OVERFLOW);
    const char *x_npy = path_in(dir, "x.npy");
    cr_expect_eq(mha_npy_write(x_npy, x, 1, quarter, message, sizeof message),
                 MHA_ERR_OVERFLOW);
    cr_expect(strstr(message, "shape too large") != NULL, "%s", message);
    cr_expect_eq(mha_npy_write(x_npy, x, 1, NULL, message, sizeof message), MHA_ERR_NULL);
    cr_expect(strstr(message, "no shape") != NULL, "%s", message);
    cr_expect_eq(mha_npy_write(x_npy, NULL, 1, nine, message, sizeof message),
                 MHA_ERR_NULL);
    cr_expect(strstr(message, "no values") != NULL, "%s", message);
    cr_expect_eq(mha_npy_write("/nonexistent/dir/x.npy", x, 1, nine, message, sizeof message),
                 MHA_ERR_IO);
    cr_expect(strstr(message, "cannot create") != NULL, "%s", message);
    cr_expect_eq(access(path_in(dir, "x.npy"), F_OK), -1, "nothing written");
    remove_dir(dir);
}

Test(npy, shape_text) {
    char text[32];
    const size_t shape[3] = {2, 3, 40};
    cr_expect_str_eq(mha_npy_shape_text(text, sizeof text, 0, shape), "()");
    cr_expect_str_eq(mha_npy_shape_text(text, sizeof text, 1, shape), "(2,)");
    cr_expect_str_eq(mha_npy_shape_text(text, sizeof text, 3, shape), "(2, 3, 40)");
    cr_expect_str_eq(mha_npy_shape_text(text, 6, 3, shape), "(2, 3");
    cr_expect_str_eq(mha_npy_shape_text(text, 0, 3, shape), "(2, 3", "a buffer of no bytes");
}
/* <<[[test_npy.c]] tests>> */
Test(npy, the_writer_reports_where_writing_failed) {
    char *dir = make_temp_dir(), message[256], below[512];
    const size_t one[1] = {1}, many[1] = {8192};
    float *values = calloc(8192, sizeof *values);
    write_bytes(dir, "file", "x", 1);
    snprintf(below, sizeof below, "%s/x.npy", path_in(dir, "file"));
    cr_expect_eq(mha_npy_write(below, values, 1, one, message, sizeof message), MHA_ERR_IO);
    cr_expect(strstr(message, "cannot replace") != NULL, "%s", message);
    cr_assert_eq(mkdir(path_in(dir, "folder.npy"), 0777), 0);
    cr_expect_eq(mha_npy_write(path_in(dir, "folder.npy"), values, 1, one, message,
                               sizeof message), MHA_ERR_IO);
    cr_expect(strstr(message, "cannot create") != NULL, "%s", message);
    const int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    cr_assert_geq(full, 0, "/dev/full: %s", strerror(errno));
    cr_expect_eq(mha_npy_write_fd(full, values, 1, many, message, sizeof message), MHA_ERR_IO);
    cr_expect(strstr(message, "write failed") != NULL, "%s", message);
    struct stat st;
    cr_expect(access(below, F_OK) != 0 && stat(path_in(dir, "folder.npy"), &st) == 0 &&
              S_ISDIR(st.st_mode), "a failed write changed the folder");
    int ends[2];
    cr_assert_eq(pipe(ends), 0);
    const float row[3] = {1.5f, -2.0f, 0.25f};
    const size_t three[1] = {3};
    cr_expect_eq(mha_npy_write_fd(ends[1], row, 1, three, message, sizeof message), MHA_OK,
                 "%s", message);
    char piped[512];
    const ssize_t got = read(ends[0], piped, sizeof piped);
    close(ends[0]);
    write_floats(dir, "row.npy", row, 1, three);
    size_t n;
    char *named = slurp(path_in(dir, "row.npy"), &n);
    cr_expect(got == (ssize_t)n && memcmp(piped, named, n) == 0, "%zd bytes through the pipe, "
              "%zu by name", got, n);
    free(named);
    free(values);
    remove_dir(dir);
}
