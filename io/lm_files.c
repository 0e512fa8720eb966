/* generated from chapters/16-austen-model.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpe_files.h"
#include "layer_files.h"
#include "lm_files.h"
#include "npy.h"
#include "output.h"
#include "sha256.h"
size_t lm_model_file_count(const lm_model *m)
{
    return 3 + m->tensor_count;
}
void lm_model_file_name(const lm_model *m, size_t i, char *name, size_t size)
{
    if (i == 0)
        snprintf(name, size, "%s", "model.txt");
    else if (i <= m->tensor_count)
        snprintf(name, size, "%s.npy", m->tensors[i - 1].name);
    else
        snprintf(name, size, "%s", i == m->tensor_count + 1 ? BPE_MERGES_FILE : BPE_VOCAB_FILE);
}
const char *const lm_model_owned[] = {
    "model.txt", "tok_emb.weight.npy", "pos_emb.weight.npy",
    "blocks.#.self_attn.in_proj_weight.npy", "blocks.#.self_attn.in_proj_bias.npy",
    "blocks.#.self_attn.out_proj.weight.npy", "blocks.#.self_attn.out_proj.bias.npy",
    "blocks.#.linear1.weight.npy", "blocks.#.linear1.bias.npy", "blocks.#.linear2.weight.npy",
    "blocks.#.linear2.bias.npy", "blocks.#.norm1.weight.npy", "blocks.#.norm1.bias.npy",
    "blocks.#.norm2.weight.npy", "blocks.#.norm2.bias.npy", "norm.weight.npy", "norm.bias.npy",
    BPE_MERGES_FILE, BPE_VOCAB_FILE, "heads.tsv", "prune.tsv", NULL};
struct text { const char *bytes; size_t length; };
static int write_text(FILE *file, void *context)
{
    const struct text *t = context;
    return fwrite(t->bytes, 1, t->length, file) == t->length ? 0 : -1;
}
static mha_status put_array(const char *dir, const char *name, const float *x, size_t rank,
                            const size_t *shape, char *message, size_t size)
{
    char why[256];
    const int fd = mha_output_next(message, size);
    if (fd < 0)
        return MHA_ERR_IO;
    const mha_status status = mha_npy_write_fd(fd, x, rank, shape, why, sizeof why);
    return status == MHA_OK ? MHA_OK
                            : mha_fail(status, message, size, "%s/%s: %s", dir, name, why);
}
/* the SHA-256 of merges.txt as bpe_write_merges writes it; 0 if it could
   not be written into memory */
