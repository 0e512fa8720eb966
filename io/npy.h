/* generated from chapters/19-npy-format.nw; edit the book, not this file */
#ifndef MHA_NPY_H
#define MHA_NPY_H
/* Reading and writing NumPy .npy files (the book's appendix on the format).
   Reads versions 1.0, 2.0 and 3.0 of the format, C order only, with element
   type '<f4' or '<f8' (delivered as float) or '|b1' or '|u1' (delivered as
   bytes 0 and 1).  Writes float32 ('<f4'), version 1.0.  Errors are values:
   a function that fails returns its mha_status and writes one line, without
   a newline and without the file's name, into the caller's message buffer. */
#include <stddef.h>
#include "mha.h"

/* <<[[npy.h]] types>> */
enum { MHA_NPY_MAX_RANK = 8 };

typedef enum mha_npy_kind { MHA_NPY_FLOAT, MHA_NPY_BOOL } mha_npy_kind;

typedef struct mha_npy {
    mha_npy_kind kind;
    char dtype[4];                    /* as the file spelt it: "<f4", "<f8", "|b1", "|u1" */
    size_t rank;                      /* 0 .. MHA_NPY_MAX_RANK */
    size_t shape[MHA_NPY_MAX_RANK];   /* outermost dimension first */
    size_t count;                     /* product of the shape; 1 for rank 0 */
    float *values;                    /* count floats if kind is MHA_NPY_FLOAT, else NULL */
    unsigned char *flags;             /* count bytes, 0 or 1, if MHA_NPY_BOOL, else NULL */
} mha_npy;
/* <<[[npy.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_npy_read(const char *path, mha_npy *array,
                        char *message, size_t message_size);
void mha_npy_free(mha_npy *array);
/* <<[[npy.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_npy_write(const char *path, const float *values,
                         size_t rank, const size_t *shape,
                         char *message, size_t message_size);
/* <<[[npy.h]] functions>> */
MHA_MUST_CHECK
mha_status mha_npy_write_fd(int fd, const float *values, size_t rank, const size_t *shape,
                            char *message, size_t message_size);
/* <<[[npy.h]] functions>> */
char *mha_npy_shape_text(char *text, size_t size, size_t rank, const size_t *shape);
#endif
