/* generated from chapters/23-train-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpe_files.h"
#include "checkpoint.h"
#include "layer_files.h"
#include "npy.h"
#include "output.h"

enum { PATH_MAX_BYTES = 4096, NAME_ROOM = 96 };    /* NAME_ROOM: for a file's name */
enum { LINE_WORDS = 8, SIZE_KEYS = 5 };           /* in a line of model.txt; its size keys */

static mha_status read_metadata(const char *dir, size_t legacy_heads, mha_induction_model *sizes,
                                char *message, size_t size);
static mha_status read_tensor(const char *dir, const checkpoint_file *file, mha_npy *a,
                              char *message, size_t size);
static mha_status read_format_0(const char *dir, size_t heads, mha_induction_model *sizes,
                                char *message, size_t size);
static mha_status parse_metadata(const char *path, char *text, size_t length,
                                 mha_induction_model *sizes, char *message, size_t size);
static mha_status parse_line(const char *path, size_t line, char **w, int count,
                             mha_induction_model *sizes, int *seen, checkpoint_file *listed,
                             size_t *tensors, char *message, size_t size);
static mha_status check_sizes(const char *path, const mha_induction_model *s,
                              char *message, size_t size);
static mha_status check_listing(const char *path, const mha_induction_model *s,
                                const checkpoint_file *listed, size_t tensors,
                                char *message, size_t size);
static int split_words(char *line, char *words[LINE_WORDS]);

/* <<[[checkpoint.c]] functions>> */
static size_t describe(const mha_induction_model *sizes, const mha_model_tensors *t,
                       checkpoint_file files[CHECKPOINT_FILES_MAX])
{
    const size_t V = sizes->vocab, T = sizes->length, E = sizes->embed_dim;
    size_t n = 0;
    files[n++] = (checkpoint_file){"tok_emb.npy", 2, {V, E}, t ? t->tok_emb : NULL};
    files[n++] = (checkpoint_file){"pos_emb.npy", 2, {T, E}, t ? t->pos_emb : NULL};
    files[n++] = (checkpoint_file){"unembed.npy", 2, {V, E}, t ? t->unembed : NULL};
    for (size_t l = 0; l < sizes->layers; l++) {
        /* <<add layer [[l]]'s four files, under PyTorch's names>> */
        static const char *const what[4] = {"in_proj_weight", "in_proj_bias", "out_proj_weight",
                                            "out_proj_bias"};
        const checkpoint_file layer[4] = {
            {"", 2, {3 * E, E}, t ? t->in_w[l] : NULL}, {"", 1, {3 * E, 0}, t ? t->in_b[l] : NULL},
            {"", 2, {E, E}, t ? t->out_w[l] : NULL}, {"", 1, {E, 0}, t ? t->out_b[l] : NULL}};
        for (int k = 0; k < 4; k++, n++) {
            files[n] = layer[k];
            snprintf(files[n].name, sizeof files[n].name, "layers.%zu.%s.npy", l, what[k]);
        }
    }
    return n;
}

size_t induction_checkpoint_files(const mha_induction_model *model,
                                  checkpoint_file files[CHECKPOINT_FILES_MAX])
{
    const mha_model_tensors t = mha_induction_model_tensors(model);
    return describe(model, &t, files);
}
/* <<[[checkpoint.c]] functions>> */
size_t induction_checkpoint_metadata(const mha_induction_model *model, char *text, size_t size)
{
    checkpoint_file files[CHECKPOINT_FILES_MAX];
    const size_t n = describe(model, NULL, files);
    size_t used = 0;
    #define APPEND(...) (used += (size_t)snprintf(text + (used < size ? used : size), \
                                                  used < size ? size - used : 0, __VA_ARGS__))
    APPEND("format mha-checkpoint %d\nmodel induction\n", CHECKPOINT_FORMAT);
    APPEND("layers %zu\nheads %zu\nvocab %zu\nlength %zu\ndim %zu\n", model->layers,
           model->heads, model->vocab, model->length, model->embed_dim);
    for (size_t f = 0; f < n; f++) {
        APPEND("tensor %s %zu", files[f].name, files[f].shape[0]);
        if (files[f].rank == 2)
            APPEND(" %zu", files[f].shape[1]);
        APPEND("\n");
    }
    #undef APPEND
    return used;
}
/* <<[[checkpoint.c]] functions>> */
const char *const induction_checkpoint_names[] = {
    CHECKPOINT_METADATA, "tok_emb.npy", "pos_emb.npy", "unembed.npy",
    "layers.#.in_proj_weight.npy", "layers.#.in_proj_bias.npy",
    "layers.#.out_proj_weight.npy", "layers.#.out_proj_bias.npy", NULL};