static int merges_digest(const bpe *tokenizer, char hex[LM_SHA_HEX])
{
    char *bytes = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&bytes, &n);
    const int written = f != NULL && bpe_write_merges(f, (void *)tokenizer) == 0;
    const int ok = f != NULL && fclose(f) == 0 && written;
    if (ok)
        mha_sha256_hex((const unsigned char *)bytes, n, hex);
    free(bytes);
    return ok;
}
static size_t model_text(const lm_model *m, const char *merges, const lm_provenance *p,
                         char *text, size_t size)
{
    const lm_config *c = &m->config;
    size_t used = 0;
    #define APPEND(...) (used += (size_t)snprintf(text + (used < size ? used : size), \
                                                  used < size ? size - used : 0, __VA_ARGS__))
    APPEND("format mha-checkpoint %d\nmodel %s\n", LM_MODEL_FORMAT, LM_MODEL_KIND);
    APPEND("layers %zu\nheads %zu\nvocab %zu\ncontext %zu\ndim %zu\nhidden %zu\n", c->layers,
           c->heads, c->vocab, c->context, c->embed_dim, c->hidden);
    APPEND("steps %zu\ntrain_sha256 %s\nvalid_sha256 %s\n", p->steps, p->train_sha256,
           p->valid_sha256);
    APPEND("tokenizer_sha256 %s\n", merges);
    for (size_t i = 0; i < m->tensor_count; i++) {
        const lm_tensor *t = &m->tensors[i];
        APPEND("tensor %s %zu", t->name, t->shape[0]);
        if (t->rank == 2)
            APPEND(" %zu", t->shape[1]);
        APPEND("\n");
    }
    #undef APPEND
    return used;
}
mha_status lm_model_put(const char *dir, const lm_model *m, const bpe *tokenizer,
                        const lm_provenance *p, char *message, size_t size)
{
    char *text = malloc(LM_TEXT_MAX), merges[LM_SHA_HEX];
    if (text == NULL || !merges_digest(tokenizer, merges)) {
        free(text);
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", dir);
    }
    const struct text t = {text, model_text(m, merges, p, text, LM_TEXT_MAX)};
    mha_status status = t.length < LM_TEXT_MAX ? mha_output_stream(write_text, (void *)&t,
                                                                   message, size)
                      : mha_fail(MHA_ERR_SHAPE, message, size, "%s: model too large", dir);
    free(text);
    for (size_t i = 0; status == MHA_OK && i < m->tensor_count; i++) {
        const lm_tensor *x = &m->tensors[i];
        char name[LM_NAME_MAX + 8];
        lm_model_file_name(m, i + 1, name, sizeof name);
        status = put_array(dir, name, m->params + x->offset, x->rank, x->shape, message, size);
    }
    if (status == MHA_OK)
        status = mha_output_stream(bpe_write_merges, (void *)tokenizer, message, size);
    if (status == MHA_OK)
        status = mha_output_stream(bpe_write_vocab, (void *)tokenizer, message, size);
    return status;
}
typedef enum { KEY_SIZE, KEY_DOUBLE, KEY_SHARE, KEY_U64, KEY_HEX, KEY_WORD } key_kind;
typedef struct key {
    const char *name;
    key_kind kind;
    void *store;
    int seen;                      /* 1 once read; 0 not yet; -1 not yet, and may be left out */
} key;
static int parse_value(const char *v, key_kind kind, void *store)
{
    char *end;
    errno = 0;
    if (kind == KEY_HEX || kind == KEY_WORD) {
        const size_t n = strlen(v);
        int ok = kind == KEY_WORD || (n == 64 && strspn(v, "0123456789abcdef") == 64) ||
                 strcmp(v, "-") == 0;
        if (ok && n < LM_SHA_HEX)
            memcpy(store, v, n + 1);
        return ok && n < LM_SHA_HEX;
    }
    if (kind == KEY_DOUBLE) {
        const double d = strtod(v, &end);
        *(double *)store = d;
        return *end == '\0' && errno == 0 && d > 0 && d <= 1;   /* "" gives 0 */
    }
    if (kind == KEY_SHARE) {                       /* from 0 to 1, 0 included */
        const double d = strtod(v, &end);
        *(double *)store = d;
        return end != v && *end == '\0' && errno == 0 && d >= 0 && d <= 1;
    }
    if (*v < '0' || *v > '9')
        return 0;
    const unsigned long long u = strtoull(v, &end, 10);
    if (kind == KEY_SIZE)
        *(size_t *)store = (size_t)u;
    else
        *(uint64_t *)store = (uint64_t)u;
    return *end == '\0' && errno == 0 && (kind == KEY_U64 || u <= SIZE_MAX);
}
/* Lines "key value" of text (NUL-terminated, modified): each known key once;
   lines starting "tensor " go to the tensor check when tensors is not NULL,
   are skipped when tensor_lines is NULL too, and are refused otherwise. */
