/* generated from chapters/23-train-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "checkpoint.h"
#include "npy.h"

enum { PATH_MAX_BYTES = 4096, NAME_ROOM = 96 };    /* NAME_ROOM: for a file's name */
typedef struct tensor_file {
    char name[48];                 /* in the directory: "layers.1.out_proj_bias.npy" */
    size_t rank, shape[2];
    float *data;                   /* the model's tensor */
} tensor_file;

static size_t checkpoint_files(const induction_model *model,
                               tensor_file files[CHECKPOINT_FILES_MAX])
{
    const size_t V = model->vocab, T = model->length, E = model->embed_dim;
    const model_tensors t = induction_model_tensors(model);
    size_t n = 0;
    files[n++] = (tensor_file){"tok_emb.npy", 2, {V, E}, t.tok_emb};
    files[n++] = (tensor_file){"pos_emb.npy", 2, {T, E}, t.pos_emb};
    files[n++] = (tensor_file){"unembed.npy", 2, {V, E}, t.unembed};
    for (size_t l = 0; l < model->layers; l++) {
        static const char *const what[4] = {"in_proj_weight", "in_proj_bias", "out_proj_weight",
                                            "out_proj_bias"};
        const tensor_file layer[4] = {{"", 2, {3 * E, E}, t.in_w[l]}, {"", 1, {3 * E, 0}, t.in_b[l]},
                                      {"", 2, {E, E}, t.out_w[l]}, {"", 1, {E, 0}, t.out_b[l]}};
        for (int k = 0; k < 4; k++, n++) {
            files[n] = layer[k];
            snprintf(files[n].name, sizeof files[n].name, "layers.%zu.%s.npy", l, what[k]);
        }
    }
    return n;
}
static void checkpoint_path(char path[PATH_MAX_BYTES], const char *dir, const char *name,
                            int temporary)
{
    if (temporary)
        snprintf(path, PATH_MAX_BYTES, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
    else
        snprintf(path, PATH_MAX_BYTES, "%s/%s", dir, name);
}

static mha_status check_length(const char *dir, char *message, size_t size)
{
    if (strlen(dir) + NAME_ROOM < PATH_MAX_BYTES)
        return MHA_OK;
    snprintf(message, size, "directory name too long (%zu bytes)", strlen(dir));
    return MHA_ERR_ARG;
}
static void remove_temporaries(const char *dir, const tensor_file *files, size_t n)
{
    char path[PATH_MAX_BYTES];
    for (size_t i = 0; i < n; i++) {
        checkpoint_path(path, dir, files[i].name, 1);
        remove(path);                        /* a file never written: nothing happens */
    }
}
mha_status induction_checkpoint_write(const induction_model *model, const char *dir,
                                      size_t *count, char *message, size_t size)
{
    tensor_file files[CHECKPOINT_FILES_MAX];
    const size_t n = checkpoint_files(model, files);
    char path[PATH_MAX_BYTES], final[PATH_MAX_BYTES];
    mha_status status = check_length(dir, message, size);
    if (status != MHA_OK)
        return status;
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(message, size, "%s: %s", dir, strerror(errno));
        return MHA_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(message, size, "%s: not a directory", dir);
        return MHA_ERR_IO;
    }
    for (size_t i = 0; status == MHA_OK && i < n; i++) {
        char why[256];
        checkpoint_path(path, dir, files[i].name, 1);
        status = mha_npy_write(path, files[i].data, files[i].rank, files[i].shape, why, sizeof why);
        if (status != MHA_OK)
            snprintf(message, size, "%s/%s: %s", dir, files[i].name, why);
    }
    if (status != MHA_OK)
        remove_temporaries(dir, files, n);
    for (size_t i = n; status == MHA_OK && i-- > 0;) {
        checkpoint_path(path, dir, files[i].name, 1);
        checkpoint_path(final, dir, files[i].name, 0);
        if (rename(path, final) != 0) {
            snprintf(message, size, "%s: cannot replace: %s", final, strerror(errno));
            status = MHA_ERR_IO;
            remove_temporaries(dir, files, i + 1);
        }
    }
    if (count != NULL)
        *count = status == MHA_OK ? n : 0;
    return status;
}
static mha_status read_tensor(const char *dir, const char *name, size_t rank,
                              const size_t *shape, mha_npy *a, char *message, size_t size)
{
    char path[PATH_MAX_BYTES], why[256], got[64], want[64];
    checkpoint_path(path, dir, name, 0);
    mha_status status = mha_npy_read(path, a, why, sizeof why);
    if (status != MHA_OK) {
        snprintf(message, size, "%s: %s", path, why);
        return status;
    }
    int same = a->kind == MHA_NPY_FLOAT && a->rank == rank;
    for (size_t k = 0; same && k < rank; k++)
        same = shape[k] == 0 || a->shape[k] == shape[k];      /* 0: any size */
    if (!same) {
        snprintf(message, size, "%s: shape %s, expected %s", path,
                 mha_npy_shape_text(got, sizeof got, a->rank, a->shape),
                 mha_npy_shape_text(want, sizeof want, rank, shape));
        mha_npy_free(a);
        return MHA_ERR_SHAPE;
    }
    return MHA_OK;
}
mha_status induction_checkpoint_read(const char *dir, size_t heads, induction_model *model,
                                     char *message, size_t size)
{
    mha_npy tok, pos;
    const size_t any[2] = {0, 0};
    memset(model, 0, sizeof *model);
    mha_status status = check_length(dir, message, size);
    if (status == MHA_OK)
        status = read_tensor(dir, "tok_emb.npy", 2, any, &tok, message, size);
    if (status != MHA_OK)
        return status;
    const size_t V = tok.shape[0], E = tok.shape[1], along_e[2] = {0, E};
    mha_npy_free(&tok);
    if ((status = read_tensor(dir, "pos_emb.npy", 2, along_e, &pos, message, size)) != MHA_OK)
        return status;
    const size_t T = pos.shape[0];
    mha_npy_free(&pos);
    size_t layers = 0;
    for (; layers < LEARNING_MAX_LAYERS; layers++) {
        char path[PATH_MAX_BYTES], name[48];
        snprintf(name, sizeof name, "layers.%zu.in_proj_weight.npy", layers);
        checkpoint_path(path, dir, name, 0);
        if (access(path, F_OK) != 0)
            break;
    }
    status = layers == 0 ? MHA_ERR_IO : induction_model_init(model, V, T, E, heads, layers, 0);
    if (status != MHA_OK)
        snprintf(message, size, layers == 0 ? "%s: no layers.0.in_proj_weight.npy"
                                            : "%s: cannot make a model of these sizes", dir);
    if (status == MHA_OK) {
        tensor_file files[CHECKPOINT_FILES_MAX];
        const size_t n = checkpoint_files(model, files);
        for (size_t f = 0; f < n && status == MHA_OK; f++) {
            mha_npy a;
            status = read_tensor(dir, files[f].name, files[f].rank, files[f].shape, &a, message, size);
            if (status == MHA_OK) {
                memcpy(files[f].data, a.values, a.count * sizeof(float));
                mha_npy_free(&a);
            }
        }
    }
    if (status != MHA_OK)
        induction_model_free(model);
    return status;
}
