/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layer_files.h"

/* <<[[layer_files.c]] helpers>> */
mha_status mha_fail(mha_status status, char *message, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (size > 0)
        vsnprintf(message, size, format, args);
    va_end(args);
    return status;
}
/* <<[[layer_files.c]] helpers>> */
int mha_join_path(char *path, size_t size, const char *dir, const char *name)
{
    const int n = snprintf(path, size, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < size;
}
/* <<[[layer_files.c]] functions>> */
void mha_layer_files_free(mha_layer_files *in)
{
    mha_npy *all[] = {&in->query, &in->key, &in->value, &in->in_proj_weight,
                      &in->in_proj_bias, &in->out_proj_weight, &in->out_proj_bias,
                      &in->attn_mask, &in->key_padding_mask};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        mha_npy_free(all[i]);
}

int mha_npy_loaded(const mha_npy *array)
{
    return array->values != NULL || array->flags != NULL;
}
/* <<[[layer_files.c]] functions>> */
mha_status mha_layer_read(const char *dir, const char *name, int required, int kinds,
                          mha_npy *array, char *message, size_t size)
{
    char path[MHA_PATH_SIZE], reason[256];
    if (!mha_join_path(path, sizeof path, dir, name))
        return mha_fail(MHA_ERR_ARG, message, size, "%s: the path of %s is too long", dir, name);
    /* <<skip an optional file that is absent, but not one that is a dangling link>> */
    struct stat name_status;
    if (lstat(path, &name_status) != 0) {
        if (!required && errno == ENOENT)
            return MHA_OK;
    } else if (S_ISLNK(name_status.st_mode) && access(path, F_OK) != 0) {
        return mha_fail(MHA_ERR_IO, message, size, "%s: a symbolic link to a missing file", path);
    }
    mha_status status = mha_npy_read(path, array, reason, sizeof reason);
    if (status != MHA_OK)
        return mha_fail(status, message, size, "%s: %s", path, reason);
    /* <<refuse [[array]] if its element kind is not among [[kinds]]>> */
    if (array->kind == MHA_NPY_FLOAT && !(kinds & MHA_WANT_FLOAT))
        return mha_fail(MHA_ERR_FORMAT, message, size,
                    "%s: holds floats ('%s'); expected a boolean mask ('|b1' or '|u1')",
                    path, array->dtype);
    if (array->kind == MHA_NPY_BOOL && !(kinds & MHA_WANT_BOOL))
        return mha_fail(MHA_ERR_FORMAT, message, size,
                    "%s: holds booleans ('%s'); expected float32 or float64 values",
                    path, array->dtype);
    /* <<refuse [[array]] if it holds a value that is not finite>> */
    if (array->kind == MHA_NPY_FLOAT) {
        const int is_mask = (kinds & MHA_WANT_BOOL) != 0;
        const size_t bad = mha_first_nonfinite(array->values, array->count, is_mask);
        if (bad < array->count)
            return mha_fail(MHA_ERR_ARG, message, size, "%s: not finite at index %zu%s", path, bad,
                        is_mask ? " (a float mask may hold -inf, but not NaN or +inf)" : "");
    }
    return MHA_OK;
}
/* <<[[layer_files.c]] functions>> */
mha_status mha_layer_check_shape(const char *dir, const char *name, const mha_npy *array,
                                 size_t rank, const mha_axis *axes,
                                 char *message, size_t size)
{
    int ok = array->rank == rank;
    for (size_t i = 0; ok && i < rank; i++)
        ok = axes[i].size == 0 ? array->shape[i] > 0 : array->shape[i] == axes[i].size;
    if (ok)
        return MHA_OK;
    /* <<report that [[name]]'s shape does not fit [[axes]]>> */
    char got[256], rule[128] = "(", sizes[256] = "(";
    mha_npy_shape_text(got, sizeof got, array->rank, array->shape);
    for (size_t i = 0; i < rank; i++) {
        char axis[32];
        snprintf(axis, sizeof axis, "%zu", axes[i].size);
        strncat(rule, axes[i].letter, sizeof rule - strlen(rule) - 1);
        strncat(sizes, axes[i].size ? axis : axes[i].letter, sizeof sizes - strlen(sizes) - 1);
        const char *sep = i + 1 < rank ? ", " : rank == 1 ? ",)" : ")";
        strncat(rule, sep, sizeof rule - strlen(rule) - 1);
        strncat(sizes, sep, sizeof sizes - strlen(sizes) - 1);
    }
    const char *equals = strcmp(rule, sizes) != 0 ? " = " : "";
    if (strcmp(rule, sizes) == 0)
        sizes[0] = '\0';
    if (array->rank != rank)
        return mha_fail(MHA_ERR_SHAPE, message, size, "%s/%s: shape %s has rank %zu; it should be %s%s%s",
                    dir, name, got, array->rank, rule, equals, sizes);
    return mha_fail(MHA_ERR_SHAPE, message, size, "%s/%s: shape %s should be %s%s%s%s", dir, name, got,
                rule, equals, sizes, array->count == 0 ? ", with no empty axis" : "");
}
/* <<[[layer_files.c]] functions>> */
mha_status mha_layer_read_checked(const char *dir, const char *name, int required, int kinds,
                                  mha_npy *array, size_t rank, const mha_axis *axes,
                                  char *message, size_t size)
{
    mha_status status = mha_layer_read(dir, name, required, kinds, array, message, size);
    if (status == MHA_OK && mha_npy_loaded(array))
        status = mha_layer_check_shape(dir, name, array, rank, axes, message, size);
    return status;
}
/* <<[[layer_files.c]] functions>> */
/* in_proj_weight (rows, E) and in_proj_bias (rows), out_proj (E, E) and (E);
   rows is 3E here, E + 2 H_kv D for a grouped decoder (the KV cache). */
mha_status mha_layer_read_projections(const char *dir, const char *rows_letters, size_t rows,
                                      size_t E, mha_layer_files *in,
                                      char *message, size_t size)
{
    const mha_axis in_weight_axes[] = {{rows_letters, rows}, {"E", E}};
    const mha_axis in_bias_axes[] = {{rows_letters, rows}};
    const mha_axis out_weight_axes[] = {{"E", E}, {"E", E}}, out_bias_axes[] = {{"E", E}};
    mha_status status;
    if ((status = mha_layer_read_checked(dir, "in_proj_weight.npy", 1, MHA_WANT_FLOAT,
                      &in->in_proj_weight, 2, in_weight_axes, message, size)) != MHA_OK ||
        (status = mha_layer_read_checked(dir, "in_proj_bias.npy", 0, MHA_WANT_FLOAT,
                      &in->in_proj_bias, 1, in_bias_axes, message, size)) != MHA_OK ||
        (status = mha_layer_read_checked(dir, "out_proj_weight.npy", 1, MHA_WANT_FLOAT,
                      &in->out_proj_weight, 2, out_weight_axes, message, size)) != MHA_OK ||
        (status = mha_layer_read_checked(dir, "out_proj_bias.npy", 0, MHA_WANT_FLOAT,
                      &in->out_proj_bias, 1, out_bias_axes, message, size)) != MHA_OK)
        return status;
    return MHA_OK;
}
/* <<[[layer_files.c]] functions>> */
mha_status mha_layer_read_forward(const char *dir, size_t heads, mha_layer_files *in,
                                  mha_shape *shape, char *message, size_t size)
{
    mha_status status;
    /* <<load the query, and learn $B$, $L$ and $E$>> */
    if ((status = mha_layer_read_query(dir, in, message, size)) != MHA_OK)
        return status;
    const size_t B = in->query.shape[0], L = in->query.shape[1], E = in->query.shape[2];
    /* <<load the key and the value, and learn $S$>> */
    const mha_axis key_axes[] = {{"B", B}, {"S", 0}, {"E", E}};
    if ((status = mha_layer_read_checked(dir, "key.npy", 0, MHA_WANT_FLOAT, &in->key,
                                         3, key_axes, message, size)) != MHA_OK ||
        (status = mha_layer_read(dir, "value.npy", 0, MHA_WANT_FLOAT, &in->value,
                                 message, size)) != MHA_OK)
        return status;
    if (mha_npy_loaded(&in->key) != mha_npy_loaded(&in->value))
        return mha_fail(MHA_ERR_ARG, message, size, "%s/%s: missing: key.npy and value.npy come"
                    " together (both for cross-attention, neither for self-attention)",
                    dir, mha_npy_loaded(&in->key) ? "value.npy" : "key.npy");
    const size_t S = mha_npy_loaded(&in->key) ? in->key.shape[1] : L;
    const mha_axis value_axes[] = {{"B", B}, {"S", S}, {"E", E}};
    if (mha_npy_loaded(&in->value) &&
        (status = mha_layer_check_shape(dir, "value.npy", &in->value, 3, value_axes,
                                        message, size)) != MHA_OK)
        return status;
    /* <<check the head count and the whole shape with [[mha_shape_check]]>> */
    *shape = (mha_shape){B, L, S, E, heads};
    const mha_status checked = mha_shape_check(shape);
    if (checked == MHA_ERR_HEADS)
        return mha_fail(checked, message, size,
                    "--heads: %zu does not divide the model width E = %zu of %s/query.npy",
                    heads, E, dir);
    if (checked != MHA_OK)
        return mha_fail(checked, message, size, "%s: B=%zu L=%zu S=%zu E=%zu H=%zu: %s", dir, B, L, S,
                    E, heads, mha_status_message(checked));
    if ((status = mha_layer_read_projections(dir, "3E", 3 * E, E, in, message, size)) != MHA_OK)
        return status;
    /* <<load the two masks>> */
    const mha_axis mask_axes[] = {{"L", L}, {"S", S}}, padding_axes[] = {{"B", B}, {"S", S}};
    if ((status = mha_layer_read_checked(dir, "attn_mask.npy", 0, MHA_WANT_FLOAT | MHA_WANT_BOOL,
                                         &in->attn_mask, 2, mask_axes, message, size)) != MHA_OK ||
        (status = mha_layer_read_checked(dir, "key_padding_mask.npy", 0, MHA_WANT_BOOL,
                                         &in->key_padding_mask, 2, padding_axes,
                                         message, size)) != MHA_OK)
        return status;
    return MHA_OK;
}
/* <<[[layer_files.c]] functions>> */
mha_status mha_layer_read_query(const char *dir, mha_layer_files *in,
                                char *message, size_t size)
{
    const mha_axis query_axes[] = {{"B", 0}, {"L", 0}, {"E", 0}};
    return mha_layer_read_checked(dir, "query.npy", 1, MHA_WANT_FLOAT, &in->query,
                                  3, query_axes, message, size);
}
