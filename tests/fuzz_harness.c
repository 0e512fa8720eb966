/* generated from chapters/25-hardening.nw, chapters/46-tests-language-model.nw, chapters/47-tests-austen-model.nw; edit the book, not this file */
#define _XOPEN_SOURCE 700          /* nftw */
#include <float.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "checkpoint.h"
#include "cli.h"
#include "fuzz_harness.h"
#include "mha.h"
#include "npy.h"
#include "printable.h"

/* <<[[fuzz_harness.c]] helpers>> */
static char home[4096], private_dir[64];

static void fail(const char *format, ...)
{
    va_list args;
    fputs("fuzz: ", stderr);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    abort();
}
/* <<[[fuzz_harness.c]] helpers>> */
static int write_case(const char *dir)
{
    float values[3 * 4 * 4];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        values[i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
    const size_t query[3] = {1, 3, 4}, in_w[2] = {12, 4}, in_b[1] = {12};
    const size_t out_w[2] = {4, 4}, out_b[1] = {4};
    char path[128], message[256];
    const struct { const char *name; size_t rank; const size_t *shape; } files[] = {
        {"query.npy", 3, query}, {"grad_out.npy", 3, query}, {"in_proj_weight.npy", 2, in_w},
        {"in_proj_bias.npy", 1, in_b}, {"out_proj_weight.npy", 2, out_w},
        {"out_proj_bias.npy", 1, out_b},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        if (mha_npy_write(path, values, files[i].rank, files[i].shape,
                          message, sizeof message) != MHA_OK)
            return -1;
    }
    return 0;
}
/* <<[[fuzz_harness.c]] helpers>> */
static int write_mask(const char *dir)
{
    const float mask[9] = {0, -1, -2, 0.5f, 0, -1, 1, 0.25f, 0};       /* (L, L) added */
    const size_t shape[2] = {3, 3};
    char path[128], message[256];
    snprintf(path, sizeof path, "%s/attn_mask.npy", dir);
    return mha_npy_write(path, mask, 2, shape, message, sizeof message) == MHA_OK ? 0 : -1;
}
/* <<[[fuzz_harness.c]] helpers>> */
int fuzz_setup(void)
{
    struct stat st;
    const int in_memory = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
                          access("/dev/shm", W_OK) == 0;
    strcpy(private_dir, in_memory ? "/dev/shm/mha-fuzz-XXXXXX" : "/tmp/mha-fuzz-XXXXXX");
    if (getcwd(home, sizeof home) == NULL || mkdtemp(private_dir) == NULL ||
        chdir(private_dir) != 0)
        return -1;
    if (mkdir("d", 0700) != 0 || write_case("d") != 0 || mkdir("m", 0700) != 0 ||
        write_case("m") != 0 || write_mask("m") != 0)
        return -1;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st; (void)type; (void)ftw;
    return remove(path);
}

void fuzz_teardown(void)
{
    if (chdir(home) == 0 && private_dir[0] != '\0')
        nftw(private_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    private_dir[0] = '\0';
}
/* <<[[fuzz_harness.c]] helpers>> */
static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        fail("cannot write %s in %s", path, private_dir);
}
/* <<[[fuzz_harness.c]] the [[.npy]] target>> */
static void check_refusal(mha_status status, const mha_npy *array, const char *message)
{
    static const mha_npy empty;
    if (status <= MHA_OK || status >= MHA_STATUS_COUNT)
        fail("npy: status %d is not an error", (int)status);
    if (message[0] == '\0' || strchr(message, '\n') != NULL)
        fail("npy: status %d with message '%s': want one non-empty line", (int)status, message);
    if (memcmp(array, &empty, sizeof empty) != 0)
        fail("npy: refused with '%s' but left the array non-empty", message);
}
/* <<[[fuzz_harness.c]] the [[.npy]] target>> */
static void check_array(const mha_npy *a)
{
    size_t count = 1;
    if (a->rank > MHA_NPY_MAX_RANK)
        fail("npy: rank %zu", a->rank);
    for (size_t i = 0; i < a->rank; i++)
        if (mha_mul_overflows(count, a->shape[i], &count))
            fail("npy: accepted a shape whose element count overflows");
    if (count != a->count)
        fail("npy: count %zu, but the shape holds %zu elements", a->count, count);
    if ((a->kind == MHA_NPY_FLOAT) != (a->values != NULL) ||
        (a->kind == MHA_NPY_BOOL) != (a->flags != NULL))
        fail("npy: kind %d with values %p and flags %p", (int)a->kind,
             (void *)a->values, (void *)a->flags);
    for (size_t i = 0; a->flags != NULL && i < a->count; i++)
        if (a->flags[i] > 1)
            fail("npy: flag %zu is %u", i, a->flags[i]);
}
/* <<[[fuzz_harness.c]] the [[.npy]] target>> */
static void check_round_trip(const mha_npy *a)
{
    char message[256];
    mha_npy again;
    if (mha_npy_write("again.npy", a->values, a->rank, a->shape,
                      message, sizeof message) != MHA_OK)
        fail("npy: cannot write back what was read: %s", message);
    if (mha_npy_read("again.npy", &again, message, sizeof message) != MHA_OK)
        fail("npy: cannot read back what was written: %s", message);
    if (again.rank != a->rank || again.count != a->count ||
        memcmp(again.shape, a->shape, a->rank * sizeof a->shape[0]) != 0 ||
        (a->count > 0 && memcmp(again.values, a->values, a->count * sizeof(float)) != 0))
        fail("npy: the round trip changed the array");
    mha_npy_free(&again);
}
/* <<[[fuzz_harness.c]] the [[.npy]] target>> */
void fuzz_npy_one(const uint8_t *data, size_t size)
{
    char message[256] = "";
    mha_npy array;
    write_file("input.npy", data, size);
    const mha_status status = mha_npy_read("input.npy", &array, message, sizeof message);
    if (status != MHA_OK) {
        check_refusal(status, &array, message);
        return;
    }
    check_array(&array);
    if (array.kind == MHA_NPY_FLOAT)
        check_round_trip(&array);
    mha_npy_free(&array);
}
/* <<[[fuzz_harness.c]] the command-line target>> */
static int argument_is_harmless(const char *arg, int small_numbers_only)
{
    if (strchr(arg, '/') != NULL)
        return 0;
    const char *number = strchr(arg, '=') ? strchr(arg, '=') + 1 : arg;
    if (*number == '\0' || strspn(number, "0123456789") != strlen(number))
        return 1;
    unsigned long long value = 0;
    for (const char *p = number; *p != '\0' && value < (1ull << 32); p++)
        value = value * 10 + (unsigned)(*p - '0');
    return value <= 16 || (!small_numbers_only && value >= (1ull << 32));
}
/* <<[[fuzz_harness.c]] the command-line target>> */
enum { ARGS_MAX = 32, DEFAULTS_MAX = 12 };

static char *const small_defaults[][DEFAULTS_MAX + 2] = {     /* a command, option-value pairs */
    {"bench", "--seq", "3", "--dim", "4", "--heads", "2", "--reps", "1", NULL},
    {"train", "--steps", "2", "--batch", "2", "--length", "8", "--dim", "8", "--vocab", "8",
     "--every", "1", NULL},
    {"decode", "--heads", "2", NULL},
};

static int given(int argc, char **argv, const char *option)
{
    const size_t n = strlen(option);
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], option, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
            return 1;
    return 0;
}
static int split_arguments(char *text, size_t size, char *argv[ARGS_MAX + DEFAULTS_MAX + 2])
{
    int argc = 0;
    argv[argc++] = "mha";
    for (size_t start = 0; size > 0 && start <= size && argc < ARGS_MAX;) {
        char *arg = text + start;                  /* text[size] is a zero byte */
        if (!argument_is_harmless(arg, argc >= 2 && strcmp(argv[1], "train") == 0))
            return -1;
        argv[argc++] = arg;
        start += strlen(arg) + 1;
    }
    const int typed = argc;
    for (size_t c = 0; typed >= 2 && c < sizeof small_defaults / sizeof small_defaults[0]; c++)
        for (size_t i = 1; strcmp(argv[1], small_defaults[c][0]) == 0 &&
                           small_defaults[c][i] != NULL; i += 2)
            if (!given(typed, argv, small_defaults[c][i])) {
                argv[argc++] = small_defaults[c][i];
                argv[argc++] = small_defaults[c][i + 1];
            }
    argv[argc] = NULL;
    return argc;
}
/* <<[[fuzz_harness.c]] the command-line target>> */
static void check_cli_result(int status, const char *out, const char *err)
{
    const char *newline = strchr(err, '\n');
    if (status != MHA_EXIT_OK && status != MHA_EXIT_FAILURE && status != MHA_EXIT_USAGE)
        fail("cli: exit status %d", status);
    if (status == MHA_EXIT_OK && err[0] != '\0')
        fail("cli: success, but the error stream holds '%s'", err);
    if (status != MHA_EXIT_OK &&
        (strncmp(err, "mha: ", 5) != 0 || newline == NULL || newline[1] != '\0'))
        fail("cli: status %d, and the error stream is not one 'mha: ' line: '%s'",
             status, err);
    for (const char *p = err; *p != '\0' && p[1] != '\0';) {
        const size_t n = mha_printable_char(p);
        if (n == 0)
            fail("cli: byte 0x%02x of the error line is not printable", (unsigned char)*p);
        p += n;
    }
    (void)out;
}
/* <<[[fuzz_harness.c]] the command-line target>> */
void fuzz_cli_one(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *argv[ARGS_MAX + DEFAULTS_MAX + 2];
    char *out_text = NULL, *err_text = NULL;
    size_t out_size, err_size;
    if (text == NULL)
        fail("cli: out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    const int argc = split_arguments(text, size, argv);
    if (argc > 0) {
        FILE *out = open_memstream(&out_text, &out_size);
        FILE *err = open_memstream(&err_text, &err_size);
        if (out == NULL || err == NULL)
            fail("cli: open_memstream failed");
        const int status = mha_cli_main(argc, argv, out, err);
        fclose(out);
        fclose(err);
        check_cli_result(status, out_text, err_text);
    }
    free(out_text);
    free(err_text);
    free(text);
}
/* <<[[fuzz_harness.c]] the forward target>> */
struct byte_source { const uint8_t *data; size_t size, at; };

static unsigned take(struct byte_source *s)
{
    return s->at < s->size ? s->data[s->at++] : 0;
}
/* <<[[fuzz_harness.c]] the forward target>> */
static float take_float(struct byte_source *s, int wild, float scale)
{
    if (!wild)
        return scale * (float)((int)take(s) - 128) / 128.0f;
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++)
        bits = bits << 8 | take(s);
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static float take_mask_entry(struct byte_source *s, int wild)
{
    if (wild)
        return take_float(s, 1, 1);
    const unsigned b = take(s);
    return b == 0 ? -INFINITY : (float)((int)b - 128) / 16.0f;
}
/* <<[[fuzz_harness.c]] the forward target>> */
struct problem {
    mha_shape shape;
    int wild, want_weights, masked;
    float *floats;                    /* every float input, in one block */
    unsigned char *bytes;             /* every boolean mask, in one block */
    size_t float_count, byte_count;
    const float *query, *key, *value;
    mha_params params;
    mha_mask mask;
};
/* <<[[fuzz_harness.c]] the forward target>> */
static void read_shape(struct byte_source *s, struct problem *p, unsigned *flags,
                       unsigned *masks)
{
    const size_t B = 1 + take(s) % 3, L = 1 + take(s) % 6, S_cross = 1 + take(s) % 6;
    const size_t H = 1 + take(s) % 4, D = 1 + take(s) % 4;
    *flags = take(s);
    *masks = take(s);
    const int cross = *flags & 3;          /* 1 cross, 2 shared key and value, 3 both */
    p->shape = (mha_shape){B, L, cross ? S_cross : L, H * D, H};
    p->wild = (*flags >> 4) & 1;
    p->want_weights = (*flags >> 5) & 1;
}
/* <<[[fuzz_harness.c]] the forward target>> */
static float *carve(struct problem *p, size_t *used, size_t n)
{
    float *x = p->floats + *used;
    *used += n;
    return x;
}

static void read_problem(struct byte_source *s, struct problem *p)
{
    unsigned flags, masks;
    read_shape(s, p, &flags, &masks);
    const size_t B = p->shape.batch, L = p->shape.query_len, S = p->shape.key_len;
    const size_t E = p->shape.embed_dim;
    const int has_key = flags & 3, has_value = (flags & 3) == 1 || (flags & 3) == 3;
    p->float_count = B * L * E + (has_key ? B * S * E : 0) + (has_value ? B * S * E : 0) +
                     4 * E * E + 4 * E + L * S;
    p->byte_count = L * S + B * S;
    p->floats = malloc(p->float_count * sizeof *p->floats);
    p->bytes = malloc(p->byte_count);
    if (p->floats == NULL || p->bytes == NULL)
        fail("forward: out of memory");
    /* <<fill the problem's inputs from [[s]]>> */
    const float weight_scale = 1.0f / sqrtf((float)E);
    size_t used = 0;
    float *query = carve(p, &used, B * L * E);
    float *key = has_key ? carve(p, &used, B * S * E) : NULL;
    float *value = has_value ? carve(p, &used, B * S * E) : NULL;
    float *in_w = carve(p, &used, 3 * E * E), *out_w = carve(p, &used, E * E);
    float *in_b = carve(p, &used, 3 * E), *out_b = carve(p, &used, E);
    float *mask_float = carve(p, &used, L * S);
    for (size_t i = 0; i < p->float_count; i++) {
        const float *x = p->floats + i;
        const int is_weight = (x >= in_w && x < in_w + 3 * E * E) || (x >= out_w && x < out_w + E * E);
        p->floats[i] = x >= mask_float ? take_mask_entry(s, p->wild)
                                       : take_float(s, p->wild, is_weight ? weight_scale : 1.0f);
    }
    for (size_t i = 0; i < p->byte_count; i++)
        p->bytes[i] = take(s) & 1;
    p->query = query; p->key = key; p->value = value;
    p->params = (mha_params){in_w, flags & 4 ? in_b : NULL, out_w, flags & 8 ? out_b : NULL};
    p->mask = (mha_mask){masks & 1, masks & 2 ? p->bytes : NULL, masks & 4 ? mask_float : NULL,
                         masks & 8 ? p->bytes + L * S : NULL};
    p->masked = masks & 16 || (masks & 15) != 0;
}
/* <<[[fuzz_harness.c]] the forward target>> */
struct result { float *out, *weights; };

static struct result run_one(const mha_impl *impl, const struct problem *p, mha_status *status)
{
    const mha_shape *s = &p->shape;
    const size_t n_out = s->batch * s->query_len * s->embed_dim;
    const size_t n_w = s->batch * s->heads * s->query_len * s->key_len;
    struct result r = {malloc(n_out * sizeof(float)),
                       p->want_weights ? malloc(n_w * sizeof(float)) : NULL};
    if (r.out == NULL || (p->want_weights && r.weights == NULL))
        fail("forward: out of memory");
    memset(r.out, 0xff, n_out * sizeof(float));
    if (r.weights != NULL)
        memset(r.weights, 0xff, n_w * sizeof(float));
    *status = impl->forward(s, &p->params, p->query, p->key, p->value,
                            p->masked ? &p->mask : NULL, r.out, r.weights);
    if (*status != MHA_OK && !(p->wild && *status == MHA_ERR_RANGE))
        fail("forward: %s refused a valid problem: %s", impl->name, mha_status_message(*status));
    return r;
}
/* <<[[fuzz_harness.c]] the forward target>> */
static int key_masked(const struct problem *p, size_t b, size_t i, size_t j)
{
    const size_t S = p->shape.key_len;
    const mha_mask *m = &p->mask;
    if (!p->masked)
        return 0;
    return (m->causal && j > i) || (m->attn_mask_bool && m->attn_mask_bool[i * S + j]) ||
           (m->attn_mask_float && m->attn_mask_float[i * S + j] == -INFINITY) ||
           (m->key_padding_mask && m->key_padding_mask[b * S + j]);
}
/* <<[[fuzz_harness.c]] the forward target>> */
static void check_tame(const char *name, const struct problem *p, const struct result *r)
{
    const mha_shape *s = &p->shape;
    const size_t B = s->batch, H = s->heads, L = s->query_len, S = s->key_len;
    for (size_t i = 0; i < B * L * s->embed_dim; i++)
        if (isnan(r->out[i]))
            fail("forward: %s: out[%zu] is NaN on finite inputs", name, i);
    for (size_t row = 0; r->weights != NULL && row < B * H * L; row++) {
        const float *w = r->weights + row * S;
        const size_t b = row / (H * L), i = row % L;
        double sum = 0;
        for (size_t j = 0; j < S; j++) {
            if (isnan(w[j]) || w[j] < 0 || (key_masked(p, b, i, j) && w[j] != 0))
                fail("forward: %s: weight (%zu, %zu, %zu, %zu) is %g", name, b,
                     row / L % H, i, j, (double)w[j]);
            sum += w[j];
        }
        if (sum != 0 && fabs(sum - 1) > 1e-5 * (double)S)
            fail("forward: %s: weights of row %zu sum to %.9g", name, row, sum);
    }
}
/* <<[[fuzz_harness.c]] the forward target>> */
static void compare(const char *what, const char *name, const float *got, const float *want,
                    size_t n, double terms)
{
    double largest = 1;
    for (size_t i = 0; i < n; i++)
        largest = fmax(largest, fabs((double)want[i]));
    const double tolerance = (3 * 8 * sqrt(terms) + 4) * FLT_EPSILON * largest;
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tolerance))
            fail("forward: %s %s[%zu] = %.9g, naive gives %.9g (tolerance %.3g)", name, what, i,
                 (double)got[i], (double)want[i], tolerance);
}
/* <<[[fuzz_harness.c]] the forward target>> */
void fuzz_forward_one(const uint8_t *data, size_t size)
{
    struct byte_source source = {data, size, 0};
    struct problem p;
    read_problem(&source, &p);
    float *floats = malloc(p.float_count * sizeof *floats);
    unsigned char *bytes = malloc(p.byte_count);
    if (floats == NULL || bytes == NULL)
        fail("forward: out of memory");
    memcpy(floats, p.floats, p.float_count * sizeof *floats);
    memcpy(bytes, p.bytes, p.byte_count);
    mha_status naive_status, status;
    struct result naive = run_one(&mha_impls[0], &p, &naive_status);
    /* <<run and check every implementation against [[naive]]>> */
    const mha_shape *s = &p.shape;
    const size_t n_out = s->batch * s->query_len * s->embed_dim;
    const size_t n_w = s->batch * s->heads * s->query_len * s->key_len;
    const double terms = 2.0 * s->embed_dim + 2.0 * s->key_len;
    for (size_t k = 0; k < mha_impl_count; k++) {
        struct result r = k == 0 ? naive : run_one(&mha_impls[k], &p, &status);
        if (k != 0 && status != naive_status)
            fail("forward: %s says '%s', naive says '%s'", mha_impls[k].name,
                 mha_status_message(status), mha_status_message(naive_status));
        if (memcmp(floats, p.floats, p.float_count * sizeof *floats) != 0 ||
            memcmp(bytes, p.bytes, p.byte_count) != 0)
            fail("forward: %s wrote to its inputs", mha_impls[k].name);
        if (!p.wild) {
            check_tame(mha_impls[k].name, &p, &r);
            compare("out", mha_impls[k].name, r.out, naive.out, n_out, terms);
            if (r.weights != NULL)
                compare("weights", mha_impls[k].name, r.weights, naive.weights, n_w, terms);
        }
        if (k != 0) {
            free(r.out);
            free(r.weights);
        }
    }
    free(naive.out); free(naive.weights);
    free(floats); free(bytes); free(p.floats); free(p.bytes);
}
/* <<[[fuzz_harness.c]] the checkpoint target>> */
static void write_fuzz_checkpoint(const uint8_t *data, size_t size)
{
    static mha_induction_model model;
    static checkpoint_file files[CHECKPOINT_FILES_MAX];
    char message[256], path[64];
    if (model.params == NULL && mha_induction_model_init(&model, 5, 6, 4, 2, 2, 11) != MHA_OK)
        fail("checkpoint: cannot make the model");
    const size_t n = induction_checkpoint_files(&model, files);
    mkdir("ck", 0700);
    for (size_t f = 0; f < n; f++) {
        snprintf(path, sizeof path, "ck/%.47s", files[f].name);
        if (mha_npy_write(path, files[f].data, files[f].rank, files[f].shape, message,
                          sizeof message) != MHA_OK)
            fail("checkpoint: cannot write %s: %s", path, message);
    }
    /* <<write the input's [[model.txt]] and tensor over the valid files>> */
    const uint8_t *text = size > 0 ? data + 1 : data, *end = data + size;
    const uint8_t *zero = memchr(text, 0, (size_t)(end - text));
    const size_t text_size = (size_t)((zero != NULL ? zero : end) - text);
    if (text_size > 0)
        write_file("ck/model.txt", text, text_size);
    else
        unlink("ck/model.txt");
    const size_t which = size > 0 ? (data[0] & 15u) : n;
    if (zero != NULL && which < n) {
        snprintf(path, sizeof path, "ck/%.47s", files[which].name);
        write_file(path, zero + 1, (size_t)(end - zero - 1));
    }
}
/* <<[[fuzz_harness.c]] the checkpoint target>> */
static void check_checkpoint_refusal(mha_status status, const mha_induction_model *m,
                                     const char *message)
{
    static const mha_induction_model empty;
    if (status <= MHA_OK || status >= MHA_STATUS_COUNT)
        fail("checkpoint: status %d is not an error", (int)status);
    if (message[0] == '\0' || strchr(message, '\n') != NULL || strstr(message, "ck") == NULL)
        fail("checkpoint: status %d with message '%s': want one line naming ck", (int)status,
             message);
    if (memcmp(m, &empty, sizeof empty) != 0)
        fail("checkpoint: refused with '%s' but left a model", message);
}
/* <<[[fuzz_harness.c]] the checkpoint target>> */
static void check_checkpoint(const mha_induction_model *m)
{
    const size_t V = m->vocab, T = m->length, E = m->embed_dim;
    char message[256];
    mha_induction_model again;
    if (m->layers < 1 || m->layers > MHA_LEARNING_MAX_LAYERS || m->heads < 1 ||
        m->heads > MHA_LEARNING_MAX_HEADS || E % m->heads != 0 || V < 2 || T < 6 ||
        m->count != 2 * V * E + T * E + m->layers * (4 * E * E + 4 * E))
        fail("checkpoint: accepted %zu layers, %zu heads, V %zu, T %zu, E %zu, %zu weights",
             m->layers, m->heads, V, T, E, m->count);
    if (mha_first_nonfinite(m->params, m->count, 0) < m->count)
        fail("checkpoint: accepted a weight that is not finite");
    mkdir("ck-again", 0700);
    if (induction_checkpoint_write("ck-again", m, message, sizeof message) != MHA_OK)
        fail("checkpoint: cannot write back what was read: %s", message);
    if (induction_checkpoint_read("ck-again", 0, &again, message, sizeof message) != MHA_OK)
        fail("checkpoint: cannot read back what was written: %s", message);
    if (again.layers != m->layers || again.heads != m->heads || again.vocab != V ||
        again.length != T || again.embed_dim != E ||
        memcmp(again.params, m->params, m->count * sizeof(float)) != 0)
        fail("checkpoint: the round trip changed the model");
    mha_induction_model_free(&again);
}
/* <<[[fuzz_harness.c]] the checkpoint target>> */
void fuzz_checkpoint_one(const uint8_t *data, size_t size)
{
    char message[256] = "";
    mha_induction_model m;
    write_fuzz_checkpoint(data, size);
    const size_t legacy_heads = size > 0 ? (data[0] >> 4 & 3u) : 0;
    const mha_status status = induction_checkpoint_read("ck", legacy_heads, &m, message,
                                                        sizeof message);
    if (status != MHA_OK) {
        check_checkpoint_refusal(status, &m, message);
        return;
    }
    check_checkpoint(&m);
    mha_induction_model_free(&m);
}
#include "bpe.h"
#include "bpe_files.h"

