/* generated from chapters/45-tests-command.nw; edit the book, not this file */
#ifndef SCRATCH_H
#define SCRATCH_H
/* Scratch directories and files for the tests; every helper fails the
   calling test (cr_assert) when the system refuses. */
#include <stddef.h>
#include <stdint.h>
char *make_temp_dir(void);                     /* fresh, under /tmp; malloc'd name */
void remove_dir(char *dir);                    /* the flat directory, and frees dir */
char *path_in(const char *dir, const char *name);   /* a static buffer */
char *slurp(const char *path, size_t *size);   /* files of under 1 MiB; malloc'd */
void write_bytes(const char *dir, const char *name, const void *bytes, size_t n);
void write_npy_raw(const char *dir, const char *name, int major, const char *header,
                   const void *data, size_t data_size);
void write_floats(const char *dir, const char *name, const float *values,
                  size_t rank, const size_t *shape);
void write_random(const char *dir, const char *name, uint64_t seed,
                  size_t rank, const size_t *shape);
/* A .npy header dictionary, as NumPy writes it, from three literals. */
#define HEADER(descr, order, shape) \
    "{'descr': '" descr "', 'fortran_order': " order ", 'shape': " shape ", }"
#endif
