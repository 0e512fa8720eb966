/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "layer_dir.h"

int parse_forward_options(int argc, char **argv, struct forward_options *o, FILE *err)
{
    memset(o, 0, sizeof *o);
    o->impl = &mha_impls[0];
    o->want_weights = 1;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int matched;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = 1;
            return MHA_EXIT_OK;
        } else if (strcmp(argv[i], "--causal") == 0) {
            o->causal = 1;
        } else if (strcmp(argv[i], "--no-weights") == 0) {
            o->want_weights = 0;
        } else if ((matched = mha_option_value(argc, argv, &i, "--heads", &value, err)) != 0) {
            if (matched < 0 || mha_parse_size("--heads", value, &o->heads, err) != 0)
                return MHA_EXIT_USAGE;
        } else if ((matched = mha_option_value(argc, argv, &i, "--impl", &value, err)) != 0) {
            if (matched < 0)
                return MHA_EXIT_USAGE;
            o->impl = mha_impl_find(value);
            if (o->impl == NULL) {
                char known[256];
                size_t used = 0;
                known[0] = '\0';
                for (size_t k = 0; k < mha_impl_count && used < sizeof known; k++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                             k ? ", " : "", mha_impls[k].name);
                mha_cli_error(err, "--impl: unknown implementation '%s' (known: %s)", value, known);
                return MHA_EXIT_USAGE;
            }
        } else if (argv[i][0] == '-') {
            mha_cli_error(err, "%s: unknown option '%s' (try 'mha %s --help')", argv[0], argv[i],
                          argv[0]);
            return MHA_EXIT_USAGE;
        } else if (o->dir != NULL) {
            mha_cli_error(err, "%s: '%s': only one directory, please (already have '%s')",
                          argv[0], argv[i], o->dir);
            return MHA_EXIT_USAGE;
        } else {
            o->dir = argv[i];
        }
    }
    if (o->dir == NULL) {
        mha_cli_error(err, "%s: no directory given (try 'mha %s --help')", argv[0], argv[0]);
        return MHA_EXIT_USAGE;
    }
    if (o->heads == 0) {
        mha_cli_error(err, "--heads: required (the number of heads, a divisor of E)");
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
void free_forward_inputs(struct forward_inputs *in)
{
    mha_npy *all[] = {&in->query, &in->key, &in->value, &in->in_proj_weight,
                      &in->in_proj_bias, &in->out_proj_weight, &in->out_proj_bias,
                      &in->attn_mask, &in->key_padding_mask};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        mha_npy_free(all[i]);
}

int is_loaded(const mha_npy *array)
{
    return array->values != NULL || array->flags != NULL;
}
int join_path(char path[PATH_SIZE], const char *dir, const char *name)
{
    int n = snprintf(path, PATH_SIZE, "%s/%s", dir, name);
    return n >= 0 && n < PATH_SIZE;
}
int load_input(const char *dir, const char *name, int required, int kinds,
               mha_npy *array, FILE *err)
{
    char path[PATH_SIZE], message[256];
    join_path(path, dir, name);
    if (!required && access(path, F_OK) != 0 && errno == ENOENT)
        return MHA_EXIT_OK;
    if (mha_npy_read(path, array, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s: %s", path, message);
        return MHA_EXIT_FAILURE;
    }
    if (array->kind == MHA_NPY_FLOAT && !(kinds & WANT_FLOAT)) {
        mha_cli_error(err, "%s: holds floats ('%s'); expected a boolean mask ('|b1' or '|u1')",
                      path, array->dtype);
        return MHA_EXIT_FAILURE;
    }
    if (array->kind == MHA_NPY_BOOL && !(kinds & WANT_BOOL)) {
        mha_cli_error(err, "%s: holds booleans ('%s'); expected float32 or float64 values",
                      path, array->dtype);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
int check_shape(const char *dir, const char *name, const mha_npy *array,
                size_t rank, const struct axis *axes, FILE *err)
{
    int ok = array->rank == rank;
    for (size_t i = 0; ok && i < rank; i++)
        ok = axes[i].size == 0 ? array->shape[i] > 0 : array->shape[i] == axes[i].size;
    if (ok)
        return MHA_EXIT_OK;
    char got[256], rule[128] = "(", sizes[256] = "(";
    mha_npy_shape_text(got, sizeof got, array->rank, array->shape);
    for (size_t i = 0; i < rank; i++) {
        char size[32];
        snprintf(size, sizeof size, "%zu", axes[i].size);
        strncat(rule, axes[i].letter, sizeof rule - strlen(rule) - 1);
        strncat(sizes, axes[i].size ? size : axes[i].letter, sizeof sizes - strlen(sizes) - 1);
        const char *sep = i + 1 < rank ? ", " : rank == 1 ? ",)" : ")";
        strncat(rule, sep, sizeof rule - strlen(rule) - 1);
        strncat(sizes, sep, sizeof sizes - strlen(sizes) - 1);
    }
    const char *equals = strcmp(rule, sizes) != 0 ? " = " : "";
    if (strcmp(rule, sizes) == 0)
        sizes[0] = '\0';
    if (array->rank != rank)
        mha_cli_error(err, "%s/%s: shape %s has rank %zu; it should be %s%s%s",
                      dir, name, got, array->rank, rule, equals, sizes);
    else
        mha_cli_error(err, "%s/%s: shape %s should be %s%s%s%s", dir, name, got, rule, equals,
                      sizes, array->count == 0 ? ", with no empty axis" : "");
    return MHA_EXIT_FAILURE;
}
int load_checked(const char *dir, const char *name, int required, int kinds,
                 mha_npy *array, size_t rank, const struct axis *axes, FILE *err)
{
    int status = load_input(dir, name, required, kinds, array, err);
    if (status == MHA_EXIT_OK && is_loaded(array))
        status = check_shape(dir, name, array, rank, axes, err);
    return status;
}
/* in_proj_weight (rows, E) and in_proj_bias (rows), out_proj (E, E) and (E);
   rows is 3E here, E + 2 H_kv D for a grouped decoder (the KV cache). */
int load_projections(const char *dir, const char *rows_letters, size_t rows, size_t E,
                     struct forward_inputs *in, FILE *err)
{
    const struct axis in_weight_axes[] = {{rows_letters, rows}, {"E", E}};
    const struct axis in_bias_axes[] = {{rows_letters, rows}};
    const struct axis out_weight_axes[] = {{"E", E}, {"E", E}}, out_bias_axes[] = {{"E", E}};
    int status;
    if ((status = load_checked(dir, "in_proj_weight.npy", 1, WANT_FLOAT, &in->in_proj_weight,
                               2, in_weight_axes, err)) != MHA_EXIT_OK ||
        (status = load_checked(dir, "in_proj_bias.npy", 0, WANT_FLOAT, &in->in_proj_bias,
                               1, in_bias_axes, err)) != MHA_EXIT_OK ||
        (status = load_checked(dir, "out_proj_weight.npy", 1, WANT_FLOAT, &in->out_proj_weight,
                               2, out_weight_axes, err)) != MHA_EXIT_OK ||
        (status = load_checked(dir, "out_proj_bias.npy", 0, WANT_FLOAT, &in->out_proj_bias,
                               1, out_bias_axes, err)) != MHA_EXIT_OK)
        return status;
    return MHA_EXIT_OK;
}
int load_forward_inputs(const struct forward_options *o, struct forward_inputs *in,
                        mha_shape *shape, FILE *err)
{
    const char *dir = o->dir;
    int status;
    const struct axis query_axes[] = {{"B", 0}, {"L", 0}, {"E", 0}};
    if ((status = load_checked(dir, "query.npy", 1, WANT_FLOAT, &in->query,
                               3, query_axes, err)) != MHA_EXIT_OK)
        return status;
    const size_t B = in->query.shape[0], L = in->query.shape[1], E = in->query.shape[2];
    const struct axis key_axes[] = {{"B", B}, {"S", 0}, {"E", E}};
    if ((status = load_checked(dir, "key.npy", 0, WANT_FLOAT, &in->key,
                               3, key_axes, err)) != MHA_EXIT_OK)
        return status;
    if ((status = load_input(dir, "value.npy", 0, WANT_FLOAT, &in->value, err)) != MHA_EXIT_OK)
        return status;
    if (is_loaded(&in->key) != is_loaded(&in->value)) {
        mha_cli_error(err, "%s/%s: missing: key.npy and value.npy come together"
                      " (both for cross-attention, neither for self-attention)",
                      dir, is_loaded(&in->key) ? "value.npy" : "key.npy");
        return MHA_EXIT_FAILURE;
    }
    const size_t S = is_loaded(&in->key) ? in->key.shape[1] : L;
    const struct axis value_axes[] = {{"B", B}, {"S", S}, {"E", E}};
    if (is_loaded(&in->value) &&
        (status = check_shape(dir, "value.npy", &in->value, 3, value_axes, err)) != MHA_EXIT_OK)
        return status;
    *shape = (mha_shape){B, L, S, E, o->heads};
    const mha_status checked = mha_shape_check(shape);
    if (checked == MHA_ERR_HEADS) {
        mha_cli_error(err, "--heads: %zu does not divide the model width E = %zu of %s/query.npy",
                      o->heads, E, dir);
        return MHA_EXIT_USAGE;
    }
    if (checked != MHA_OK) {
        mha_cli_error(err, "%s: B=%zu L=%zu S=%zu E=%zu H=%zu: %s", dir, B, L, S, E,
                      o->heads, mha_status_message(checked));
        return MHA_EXIT_FAILURE;
    }
    if ((status = load_projections(dir, "3E", 3 * E, E, in, err)) != MHA_EXIT_OK)
        return status;
    const struct axis mask_axes[] = {{"L", L}, {"S", S}}, padding_axes[] = {{"B", B}, {"S", S}};
    if ((status = load_checked(dir, "attn_mask.npy", 0, WANT_FLOAT | WANT_BOOL, &in->attn_mask,
                               2, mask_axes, err)) != MHA_EXIT_OK ||
        (status = load_checked(dir, "key_padding_mask.npy", 0, WANT_BOOL, &in->key_padding_mask,
                               2, padding_axes, err)) != MHA_EXIT_OK)
        return status;
    return MHA_EXIT_OK;
}
/* Write files[0..n-1] into dir, all or nothing; files[0] is renamed last. */
int write_files(const char *dir, int n, const struct output_file *files, FILE *err)
{
    char final[MAX_OUTPUT_FILES][PATH_SIZE], temporary[MAX_OUTPUT_FILES][PATH_SIZE];
    if (n < 0 || n > MAX_OUTPUT_FILES) {
        mha_cli_error(err, "%s: cannot write %d files at once (at most %d)", dir, n,
                      MAX_OUTPUT_FILES);
        return MHA_EXIT_FAILURE;
    }
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, ".%s.%ld.tmp", files[i].name, (long)getpid());
        join_path(final[i], dir, files[i].name);
        join_path(temporary[i], dir, name);
    }
    for (int i = 0; i < n; i++) {
        char message[256];
        if (mha_npy_write(temporary[i], files[i].data, files[i].rank, files[i].shape,
                          message, sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s: %s", final[i], message);
            for (int j = 0; j < i; j++)
                remove(temporary[j]);
            return MHA_EXIT_FAILURE;
        }
    }
    for (int i = n - 1; i >= 0; i--)
        if (rename(temporary[i], final[i]) != 0) {
            mha_cli_error(err, "%s: cannot replace: %s", final[i], strerror(errno));
            for (int j = i; j >= 0; j--)
                remove(temporary[j]);
            return MHA_EXIT_FAILURE;
        }
    return MHA_EXIT_OK;
}
int write_outputs(const char *dir, const char *label, int want_weights,
                  const mha_shape *shape, const float *output,
                  const float *weights, FILE *out, FILE *err)
{
    const size_t output_shape[3] = {shape->batch, shape->query_len, shape->embed_dim};
    const size_t weight_shape[4] = {shape->batch, shape->heads, shape->query_len,
                                    shape->key_len};
    const struct output_file files[2] = {{"out.npy", output, 3, output_shape},
                                         {"attn_weights.npy", weights, 4, weight_shape}};
    const int n = want_weights ? 2 : 1;
    int status = write_files(dir, n, files, err);
    if (status == MHA_EXIT_OK) {
        char text[2][128];
        mha_npy_shape_text(text[0], sizeof text[0], 3, output_shape);
        mha_npy_shape_text(text[1], sizeof text[1], 4, weight_shape);
        fprintf(out, "mha %s: wrote %s/out.npy %s", label, dir, text[0]);
        if (n == 2)
            fprintf(out, " and %s/attn_weights.npy %s", dir, text[1]);
        fputc('\n', out);
    }
    return status;
}
int check_directory(const char *dir, FILE *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        mha_cli_error(err, "%s: %s", dir, strerror(errno));
        return MHA_EXIT_FAILURE;
    }
    if (!S_ISDIR(st.st_mode)) {
        mha_cli_error(err, "%s: not a directory", dir);
        return MHA_EXIT_FAILURE;
    }
    if (strlen(dir) + 64 >= PATH_SIZE) {
        mha_cli_error(err, "%s: directory name too long", dir);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