void fuzz_bpe_one(const uint8_t *data, size_t size)
{
    if (size == 0)
        return;
    const unsigned char *text = data + 1;
    const size_t n = size - 1;
    bpe t, back;
    if (bpe_learn(text, n / 2, BPE_BYTES + data[0], &t) != MHA_OK)
        fail("bpe: learning from %zu bytes failed", n / 2);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    unsigned char *decoded = malloc(n ? n : 1);
    size_t count = 0, length = 0;
    if (ids == NULL || decoded == NULL)
        fail("bpe: out of memory");
    if (bpe_encode(&t, text, n, ids, &count) != MHA_OK || count > n)
        fail("bpe: encoding %zu bytes gave %zu tokens", n, count);
    for (size_t i = 0; i < count; i++)
        if (ids[i] >= t.vocab)
            fail("bpe: token %zu is %u, of a vocabulary of %zu", i, (unsigned)ids[i], t.vocab);
    if (bpe_decode(&t, ids, count, decoded, n, &length) != MHA_OK || length != n ||
        (n > 0 && memcmp(decoded, text, n) != 0))
        fail("bpe: the decoded text differs");
    char *merges = NULL, *vocab = NULL, message[256];
    size_t merges_n = 0, vocab_n = 0;
    FILE *m = open_memstream(&merges, &merges_n), *v = open_memstream(&vocab, &vocab_n);
    if (m == NULL || v == NULL || bpe_write_merges(m, &t) != 0 || bpe_write_vocab(v, &t) != 0)
        fail("bpe: cannot write the files in memory");
    fclose(m);
    fclose(v);
    if (bpe_merges_parse("merges", merges, merges_n, &back, message, sizeof message) != MHA_OK)
        fail("bpe: written merges do not parse: %s", message);
    if (back.vocab != t.vocab ||
        memcmp(back.merge, t.merge, (t.vocab - BPE_BYTES) * sizeof *t.merge) != 0 ||
        bpe_vocab_check("vocab", vocab, vocab_n, &back, message, sizeof message) != MHA_OK)
        fail("bpe: the files do not give the tokenizer back");
    free(merges);
    free(vocab);
    free(ids);
    free(decoded);
    bpe_free(&back);
    bpe_free(&t);
}
#include <math.h>
#include "lm_files.h"

