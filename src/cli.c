/* generated from chapters/06-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "mha.h"
#include "npy.h"
#include <time.h>
#include "learning.h"

static mha_command_fn cmd_help;

static const struct mha_command commands[] = {
    {"bench-basic", "chapter 4's benchmark: one version, checked, then timed", mha_cmd_bench},
    {"forward", "run one attention layer on the NumPy files in a directory", mha_cmd_forward},
    {"help", "describe the commands, or one command: mha help COMMAND", cmd_help},
    {"demo", "show each head's attention weights as heatmaps in the terminal", mha_cmd_demo},
    {"decode", "run the layer causally, one position at a time, through a KV cache",
     mha_cmd_decode},
    {"bench", "time a forward pass or a decoding step, threads, peak and bandwidth",
     mha_cmd_bench_fast},
    {"backward", "gradients of one attention layer, as PyTorch's autograd computes them",
     mha_cmd_backward},
    {"train", "train a two-layer attention-only model until an induction head forms",
     mha_cmd_train},
};
static const size_t command_count = sizeof commands / sizeof commands[0];
static const struct mha_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}
int mha_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc < 2) {
        mha_cli_error(err, "no command given (try 'mha --help')");
        return MHA_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cmd_help(argc - 1, argv + 1, out, err);
    const struct mha_command *command = find_command(argv[1]);
    if (command == NULL) {
        mha_cli_error(err, "unknown command '%s' (try 'mha --help')", argv[1]);
        return MHA_EXIT_USAGE;
    }
    return command->run(argc - 1, argv + 1, out, err);
}
static int cmd_help(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc >= 2 && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0) {
        const struct mha_command *command = find_command(argv[1]);
        if (command == NULL) {
            mha_cli_error(err, "help: unknown command '%s' (try 'mha --help')", argv[1]);
            return MHA_EXIT_USAGE;
        }
        char *help_argv[] = {(char *)command->name, "--help", NULL};
        return command->run(2, help_argv, out, err);
    }
    fprintf(out,
            "usage: mha COMMAND [OPTIONS]\n"
            "       mha help COMMAND    (or mha COMMAND --help) for one command\n\n"
            "Multi-head attention as torch.nn.MultiheadAttention(E, H, batch_first=True)\n"
            "computes it, in C.  Commands:\n\n");
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nExit status: 0 success, 1 a file or the computation failed, 2 a usage error.\n"
            "Every error is one line on standard error, starting 'mha: '.\n");
    return MHA_EXIT_OK;
}
void mha_cli_error(FILE *err, const char *format, ...)
{
    va_list args;
    char line[1024];
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    for (char *c = line; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fprintf(err, "mha: %s\n", line);
}
int mha_parse_size(const char *option, const char *text, size_t *value, FILE *err)
{
    size_t v = 0;
    if (*text == '\0') {
        mha_cli_error(err, "%s: expected a positive integer, got an empty string", option);
        return -1;
    }
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            mha_cli_error(err, "%s: '%s' is not a positive integer", option, text);
            return -1;
        }
        const size_t digit = (size_t)(*p - '0');
        if (v > (SIZE_MAX - digit) / 10) {
            mha_cli_error(err, "%s: '%s' is too large", option, text);
            return -1;
        }
        v = v * 10 + digit;
    }
    if (v == 0) {
        mha_cli_error(err, "%s: must be positive, got '%s'", option, text);
        return -1;
    }
    *value = v;
    return 0;
}
int mha_option_value(int argc, char **argv, int *i, const char *name,
                     const char **value, FILE *err)
{
    const char *arg = argv[*i];
    const size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        mha_cli_error(err, "%s: missing value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}
static void forward_usage(FILE *out)
{
    fputs(
"usage: mha forward DIR --heads H [--impl NAME] [--causal] [--no-weights]\n"
"\n"
"Runs torch.nn.MultiheadAttention(E, H, batch_first=True) in eval mode on the\n"
"NumPy files in DIR.  Shapes: B batch, L query length, S key length, E width.\n"
"\n"
"  query.npy            (B, L, E)  required\n"
"  key.npy              (B, S, E)  optional; without it key = query, S = L\n"
"  value.npy            (B, S, E)  required with key.npy, refused without it\n"
"  in_proj_weight.npy   (3E, E)    required: rows W^Q, then W^K, then W^V\n"
"  in_proj_bias.npy     (3E)       optional; absent means no bias\n"
"  out_proj_weight.npy  (E, E)     required\n"
"  out_proj_bias.npy    (E)        optional; absent means no bias\n"
"  attn_mask.npy        (L, S)     optional: bool, True = blocked, or float,\n"
"                                  added to the scores\n"
"  key_padding_mask.npy (B, S)     optional: bool, True = padding\n"
"\n"
"Inputs may be float32 or float64; masks bool or uint8.  Writes, as float32,\n"
"  out.npy              (B, L, E)\n"
"  attn_weights.npy     (B, H, L, S)  per head, unless --no-weights\n"
"replacing them only if the whole computation succeeds.\n"
"\n"
"Options:\n"
"  --heads H      number of heads, a divisor of E (required)\n", out);
    fputs("  --impl NAME    implementation:", out);
    for (size_t i = 0; i < mha_impl_count; i++)
        fprintf(out, " %s", mha_impls[i].name);
    fprintf(out, " (default %s)\n", mha_impls[0].name);
    fputs(
"  --causal       block key j > query i, as is_causal=True\n"
"  --no-weights   do not write attn_weights.npy\n"
"  --help         this text\n", out);
}
struct forward_options {
    const char *dir;
    size_t heads;                /* H, 0 until --heads is seen */
    const mha_impl *impl;
    int causal, want_weights, help;
};
static int parse_forward_options(int argc, char **argv, struct forward_options *o, FILE *err)
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
struct forward_inputs {
    mha_npy query, key, value;                 /* (B, L, E), (B, S, E), (B, S, E) */
    mha_npy in_proj_weight, in_proj_bias;      /* (3E, E), (3E) */
    mha_npy out_proj_weight, out_proj_bias;    /* (E, E), (E) */
    mha_npy attn_mask, key_padding_mask;       /* (L, S), (B, S) */
};