/* <<[[checkpoint.c]] functions>> */
static mha_status write_text(int fd, const char *text, size_t length)
{
    int ok = 1;
    for (size_t done = 0; ok && done < length;) {
        const ssize_t n = write(fd, text + done, length - done);
        ok = n > 0 || (n < 0 && errno == EINTR);
        done += n > 0 ? (size_t)n : 0;
    }
    ok = ok && (fsync(fd) == 0 || errno == EINVAL);
    return close(fd) == 0 && ok ? MHA_OK : MHA_ERR_IO;
}
/* <<[[checkpoint.c]] functions>> */
mha_status induction_checkpoint_begin(const char *dir, const mha_induction_model *model,
                                      char *message, size_t size)
{
    checkpoint_file files[CHECKPOINT_FILES_MAX];
    const char *names[1 + CHECKPOINT_FILES_MAX] = {CHECKPOINT_METADATA};
    const size_t n = induction_checkpoint_files(model, files);
    for (size_t f = 0; f < n; f++)
        names[1 + f] = files[f].name;
    mha_status status = mha_output_begin(dir, (int)n + 1, names, message, size);
    if (status == MHA_OK)
        status = mha_output_own(induction_checkpoint_names, message, size);
    return status;
}
/* <<[[checkpoint.c]] functions>> */
mha_status induction_checkpoint_put(const char *dir, const mha_induction_model *model,
                                    char *message, size_t size)
{
    checkpoint_file files[CHECKPOINT_FILES_MAX];
    char text[CHECKPOINT_TEXT_MAX], why[256];
    const size_t n = induction_checkpoint_files(model, files);
    const size_t length = induction_checkpoint_metadata(model, text, sizeof text);
    mha_status status = length < sizeof text ? MHA_OK
                      : mha_fail(MHA_ERR_SHAPE, message, size, "%s: model too large", dir);
    for (size_t f = 0; status == MHA_OK && f <= n; f++) {
        const int fd = mha_output_next(message, size);
        if (fd < 0)
            status = MHA_ERR_IO;
        else if (f == 0 && (status = write_text(fd, text, length)) != MHA_OK)
            mha_fail(status, message, size, "%s/%s: write failed", dir, CHECKPOINT_METADATA);
        else if (f > 0 && (status = mha_npy_write_fd(fd, files[f - 1].data, files[f - 1].rank,
                                                     files[f - 1].shape, why,
                                                     sizeof why)) != MHA_OK)
            mha_fail(status, message, size, "%s/%s: %s", dir, files[f - 1].name, why);
    }
    return status;
}
/* <<[[checkpoint.c]] functions>> */
mha_status induction_checkpoint_write(const char *dir, const mha_induction_model *model,
                                      char *message, size_t size)
{
    mha_status status = induction_checkpoint_begin(dir, model, message, size);
    if (status == MHA_OK)
        status = induction_checkpoint_put(dir, model, message, size);
    if (status == MHA_OK)
        status = mha_output_commit(message, size);
    mha_output_end();
    return status;
}
/* <<[[checkpoint.c]] functions>> */
static void checkpoint_path(char path[PATH_MAX_BYTES], const char *dir, const char *name)
{
    (void)mha_join_path(path, PATH_MAX_BYTES, dir, name);      /* fits: see check_length */
}