static struct { int ready; char *original[3]; size_t length[3]; } lm_fuzz;
static const char *const lm_fuzz_files[3] = {"lm/model.txt", "lm/merges.txt",
                                             "lm.state/state.txt"};

static void lm_fuzz_prepare(void)
{
    FILE *t = fopen("lm-text.txt", "wb");
    if (t == NULL)
        fail("lm: cannot write the text");
    for (int i = 0; i < 400; i++)                   /* 2,400 bytes of a few words */
        fputs(i % 3 ? "Emma. " : "Harriet", t);
    fclose(t);
    char *argv[] = {"mha", "lm", "train", "--text", "lm-text.txt", "--out", "lm", "--state",
                    "lm.state", "--vocab", "260", "--layers", "1", "--heads", "2", "--dim", "8",
                    "--context", "8", "--batch", "2", "--steps", "2", "--eval-every", "2", NULL};
    char *out_text = NULL, *err_text = NULL;
    size_t out_size = 0, err_size = 0;
    FILE *out = open_memstream(&out_text, &out_size), *err = open_memstream(&err_text, &err_size);
    if (out == NULL || err == NULL)
        fail("lm: open_memstream failed");
    const int status = mha_cli_main((int)(sizeof argv / sizeof argv[0]) - 1, argv, out, err);
    fclose(out), fclose(err);
    if (status != 0)
        fail("lm: the tiny model did not train: %s", err_text);
    free(out_text), free(err_text);
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen(lm_fuzz_files[k], "rb");
        char chunk[4096];
        size_t got;
        FILE *copy = open_memstream(&lm_fuzz.original[k], &lm_fuzz.length[k]);
        if (f == NULL || copy == NULL)
            fail("lm: cannot read %s", lm_fuzz_files[k]);
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            fwrite(chunk, 1, got, copy);
        fclose(f), fclose(copy);
    }
    lm_fuzz.ready = 1;
}
static void lm_fuzz_put(int k, const uint8_t *bytes, size_t n)
{
    FILE *f = fopen(lm_fuzz_files[k], "wb");
    if (f == NULL || (n > 0 && fwrite(bytes, 1, n, f) != n) || fclose(f) != 0)
        fail("lm: cannot write %s", lm_fuzz_files[k]);
}
static void lm_fuzz_refusal(mha_status status, const char *message, const char *folder)
{
    if (status == MHA_OK || message[0] == '\0' || strchr(message, '\n') != NULL ||
        strstr(message, folder) == NULL)
        fail("lm: a refusal (status %d) must be one line naming %s: '%s'", (int)status, folder,
             message);
}
static void lm_fuzz_tables(const uint8_t *data, size_t size)
{
    enum { ROLE = 24 };
    const size_t N = 1 + (data[0] >> 3) % 4, H = 1 + (data[0] >> 5) % 8;
    char roles[4 * 8][ROLE];
    double base = -1, importance[4 * 8];
    memset(roles, 'x', sizeof roles);
    lm_table_roles(data + 1, size - 1, N, H, roles[0], ROLE);
    for (size_t k = 0; k < N * H; k++) {
        const size_t length = strnlen(roles[k], ROLE);
        if (length == 0 || length == ROLE)
            fail("lm: role %zu is empty or not terminated", k);
        for (size_t c = 0; c < length; c++)
            if (roles[k][c] <= ' ' || roles[k][c] >= 127)
                fail("lm: role %zu holds byte %d", k, roles[k][c]);
    }
    for (size_t k = 0; k < N * H; k++)
        importance[k] = NAN;
    if (lm_table_study(data + 1, size - 1, N, H, &base, importance)) {
        for (size_t k = 0; k < N * H; k++)
            if (!isfinite(importance[k]))
                fail("lm: a whole study without head %zu's importance", k);
        if (!isfinite(base))
            fail("lm: a whole study without a finite base");
    }
}
void fuzz_lm_one(const uint8_t *data, size_t size)
{
    if (size > 0 && data[0] % 5 >= 3) {
        lm_fuzz_tables(data, size);                     /* the tables: no folder needed */
        return;
    }
    if (!lm_fuzz.ready)
        lm_fuzz_prepare();
    const int k = size > 0 ? data[0] % 5 : 0;
    lm_fuzz_put(k, size > 0 ? data + 1 : data, size > 0 ? size - 1 : 0);
    char message[512] = "";
    lm_model m = {0};
    bpe tokenizer = {0};
    if (k < 2) {
        lm_provenance p;
        const mha_status status = lm_model_read("lm", &m, &tokenizer, &p, message,
                                                sizeof message);
        if (status != MHA_OK)
            lm_fuzz_refusal(status, message, "lm/");
        else if (tokenizer.vocab != m.config.vocab || m.config.layers == 0)
            fail("lm: accepted a model of vocabulary %zu with a tokenizer of %zu",
                 m.config.vocab, tokenizer.vocab);
    } else {
        lm_run run;
        lm_adamw opt = {0};
        lm_history history = {0};
        const mha_status status = lm_state_read("lm.state", &run, &m, &opt, &tokenizer,
                                                &history, message, sizeof message);
        if (status != MHA_OK)
            lm_fuzz_refusal(status, message, "lm.state/");
        else if (run.step > run.steps || run.eval_every == 0 || run.batch == 0 ||
                 run.warmup > run.steps || !(run.repeat >= 0 && run.repeat <= 1))
            fail("lm: accepted a state at step %zu of %zu", run.step, run.steps);
        if (status == MHA_OK) {
            lm_adamw_free(&opt);
            free(history.steps), free(history.heads);
        }
    }
    if (m.params != NULL)
        lm_model_free(&m);
    if (tokenizer.vocab != 0)
        bpe_free(&tokenizer);
    lm_fuzz_put(k, (const uint8_t *)lm_fuzz.original[k], lm_fuzz.length[k]);
}
