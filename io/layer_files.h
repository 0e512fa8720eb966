/* generated from chapters/20-command.nw; edit the book, not this file */
#ifndef MHA_LAYER_FILES_H
#define MHA_LAYER_FILES_H
/* The files of a layer directory, under PyTorch's names: reading them with
   every shape checked.  On failure a function returns the status and writes
   one line into message[0..size-1], naming the file at fault. */
#include <stddef.h>
#include "mha.h"
#include "npy.h"

/* <<[[layer_files.h]] types>> */
typedef struct mha_layer_files {
    mha_npy query, key, value;                 /* (B, L, E), (B, S, E), (B, S, E) */
    mha_npy in_proj_weight, in_proj_bias;      /* (3E, E), (3E) */
    mha_npy out_proj_weight, out_proj_bias;    /* (E, E), (E) */
    mha_npy attn_mask, key_padding_mask;       /* (L, S), (B, S) */
} mha_layer_files;
/* <<[[layer_files.h]] types>> */
enum { MHA_PATH_SIZE = 4096, MHA_WANT_FLOAT = 1, MHA_WANT_BOOL = 2 };
/* <<[[layer_files.h]] types>> */
typedef struct mha_axis { const char *letter; size_t size; } mha_axis;  /* size 0: any */
/* <<[[layer_files.h]] functions>> */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
mha_status mha_fail(mha_status status, char *message, size_t size, const char *format, ...);
int mha_join_path(char *path, size_t size, const char *dir, const char *name);  /* 1: fitted */
void mha_layer_files_free(mha_layer_files *in);
int mha_npy_loaded(const mha_npy *array);
MHA_MUST_CHECK
mha_status mha_layer_read(const char *dir, const char *name, int required, int kinds,
                          mha_npy *array, char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_layer_check_shape(const char *dir, const char *name, const mha_npy *array,
                                 size_t rank, const mha_axis *axes,
                                 char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_layer_read_checked(const char *dir, const char *name, int required, int kinds,
                                  mha_npy *array, size_t rank, const mha_axis *axes,
                                  char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_layer_read_projections(const char *dir, const char *rows_letters, size_t rows,
                                      size_t E, mha_layer_files *in,
                                      char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_layer_read_query(const char *dir, mha_layer_files *in,
                                char *message, size_t size);
MHA_MUST_CHECK
mha_status mha_layer_read_forward(const char *dir, size_t heads, mha_layer_files *in,
                                  mha_shape *shape, char *message, size_t size);
#endif