static mha_status check_length(const char *dir, char *message, size_t size)
{
    if (strlen(dir) + NAME_ROOM < PATH_MAX_BYTES)
        return MHA_OK;
    snprintf(message, size, "directory name too long (%zu bytes)", strlen(dir));
    return MHA_ERR_ARG;
}
/* <<[[checkpoint.c]] functions>> */
mha_status induction_checkpoint_read(const char *dir, size_t legacy_heads,
                                     mha_induction_model *model, char *message, size_t size)
{
    mha_induction_model sizes = {0};
    checkpoint_file files[CHECKPOINT_FILES_MAX];
    mha_npy arrays[CHECKPOINT_FILES_MAX];
    size_t n = 0, read = 0;
    memset(model, 0, sizeof *model);
    mha_status status = check_length(dir, message, size);
    if (status == MHA_OK)
        status = read_metadata(dir, legacy_heads, &sizes, message, size);
    if (status == MHA_OK)
        n = describe(&sizes, NULL, files);
    while (status == MHA_OK && read < n) {
        status = read_tensor(dir, &files[read], &arrays[read], message, size);
        read += status == MHA_OK;
    }
    if (status == MHA_OK && (status = mha_induction_model_init(model, sizes.vocab, sizes.length,
                             sizes.embed_dim, sizes.heads, sizes.layers, 0)) != MHA_OK)
        snprintf(message, size, "%s: %s", dir, mha_status_message(status));
    if (status == MHA_OK) {
        induction_checkpoint_files(model, files);
        for (size_t f = 0; f < n; f++)
            memcpy(files[f].data, arrays[f].values, arrays[f].count * sizeof(float));
    }
    for (size_t f = 0; f < read; f++)
        mha_npy_free(&arrays[f]);
    if (status != MHA_OK)
        mha_induction_model_free(model);
    return status;
}
/* <<[[checkpoint.c]] functions>> */
static mha_status read_tensor(const char *dir, const checkpoint_file *file, mha_npy *a,
                              char *message, size_t size)
{
    char path[PATH_MAX_BYTES], why[256], got[64], want[64];
    checkpoint_path(path, dir, file->name);
    mha_status status = mha_npy_read(path, a, why, sizeof why);
    if (status != MHA_OK)
        return mha_fail(status, message, size, "%s: %s", path, why);
    int same = a->rank == file->rank;
    for (size_t k = 0; same && k < file->rank; k++)
        same = a->shape[k] == file->shape[k];
    const size_t bad = a->kind == MHA_NPY_FLOAT && same
                     ? mha_first_nonfinite(a->values, a->count, 0) : a->count;
    if (a->kind != MHA_NPY_FLOAT)
        status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: element type '%s', expected "
                          "float32", path, a->dtype);
    else if (!same)
        status = mha_fail(MHA_ERR_SHAPE, message, size, "%s: shape %s, expected %s", path,
                          mha_npy_shape_text(got, sizeof got, a->rank, a->shape),
                          mha_npy_shape_text(want, sizeof want, file->rank, file->shape));
    else if (bad < a->count)
        status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: weight %zu is not finite (%g)",
                          path, bad, (double)a->values[bad]);
    if (status != MHA_OK)
        mha_npy_free(a);
    return status;
}
/* <<[[checkpoint.c]] functions>> */
static mha_status read_metadata(const char *dir, size_t legacy_heads, mha_induction_model *sizes,
                                char *message, size_t size)
{
    char path[PATH_MAX_BYTES];
    unsigned char *text;
    size_t length;
    checkpoint_path(path, dir, CHECKPOINT_METADATA);
    mha_status status = mha_read_whole_file(path, CHECKPOINT_TEXT_MAX, &text, &length, message,
                                            size);
    const int missing = status == MHA_ERR_IO && errno == ENOENT;
    if (missing && legacy_heads > 0)
        return read_format_0(dir, legacy_heads, sizes, message, size);
    if (missing)
        return mha_fail(MHA_ERR_IO, message, size, "%s: %s; a checkpoint of format 0 (.npy "
                        "files alone) or none at all", path, strerror(ENOENT));
    if (status != MHA_OK)
        return status;
    char copy[CHECKPOINT_TEXT_MAX + 1];
    memcpy(copy, text, length);
    copy[length] = '\0';
    free(text);
    return parse_metadata(path, copy, length, sizes, message, size);
}
/* <<[[checkpoint.c]] functions>> */
static mha_status parse_metadata(const char *path, char *text, size_t length,
                                 mha_induction_model *sizes, char *message, size_t size)
{
    checkpoint_file listed[CHECKPOINT_FILES_MAX];
    size_t tensors = 0, line_number = 0;
    int seen = 0;                                  /* one bit per size key */
    for (size_t i = 0; i < length; i++)
        if ((text[i] < ' ' || text[i] > '~') && text[i] != '\n')
            return mha_fail(MHA_ERR_FORMAT, message, size, "%s: byte %zu is not printable "
                            "text", path, i);
    if (length == 0 || text[length - 1] != '\n')
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: does not end with a line end", path);
    for (char *line = text, *end; *line != '\0'; line = end + 1) {
        end = strchr(line, '\n');
        *end = '\0';
        line_number++;
        char *words[LINE_WORDS];
        const int count = split_words(line, words);
        mha_status status = count < 1
            ? mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: not words separated by "
                       "single spaces", path, line_number)
            : parse_line(path, line_number, words, count, sizes, &seen, listed, &tensors,
                         message, size);
        if (status != MHA_OK)
            return status;
    }
    if (seen != (1 << SIZE_KEYS) - 1)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: layers, heads, vocab, length and "
                        "dim must all be given", path);
    const mha_status status = check_sizes(path, sizes, message, size);
    return status == MHA_OK ? check_listing(path, sizes, listed, tensors, message, size)
                            : status;
}
/* <<[[checkpoint.c]] functions>> */
static int split_words(char *line, char *words[LINE_WORDS])
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == LINE_WORDS || *p == ' ' || *p == '\0')
            return -1;                             /* too many words, or an empty one */
        words[n++] = p;
        if ((p = strchr(p, ' ')) == NULL)
            return n;
        *p = '\0';
    }
}