static mha_status parse_keys(const char *path, char *text, key *keys, size_t count,
                             const lm_model *tensors, size_t *tensor_lines, char *message,
                             size_t size)
{
    size_t number = 0;
    for (char *line = text, *end; *line != '\0'; line = end + 1) {
        end = strchr(line, '\n');
        if (end == NULL)
            return mha_fail(MHA_ERR_FORMAT, message, size, "%s: does not end with a line end",
                            path);
        *end = '\0';
        number++;
        char *space = strchr(line, ' ');
        if (tensor_lines == NULL && tensors == NULL && strncmp(line, "tensor ", 7) == 0)
            continue;                              /* the first pass of model.txt */
        if (tensors != NULL && strncmp(line, "tensor ", 7) == 0) {
            char want[LM_TEXT_MAX / 64];
            const size_t i = (*tensor_lines)++;
            const lm_tensor *t = i < tensors->tensor_count ? &tensors->tensors[i] : NULL;
            if (t != NULL && t->rank == 2)
                snprintf(want, sizeof want, "tensor %s %zu %zu", t->name, t->shape[0],
                         t->shape[1]);
            else if (t != NULL)
                snprintf(want, sizeof want, "tensor %s %zu", t->name, t->shape[0]);
            if (t == NULL || strcmp(line, want) != 0)
                return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: '%.60s', expected "
                                "'%s'", path, number, line, t ? want : "no more tensors");
            continue;
        }
        size_t k = 0;
        while (space != NULL && k < count &&
               !(strncmp(line, keys[k].name, (size_t)(space - line)) == 0 &&
                 keys[k].name[space - line] == '\0'))
            k++;
        if (space == NULL || k == count || keys[k].seen > 0 ||
            !parse_value(space + 1, keys[k].kind, keys[k].store))
            return mha_fail(MHA_ERR_FORMAT, message, size, "%s: line %zu: '%.60s' is not a "
                            "known key and a valid value, once", path, number, line);
        keys[k].seen = 1;
    }
    for (size_t k = 0; k < count; k++)
        if (keys[k].seen == 0)
            return mha_fail(MHA_ERR_FORMAT, message, size, "%s: no line '%s'", path,
                            keys[k].name);
    return MHA_OK;
}
static mha_status read_text(const char *dir, const char *name, size_t limit, char **text,
                            size_t *n, char *message, size_t size)
{
    char path[MHA_PATH_SIZE];
    unsigned char *bytes;
    if (!mha_join_path(path, sizeof path, dir, name))
        return mha_fail(MHA_ERR_ARG, message, size, "%s: name too long", dir);
    mha_status status = mha_read_whole_file(path, limit, &bytes, n, message, size);
    if (status != MHA_OK)
        return status;
    char *t = realloc(bytes, *n + 1);
    if (t == NULL) {
        free(bytes);
        return mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", path);
    }
    t[*n] = '\0';
    if (strlen(t) != *n) {
        free(t);
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: holds a NUL byte", path);
    }
    *text = t;
    return MHA_OK;
}
static mha_status read_array(const char *dir, const char *name, float *into, size_t rank,
                             const size_t *shape, char *message, size_t size)
{
    char path[MHA_PATH_SIZE], why[256], got[64], want[64];
    mha_npy a;
    if (!mha_join_path(path, sizeof path, dir, name))
        return mha_fail(MHA_ERR_ARG, message, size, "%s: name too long", dir);
    mha_status status = mha_npy_read(path, &a, why, sizeof why);
    if (status != MHA_OK)
        return mha_fail(status, message, size, "%s: %s", path, why);
    int same = a.rank == rank && strcmp(a.dtype, "<f4") == 0;     /* "<f4": kind float */
    for (size_t k = 0; same && k < rank; k++)
        same = a.shape[k] == shape[k];
    const size_t bad = same ? mha_first_nonfinite(a.values, a.count, 0) : 0;
    if (!same)
        status = mha_fail(MHA_ERR_SHAPE, message, size, "%s: %s of shape %s, expected float32 "
                          "of shape %s", path, a.dtype,
                          mha_npy_shape_text(got, sizeof got, a.rank, a.shape),
                          mha_npy_shape_text(want, sizeof want, rank, shape));
    else if (bad < a.count)
        status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: value %zu is not finite", path,
                          bad);
    else
        memcpy(into, a.values, a.count * sizeof *into);
    mha_npy_free(&a);
    return status;
}
mha_status lm_model_read(const char *dir, lm_model *m, bpe *tokenizer, lm_provenance *p,
                         char *message, size_t size)
{
    memset(m, 0, sizeof *m);
    memset(tokenizer, 0, sizeof *tokenizer);
    char *text = NULL, format[LM_SHA_HEX], kind[LM_SHA_HEX], path[MHA_PATH_SIZE];
    size_t n = 0, tensor_lines = 0;
    lm_config c;
    mha_status status = read_text(dir, "model.txt", MHA_READ_NOTE_MAX, &text, &n, message,
                                  size);
    if (status != MHA_OK)
        return status;
    mha_join_path(path, sizeof path, dir, "model.txt");
    const char *first = "format mha-checkpoint 1\nmodel " LM_MODEL_KIND "\n";
    const char *second = "format mha-checkpoint 2\nmodel " LM_MODEL_KIND "\n";
    const int version = strncmp(text, first, strlen(first)) == 0    ? 1
                      : strncmp(text, second, strlen(second)) == 0 ? 2 : 0;
    if (version == 0) {
        free(text);
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: does not begin 'format "
                        "mha-checkpoint 1' or 2 and 'model %s'", path, LM_MODEL_KIND);
    }
    char merges[LM_SHA_HEX] = "-";
    key keys[] = {
        {"format", KEY_WORD, format, 0}, {"model", KEY_WORD, kind, 0},
        {"layers", KEY_SIZE, &c.layers, 0}, {"heads", KEY_SIZE, &c.heads, 0},
        {"vocab", KEY_SIZE, &c.vocab, 0}, {"context", KEY_SIZE, &c.context, 0},
        {"dim", KEY_SIZE, &c.embed_dim, 0}, {"hidden", KEY_SIZE, &c.hidden, 0},
        {"steps", KEY_SIZE, &p->steps, 0}, {"train_sha256", KEY_HEX, p->train_sha256, 0},
        {"valid_sha256", KEY_HEX, p->valid_sha256, 0},
        {"tokenizer_sha256", KEY_HEX, merges, 0}};  /* the last key: format 2 only */
    const size_t key_count = sizeof keys / sizeof keys[0] - (version == 1);
    /* First pass: the sizes (tensor lines skipped), then the model, then every line again. */
    char *copy = strdup(text);
    status = copy ? parse_keys(path, copy, keys, key_count, NULL, NULL, message, size)
                  : mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", path);
    free(copy);
    if (status == MHA_OK && (status = lm_model_alloc(m, &c)) != MHA_OK)
        mha_fail(status, message, size, "%s: sizes that make no model (%s)", path,
                 mha_status_message(status));
    for (size_t k = 0; status == MHA_OK && k < key_count; k++)
        keys[k].seen = 0;
    if (status == MHA_OK)
        status = parse_keys(path, text, keys, key_count, m, &tensor_lines, message, size);
    if (status == MHA_OK && tensor_lines != m->tensor_count)
        status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: %zu tensor lines, expected %zu",
                          path, tensor_lines, m->tensor_count);
    free(text);
    for (size_t i = 0; status == MHA_OK && i < m->tensor_count; i++) {
        char name[LM_NAME_MAX + 8];
        lm_model_file_name(m, i + 1, name, sizeof name);
        status = read_array(dir, name, m->params + m->tensors[i].offset, m->tensors[i].rank,
                            m->tensors[i].shape, message, size);
    }
    const int tokens = status == MHA_OK &&
                       (status = bpe_files_read(dir, tokenizer, message, size)) == MHA_OK;
    if (status == MHA_OK && tokenizer->vocab != c.vocab)
        status = mha_fail(MHA_ERR_SHAPE, message, size, "%s/%s: a tokenizer of %zu tokens, "
                          "where model.txt says %zu", dir, BPE_MERGES_FILE, tokenizer->vocab,
                          c.vocab);
    char found[LM_SHA_HEX];
    if (status == MHA_OK && version == 2) {
        if (!merges_digest(tokenizer, found))
            status = mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", dir);
        else if (strcmp(found, merges) != 0) {
            mha_join_path(path, sizeof path, dir, BPE_MERGES_FILE);
            status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: not the tokenizer the model "
                              "was trained with (its SHA-256 is not model.txt's)", path);
        }
    }
    if (status != MHA_OK) {
        lm_model_free(m);
        if (tokens)
            bpe_free(tokenizer);
    }
    return status;
}
/* One line naming the first field of state.txt that no run could have written. */
static mha_status check_run(const char *path, const lm_run *run, char *message, size_t size)
{
    if (run->steps == 0)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'steps 0': a run has at least one "
                        "step", path);
    if (run->warmup >= run->steps)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'warmup %zu': not shorter than the "
                        "run of %zu steps", path, run->warmup, run->steps);
    if (run->step > run->steps)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'step %zu': past the run's last "
                        "step, %zu", path, run->step, run->steps);
    if (run->batch == 0 || run->batch > LM_BATCH_MAX)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'batch %zu': a batch holds 1 to %d "
                        "windows", path, run->batch, LM_BATCH_MAX);
    if (run->eval_every == 0)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'eval_every 0': a run is evaluated "
                        "every 1 or more steps", path);
    if (run->repeat_until > run->steps)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'repeat_until %zu': past the run's "
                        "last step, %zu", path, run->repeat_until, run->steps);
    if (run->data_state == 0)
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: 'data_state 0': the generator "
                        "would stay at zero", path);
    if (!(run->token_sd > 0 && run->token_sd <= 1 && run->position_sd > 0 &&
          run->position_sd <= 1))
        return mha_fail(MHA_ERR_FORMAT, message, size, "%s: an embedding's deviation is not in "
                        "(0, 1]", path);
    return MHA_OK;
}
const char *const lm_state_names[LM_STATE_FILES] = {"state.txt", "arrays.npy", "history.tsv",
                                                    BPE_MERGES_FILE, "heads-history.tsv"};
