/* generated from chapters/23-train-command.nw; edit the book, not this file */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "checkpoint.h"
#include "npy.h"

enum { PATH_MAX_BYTES = 4096, NAME_ROOM = 96 };    /* NAME_ROOM: for a file's name */

size_t induction_checkpoint_files(const induction_model *model,
                                  checkpoint_file files[CHECKPOINT_FILES_MAX])
{
    const size_t V = model->vocab, T = model->length, E = model->embed_dim;
    const model_tensors t = induction_model_tensors(model);
    size_t n = 0;
    files[n++] = (checkpoint_file){"tok_emb.npy", 2, {V, E}, t.tok_emb};
    files[n++] = (checkpoint_file){"pos_emb.npy", 2, {T, E}, t.pos_emb};
    files[n++] = (checkpoint_file){"unembed.npy", 2, {V, E}, t.unembed};
    for (size_t l = 0; l < model->layers; l++) {
        static const char *const what[4] = {"in_proj_weight", "in_proj_bias", "out_proj_weight",
                                            "out_proj_bias"};
        const checkpoint_file layer[4] = {{"", 2, {3 * E, E}, t.in_w[l]}, {"", 1, {3 * E, 0}, t.in_b[l]},
                                      {"", 2, {E, E}, t.out_w[l]}, {"", 1, {E, 0}, t.out_b[l]}};
        for (int k = 0; k < 4; k++, n++) {
            files[n] = layer[k];
            snprintf(files[n].name, sizeof files[n].name, "layers.%zu.%s.npy", l, what[k]);
        }
    }
    return n;
}
const char *const induction_checkpoint_names[] = {
    "tok_emb.npy", "pos_emb.npy", "unembed.npy",
    "layers.#.in_proj_weight.npy", "layers.#.in_proj_bias.npy",
    "layers.#.out_proj_weight.npy", "layers.#.out_proj_bias.npy", NULL};
static void checkpoint_path(char path[PATH_MAX_BYTES], const char *dir, const char *name)
{
    snprintf(path, PATH_MAX_BYTES, "%s/%s", dir, name);
}

static mha_status check_length(const char *dir, char *message, size_t size)
{
    if (strlen(dir) + NAME_ROOM < PATH_MAX_BYTES)
        return MHA_OK;
    snprintf(message, size, "directory name too long (%zu bytes)", strlen(dir));
    return MHA_ERR_ARG;
}
static mha_status read_tensor(const char *dir, const char *name, size_t rank,
                              const size_t *shape, mha_npy *a, char *message, size_t size)
{
    char path[PATH_MAX_BYTES], why[256], got[64], want[64];
    checkpoint_path(path, dir, name);
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
        checkpoint_path(path, dir, name);
        if (access(path, F_OK) != 0)
            break;
    }
    status = layers == 0 ? MHA_ERR_IO : induction_model_init(model, V, T, E, heads, layers, 0);
    if (status != MHA_OK)
        snprintf(message, size, layers == 0 ? "%s: no layers.0.in_proj_weight.npy"
                                            : "%s: cannot make a model of these sizes", dir);
    if (status == MHA_OK) {
        checkpoint_file files[CHECKPOINT_FILES_MAX];
        const size_t n = induction_checkpoint_files(model, files);
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