static int parse_count(const char *word, size_t *value)
{
    size_t v = 0, digits = 0;                      /* a word is never empty: split_words */
    for (; word[digits] != '\0'; digits++) {
        if (word[digits] < '0' || word[digits] > '9' || digits == 9)
            return -1;                             /* not a digit, or past 999999999 */
        v = 10 * v + (size_t)(word[digits] - '0');
    }
    *value = v;
    return 0;
}
/* <<[[checkpoint.c]] functions>> */
static mha_status parse_line(const char *path, size_t line, char **w, int count,
                             mha_induction_model *sizes, int *seen, checkpoint_file *listed,
                             size_t *tensors, char *message, size_t size)
{
    static const char *const keys[SIZE_KEYS] = {"layers", "heads", "vocab", "length", "dim"};
    size_t *const fields[SIZE_KEYS] = {&sizes->layers, &sizes->heads, &sizes->vocab,
                                       &sizes->length, &sizes->embed_dim};
    if (line == 1)
        return count == 3 && strcmp(w[0], "format") == 0 && strcmp(w[1], "mha-checkpoint") == 0
            ? (strcmp(w[2], "1") == 0 ? MHA_OK
               : mha_fail(MHA_ERR_FORMAT, message, size, "%s: format version '%.16s'; this "
                          "reader knows version %d", path, w[2], CHECKPOINT_FORMAT))
            : mha_fail(MHA_ERR_FORMAT, message, size, "%s: line 1: not 'format "
                       "mha-checkpoint %d'", path, CHECKPOINT_FORMAT);
    if (line == 2)
        return count == 2 && strcmp(w[0], "model") == 0 && strcmp(w[1], "induction") == 0
            ? MHA_OK : mha_fail(MHA_ERR_FORMAT, message, size, "%s: line 2: not 'model "
                                "induction'", path);
    for (int k = 0; k < SIZE_KEYS; k++)
        if (strcmp(w[0], keys[k]) == 0) {
            if (count != 2 || (*seen >> k & 1) || *tensors > 0 || parse_count(w[1], fields[k]))
                return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: '%s' must "
                                "appear once, before the tensors, with one number", path,
                                line, keys[k]);
            *seen |= 1 << k;
            return MHA_OK;
        }
    /* <<take line [[line]] as a tensor's file and shape into [[listed]]>> */
    checkpoint_file *t = &listed[*tensors];
    if (strcmp(w[0], "tensor") != 0)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: unknown key '%.32s'", path,
                        line, w[0]);
    if (*tensors == CHECKPOINT_FILES_MAX || count < 3 || count > 4 ||
        strlen(w[1]) >= sizeof t->name || parse_count(w[2], &t->shape[0]) ||
        (count == 4 && parse_count(w[3], &t->shape[1])))
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: not 'tensor FILE SIZE "
                        "[SIZE]', or one tensor too many", path, line);
    snprintf(t->name, sizeof t->name, "%s", w[1]);
    t->rank = (size_t)count - 2;
    t->shape[1] = count == 4 ? t->shape[1] : 0;
    (*tensors)++;
    return MHA_OK;
}
/* <<[[checkpoint.c]] functions>> */
static mha_status check_sizes(const char *path, const mha_induction_model *s,
                              char *message, size_t size)
{
    if (s->layers < 1 || s->layers > MHA_LEARNING_MAX_LAYERS || s->heads < 1 ||
        s->heads > MHA_LEARNING_MAX_HEADS || s->vocab < 2 || s->vocab > 65536 || s->length < 6 ||
        s->length > 4096 || s->embed_dim < 1 || s->embed_dim > 4096 ||
        s->embed_dim % s->heads != 0)
        return mha_fail(MHA_ERR_SHAPE, message, size, "%s: layers %zu, heads %zu, vocab %zu, "
                        "length %zu, dim %zu: not a model the trainer makes", path, s->layers,
                        s->heads, s->vocab, s->length, s->embed_dim);
    return MHA_OK;
}
/* <<[[checkpoint.c]] functions>> */
static mha_status check_listing(const char *path, const mha_induction_model *s,
                                const checkpoint_file *listed, size_t tensors,
                                char *message, size_t size)
{
    checkpoint_file files[CHECKPOINT_FILES_MAX];
    char got[64] = "", want[64] = "";
    const size_t n = describe(s, NULL, files);
    for (size_t f = 0; f < n || f < tensors; f++) {
        if (f < n && f < tensors && strcmp(listed[f].name, files[f].name) == 0 &&
            listed[f].rank == files[f].rank && listed[f].shape[0] == files[f].shape[0] &&
            listed[f].shape[1] == files[f].shape[1])
            continue;
        if (f < tensors)
            mha_npy_shape_text(got, sizeof got, listed[f].rank, listed[f].shape);
        if (f < n)
            mha_npy_shape_text(want, sizeof want, files[f].rank, files[f].shape);
        return mha_fail(MHA_ERR_SHAPE, message, size, "%s: tensor %zu is %s %s, expected %s %s",
                        path, f + 1, f < tensors ? listed[f].name : "missing", got,
                        f < n ? files[f].name : "none", want);
    }
    return MHA_OK;
}
/* <<[[checkpoint.c]] functions>> */
static mha_status read_format_0(const char *dir, size_t heads, mha_induction_model *sizes,
                                char *message, size_t size)
{
    char path[PATH_MAX_BYTES], why[256];
    mha_npy tok, pos;
    checkpoint_path(path, dir, "tok_emb.npy");
    mha_status status = mha_npy_read(path, &tok, why, sizeof why);
    if (status != MHA_OK)
        return mha_fail(status, message, size, "%s: %s", path, why);
    const int matrix = tok.rank == 2;
    *sizes = (mha_induction_model){.vocab = matrix ? tok.shape[0] : 0,
                               .embed_dim = matrix ? tok.shape[1] : 0, .heads = heads};
    mha_npy_free(&tok);
    checkpoint_path(path, dir, "pos_emb.npy");
    if (matrix && (status = mha_npy_read(path, &pos, why, sizeof why)) != MHA_OK)
        return mha_fail(status, message, size, "%s: %s", path, why);
    sizes->length = matrix && pos.rank == 2 ? pos.shape[0] : 0;
    if (matrix)
        mha_npy_free(&pos);
    /* <<count the layers of a format-0 checkpoint in [[dir]]>> */
    for (; sizes->layers < MHA_LEARNING_MAX_LAYERS; sizes->layers++) {
        char name[48];
        snprintf(name, sizeof name, "layers.%zu.in_proj_weight.npy", sizes->layers);
        checkpoint_path(path, dir, name);
        if (access(path, F_OK) != 0)
            break;
    }
    if (sizes->layers == 0)
        return mha_fail(MHA_ERR_IO, message, size, "%s: no model.txt and no "
                        "layers.0.in_proj_weight.npy", dir);
    return check_sizes(dir, sizes, message, size) == MHA_OK ? MHA_OK
         : mha_fail(MHA_ERR_SHAPE, message, size, "%s: tok_emb.npy and pos_emb.npy (format 0) "
                    "do not make a model of %zu heads", dir, heads);
}