mha_status lm_state_put(const char *dir, const lm_run *run, const lm_model *m,
                        const lm_adamw *opt, const bpe *tokenizer, const lm_history *history,
                        char *message, size_t size)
{
    const lm_config *c = &run->config;
    char text[2048];
    const int n = snprintf(text, sizeof text, "format %s\nlayers %zu\nheads %zu\nvocab %zu\n"
        "context %zu\ndim %zu\nhidden %zu\nsteps %zu\nwarmup %zu\nbatch %zu\neval_every %zu\n"
        "step %zu\nlearning_rate %.17g\nrepeat %.17g\nseed %" PRIu64 "\ndata_state %" PRIu64 "\n"
        "train_sha256 %s\nvalid_sha256 %s\n", LM_STATE_FORMAT, c->layers, c->heads, c->vocab,
        c->context, c->embed_dim, c->hidden, run->steps, run->warmup, run->batch,
        run->eval_every, run->step, run->learning_rate, run->repeat, run->seed, run->data_state,
        run->train_sha256, run->valid_sha256);
    int all = n + (run->repeat_until ? snprintf(text + n, sizeof text - (size_t)n,
                                                 "repeat_until %zu\n", run->repeat_until)
                                     : 0);
    if (run->token_sd != LM_INIT_SD || run->position_sd != LM_INIT_SD)
        all += snprintf(text + all, sizeof text - (size_t)all, "token_sd %.17g\n"
                        "position_sd %.17g\n", run->token_sd, run->position_sd);
    const struct text t = {text, (size_t)all}, h = {history->steps, history->steps_length};
    const struct text heads = {history->heads, history->heads_length};
    const size_t shape[2] = {3, m->count};
    float *arrays = malloc(3 * m->count * sizeof *arrays);
    mha_status status = arrays ? mha_output_stream(write_text, (void *)&t, message, size)
                               : mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", dir);
    if (status == MHA_OK) {
        memcpy(arrays, m->params, m->count * sizeof *arrays);
        memcpy(arrays + m->count, opt->m, m->count * sizeof *arrays);
        memcpy(arrays + 2 * m->count, opt->v, m->count * sizeof *arrays);
        status = put_array(dir, lm_state_names[1], arrays, 2, shape, message, size);
    }
    free(arrays);
    if (status == MHA_OK)
        status = mha_output_stream(write_text, (void *)&h, message, size);
    if (status == MHA_OK)
        status = mha_output_stream(bpe_write_merges, (void *)tokenizer, message, size);
    if (status == MHA_OK)
        status = mha_output_stream(write_text, (void *)&heads, message, size);
    return status;
}
mha_status lm_state_read(const char *dir, lm_run *run, lm_model *m, lm_adamw *opt,
                         bpe *tokenizer, lm_history *history, char *message, size_t size)
{
    char *text = NULL, format[LM_SHA_HEX], path[MHA_PATH_SIZE];
    size_t n;
    lm_config *c = &run->config;
    memset(m, 0, sizeof *m);
    memset(opt, 0, sizeof *opt);
    memset(history, 0, sizeof *history);
    run->repeat_until = 0;                           /* a state of a share that never ends */
    run->token_sd = run->position_sd = LM_INIT_SD;   /* and of GPT-2's embeddings */
    mha_status status = read_text(dir, lm_state_names[0], MHA_READ_NOTE_MAX, &text, &n,
                                  message, size);
    if (status != MHA_OK)
        return status;
    mha_join_path(path, sizeof path, dir, lm_state_names[0]);
    key keys[] = {
        {"format", KEY_WORD, format, 0}, {"layers", KEY_SIZE, &c->layers, 0},
        {"heads", KEY_SIZE, &c->heads, 0}, {"vocab", KEY_SIZE, &c->vocab, 0},
        {"context", KEY_SIZE, &c->context, 0}, {"dim", KEY_SIZE, &c->embed_dim, 0},
        {"hidden", KEY_SIZE, &c->hidden, 0}, {"steps", KEY_SIZE, &run->steps, 0},
        {"warmup", KEY_SIZE, &run->warmup, 0}, {"batch", KEY_SIZE, &run->batch, 0},
        {"eval_every", KEY_SIZE, &run->eval_every, 0}, {"step", KEY_SIZE, &run->step, 0},
        {"learning_rate", KEY_DOUBLE, &run->learning_rate, 0},
        {"repeat", KEY_SHARE, &run->repeat, 0},
        {"repeat_until", KEY_SIZE, &run->repeat_until, -1},
        {"token_sd", KEY_DOUBLE, &run->token_sd, -1},
        {"position_sd", KEY_DOUBLE, &run->position_sd, -1},
        {"seed", KEY_U64, &run->seed, 0}, {"data_state", KEY_U64, &run->data_state, 0},
        {"train_sha256", KEY_HEX, run->train_sha256, 0},
        {"valid_sha256", KEY_HEX, run->valid_sha256, 0}};
    if (strncmp(text, "format " LM_STATE_FORMAT "\n", strlen(LM_STATE_FORMAT) + 8) != 0)
        status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: does not begin 'format %s'", path,
                          LM_STATE_FORMAT);
    if (status == MHA_OK)
        status = parse_keys(path, text, keys, sizeof keys / sizeof keys[0], NULL, &n, message,
                            size);
    free(text);
    if (status == MHA_OK)
        status = check_run(path, run, message, size);
    if (status == MHA_OK && (status = lm_model_alloc(m, c)) != MHA_OK)
        mha_fail(status, message, size, "%s: sizes that make no model", path);
    if (status == MHA_OK && (status = lm_adamw_init(opt, m)) != MHA_OK)
        mha_fail(status, message, size, "%s: out of memory", path);
    const size_t shape[2] = {3, m->count};
    float *arrays = status == MHA_OK ? malloc(3 * m->count * sizeof *arrays) : NULL;
    if (status == MHA_OK && arrays == NULL)
        status = mha_fail(MHA_ERR_NOMEM, message, size, "%s: out of memory", dir);
    if (status == MHA_OK)
        status = read_array(dir, lm_state_names[1], arrays, 2, shape, message, size);
    for (size_t i = 0; status == MHA_OK && i < m->count; i++)
        if (!(arrays[2 * m->count + i] >= 0)) {
            mha_join_path(path, sizeof path, dir, lm_state_names[1]);
            status = mha_fail(MHA_ERR_FORMAT, message, size, "%s: second moment %zu is %g; a "
                              "mean of squares is not negative", path, i,
                              (double)arrays[2 * m->count + i]);
        }
    if (status == MHA_OK) {
        memcpy(m->params, arrays, m->count * sizeof *arrays);
        memcpy(opt->m, arrays + m->count, m->count * sizeof *arrays);
        memcpy(opt->v, arrays + 2 * m->count, m->count * sizeof *arrays);
    }
    free(arrays);
    if (status == MHA_OK)
        status = read_text(dir, lm_state_names[2], MHA_READ_TEXT_MAX, &history->steps,
                           &history->steps_length, message, size);
    if (status == MHA_OK)
        status = read_text(dir, lm_state_names[4], MHA_READ_TEXT_MAX, &history->heads,
                           &history->heads_length, message, size);
    char *merges = NULL;
    int tokens = 0;
    if (status == MHA_OK && (status = read_text(dir, lm_state_names[3], MHA_READ_TABLE_MAX,
                                                &merges, &n, message, size)) == MHA_OK) {
        mha_join_path(path, sizeof path, dir, lm_state_names[3]);
        tokens = (status = bpe_merges_parse(path, merges, n, tokenizer, message, size)) == MHA_OK;
    }
    free(merges);
    if (status == MHA_OK && tokenizer->vocab != c->vocab)
        status = mha_fail(MHA_ERR_SHAPE, message, size, "%s/%s: a tokenizer of %zu tokens, "
                          "where state.txt says %zu", dir, lm_state_names[3], tokenizer->vocab,
                          c->vocab);
    if (status == MHA_OK)
        opt->step = run->step;
    else {
        if (tokens)
            bpe_free(tokenizer);
        free(history->steps);
        free(history->heads);
        memset(history, 0, sizeof *history);
        lm_adamw_free(opt);
        lm_model_free(m);
    }
    return status;
}
/* The next line of text[0..n-1] from *at, cut to fit line[0..size-1]; 0 at the end. */
static int table_line(const unsigned char *text, size_t n, size_t *at, char *line, size_t size)
{
    if (*at >= n)
        return 0;
    const unsigned char *start = text + *at, *end = memchr(start, '\n', n - *at);
    const size_t whole = end != NULL ? (size_t)(end - start) + 1 : n - *at;
    const size_t kept = whole < size - 1 ? whole : size - 1;
    memcpy(line, start, kept);
    line[kept] = '\0';
    *at += whole;
    return 1;
}
/* A head's numbers at the start of line: two counts, block and head, within the model. */
static int table_head(const char *line, size_t N, size_t H, size_t *k, const char **rest)
{
    char *end;
    if (line[0] < '0' || line[0] > '9')
        return 0;
    const unsigned long layer = strtoul(line, &end, 10);
    if (*end != '\t' || end[1] < '0' || end[1] > '9')
        return 0;
    const unsigned long head = strtoul(end + 1, &end, 10);
    if (layer >= N || head >= H || (*end != '\t' && *end != '\0' && *end != '\n'))
        return 0;
    *k = (size_t)layer * H + (size_t)head;
    *rest = end;
    return 1;
}
void lm_table_roles(const unsigned char *text, size_t n, size_t N, size_t H, char *roles,
                    size_t role_size)
{
    char line[512];
    size_t at = 0, k;
    const char *rest;
    for (size_t i = 0; i < N * H && role_size >= 2; i++)
        snprintf(roles + i * role_size, role_size, "?");
    while (role_size >= 2 && table_line(text, n, &at, line, sizeof line)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *last = strrchr(line, '\t');
        if (!table_head(line, N, H, &k, &rest) || last == NULL || last < rest || last[1] == '\0')
            continue;                              /* the header, or not a head */
        int printable = 1;
        for (const char *c = last + 1; *c != '\0'; c++)
            printable &= *c > ' ' && *c < 127;
        if (printable)
            snprintf(roles + k * role_size, role_size, "%s", last + 1);
    }
}
int lm_table_study(const unsigned char *text, size_t n, size_t N, size_t H, double *base,
                   double *importance)
{
    char line[512];
    size_t at = 0, k, found = 0;
    const char *rest;
    int have_base = 0;
    unsigned char *seen = calloc(N * H > 0 ? N * H : 1, 1);
    if (seen == NULL)
        return 0;
    while (table_line(text, n, &at, line, sizeof line)) {
        const char *b = strstr(line, "base=");
        char *end;
        if (line[0] == '#' && b != NULL) {
            const double value = strtod(b + 5, &end);
            have_base = end != b + 5 && isfinite(value);
            if (have_base)
                *base = value;
        } else if (table_head(line, N, H, &k, &rest) && *rest == '\t') {
            const double value = strtod(rest + 1, &end);
            if (end != rest + 1 && isfinite(value)) {
                importance[k] = value;
                found += !seen[k];
                seen[k] = 1;
            }
        }
    }
    free(seen);
    return have_base && found == N * H;
}
/* The place of column among the tab-separated names of header, after the block and
   the head; -1 if it is not there. */