static void free_forward_inputs(struct forward_inputs *in)
{
    mha_npy *all[] = {&in->query, &in->key, &in->value, &in->in_proj_weight,
                      &in->in_proj_bias, &in->out_proj_weight, &in->out_proj_bias,
                      &in->attn_mask, &in->key_padding_mask};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        mha_npy_free(all[i]);
}

static int is_loaded(const mha_npy *array)
{
    return array->values != NULL || array->flags != NULL;
}
enum { PATH_SIZE = 4096 };

static int join_path(char path[PATH_SIZE], const char *dir, const char *name)
{
    int n = snprintf(path, PATH_SIZE, "%s/%s", dir, name);
    return n >= 0 && n < PATH_SIZE;
}
enum { WANT_FLOAT = 1, WANT_BOOL = 2 };

static int load_input(const char *dir, const char *name, int required, int kinds,
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
struct axis { const char *letter; size_t size; };   /* size 0: any size */

static int check_shape(const char *dir, const char *name, const mha_npy *array,
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
static int load_checked(const char *dir, const char *name, int required, int kinds,
                        mha_npy *array, size_t rank, const struct axis *axes, FILE *err)
{
    int status = load_input(dir, name, required, kinds, array, err);
    if (status == MHA_EXIT_OK && is_loaded(array))
        status = check_shape(dir, name, array, rank, axes, err);
    return status;
}
/* in_proj_weight (rows, E) and in_proj_bias (rows), out_proj (E, E) and (E);
   rows is 3E here, E + 2 H_kv D for a grouped decoder (chapter 8). */
static int load_projections(const char *dir, const char *rows_letters, size_t rows, size_t E,
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
static int load_forward_inputs(const struct forward_options *o, struct forward_inputs *in,
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
static int compute_forward(const struct forward_options *o, const struct forward_inputs *in,
                           const mha_shape *shape, float **output, float **weights,
                           FILE *err)
{
    const size_t output_count = in->query.count;                           /* B L E */
    const size_t weight_count = shape->batch * shape->heads *
                                shape->query_len * shape->key_len;         /* B H L S */
    *output = malloc(output_count * sizeof **output);
    if (o->want_weights)
        *weights = malloc(weight_count * sizeof **weights);
    if (*output == NULL || (o->want_weights && *weights == NULL)) {
        mha_cli_error(err, "forward: out of memory for the results (%zu floats)",
                      output_count + (o->want_weights ? weight_count : 0));
        return MHA_EXIT_FAILURE;
    }
    const mha_params params = {in->in_proj_weight.values, in->in_proj_bias.values,
                               in->out_proj_weight.values, in->out_proj_bias.values};
    const mha_mask mask = {o->causal, in->attn_mask.flags, in->attn_mask.values,
                           in->key_padding_mask.flags};
    const int masked = o->causal || is_loaded(&in->attn_mask) || is_loaded(&in->key_padding_mask);
    const mha_status status = o->impl->forward(shape, &params, in->query.values,
                                               in->key.values, in->value.values,
                                               masked ? &mask : NULL, *output, *weights);
    if (status != MHA_OK) {
        mha_cli_error(err, "forward: %s: %s", o->impl->name, mha_status_message(status));
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
enum { MAX_OUTPUT_FILES = 16 };
struct output_file {
    const char *name;            /* in the directory: "out.npy" */
    const float *data;
    size_t rank;
    const size_t *shape;
};

/* Write files[0..n-1] into dir, all or nothing; files[0] is renamed last. */
static int write_files(const char *dir, int n, const struct output_file *files, FILE *err)
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
static int write_outputs(const char *dir, const char *label, int want_weights,
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
static int check_directory(const char *dir, FILE *err)
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
int mha_cmd_forward(int argc, char **argv, FILE *out, FILE *err)
{
    struct forward_options options;
    int status = parse_forward_options(argc, argv, &options, err);
    if (status != MHA_EXIT_OK)
        return status;
    if (options.help) {
        forward_usage(out);
        return MHA_EXIT_OK;
    }
    if ((status = check_directory(options.dir, err)) != MHA_EXIT_OK)
        return status;
    struct forward_inputs in;
    memset(&in, 0, sizeof in);
    mha_shape shape;
    float *output = NULL, *weights = NULL;
    status = load_forward_inputs(&options, &in, &shape, err);
    if (status == MHA_EXIT_OK) {
        const mha_npy *const arrays[] = {&in.query, &in.key, &in.value, &in.in_proj_weight,
                                         &in.in_proj_bias, &in.out_proj_weight,
                                         &in.out_proj_bias, &in.attn_mask};
        static const char *const names[] = {"query.npy", "key.npy", "value.npy",
            "in_proj_weight.npy", "in_proj_bias.npy", "out_proj_weight.npy",
            "out_proj_bias.npy", "attn_mask.npy"};
        for (size_t i = 0; status == MHA_EXIT_OK && i < sizeof names / sizeof names[0]; i++) {
            const int is_mask = arrays[i] == &in.attn_mask;
            const size_t bad = arrays[i]->values == NULL ? 0
                             : mha_first_nonfinite(arrays[i]->values, arrays[i]->count, is_mask);
            if (arrays[i]->values != NULL && bad < arrays[i]->count) {
                mha_cli_error(err, "%s/%s: not finite at index %zu%s", options.dir, names[i], bad,
                              is_mask ? " (a float mask may hold -inf, but not NaN or +inf)" : "");
                status = MHA_EXIT_FAILURE;
            }
        }
    }
    if (status == MHA_EXIT_OK)
        status = compute_forward(&options, &in, &shape, &output, &weights, err);
    if (status == MHA_EXIT_OK) {
        char label[64];
        snprintf(label, sizeof label, "forward (%s)", options.impl->name);
        status = write_outputs(options.dir, label, options.want_weights, &shape,
                               output, weights, out, err);
    }
    free(output);
    free(weights);
    free_forward_inputs(&in);
    return status;
}
struct decode_options {
    struct forward_options common;            /* dir, heads, want_weights, help */
    size_t kv_heads;                          /* H_kv; defaults to H */
    const mha_decode_impl *impl;
};

static int parse_decode_options(int argc, char **argv, struct decode_options *o, FILE *err)
{
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    int n = 0, status = MHA_EXIT_OK;
    if (rest == NULL) {
        mha_cli_error(err, "decode: out of memory");
        return MHA_EXIT_FAILURE;
    }
    o->kv_heads = 0;
    o->impl = &mha_decode_impls[0];
    for (int i = 0; i < argc && status == MHA_EXIT_OK; i++) {
        const char *value = NULL;
        int matched;
        if (i > 0 && (matched = mha_option_value(argc, argv, &i, "--kv-heads", &value, err)) != 0) {
            if (matched < 0 || mha_parse_size("--kv-heads", value, &o->kv_heads, err) != 0)
                status = MHA_EXIT_USAGE;
        } else if (i > 0 && (matched = mha_option_value(argc, argv, &i, "--impl", &value, err)) != 0) {
            if (matched < 0)
                status = MHA_EXIT_USAGE;
            else if ((o->impl = mha_decode_impl_find(value)) == NULL) {
                mha_cli_error(err, "--impl: unknown decode implementation '%s'", value);
                status = MHA_EXIT_USAGE;
            }
        } else
            rest[n++] = argv[i];
    }
    rest[n] = NULL;
    if (status == MHA_EXIT_OK)
        status = parse_forward_options(n, rest, &o->common, err);
    free(rest);
    if (status == MHA_EXIT_OK && o->common.causal) {
        mha_cli_error(err, "decode: --causal: decoding is always causal; leave it out");
        status = MHA_EXIT_USAGE;
    }
    if (o->kv_heads == 0)
        o->kv_heads = o->common.heads;
    return status;
}
static void decode_usage(FILE *out)
{
    fprintf(out,
        "usage: mha decode DIR --heads H [--kv-heads K] [--impl naive|batched] [--no-weights]\n"
        "Runs self-attention causally, one position at a time, through a KV cache.\n"
        "Reads from DIR: query.npy (B,L,E); in_proj_weight.npy (E+2KD, E), which is\n"
        "(3E, E) when K = H; optional in_proj_bias.npy (E+2KD); out_proj_weight.npy (E,E);\n"
        "optional out_proj_bias.npy (E); optional key_padding_mask.npy (B,L) bool.\n"
        "key.npy and value.npy are refused (decoding is self-attention); attn_mask.npy\n"
        "is not read (the mask is causal).  D = E/H; K (default H) must divide H.\n"
        "Writes DIR/out.npy (B,L,E) and, unless --no-weights, DIR/attn_weights.npy\n"
        "(B,H,L,L): row t holds step t's weights, zero after position t.  The result\n"
        "equals 'mha forward DIR --heads H --causal'.\n");
}
static int load_decode_inputs(const struct decode_options *o, struct forward_inputs *in,
                              mha_shape *shape, FILE *err)
{
    const char *dir = o->common.dir;
    int status;
    const struct axis query_axes[] = {{"B", 0}, {"L", 0}, {"E", 0}};
    if ((status = load_checked(dir, "query.npy", 1, WANT_FLOAT, &in->query,
                               3, query_axes, err)) != MHA_EXIT_OK)
        return status;
    const size_t B = in->query.shape[0], L = in->query.shape[1], E = in->query.shape[2];
    char path[PATH_SIZE];
    for (int i = 0; i < 2; i++) {
        join_path(path, dir, i ? "value.npy" : "key.npy");
        if (access(path, F_OK) == 0) {
            mha_cli_error(err, "%s: decoding is self-attention; remove it or use 'mha forward'",
                          path);
            return MHA_EXIT_FAILURE;
        }
    }
    *shape = (mha_shape){B, L, L, E, o->common.heads};
    mha_status checked = mha_shape_check(shape);
    if (checked == MHA_OK && (o->kv_heads > o->common.heads || o->common.heads % o->kv_heads != 0))
        checked = MHA_ERR_HEADS;
    if (checked != MHA_OK) {
        mha_cli_error(err, "%s: B=%zu L=%zu E=%zu --heads %zu --kv-heads %zu: %s", dir, B, L, E,
                      o->common.heads, o->kv_heads, mha_status_message(checked));
        return checked == MHA_ERR_HEADS ? MHA_EXIT_USAGE : MHA_EXIT_FAILURE;
    }
    const size_t F = E + 2 * o->kv_heads * (E / o->common.heads);
    const struct axis padding_axes[] = {{"B", B}, {"L", L}};
    if ((status = load_projections(dir, "E+2KD", F, E, in, err)) != MHA_EXIT_OK ||
        (status = load_checked(dir, "key_padding_mask.npy", 0, WANT_BOOL, &in->key_padding_mask,
                               2, padding_axes, err)) != MHA_EXIT_OK)
        return status;
    return MHA_EXIT_OK;
}
static int run_decode(const struct decode_options *o, const struct forward_inputs *in,
                      const mha_shape *s, float *output, float *weights, FILE *err)
{
    const size_t B = s->batch, L = s->query_len, E = s->embed_dim, H = s->heads;
    const mha_decoder dec = {E, H, o->kv_heads,
                             {in->in_proj_weight.values, in->in_proj_bias.values,
                              in->out_proj_weight.values, in->out_proj_bias.values}, 0, 0};
    mha_kv_cache cache;
    mha_status status = mha_kv_cache_init(&cache, B, o->kv_heads, L, E / H);
    float *x = malloc(B * E * sizeof *x), *y = malloc(B * E * sizeof *y);
    float *w = malloc(B * H * L * sizeof *w);
    unsigned char *pad = malloc(B);
    if (status == MHA_OK && (!x || !y || !w || !pad))
        status = MHA_ERR_NOMEM;
    for (size_t t = 0; status == MHA_OK && t < L; t++) {
        for (size_t b = 0; b < B; b++) {
            memcpy(x + b * E, in->query.values + (b * L + t) * E, E * sizeof *x);
            pad[b] = in->key_padding_mask.flags ? in->key_padding_mask.flags[b * L + t] : 0;
        }
        status = o->impl->step(&dec, &cache, 1, x, pad, y, weights ? w : NULL);
        for (size_t b = 0; status == MHA_OK && b < B; b++) {
            memcpy(output + (b * L + t) * E, y + b * E, E * sizeof *y);
            for (size_t h = 0; weights && h < H; h++)                 /* (B, H, 1, L) to row t */
                memcpy(weights + ((b * H + h) * L + t) * L, w + (b * H + h) * L, L * sizeof *w);
        }
    }
    free(x); free(y); free(w); free(pad);
    mha_kv_cache_free(&cache);
    if (status != MHA_OK) {
        mha_cli_error(err, "decode: %s: %s", o->impl->name, mha_status_message(status));
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
int mha_cmd_decode(int argc, char **argv, FILE *out, FILE *err)
{
    struct decode_options options;
    int status = parse_decode_options(argc, argv, &options, err);
    if (status != MHA_EXIT_OK || options.common.help) {
        if (options.common.help)
            decode_usage(out);
        return status;
    }
    if ((status = check_directory(options.common.dir, err)) != MHA_EXIT_OK)
        return status;
    struct forward_inputs in;
    memset(&in, 0, sizeof in);
    mha_shape shape;
    float *output = NULL, *weights = NULL;
    status = load_decode_inputs(&options, &in, &shape, err);
    if (status == MHA_EXIT_OK) {
        const size_t B = shape.batch, L = shape.query_len;
        output = malloc(B * L * shape.embed_dim * sizeof *output);
        const int want_weights = options.common.want_weights;
        if (want_weights)
            weights = malloc(B * shape.heads * L * L * sizeof *weights);
        if (output == NULL || (want_weights && weights == NULL)) {
            mha_cli_error(err, "decode: out of memory for the results");
            status = MHA_EXIT_FAILURE;
        } else if ((status = run_decode(&options, &in, &shape, output, weights, err)) == MHA_EXIT_OK) {
            char label[64];
            snprintf(label, sizeof label, "decode (%s)", options.impl->name);
            status = write_outputs(options.common.dir, label, want_weights, &shape, output,
                                   weights, out, err);
        }
    }
    free(output); free(weights);
    free_forward_inputs(&in);
    return status;
}
static void backward_usage(FILE *out)
{
    fprintf(out,
        "usage: mha backward DIR --heads H [--causal]\n"
        "Reads the files of 'mha forward' (see 'mha forward --help') and grad_out.npy\n"
        "(B,L,E), the gradient of the loss with respect to the layer's output.  Writes\n"
        "grad_query.npy (B,L,E); grad_key.npy and grad_value.npy (B,S,E) when key.npy\n"
        "and value.npy were given; grad_in_proj_weight.npy (3E,E); grad_in_proj_bias.npy\n"
        "(3E) when in_proj_bias.npy was given; grad_out_proj_weight.npy (E,E);\n"
        "grad_out_proj_bias.npy (E) when out_proj_bias.npy was given.  In\n"
        "self-attention grad_query.npy is the gradient of the one input through all\n"
        "three of its uses.  All files are written, or none.\n");
}
static int parse_backward_options(int argc, char **argv, struct forward_options *o, FILE *err)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--no-weights") == 0 || strncmp(argv[i], "--impl", 6) == 0) {
            mha_cli_error(err, "backward: unknown option '%s' (try 'mha backward --help')",
                          argv[i]);
            return MHA_EXIT_USAGE;
        }
    return parse_forward_options(argc, argv, o, err);
}
int mha_cmd_backward(int argc, char **argv, FILE *out, FILE *err)
{
    struct forward_options options;
    int status = parse_backward_options(argc, argv, &options, err);
    if (status != MHA_EXIT_OK)
        return status;                  /* options may be unset: do not read them */
    if (options.help) {
        backward_usage(out);
        return MHA_EXIT_OK;
    }
    if ((status = check_directory(options.dir, err)) != MHA_EXIT_OK)
        return status;
    struct forward_inputs in;
    memset(&in, 0, sizeof in);
    mha_npy grad_out;
    memset(&grad_out, 0, sizeof grad_out);
    mha_shape shape;
    float *memory = NULL;
    status = load_forward_inputs(&options, &in, &shape, err);
    if (status == MHA_EXIT_OK) {
        const size_t B = shape.batch, L = shape.query_len, S = shape.key_len, E = shape.embed_dim;
        const struct axis grad_axes[] = {{"B", B}, {"L", L}, {"E", E}};
        status = load_checked(options.dir, "grad_out.npy", 1, WANT_FLOAT, &grad_out, 3,
                              grad_axes, err);
        const size_t counts[7] = {B * L * E, B * S * E, B * S * E, 3 * E * E, 3 * E, E * E, E};
        size_t total = 0;
        for (int i = 0; i < 7; i++)
            total += counts[i];
        if (status == MHA_EXIT_OK && (memory = calloc(total, sizeof *memory)) == NULL) {
            mha_cli_error(err, "backward: out of memory for the gradients (%zu floats)", total);
            status = MHA_EXIT_FAILURE;
        }
        if (status == MHA_EXIT_OK) {
            const int cross = is_loaded(&in.key);
            const int in_bias = is_loaded(&in.in_proj_bias), out_bias = is_loaded(&in.out_proj_bias);
            float *part[7] = {memory};
            for (int i = 1; i < 7; i++)
                part[i] = part[i - 1] + counts[i - 1];
            const mha_grads grads = {part[0], part[1], part[2], part[3], in_bias ? part[4] : NULL,
                                     part[5], out_bias ? part[6] : NULL};
            const mha_params params = {in.in_proj_weight.values, in.in_proj_bias.values,
                                       in.out_proj_weight.values, in.out_proj_bias.values};
            const mha_mask mask = {options.causal, in.attn_mask.flags, in.attn_mask.values,
                                   in.key_padding_mask.flags};
            mha_status computed = mha_backward_naive(&shape, &params, in.query.values, in.key.values,
                                                     in.value.values, &mask, grad_out.values, &grads);
            if (computed != MHA_OK) {
                mha_cli_error(err, "backward: %s", mha_status_message(computed));
                status = MHA_EXIT_FAILURE;
            } else {
                const size_t qs[3] = {B, L, E}, ks[3] = {B, S, E}, ws[2] = {3 * E, E}, bs[1] = {3 * E};
                const size_t os[2] = {E, E}, obs[1] = {E};
                struct output_file files[7];
                int n = 0;
                files[n++] = (struct output_file){"grad_query.npy", grads.grad_query, 3, qs};
                if (cross) {
                    files[n++] = (struct output_file){"grad_key.npy", grads.grad_key, 3, ks};
                    files[n++] = (struct output_file){"grad_value.npy", grads.grad_value, 3, ks};
                }
                files[n++] = (struct output_file){"grad_in_proj_weight.npy", grads.grad_in_proj_weight, 2, ws};
                if (in_bias)
                    files[n++] = (struct output_file){"grad_in_proj_bias.npy", grads.grad_in_proj_bias, 1, bs};
                files[n++] = (struct output_file){"grad_out_proj_weight.npy", grads.grad_out_proj_weight, 2, os};
                if (out_bias)
                    files[n++] = (struct output_file){"grad_out_proj_bias.npy", grads.grad_out_proj_bias, 1, obs};
                status = write_files(options.dir, n, files, err);
                if (status == MHA_EXIT_OK)
                    fprintf(out, "mha backward: wrote %d gradient files to %s\n", n, options.dir);
            }
        }
    }
    free(memory);
    mha_npy_free(&grad_out);
    free_forward_inputs(&in);
    return status;
}
struct train_command {
    size_t steps, every, batch, vocab, length, dim, heads, layers, seed;
    const char *out_dir, *history;
    train_options optimiser;
};

static void train_usage(FILE *out, const struct train_command *d)
{
    fprintf(out,
        "usage: mha train [--steps N] [--seed S] [--layers 1|2] [--every K] [--out DIR]\n"
        "                 [--history FILE] [--batch B] [--vocab V] [--length T]\n"
        "                 [--dim E] [--heads H] [--lr RATE]\n"
        "Trains an attention-only model on random sequences that repeat a segment, and\n"
        "prints every K steps: the loss, the accuracy on the repeated tokens, and each\n"
        "head's previous-token and induction scores (layer by layer, heads separated by\n"
        "commas, layers by '|').  Defaults: --steps %zu --seed %zu --layers %zu --every %zu\n"
        "--batch %zu --vocab %zu --length %zu --dim %zu --heads %zu --lr %g.  --out DIR\n"
        "saves the model as .npy files; --history FILE writes the progress as a table.\n",
        d->steps, d->seed, d->layers, d->every, d->batch, d->vocab, d->length, d->dim,
        d->heads, d->optimiser.learning_rate);
}
static int parse_train_options(int argc, char **argv, struct train_command *o, int *help,
                               FILE *err)
{
    const char *names[] = {"--steps", "--every", "--batch", "--vocab", "--length",
                           "--dim", "--heads", "--layers", "--seed"};
    size_t *fields[] = {&o->steps, &o->every, &o->batch, &o->vocab, &o->length,
                        &o->dim, &o->heads, &o->layers, &o->seed};
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        int matched = 0, r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *help = 1;
            return MHA_EXIT_OK;
        }
        if ((r = mha_option_value(argc, argv, &i, "--out", &o->out_dir, err)) ||
            (r = mha_option_value(argc, argv, &i, "--history", &o->history, err))) {
            if (r < 0) return MHA_EXIT_USAGE;
            continue;
        }
        if ((r = mha_option_value(argc, argv, &i, "--lr", &value, err)) != 0) {
            char *end = NULL;
            if (r < 0) return MHA_EXIT_USAGE;
            o->optimiser.learning_rate = strtod(value, &end);
            if (end == value || *end != '\0' || !(o->optimiser.learning_rate > 0) ||
                o->optimiser.learning_rate > 1) {
                mha_cli_error(err, "--lr: '%s' is not a learning rate in (0, 1]", value);
                return MHA_EXIT_USAGE;
            }
            continue;
        }
        for (size_t n = 0; n < sizeof names / sizeof names[0] && !matched; n++)
            if ((r = mha_option_value(argc, argv, &i, names[n], &value, err)) != 0) {
                if (r < 0 || mha_parse_size(names[n], value, fields[n], err) != 0)
                    return MHA_EXIT_USAGE;
                matched = 1;
            }
        if (!matched) {
            mha_cli_error(err, "train: unknown option '%s' (try 'mha train --help')", argv[i]);
            return MHA_EXIT_USAGE;
        }
    }
    return MHA_EXIT_OK;
}
static double seconds_since_start(double start)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec - start;
}
int mha_cmd_train(int argc, char **argv, FILE *out, FILE *err)
{
    struct train_command o = {1000, 100, 32, 64, 32, 32, 2, 2, 1, NULL, NULL,
                              {1e-2, 0.01, 0.9, 0.98, 1e-8, 100}};
    int help = 0, status = parse_train_options(argc, argv, &o, &help, err);
    if (status != MHA_EXIT_OK || help) {
        if (help)
            train_usage(out, &o);
        return status;
    }
    if (o.length < 6 || o.length > 4096) {
        mha_cli_error(err, "--length: %zu is out of range (6 to 4096)", o.length);
        return MHA_EXIT_USAGE;
    }
    if (o.heads > 16 || o.layers > LEARNING_MAX_LAYERS) {
        mha_cli_error(err, o.heads > 16 ? "--heads: at most 16" : "--layers: 1 or 2");
        return MHA_EXIT_USAGE;
    }
    induction_model model;
    learning_workspace ws, probe_ws;
    induction_batch batch, probe;
    memset(&ws, 0, sizeof ws); memset(&probe_ws, 0, sizeof probe_ws);
    memset(&batch, 0, sizeof batch); memset(&probe, 0, sizeof probe);
    FILE *history = NULL;
    mha_status made = induction_model_init(&model, o.vocab, o.length, o.dim, o.heads,
                                           o.layers, o.seed);
    if (made == MHA_OK)
        made = learning_workspace_init(&ws, &model, o.batch);
    if (made == MHA_OK)
        made = learning_workspace_init(&probe_ws, &model, 64);
    if (made == MHA_OK && (induction_batch_init(&batch, o.batch, o.length) != MHA_OK ||
                           induction_batch_init(&probe, 64, o.length) != MHA_OK))
        made = MHA_ERR_NOMEM;
    if (made != MHA_OK) {
        mha_cli_error(err, "train: %s", mha_status_message(made));
        status = made == MHA_ERR_NOMEM ? MHA_EXIT_FAILURE : MHA_EXIT_USAGE;
    } else if (o.history && (history = fopen(o.history, "w")) == NULL) {
        mha_cli_error(err, "%s: %s", o.history, strerror(errno));
        status = MHA_EXIT_FAILURE;
    } else {
        uint64_t data_state = o.seed * 2654435761u + 7, probe_state = o.seed * 2654435761u + 99;
        induction_batch_fill(&probe, o.vocab, &probe_state);
        if (history)
            fprintf(history, "step\tloss\taccuracy\tlayer\thead\tprevious\tinduction\n");
        const double started = seconds_since_start(0);
        for (size_t step = 1; step <= o.steps; step++) {
            induction_batch_fill(&batch, o.vocab, &data_state);
            const train_stats stats = induction_train_step(&model, &ws, &batch, &o.optimiser);
            if (step % o.every == 0 || step == o.steps) {
                head_scores scores;
                induction_forward(&model, &probe_ws, probe.tokens);
                const size_t TT = o.length * o.length;
                for (size_t l = 0; l < o.layers; l++)
                    head_scores_from_weights(probe_ws.weights + l * 64 * o.heads * TT, &probe, o.heads, l,
                                             &scores);
                fprintf(out, "step=%zu loss=%.3f acc=%.3f", step, stats.loss, stats.accuracy);
                for (int which = 0; which < 2; which++) {
                    fprintf(out, which ? " ind=" : " prev=");
                    for (size_t l = 0; l < o.layers; l++)
                        for (size_t h = 0; h < o.heads; h++)
                            fprintf(out, "%.2f%s", which ? scores.induction[l][h] : scores.previous[l][h],
                                    h + 1 < o.heads ? "," : l + 1 < o.layers ? "|" : "");
                }
                fprintf(out, " time=%.1fs\n", seconds_since_start(started));
                fflush(out);
                for (size_t l = 0; history && l < o.layers; l++)
                    for (size_t h = 0; h < o.heads; h++)
                        fprintf(history, "%zu\t%.4f\t%.4f\t%zu\t%zu\t%.4f\t%.4f\n", step, stats.loss,
                                stats.accuracy, l, h, scores.previous[l][h], scores.induction[l][h]);
            }
        }
        if (o.out_dir && status == MHA_EXIT_OK && (status = check_directory(o.out_dir, err)) == 0) {
            const model_tensors t = induction_model_tensors(&model);
            const size_t E = o.dim, ve[2] = {o.vocab, E}, te[2] = {o.length, E},
                         w3[2] = {3 * E, E}, b3[1] = {3 * E}, ww[2] = {E, E}, bb[1] = {E};
            char names[LEARNING_MAX_LAYERS][4][48];
            struct output_file files[3 + 4 * LEARNING_MAX_LAYERS];
            int n = 0;
            files[n++] = (struct output_file){"tok_emb.npy", t.tok_emb, 2, ve};
            files[n++] = (struct output_file){"pos_emb.npy", t.pos_emb, 2, te};
            files[n++] = (struct output_file){"unembed.npy", t.unembed, 2, ve};
            for (size_t l = 0; l < o.layers; l++) {
                const char *what[4] = {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"};
                float *data[4] = {t.in_w[l], t.in_b[l], t.out_w[l], t.out_b[l]};
                const size_t *shapes[4] = {w3, b3, ww, bb};
                for (int k = 0; k < 4; k++) {
                    snprintf(names[l][k], sizeof names[l][k], "layers.%zu.%s.npy", l, what[k]);
                    files[n++] = (struct output_file){names[l][k], data[k], k % 2 ? 1 : 2, shapes[k]};
                }
            }
            status = write_files(o.out_dir, n, files, err);
            if (status == MHA_EXIT_OK)
                fprintf(out, "mha train: wrote %d files to %s\n", n, o.out_dir);
        }
    }
    if (history && fclose(history) != 0 && status == MHA_EXIT_OK) {
        mha_cli_error(err, "%s: %s", o.history, strerror(errno));
        status = MHA_EXIT_FAILURE;
    }
    induction_batch_free(&batch); induction_batch_free(&probe);
    learning_workspace_free(&ws); learning_workspace_free(&probe_ws);
    induction_model_free(&model);
    return status;
}