static int column_place(const char *header, const char *column)
{
    const size_t length = strlen(column);
    int place = 0;
    for (const char *name = header + strlen("layer\thead\t"); ; place++) {
        const size_t size = strcspn(name, "\t");
        if (size == length && strncmp(name, column, length) == 0)
            return place;
        if (name[size] != '\t')
            return -1;
        name += size + 1;
    }
}
size_t lm_table_column(const unsigned char *text, size_t n, size_t N, size_t H,
                       const char *column, double *values)
{
    char line[512];
    size_t at = 0, k, found = 0;
    const char *rest;
    int place = -1;
    for (size_t i = 0; i < N * H; i++)
        values[i] = NAN;
    while (table_line(text, n, &at, line, sizeof line)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "layer\thead\t", strlen("layer\thead\t")) == 0) {
            place = column_place(line, column);
            continue;
        }
        if (place < 0 || !table_head(line, N, H, &k, &rest) || *rest != '\t')
            continue;
        const char *field = rest + 1;
        for (int c = 0; c < place && field != NULL; c++)
            field = strchr(field, '\t') ? strchr(field, '\t') + 1 : NULL;
        char *end;
        const double value = field != NULL ? strtod(field, &end) : NAN;
        if (field != NULL && end != field && (*end == '\t' || *end == '\0') &&
            isfinite(value)) {
            found += isnan(values[k]);
            values[k] = value;
        }
    }
    return found;
}
