/* generated from chapters/15-language-model.nw, chapters/16-austen-model.nw, chapters/17-austen-heads.nw; edit the book, not this file */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bpe.h"
#include "bpe_files.h"
#include "cli.h"
#include "clock.h"
#include "layer_dir.h"
#include "layer_files.h"
#include "ngram.h"
#include "output.h"
#include "sha256.h"

static int hold_folder(const char *dir, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    if (mha_output_hold(dir, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
static void blame_failure(FILE *err, const char *command, const char *dir, const char *text,
                          mha_status failed)
{
    if (failed == MHA_ERR_RANGE)
        mha_cli_error(err, "lm %s: %s: the model's weights overflow float on %s (an infinite "
                      "or NaN result)", command, dir, text);
    else
        mha_cli_error(err, "lm %s: %s: %s", command, text, mha_status_message(failed));
}
static int read_text(const char *path, unsigned char **bytes, size_t *n, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    if (mha_read_whole_file(path, MHA_READ_TEXT_MAX, bytes, n, message, sizeof message) !=
        MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    if (*n == 0) {
        mha_cli_error(err, "%s: empty text", path);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
static int lm_tokenizer(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text_path = NULL, *dir = NULL;
    size_t vocab = 0;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text_path, 0, 0, 0, 0, NULL},
        {"--vocab", MHA_OPTION_SIZE, &vocab, BPE_BYTES, BPE_VOCAB_MAX, 0, 0, NULL},
        {"--out", MHA_OPTION_TEXT, &dir, 0, 0, 0, 0, NULL},
    };
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, sizeof options / sizeof options[0], NULL,
                                 &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fprintf(out, "usage: mha lm tokenizer --text FILE --vocab V --out DIR\n\n"
                    "Learns V - 256 byte-pair merges from FILE (V from %d to %d) and writes\n"
                    "DIR/%s and DIR/%s, both or neither (DIR is made if missing).\n",
                    BPE_BYTES, BPE_VOCAB_MAX, BPE_MERGES_FILE, BPE_VOCAB_FILE);
        return status;
    }
    if (text_path == NULL || vocab == 0 || dir == NULL) {
        mha_cli_error(err, "lm tokenizer: %s is required (try 'mha lm tokenizer --help')",
                      text_path == NULL ? "--text" : vocab == 0 ? "--vocab" : "--out");
        return MHA_EXIT_USAGE;
    }
    char message[MHA_PATH_SIZE + 256];
    if (mha_output_check_new_dir(dir, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    if (hold_folder(dir, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    unsigned char *text;
    size_t n;
    if (read_text(text_path, &text, &n, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    bpe tokenizer;
    const double started = mha_seconds();
    mha_status learned = bpe_learn(text, n, vocab, &tokenizer);
    const double seconds = mha_seconds() - started;
    free(text);
    if (learned != MHA_OK) {
        mha_cli_error(err, "lm tokenizer: %s: %s", text_path, mha_status_message(learned));
        return MHA_EXIT_FAILURE;
    }
    if (mha_output_make_dir(dir, message, sizeof message) != MHA_OK ||     /* the set's */
        mha_output_hold(dir, message, sizeof message) != MHA_OK ||
        bpe_files_write(dir, &tokenizer, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    } else
        fprintf(out, "mha lm tokenizer: %zu tokens (%zu merges) learned from %zu bytes in "
                "%.1f s; wrote %s/%s and %s\n", tokenizer.vocab, tokenizer.vocab - BPE_BYTES, n,
                seconds, dir, BPE_MERGES_FILE, BPE_VOCAB_FILE);
    bpe_free(&tokenizer);
    return status;
}
static int lm_encode(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL;
    const mha_option options[] = {{"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 1, "tokenizer directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm encode DIR --text TEXT\n\n"
                  "Encodes TEXT with the tokenizer in DIR (merges.txt, vocab.txt) and prints\n"
                  "each token's id and bytes, one a line, then the counts.\n", out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm encode: %s is required (try 'mha lm encode --help')",
                      text == NULL ? "--text" : "the tokenizer directory");
        return MHA_EXIT_USAGE;
    }
    char message[MHA_PATH_SIZE + 256];
    bpe tokenizer;
    if (bpe_files_read(line.operand_given, &tokenizer, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    const size_t n = strlen(text);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    size_t count = 0;
    if (ids == NULL || bpe_encode(&tokenizer, (const unsigned char *)text, n, ids, &count) != MHA_OK) {
        mha_cli_error(err, "lm encode: out of memory for %zu bytes", n);
        status = MHA_EXIT_FAILURE;
    }
    for (size_t i = 0; status == MHA_EXIT_OK && i < count; i++) {
        size_t length;
        const unsigned char *bytes = bpe_token(&tokenizer, ids[i], &length);
        fprintf(out, "%u\t", (unsigned)ids[i]);
        bpe_escape(out, bytes, length);
        fputc('\n', out);
    }
    if (status == MHA_EXIT_OK)
        fprintf(out, "tokens=%zu bytes=%zu\n", count, n);
    free(ids);
    bpe_free(&tokenizer);
    return status;
}
static int lm_decode(int argc, char **argv, FILE *out, FILE *err)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs("usage: mha lm decode DIR IDS...\n\n"
                  "Writes the bytes of the token ids, with the tokenizer in DIR, and nothing\n"
                  "else (no newline is added).\n", out);
            return MHA_EXIT_OK;
        }
    if (argc < 2 || argv[1][0] == '-') {
        mha_cli_error(err, "lm decode: %s (try 'mha lm decode --help')",
                      argc < 2 ? "the tokenizer directory is required" : "no options are known");
        return MHA_EXIT_USAGE;
    }
    const size_t count = (size_t)argc - 2;
    uint32_t *ids = malloc((count ? count : 1) * sizeof *ids);
    char message[MHA_PATH_SIZE + 256];
    if (ids == NULL) {
        mha_cli_error(err, "lm decode: out of memory");
        return MHA_EXIT_FAILURE;
    }
    for (size_t i = 0; i < count; i++) {
        size_t id;
        char name[48];
        snprintf(name, sizeof name, "lm decode: id %zu", i + 1);
        if (mha_option_size(name, argv[i + 2], 0, BPE_VOCAB_MAX - 1, &id, message,
                            sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            free(ids);
            return MHA_EXIT_USAGE;
        }
        ids[i] = (uint32_t)id;
    }
    bpe tokenizer;
    if (bpe_files_read(argv[1], &tokenizer, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        free(ids);
        return MHA_EXIT_FAILURE;
    }
    int status = MHA_EXIT_OK;
    size_t n = 0;
    unsigned char *text = NULL;
    for (size_t i = 0; i < count && status == MHA_EXIT_OK; i++)
        if (ids[i] >= tokenizer.vocab) {
            mha_cli_error(err, "lm decode: id %" PRIu32 " is not a token of %s (%zu tokens)",
                          ids[i], argv[1], tokenizer.vocab);
            status = MHA_EXIT_USAGE;
        }
    if (status == MHA_EXIT_OK && (bpe_decode(&tokenizer, ids, count, NULL, 0, &n) != MHA_OK ||
                                  (text = malloc(n ? n : 1)) == NULL ||
                                  bpe_decode(&tokenizer, ids, count, text, n, &n) != MHA_OK)) {
        mha_cli_error(err, "lm decode: out of memory");
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK)
        fwrite(text, 1, n, out);
    free(text);
    free(ids);
    bpe_free(&tokenizer);
    return status;
}
struct baselines {
    const char *train_path, *valid_path, *tokenizer_dir, *out_path;
    size_t vocab, max_order;
    unsigned char *train, *valid;
    size_t train_n, valid_n;
    char *table;                   /* the TSV, built in memory */
    size_t table_n;
};
static int write_table(FILE *file, void *context)
{
    const struct baselines *b = context;
    return fwrite(b->table, 1, b->table_n, file) == b->table_n ? 0 : -1;
}
static uint32_t *widen(const unsigned char *bytes, size_t n)
{
    uint32_t *symbols = malloc((n ? n : 1) * sizeof *symbols);
    for (size_t i = 0; symbols != NULL && i < n; i++)
        symbols[i] = bytes[i];
    return symbols;
}
static size_t holdout_cut(const unsigned char *text, size_t n)
{
    const size_t first = n / 10 * 9 + n % 10 * 9 / 10;
    for (size_t i = first; i + 1 < n; i++)
        if (text[i] == '\n')
            return i + 1;
    return first;
}
static mha_status byte_baseline(struct baselines *b, FILE *table, size_t *chosen, char *message,
                                size_t size)
{
    uint32_t *train = widen(b->train, b->train_n), *valid = widen(b->valid, b->valid_n);
    const size_t cut = holdout_cut(b->train, b->train_n);
    ngram_model model;
    memset(&model, 0, sizeof model);
    mha_status status = train && valid ? ngram_count(train, cut, 256, b->max_order, &model)
                                       : MHA_ERR_NOMEM;
    double best = INFINITY;
    for (size_t order = 1; status == MHA_OK && order <= b->max_order; order++) {
        double bits;
        status = ngram_bits(&model, order, train + cut, b->train_n - cut, &bits);
        if (status == MHA_OK)
            fprintf(table, "byte-kn\t%zu\t256\ttrain-holdout\t%zu\t%zu\t%.4f\n", order,
                    b->train_n - cut, b->train_n - cut, bits / (double)(b->train_n - cut));
        if (status == MHA_OK && bits < best)
            best = bits, *chosen = order;
    }
    if (status == MHA_OK) {
        ngram_free(&model);
        status = ngram_count(train, b->train_n, 256, *chosen, &model);
    }
    double bits = 0;
    if (status == MHA_OK)
        status = ngram_bits(&model, *chosen, valid, b->valid_n, &bits);
    if (status == MHA_OK)
        fprintf(table, "byte-kn\t%zu\t256\tvalid\t%zu\t%zu\t%.4f\n", *chosen, b->valid_n,
                b->valid_n, bits / (double)b->valid_n);
    ngram_free(&model);
    free(train);
    free(valid);
    if (status != MHA_OK)
        return mha_fail(status, message, size, "lm baselines: byte model: %s",
                        mha_status_message(status));
    return MHA_OK;
}
static mha_status token_baselines(struct baselines *b, FILE *table, char *message, size_t size)
{
    bpe tokenizer;
    mha_status status = b->tokenizer_dir
        ? bpe_files_read(b->tokenizer_dir, &tokenizer, message, size)
        : bpe_learn(b->train, b->train_n, b->vocab, &tokenizer);
    if (status != MHA_OK)
        return b->tokenizer_dir ? status
               : mha_fail(status, message, size, "lm baselines: tokenizer: %s",
                          mha_status_message(status));
    uint32_t *train = malloc(b->train_n * sizeof *train), *valid = malloc(b->valid_n * sizeof *valid);
    size_t train_count = 0, valid_count = 0;
    status = train && valid ? bpe_encode(&tokenizer, b->train, b->train_n, train, &train_count)
                            : MHA_ERR_NOMEM;
    if (status == MHA_OK)
        status = bpe_encode(&tokenizer, b->valid, b->valid_n, valid, &valid_count);
    ngram_model model;
    memset(&model, 0, sizeof model);
    if (status == MHA_OK)
        status = ngram_count(train, train_count, tokenizer.vocab, 3, &model);
    for (size_t order = 1; status == MHA_OK && order <= 3; order++) {
        double bits;
        status = ngram_bits(&model, order, valid, valid_count, &bits);
        if (status == MHA_OK)
            fprintf(table, "bpe-kn\t%zu\t%zu\tvalid\t%zu\t%zu\t%.4f\n", order, tokenizer.vocab,
                    valid_count, b->valid_n, bits / (double)b->valid_n);
    }
    ngram_free(&model);
    free(train);
    free(valid);
    bpe_free(&tokenizer);
    if (status != MHA_OK)
        return mha_fail(status, message, size, "lm baselines: token models: %s",
                        mha_status_message(status));
    return MHA_OK;
}
static void baselines_usage(FILE *out)
{
    fprintf(out, "usage: mha lm baselines --train FILE --valid FILE [--tokenizer DIR]\n"
            "                        [--vocab V] [--max-order N] [--out FILE]\n\n"
            "Bits per character (per byte of the UTF-8 text) on the --valid text of\n"
            "n-gram models counted on the --train text, with interpolated Kneser-Ney\n"
            "smoothing: a byte model whose order (1 to --max-order, default %d) is\n"
            "chosen on the last tenth of the training text, and unigram, bigram and\n"
            "trigram models of the byte-pair tokens of DIR (without --tokenizer, a\n"
            "tokenizer of --vocab tokens, default 2048, is learned from the training\n"
            "text).  Prints a tab-separated table, or writes it to --out FILE.\n",
            NGRAM_ORDER_MAX);
}
static int lm_baselines(int argc, char **argv, FILE *out, FILE *err)
{
    struct baselines b = {0};
    b.vocab = 2048, b.max_order = NGRAM_ORDER_MAX;
    const mha_option options[] = {
        {"--train", MHA_OPTION_TEXT, &b.train_path, 0, 0, 0, 0, NULL},
        {"--valid", MHA_OPTION_TEXT, &b.valid_path, 0, 0, 0, 0, NULL},
        {"--tokenizer", MHA_OPTION_TEXT, &b.tokenizer_dir, 0, 0, 0, 0, NULL},
        {"--vocab", MHA_OPTION_SIZE, &b.vocab, BPE_BYTES, BPE_VOCAB_MAX, 0, 0, NULL},
        {"--max-order", MHA_OPTION_SIZE, &b.max_order, 1, NGRAM_ORDER_MAX, 0, 0, NULL},
        {"--out", MHA_OPTION_TEXT, &b.out_path, 0, 0, 0, 0, NULL},
    };
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, sizeof options / sizeof options[0], NULL,
                                 &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            baselines_usage(out);
        return status;
    }
    if (b.train_path == NULL || b.valid_path == NULL) {
        mha_cli_error(err, "lm baselines: %s is required (try 'mha lm baselines --help')",
                      b.train_path == NULL ? "--train" : "--valid");
        return MHA_EXIT_USAGE;
    }
    char message[MHA_PATH_SIZE + 256];
    if (b.out_path && mha_output_check(b.out_path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    status = read_text(b.train_path, &b.train, &b.train_n, err);
    if (status == MHA_EXIT_OK)
        status = read_text(b.valid_path, &b.valid, &b.valid_n, err);
    FILE *table = status == MHA_EXIT_OK ? open_memstream(&b.table, &b.table_n) : NULL;
    if (status == MHA_EXIT_OK && table == NULL) {
        mha_cli_error(err, "lm baselines: out of memory");
        status = MHA_EXIT_FAILURE;
    }
    double seconds[2] = {0, 0};
    size_t chosen = 1;
    if (status == MHA_EXIT_OK) {
        char digest[65];
        mha_sha256_hex(b.train, b.train_n, digest);
        fprintf(table, "# train\t%s\tbytes=%zu\tsha256=%s\n", b.train_path, b.train_n, digest);
        mha_sha256_hex(b.valid, b.valid_n, digest);
        fprintf(table, "# valid\t%s\tbytes=%zu\tsha256=%s\n", b.valid_path, b.valid_n, digest);
        fprintf(table, "model\torder\tvocab\tscored_on\tsymbols\tbytes\tbits_per_char\n");
        double started = mha_seconds();
        mha_status made = byte_baseline(&b, table, &chosen, message, sizeof message);
        seconds[0] = mha_seconds() - started, started = mha_seconds();
        if (made == MHA_OK)
            made = token_baselines(&b, table, message, sizeof message);
        seconds[1] = mha_seconds() - started;
        if (made != MHA_OK) {
            mha_cli_error(err, "%s", message);
            status = MHA_EXIT_FAILURE;
        }
    }
    if (table != NULL && fclose(table) != 0 && status == MHA_EXIT_OK) {
        mha_cli_error(err, "lm baselines: out of memory");
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK && b.out_path == NULL)
        fwrite(b.table, 1, b.table_n, out);
    else if (status == MHA_EXIT_OK) {
        if (mha_output_file(b.out_path, write_table, &b, message, sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            status = MHA_EXIT_FAILURE;
        } else
            fprintf(out, "mha lm baselines: byte model (order %zu chosen of 1-%zu) %.1f s, "
                    "token models %.1f s; wrote %s\n", chosen, b.max_order, seconds[0],
                    seconds[1], b.out_path);
    }
    free(b.table);
    free(b.train);
    free(b.valid);
    return status;
}
#include "head_roles.h"
#include "lm.h"
#include "lm_files.h"
#include "random.h"
#include "sha256.h"

static mha_status encode_text(const bpe *tokenizer, const unsigned char *text, size_t n,
                              int **ids, size_t *count)
{
    uint32_t *raw = malloc((n ? n : 1) * sizeof *raw);
    *ids = malloc((n ? n : 1) * sizeof **ids);
    mha_status status = raw && *ids ? bpe_encode(tokenizer, text, n, raw, count) : MHA_ERR_NOMEM;
    for (size_t i = 0; status == MHA_OK && i < *count; i++)
        (*ids)[i] = (int)raw[i];
    free(raw);
    if (status != MHA_OK) {
        free(*ids);
        *ids = NULL;
    }
    return status;
}
/* A text file's tokens; refuses a file that is missing, unreadable or too
   short to give min tokens. */
static int read_tokens(const char *path, const bpe *tokenizer, size_t min, int **ids,
                       size_t *count, size_t *bytes, char sha[LM_SHA_HEX], FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    unsigned char *text;
    if (mha_read_whole_file(path, MHA_READ_TEXT_MAX, &text, bytes, message, sizeof message) !=
        MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    if (sha)
        mha_sha256_hex(text, *bytes, sha);
    const mha_status status = encode_text(tokenizer, text, *bytes, ids, count);
    free(text);
    if (status != MHA_OK) {
        mha_cli_error(err, "%s: %s", path, mha_status_message(status));
        return MHA_EXIT_FAILURE;
    }
    if (*count < min) {
        mha_cli_error(err, "%s: %zu tokens (%zu bytes); at least %zu are needed", path, *count,
                      *bytes, min);
        free(*ids);
        *ids = NULL;
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
struct lm_train_options {
    const char *text, *valid, *out, *tokenizer, *resume, *state;
    size_t vocab, layers, heads, dim, context, steps, batch, seed, eval_every, warmup, stop_at;
    size_t repeat_until;
    double lr, repeat;
};
static void lm_train_usage(FILE *out, const struct lm_train_options *d)
{
    fprintf(out,
        "usage: mha lm train --text FILE --out DIR [--valid FILE] [--tokenizer DIR | --vocab V]\n"
        "                    [--layers N] [--heads H] [--dim E] [--context T] [--steps S]\n"
        "                    [--batch B] [--lr X] [--warmup W] [--seed S] [--eval-every K]\n"
        "                    [--repeat P] [--repeat-until K] [--state DIR] [--stop-at K]\n"
        "                    [--resume STATE]\n\n"
        "Trains a small GPT (token and position embeddings, N pre-norm blocks of H heads,\n"
        "width E, MLP 4E, a final norm, the tied unembedding) on the tokens of FILE, with\n"
        "AdamW (weight decay 0.1 on the blocks' matrices) at peak rate X after W warm-up\n"
        "steps, then a cosine down to X/10 at step S.  Batches are B random windows of T+1\n"
        "tokens; a share P of them (default 0) has a passage of its own tokens written\n"
        "twice, in every step or, with --repeat-until K, in steps 1 to K only (then plain\n"
        "text: a curriculum).  The tokenizer is read from DIR (merges.txt, vocab.txt) or\n"
        "learnt from FILE with V tokens.  Every K steps: a progress line, the held-out\n"
        "loss on --valid, and the model written to --out (model.txt, one .npy per tensor,\n"
        "the tokenizer) and the state to --state (default: the --out name followed by\n"
        ".state): parameters, AdamW's moments, step, random state, history.tsv.\n"
        "--stop-at K stops after step K; --resume STATE carries on that run, bit for bit\n"
        "as if it had not stopped, with the options it was started with (any other than\n"
        "--text, --valid, --out, --state and --stop-at is refused).\n"
        "Defaults: --vocab %zu --layers %zu --heads %zu --dim %zu --context %zu --steps %zu\n"
        "--batch %zu --lr %g --warmup S/20 --seed %zu --eval-every %zu --repeat 0.\n",
        d->vocab, d->layers, d->heads, d->dim, d->context, d->steps, d->batch, d->lr, d->seed,
        d->eval_every);
}
struct lm_data {
    bpe tokenizer;
    int have_tokenizer;
    int *train, *valid;
    size_t train_n, valid_n;
    char train_sha[LM_SHA_HEX], valid_sha[LM_SHA_HEX];
};
static void lm_data_free(struct lm_data *d)
{
    if (d->have_tokenizer)
        bpe_free(&d->tokenizer);
    free(d->train);
    free(d->valid);
}
static int lm_data_read(const struct lm_train_options *o, size_t context, const bpe *resumed,
                        struct lm_data *d, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    size_t bytes;
    memset(d, 0, sizeof *d);
    strcpy(d->valid_sha, "-");
    if (o->resume)
        d->tokenizer = *resumed;                   /* the state's, now the data's */
    else if (o->tokenizer) {
        if (bpe_files_read(o->tokenizer, &d->tokenizer, message, sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            return MHA_EXIT_FAILURE;
        }
    } else {
        unsigned char *text;
        if (mha_read_whole_file(o->text, MHA_READ_TEXT_MAX, &text, &bytes, message,
                                sizeof message) != MHA_OK) {
            mha_cli_error(err, "%s", message);
            return MHA_EXIT_FAILURE;
        }
        const mha_status learned = bpe_learn(text, bytes, o->vocab, &d->tokenizer);
        free(text);
        if (learned != MHA_OK) {
            mha_cli_error(err, "%s: learning a tokenizer of %zu tokens: %s", o->text, o->vocab,
                          mha_status_message(learned));
            return MHA_EXIT_FAILURE;
        }
    }
    d->have_tokenizer = 1;
    int status = read_tokens(o->text, &d->tokenizer, context + 2, &d->train, &d->train_n, &bytes,
                             d->train_sha, err);
    if (status == MHA_EXIT_OK && o->valid)
        status = read_tokens(o->valid, &d->tokenizer, context + 1, &d->valid, &d->valid_n,
                             &bytes, d->valid_sha, err);
    return status;
}
static mha_status held_out_loss(const lm_model *m, const lm_run *run, const struct lm_data *d,
                                double *loss)
{
    const size_t T = run->config.context, windows = (d->valid_n - 1) / T;
    const size_t B = windows < run->batch ? windows : run->batch;
    const size_t batches = windows / B < 8 ? windows / B : 8;
    lm_workspace ws;
    mha_status status = lm_workspace_init(&ws, m, B, T, 0);
    int *x = malloc(B * T * sizeof *x), *y = malloc(B * T * sizeof *y);
    double sum = 0;
    if (status == MHA_OK && (x == NULL || y == NULL))
        status = MHA_ERR_NOMEM;
    for (size_t k = 0; status == MHA_OK && k < batches; k++) {
        for (size_t b = 0; b < B; b++) {
            memcpy(x + b * T, d->valid + (k * B + b) * T, T * sizeof *x);
            memcpy(y + b * T, d->valid + (k * B + b) * T + 1, T * sizeof *y);
        }
        double l;
        status = lm_loss(m, &ws, x, y, &l);
        sum += l;
    }
    *loss = sum / (double)batches;
    free(x);
    free(y);
    lm_workspace_free(&ws);
    return status;
}
static int lm_save(const struct lm_train_options *o, const lm_run *run, const lm_model *m,
                   const lm_adamw *opt, const struct lm_data *d, const lm_history *history,
                   FILE *err)
{
    char message[MHA_PATH_SIZE + 256], path[MHA_PATH_SIZE];
    const size_t n = lm_model_file_count(m);
    char (*names)[LM_NAME_MAX + 8] = malloc(n * sizeof *names);
    const char **list = malloc(n * sizeof *list);
    mha_status status = names && list ? MHA_OK
                      : mha_fail(MHA_ERR_NOMEM, message, sizeof message, "%s: out of memory", o->out);
    for (size_t i = 0; status == MHA_OK && i < n; i++) {
        lm_model_file_name(m, i, names[i], sizeof names[i]);
        list[i] = names[i];
    }
    if (status == MHA_OK)
        status = mha_output_make_dir(o->out, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_make_dir(o->state, message, sizeof message);
    if (status == MHA_OK)                          /* both held once they exist */
        status = mha_output_hold(o->out, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_hold(o->state, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_begin(o->out, (int)n, list, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_own(lm_model_owned, message, sizeof message);
    for (size_t i = 0; status == MHA_OK && i < LM_STATE_FILES; i++) {
        const char *name = lm_state_names[i];
        status = mha_join_path(path, sizeof path, o->state, name)
               ? mha_output_add(path, message, sizeof message)
               : mha_fail(MHA_ERR_ARG, message, sizeof message, "%s: name too long", o->state);
    }
    const lm_provenance p = {run->step, "", ""};
    lm_provenance q = p;
    memcpy(q.train_sha256, d->train_sha, LM_SHA_HEX);
    memcpy(q.valid_sha256, d->valid_sha, LM_SHA_HEX);
    if (status == MHA_OK)
        status = lm_model_put(o->out, m, &d->tokenizer, &q, message, sizeof message);
    if (status == MHA_OK)
        status = lm_state_put(o->state, run, m, opt, &d->tokenizer, history, message,
                              sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    free(names);
    free(list);
    if (status != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
/* Where a folder is, or will be: its own device and inode, or, missing, its
   parent's and its name. */
struct lm_place { dev_t dev; ino_t ino; int exists; const char *name; };
static int lm_place_of(const char *dir, struct lm_place *p)
{
    char parent[MHA_PATH_SIZE];
    const char *slash = strrchr(dir, '/');
    struct stat st;
    p->name = slash != NULL ? slash + 1 : dir;
    p->exists = stat(dir, &st) == 0;
    if (!p->exists) {
        if (*p->name == '\0' || strlen(dir) >= sizeof parent)
            return 0;
        snprintf(parent, sizeof parent, "%.*s", slash == NULL || slash == dir ? 1
                 : (int)(slash - dir), slash == NULL ? "." : dir);
        if (stat(parent, &st) != 0)
            return 0;
    }
    p->dev = st.st_dev, p->ino = st.st_ino;
    return 1;
}
static int lm_same_place(const char *x, const char *y)
{
    struct lm_place a, b;
    return strcmp(x, y) == 0 ||
           (lm_place_of(x, &a) && lm_place_of(y, &b) && a.dev == b.dev && a.ino == b.ino &&
            a.exists == b.exists && (a.exists || strcmp(a.name, b.name) == 0));
}
static int lm_train_outputs_check(const struct lm_train_options *o, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    if (lm_same_place(o->out, o->state)) {
        mha_cli_error(err, "--state: %s is the --out folder; the state needs its own",
                      o->state);
        return MHA_EXIT_USAGE;
    }
    if (mha_output_check_new_dir(o->out, message, sizeof message) != MHA_OK ||
        mha_output_check_new_dir(o->state, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
static int lm_train_parse(int argc, char **argv, struct lm_train_options *o, int *help, FILE *err)
{
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &o->text, 0, 0, 0, 0, NULL},
        {"--valid", MHA_OPTION_TEXT, &o->valid, 0, 0, 0, 0, NULL},
        {"--out", MHA_OPTION_TEXT, &o->out, 0, 0, 0, 0, NULL},
        {"--tokenizer", MHA_OPTION_TEXT, &o->tokenizer, 0, 0, 0, 0, NULL},
        {"--resume", MHA_OPTION_TEXT, &o->resume, 0, 0, 0, 0, NULL},
        {"--state", MHA_OPTION_TEXT, &o->state, 0, 0, 0, 0, NULL},
        {"--vocab", MHA_OPTION_SIZE, &o->vocab, BPE_BYTES, BPE_VOCAB_MAX, 0, 0, NULL},
        {"--layers", MHA_OPTION_SIZE, &o->layers, 1, LM_MAX_LAYERS, 0, 0, NULL},
        {"--heads", MHA_OPTION_SIZE, &o->heads, 1, 256, 0, 0, NULL},
        {"--dim", MHA_OPTION_SIZE, &o->dim, 1, 8192, 0, 0, NULL},
        {"--context", MHA_OPTION_SIZE, &o->context, 2, 8192, 0, 0, NULL},
        {"--steps", MHA_OPTION_SIZE, &o->steps, 1, SIZE_MAX / 2, 0, 0, NULL},
        {"--batch", MHA_OPTION_SIZE, &o->batch, 1, LM_BATCH_MAX, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &o->seed, 1, SIZE_MAX, 0, 0, NULL},
        {"--eval-every", MHA_OPTION_SIZE, &o->eval_every, 1, SIZE_MAX, 0, 0, NULL},
        {"--warmup", MHA_OPTION_SIZE, &o->warmup, 0, SIZE_MAX / 2, 0, 0, NULL},
        {"--stop-at", MHA_OPTION_SIZE, &o->stop_at, 1, SIZE_MAX / 2, 0, 0, NULL},
        {"--repeat-until", MHA_OPTION_SIZE, &o->repeat_until, 1, SIZE_MAX / 2, 0, 0, NULL},
        {"--lr", MHA_OPTION_DOUBLE, &o->lr, 0, 0, 1e-12, 1, "a learning rate in (0, 1]"},
        {"--repeat", MHA_OPTION_DOUBLE, &o->repeat, 0, 0, 0, 1, "a share from 0 to 1"},
    };
    mha_command_line line;
    const int status = mha_cli_options(argc, argv, options, sizeof options / sizeof options[0],
                                       NULL, &line, err);
    *help = line.help;
    return status;
}
static int lm_train_check(const struct lm_train_options *o, FILE *err)
{
    if (o->text == NULL || o->out == NULL) {
        mha_cli_error(err, "lm train: %s is required (try 'mha lm train --help')",
                      o->text == NULL ? "--text" : "--out");
        return MHA_EXIT_USAGE;
    }
    if (o->dim % o->heads != 0) {
        mha_cli_error(err, "lm train: --heads %zu does not divide --dim %zu", o->heads, o->dim);
        return MHA_EXIT_USAGE;
    }
    if (o->warmup >= o->steps) {
        mha_cli_error(err, "lm train: --warmup %zu is not below --steps %zu", o->warmup,
                      o->steps);
        return MHA_EXIT_USAGE;
    }
    if (o->repeat_until > o->steps) {
        mha_cli_error(err, "lm train: --repeat-until %zu is past --steps %zu", o->repeat_until,
                      o->steps);
        return MHA_EXIT_USAGE;
    }
    return MHA_EXIT_OK;
}
static int lm_resume_check(int argc, char **argv, const struct lm_train_options *o, FILE *err)
{
    static const char *const fixed[] = {"--tokenizer", "--vocab", "--layers", "--heads", "--dim",
                                        "--context", "--steps", "--batch", "--lr", "--warmup",
                                        "--seed", "--eval-every", "--repeat",
                                        "--repeat-until"};
    for (int i = 1; o->resume != NULL && i < argc; i++)
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
            const size_t n = strlen(fixed[k]);
            if (strncmp(argv[i], fixed[k], n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
                mha_cli_error(err, "%s: a resumed run keeps the options it was started with "
                              "(%s/state.txt); with --resume give only --text, --valid, --out, "
                              "--state and --stop-at", fixed[k], o->resume);
                return MHA_EXIT_USAGE;
            }
        }
    return MHA_EXIT_OK;
}
enum { LM_HISTORY_WINDOWS = 32 };
static mha_status heads_at(const lm_model *m, const struct lm_data *d,
                           const unsigned char *classes, size_t step, size_t tokens, double valid,
                           FILE *h)
{
    const size_t N = m->config.layers, H = m->config.heads, T = m->config.context;
    lm_head_scores *s = malloc(N * H * sizeof *s);
    double early = NAN, late = NAN;
    mha_status status = s ? lm_heads_measure(m, d->valid, d->valid_n, classes,
                                             LM_HISTORY_WINDOWS, 1, s)
                          : MHA_ERR_NOMEM;
    if (status == MHA_OK && T >= 8)
        status = lm_in_context_score(m, d->valid, d->valid_n, LM_HISTORY_WINDOWS, &early, &late);
    if (status == MHA_OK && ftell(h) == 0)
        fputs("step\ttokens\tvalid_loss\tearly_loss\tlate_loss\tlayer\thead\tprev_token\t"
              "induction\tsame_token\tfirst_token\tpunctuation\tsentence_start\t"
              "mean_distance\tentropy_bits\tprefix_matching\trole\n", h);
    for (size_t k = 0; status == MHA_OK && k < N * H; k++)
        fprintf(h, "%zu\t%zu\t%.6f\t%.6f\t%.6f\t%zu\t%zu\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t"
                "%.4f\t%.3f\t%.4f\t%.4f\t%s\n", step, tokens, valid, early, late, k / H, k % H,
                s[k].prev_token, s[k].induction, s[k].same_token, s[k].first_token,
                s[k].punctuation, s[k].sentence_start, s[k].mean_distance, s[k].entropy_bits,
                s[k].prefix_matching, lm_head_role(&s[k]));
    free(s);
    return status;
}
static int lm_train_loop(const struct lm_train_options *o, lm_run *run, lm_model *m,
                         lm_adamw *opt, const struct lm_data *d, const lm_history *earlier,
                         lm_history *history, FILE *out, FILE *err)
{
    const size_t B = run->batch, T = run->config.context;
    const size_t stop = o->stop_at && o->stop_at < run->steps ? o->stop_at : run->steps;
    lm_workspace ws;
    mha_status failed = lm_workspace_init(&ws, m, B, T, 1);
    int *x = malloc(B * T * sizeof *x), *y = malloc(B * T * sizeof *y);
    unsigned char *classes = malloc(d->tokenizer.vocab);
    FILE *h = open_memstream(&history->steps, &history->steps_length);
    FILE *hh = open_memstream(&history->heads, &history->heads_length);
    int status = failed == MHA_OK && x && y && classes && h && hh ? MHA_EXIT_OK
                                                                   : MHA_EXIT_FAILURE;
    if (status != MHA_EXIT_OK)
        mha_cli_error(err, "lm train: %s", failed != MHA_OK ? mha_status_message(failed)
                                                             : "out of memory");
    if (h && earlier->steps_length)
        fwrite(earlier->steps, 1, earlier->steps_length, h);
    if (hh && earlier->heads_length)
        fwrite(earlier->heads, 1, earlier->heads_length, hh);
    if (classes)
        lm_token_classes(&d->tokenizer, classes);
    const double started = mha_seconds();
    const size_t first = run->step;
    mha_cli_governor governor;
    mha_cli_governor_init(&governor);
    while (status == MHA_EXIT_OK && run->step < stop) {
        const size_t step = run->step + 1;
        const double rate = lm_learning_rate(step, run->warmup, run->steps, run->learning_rate);
        double loss, valid = NAN;
        const double step_started = mha_cli_governor_before(&governor);
        const int repeats = run->repeat_until == 0 || step <= run->repeat_until;
        failed = lm_batch(d->train, d->train_n, B, T, repeats ? run->repeat : 0,
                          &run->data_state, x, y);
        if (failed == MHA_OK)
            failed = lm_loss(m, &ws, x, y, &loss);
        if (failed == MHA_OK) {
            const double norm = lm_gradient_norm(ws.grads, m->count);
            lm_adamw_step(opt, m, ws.grads, lm_clip_scale(norm, 1.0), rate);
            run->step = step;
        }
        mha_cli_governor_after(&governor, mha_seconds() - step_started);
        const int report = step % run->eval_every == 0 || step == run->steps;
        if (failed == MHA_OK && report && d->valid)
            failed = held_out_loss(m, run, d, &valid);
        if (failed == MHA_OK && report && d->valid && d->valid_n > T)
            failed = heads_at(m, d, classes, step, step * B * T, valid, hh);
        if (failed != MHA_OK) {
            mha_cli_error(err, "lm train: step %zu: %s", step, mha_status_message(failed));
            status = MHA_EXIT_FAILURE;
            break;
        }
        if (step == 1)
            fprintf(h, "step\tlearning_rate\tloss\tvalid_loss\n");
        fprintf(h, "%zu\t%.6g\t%.6f\t", step, rate, loss);
        fprintf(h, isnan(valid) ? "-\n" : "%.6f\n", valid);
        const double seconds = mha_seconds() - started, done = (double)(step - first);
        if (report || step % 10 == 0) {
            fprintf(out, "step=%zu/%zu loss=%.4f", step, run->steps, loss);
            if (!isnan(valid))
                fprintf(out, " valid=%.4f", valid);
            fprintf(out, " tokens/s=%.0f left=%.0fs\n", done * (double)(B * T) / seconds,
                    seconds / done * (double)(stop - step));
            fflush(out);
        }
        if (report || step == stop) {
            fflush(h);
            fflush(hh);
            status = lm_save(o, run, m, opt, d, history, err);
        }
    }
    mha_cli_governor_end(&governor);
    if (h)
        fclose(h);
    if (hh)
        fclose(hh);
    free(classes);
    free(x);
    free(y);
    lm_workspace_free(&ws);
    return status;
}
static int lm_train(int argc, char **argv, FILE *out, FILE *err)
{
    struct lm_train_options o = {NULL, NULL, NULL, NULL, NULL, NULL, 2048, 4, 8, 256, 128, 2000,
                                 16, 1, 100, SIZE_MAX, 0, 0, 3e-3, 0.0};
    int help = 0, status = lm_train_parse(argc, argv, &o, &help, err);
    if (status != MHA_EXIT_OK || help) {
        if (help)
            lm_train_usage(out, &o);
        return status;
    }
    if (o.warmup == SIZE_MAX)
        o.warmup = o.steps / 20;
    if ((status = lm_train_check(&o, err)) != MHA_EXIT_OK ||
        (status = lm_resume_check(argc, argv, &o, err)) != MHA_EXIT_OK)
        return status;
    char state[MHA_PATH_SIZE], message[MHA_PATH_SIZE + 256];
    if (o.state == NULL) {
        if (snprintf(state, sizeof state, "%s.state", o.out) >= (int)sizeof state) {
            mha_cli_error(err, "--out: name too long");
            return MHA_EXIT_USAGE;
        }
        o.state = state;
    }
    if ((status = lm_train_outputs_check(&o, err)) != MHA_EXIT_OK ||
        (status = hold_folder(o.out, err)) != MHA_EXIT_OK ||
        (status = hold_folder(o.state, err)) != MHA_EXIT_OK)
        return status;
    lm_run run = {{0, o.context, o.dim, o.heads, o.layers, 4 * o.dim}, o.steps, o.warmup,
                  o.batch, o.eval_every, 0, o.lr, o.repeat, o.seed, 0, "-", "-",
                  o.repeat_until};
    lm_model m = {0};
    lm_adamw opt = {0};
    lm_history history = {0}, earlier = {0};
    struct lm_data d;
    bpe resumed;
    if (o.resume && lm_state_read(o.resume, &run, &m, &opt, &resumed, &earlier, message,
                                  sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    status = lm_data_read(&o, run.config.context, &resumed, &d, err);
    if (status == MHA_EXIT_OK && o.resume &&
        (strcmp(d.train_sha, run.train_sha256) != 0 || strcmp(d.valid_sha, run.valid_sha256))) {
        mha_cli_error(err, "%s: not the text%s the run in %s was trained on", strcmp(d.train_sha,
                      run.train_sha256) ? o.text : o.valid ? o.valid : "--valid",
                      strcmp(d.train_sha, run.train_sha256) ? "" : " held out", o.resume);
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK && !o.resume) {
        run.config.vocab = d.tokenizer.vocab;
        memcpy(run.train_sha256, d.train_sha, LM_SHA_HEX);
        memcpy(run.valid_sha256, d.valid_sha, LM_SHA_HEX);
        run.data_state = mha_random_seeded(o.seed ^ 0x5DEECE66Dull);
        const mha_status made = lm_model_init(&m, &run.config, o.seed);
        if (made != MHA_OK || lm_adamw_init(&opt, &m) != MHA_OK) {
            mha_cli_error(err, "lm train: %s", mha_status_message(made != MHA_OK ? made
                                                                            : MHA_ERR_NOMEM));
            status = made == MHA_ERR_NOMEM ? MHA_EXIT_FAILURE : MHA_EXIT_USAGE;
        }
    }
    if (status == MHA_EXIT_OK) {
        fprintf(out, "mha lm train: %zu parameters, %zu training tokens%s, vocabulary %zu\n",
                m.count, d.train_n, d.valid ? " and held-out ones" : "", run.config.vocab);
        status = lm_train_loop(&o, &run, &m, &opt, &d, &earlier, &history, out, err);
    }
    free(earlier.steps), free(earlier.heads);
    free(history.steps), free(history.heads);
    lm_data_free(&d);
    lm_adamw_free(&opt);
    lm_model_free(&m);
    return status;
}
static mha_status sliding_loss(const lm_model *m, const int *ids, size_t n, size_t T,
                               double *total, size_t *scored)
{
    enum { WINDOWS = 16 };                         /* windows of T run together */
    const size_t S = T / 2 ? T / 2 : 1, V = m->config.vocab;
    lm_workspace ws;
    mha_status status = lm_workspace_init(&ws, m, WINDOWS, T, 0);
    int *x = malloc(WINDOWS * T * sizeof *x);
    size_t start = 0, done = 0;                    /* targets 1..done are scored */
    if (status == MHA_OK && x == NULL)
        status = MHA_ERR_NOMEM;
    *total = 0;
    while (status == MHA_OK && done < n - 1) {
        /* a batch of full windows start, start + S, ...; or the last, shorter one */
        size_t B = 0, L = n - 1 - start < T ? n - 1 - start : T;
        while (B < WINDOWS && start + B * S + T <= n - 1 && L == T)
            memcpy(x + B * T, ids + start + B * S, T * sizeof *x), B++;
        if (B == 0)
            memcpy(x, ids + start, L * sizeof *x), B = 1;
        status = lm_forward(m, &ws, x, B, L);
        for (size_t b = 0; status == MHA_OK && b < B; b++, start += S) {
            for (size_t i = 0; i < L; i++)
                if (start + 1 + i > done)
                    *total += lm_row_loss(ws.logits + (b * L + i) * V, V,
                                          ids[start + 1 + i]);
            done = start + L;
        }
    }
    *scored = done;
    free(x);
    lm_workspace_free(&ws);
    return status == MHA_OK && !isfinite(*total) ? MHA_ERR_RANGE : status;
}
/* The model folder dir read for a command that only uses it; one mha: line
   naming the file at fault when it cannot be. */
static int read_model(const char *dir, lm_model *m, bpe *tokenizer, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    lm_provenance p;
    if (lm_model_read(dir, m, tokenizer, &p, message, sizeof message) == MHA_OK)
        return MHA_EXIT_OK;
    mha_cli_error(err, "%s", message);
    return MHA_EXIT_FAILURE;
}

/* The heads that spec ("L:H[,L:H...]") names removed from m; one mha: line
   naming --mask if spec is malformed or names a head m does not have. */
static int remove_heads(lm_model *m, const char *spec, FILE *err)
{
    const char *s = spec;
    for (;;) {
        unsigned long long at[2] = {0, 0};
        char *end = NULL;
        int ok = 1;
        for (int part = 0; ok && part < 2; part++) {
            const char *from = part == 0 ? s : end + 1;
            errno = 0;
            ok = *from >= '0' && *from <= '9';
            at[part] = ok ? strtoull(from, &end, 10) : 0;
            ok = ok && errno == 0 && (part == 1 || *end == ':');
        }
        if (!ok || (*end != ',' && *end != '\0')) {
            mha_cli_error(err, "--mask: '%s' is not a list of block:head pairs", spec);
            return MHA_EXIT_USAGE;
        }
        if (at[0] >= m->config.layers || at[1] >= m->config.heads) {
            mha_cli_error(err, "--mask: head %llu of block %llu: the model has %zu blocks of %zu "
                          "heads", at[1], at[0], m->config.layers, m->config.heads);
            return MHA_EXIT_USAGE;
        }
        if (lm_head_keep(m, (size_t)at[0], (size_t)at[1], 0) != MHA_OK)
            return MHA_EXIT_FAILURE;
        if (*end == '\0')
            return MHA_EXIT_OK;
        s = end + 1;
    }
}
static int lm_eval(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL, *mask = NULL;
    size_t context = 0;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--context", MHA_OPTION_SIZE, &context, 2, SIZE_MAX, 0, 0, NULL},
        {"--mask", MHA_OPTION_TEXT, &mask, 0, 0, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 3, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm eval DIR --text FILE [--context T] [--mask L:H[,L:H...]]\n\n"
                  "Scores FILE with the model in DIR and prints one line:\n"
                  "tokens=N bytes=N loss=L bits_per_char=X context=T stride=S\n"
                  "(L in nats per token; X the total bits over the bytes of FILE).  Windows of\n"
                  "T tokens (the model's context, or less) advance by S = T/2; each token after\n"
                  "the first window is scored with at least T/2 tokens before it.  --mask\n"
                  "removes head H of block L for each pair (the line then ends removed=N).\n",
                  out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm eval: %s is required (try 'mha lm eval --help')",
                      text == NULL ? "--text" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (read_model(line.operand_given, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    const size_t T = context ? context : m.config.context;
    int *ids = NULL;
    size_t n = 0, bytes = 0, scored = 0;
    double total = 0;
    if (T > m.config.context) {
        mha_cli_error(err, "--context: %zu is beyond the model's context of %zu tokens", T,
                      m.config.context);
        status = MHA_EXIT_USAGE;
    } else if (mask != NULL)
        status = remove_heads(&m, mask, err);
    if (status == MHA_EXIT_OK)
        status = read_tokens(text, &tokenizer, 2, &ids, &n, &bytes, NULL, err);
    if (status == MHA_EXIT_OK) {
        const mha_status failed = sliding_loss(&m, ids, n, T, &total, &scored);
        if (failed != MHA_OK) {
            blame_failure(err, "eval", line.operand_given, text, failed);
            status = MHA_EXIT_FAILURE;
        } else {
            fprintf(out, "tokens=%zu bytes=%zu loss=%.6f bits_per_char=%.6f context=%zu "
                    "stride=%zu", n, bytes, total / (double)scored,
                    total / log(2.0) / (double)bytes, T, T / 2 ? T / 2 : 1);
            if (mask != NULL)
                fprintf(out, " removed=%zu", lm_heads_removed(&m));
            fputc('\n', out);
        }
    }
    free(ids);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
static mha_status feed(lm_decoder *dec, const int *ids, size_t n)
{
    mha_status status = MHA_OK;
    for (size_t i = 0; status == MHA_OK && i < n; i++)
        status = lm_decoder_step(dec, ids[i]);
    return status;
}
static int lm_generate(int argc, char **argv, FILE *out, FILE *err)
{
    const char *prompt = NULL;
    size_t tokens = 200, top_k = 40, seed = 1;
    double temperature = 0.8;
    const mha_option options[] = {
        {"--prompt", MHA_OPTION_TEXT, &prompt, 0, 0, 0, 0, NULL},
        {"--tokens", MHA_OPTION_SIZE, &tokens, 0, 1000000, 0, 0, NULL},
        {"--top-k", MHA_OPTION_SIZE, &top_k, 0, BPE_VOCAB_MAX, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &seed, 0, SIZE_MAX, 0, 0, NULL},
        {"--temperature", MHA_OPTION_DOUBLE, &temperature, 0, 0, 0, 100,
         "a temperature in [0, 100]"}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 5, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm generate DIR --prompt TEXT [--tokens N] [--temperature T]\n"
                  "                       [--top-k K] [--seed S]\n\n"
                  "Continues TEXT with N tokens (default 200) drawn from the model in DIR at\n"
                  "temperature T (default 0.8; 0 takes the most likely token) among the K most\n"
                  "likely (default 40; 0 for all), through the KV cache, and prints the\n"
                  "continuation.  The same seed gives the same text.  The prompt must fit in the\n"
                  "model's context; past the context the window slides: the last half of the\n"
                  "context is read again and generation goes on from it.\n", out);
        return status;
    }
    if (line.operand_given == NULL || prompt == NULL) {
        mha_cli_error(err, "lm generate: %s is required (try 'mha lm generate --help')",
                      prompt == NULL ? "--prompt" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (read_model(line.operand_given, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    const size_t T = m.config.context, V = m.config.vocab, length = strlen(prompt);
    int *ids = NULL;
    size_t n = 0;
    float *scratch = malloc(V * sizeof *scratch);
    lm_decoder dec = {0};
    mha_status failed = encode_text(&tokenizer, (const unsigned char *)prompt, length, &ids, &n);
    int *grown = failed == MHA_OK ? realloc(ids, (n + tokens + 1) * sizeof *ids) : NULL;
    if (failed == MHA_OK && grown == NULL)
        failed = MHA_ERR_NOMEM;
    else if (grown)
        ids = grown;
    if (failed == MHA_OK && scratch == NULL)
        failed = MHA_ERR_NOMEM;
    if (failed == MHA_OK)
        failed = lm_decoder_init(&dec, &m);
    if (failed != MHA_OK) {
        mha_cli_error(err, "lm generate: %s", mha_status_message(failed));
        status = MHA_EXIT_FAILURE;
    } else if (n == 0 || n > T) {
        mha_cli_error(err, "--prompt: %zu tokens; the model reads 1 to %zu", n, T);
        status = MHA_EXIT_USAGE;
    }
    uint64_t state = mha_random_seeded((uint64_t)seed);
    if (status == MHA_EXIT_OK)
        failed = feed(&dec, ids, n);
    for (size_t k = 0; status == MHA_EXIT_OK && failed == MHA_OK && k < tokens; k++) {
        const int next = lm_sample(dec.logits, V, temperature, top_k, &state, scratch);
        size_t bytes;
        const unsigned char *piece = bpe_token(&tokenizer, (uint32_t)next, &bytes);
        fwrite(piece, 1, bytes, out);
        ids[n++] = next;
        if (k + 1 == tokens)
            break;
        if (dec.position == T) {                       /* the window slides */
            lm_decoder_reset(&dec);
            failed = feed(&dec, ids + n - T / 2, T / 2);
        } else
            failed = lm_decoder_step(&dec, next);
    }
    if (status == MHA_EXIT_OK && failed == MHA_ERR_RANGE)
        blame_failure(err, "generate", line.operand_given, "the prompt", failed);
    else if (status == MHA_EXIT_OK && failed != MHA_OK)
        mha_cli_error(err, "lm generate: %s", mha_status_message(failed));
    if (status == MHA_EXIT_OK && failed != MHA_OK)
        status = MHA_EXIT_FAILURE;
    if (status == MHA_EXIT_OK)
        fputc('\n', out);
    free(ids);
    free(scratch);
    lm_decoder_free(&dec);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
struct heads_table { char *text; size_t length; };
static int write_heads(FILE *file, void *context)
{
    const struct heads_table *t = context;
    return fwrite(t->text, 1, t->length, file) == t->length ? 0 : -1;
}
static void head_line(FILE *out, size_t l, size_t h, const lm_head_scores *s, int tsv)
{
    fprintf(out, tsv ? "%zu\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%s\n"
                     : "layer=%zu head=%zu prev_token=%.3f induction=%.3f same_token=%.3f "
                       "first_token=%.3f punctuation=%.3f sentence_start=%.3f "
                       "mean_distance=%.2f entropy_bits=%.3f prefix_matching=%.3f role=%s\n",
            l, h, s->prev_token, s->induction, s->same_token, s->first_token, s->punctuation,
            s->sentence_start, s->mean_distance, s->entropy_bits, s->prefix_matching,
            lm_head_role(s));
}
static void heads_usage(FILE *out)
{
    fputs("usage: mha lm heads DIR --text FILE [--windows N] [--seed S]\n\n"
          "Measures every head of the model in DIR on N windows of its context (default\n"
          "64) spread evenly over the tokens of FILE, and on the same windows with a span\n"
          "of 20 to 50 tokens repeated (placed by seed S, default 1), and on as many\n"
          "windows of random tokens of FILE written twice.  Prints one line per head,\n"
          "and writes the same table, tab-separated, to DIR/heads.tsv:\n"
          "layer=L head=H prev_token=X induction=X same_token=X first_token=X\n"
          "punctuation=X sentence_start=X mean_distance=X entropy_bits=X\n"
          "prefix_matching=X role=NAME\n"
          "then the in-context-learning score, the mean loss at the last T/8 positions\n"
          "of the windows less that at positions 5T/32 to 9T/32 (nan for T < 8 or a text\n"
          "of T tokens only):\n"
          "in_context early_loss=X late_loss=X score=X\n"
          "(means over the queries after the first; the role from the scores by the rule\n"
          "of the chapter \"What the heads of the Austen model do\").\n", out);
}
struct heads_run {
    size_t layers, heads, context, tokens;
    const char *text;              /* the text's name, or "random" */
    char sha[LM_SHA_HEX];
    lm_head_scores *scores;        /* (layers heads) */
    double early, late;
};
static int heads_of_gpt(const char *dir, const char *path, const char *text, size_t windows,
                        size_t seed, struct heads_run *run, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    lm_model m;
    bpe tokenizer;
    if (read_model(dir, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    if (mha_output_check(path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        bpe_free(&tokenizer);
        lm_model_free(&m);
        return MHA_EXIT_FAILURE;
    }
    const size_t N = m.config.layers, H = m.config.heads, T = m.config.context;
    int *ids = NULL;
    size_t n = 0, bytes = 0;
    *run = (struct heads_run){N, H, T, 0, text, "-", malloc(N * H * sizeof *run->scores), NAN,
                              NAN};
    unsigned char *classes = malloc(tokenizer.vocab);
    int status = MHA_EXIT_OK;
    if (classes == NULL || run->scores == NULL) {
        mha_cli_error(err, "lm heads: out of memory");
        status = MHA_EXIT_FAILURE;
    } else
        status = read_tokens(text, &tokenizer, T, &ids, &n, &bytes, run->sha, err);
    run->tokens = n;
    mha_status failed = MHA_OK;
    if (status == MHA_EXIT_OK) {
        lm_token_classes(&tokenizer, classes);
        failed = lm_heads_measure(&m, ids, n, classes, windows, (uint64_t)seed, run->scores);
    }
    if (status == MHA_EXIT_OK && failed == MHA_OK && n > T && T >= 8)
        failed = lm_in_context_score(&m, ids, n, windows, &run->early, &run->late);
    if (status == MHA_EXIT_OK && failed != MHA_OK) {
        blame_failure(err, "heads", dir, text, failed);
        status = MHA_EXIT_FAILURE;
    }
    free(ids);
    free(classes);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
#include "checkpoint.h"
/* 1 for an induction checkpoint, 0 for anything else or a missing model.txt
   (which the reader of the model then names), -1 with one mha: line for a
   model.txt that cannot be read */
static int is_induction_checkpoint(const char *dir, FILE *err)
{
    char path[MHA_PATH_SIZE], message[MHA_PATH_SIZE + 256];
    unsigned char *text;
    size_t n;
    if (!mha_join_path(path, sizeof path, dir, CHECKPOINT_METADATA))
        return 0;
    const mha_status read = mha_read_whole_file(path, MHA_READ_NOTE_MAX, &text, &n, message,
                                                sizeof message);
    if (read == MHA_ERR_IO && access(path, F_OK) != 0)
        return 0;
    if (read != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return -1;
    }
    const char kind[] = "\nmodel induction\n";
    int found = 0;
    for (size_t i = 0; !found && i + sizeof kind - 1 <= n; i++)
        found = memcmp(text + i, kind, sizeof kind - 1) == 0;
    free(text);
    return found;
}
struct induction_reading { const mha_induction_model *m; mha_learning_workspace ws; int *x; };
static mha_status induction_weights(void *model, const int *tokens, size_t B, float *weights)
{
    struct induction_reading *r = model;
    const size_t W = r->ws.batch, T = r->m->length, H = r->m->heads, one = H * T * T;
    for (size_t b = 0; b < W; b++)
        memcpy(r->x + b * T, tokens + (b < B ? b : 0) * T, T * sizeof *r->x);
    mha_status status = mha_induction_forward(r->m, &r->ws, r->x);
    for (size_t l = 0; status == MHA_OK && l < r->m->layers; l++)
        memcpy(weights + l * B * one, r->ws.weights + l * W * one, B * one * sizeof *weights);
    return status;
}
static int heads_of_induction(const char *dir, const char *path, size_t windows, size_t seed,
                              struct heads_run *run, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    mha_induction_model m;
    if (induction_checkpoint_read(dir, 0, &m, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    if (mha_output_check(path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        mha_induction_model_free(&m);
        return MHA_EXIT_FAILURE;
    }
    const size_t N = m.layers, H = m.heads, T = m.length, V = m.vocab;
    const size_t B = windows < LM_HEADS_BATCH ? windows : LM_HEADS_BATCH;
    struct induction_reading reading = {&m, {0}, malloc(B * T * sizeof *reading.x)};
    *run = (struct heads_run){N, H, T, windows * T, "random", "-",
                              malloc(N * H * sizeof *run->scores), NAN, NAN};
    int *ids = malloc(windows * T * sizeof *ids);
    unsigned char *classes = calloc(V, 1);
    mha_status failed = mha_learning_workspace_init(&reading.ws, &m, B);
    if (failed == MHA_OK && (!reading.x || !run->scores || !ids || !classes))
        failed = MHA_ERR_NOMEM;
    uint64_t state = mha_random_seeded((uint64_t)seed);
    for (size_t i = 0; failed == MHA_OK && i < windows * T; i++)
        ids[i] = (int)(mha_random(&state) % V);
    const lm_attention_reader r = {N, H, V, T, B, induction_weights, &reading};
    if (failed == MHA_OK)
        failed = lm_heads_measure_reader(&r, ids, windows * T, classes, windows, (uint64_t)seed,
                                         run->scores);
    if (failed != MHA_OK)
        mha_cli_error(err, "lm heads: %s: %s", dir, mha_status_message(failed));
    if (failed != MHA_ERR_NOMEM || reading.ws.batch)
        mha_learning_workspace_free(&reading.ws);
    mha_induction_model_free(&m);
    free(reading.x);
    free(ids);
    free(classes);
    return failed == MHA_OK ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
}
static int heads_publish(const char *path, const struct heads_run *run, size_t windows,
                         size_t seed, FILE *out, FILE *err)
{
    char message[MHA_PATH_SIZE + 256], *table = NULL;
    size_t length = 0;
    const size_t N = run->layers, H = run->heads;
    FILE *f = open_memstream(&table, &length);
    if (f == NULL) {
        mha_cli_error(err, "lm heads: out of memory");
        return MHA_EXIT_FAILURE;
    }
    fprintf(f, "# heads\ttext=%s\ttokens=%zu\tsha256=%s\tcontext=%zu\twindows=%zu\tseed=%zu\t"
            "early_loss=%.4f\tlate_loss=%.4f\teven_induction=%.4f\teven_prefix=%.4f\n",
            run->text, run->tokens, run->sha, run->context, windows, seed, run->early,
            run->late, run->scores[0].induction_even, run->scores[0].prefix_even);
    fputs("layer\thead\tprev_token\tinduction\tsame_token\tfirst_token\tpunctuation\t"
          "sentence_start\tmean_distance\tentropy_bits\tprefix_matching\trole\n", f);
    for (size_t k = 0; k < N * H; k++)
        head_line(f, k / H, k % H, &run->scores[k], 1);
    int status = fclose(f) == 0 ? MHA_EXIT_OK : MHA_EXIT_FAILURE;
    struct heads_table written = {table, length};
    if (status != MHA_EXIT_OK)
        mha_cli_error(err, "lm heads: out of memory");
    else if (mha_output_file(path, write_heads, &written, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    }
    for (size_t k = 0; status == MHA_EXIT_OK && k < N * H; k++)
        head_line(out, k / H, k % H, &run->scores[k], 0);
    if (status == MHA_EXIT_OK)
        fprintf(out, "in_context early_loss=%.4f late_loss=%.4f score=%.4f\n", run->early,
                run->late, run->late - run->early);
    free(table);
    return status;
}
static int lm_heads(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL;
    size_t windows = 64, seed = 1;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--windows", MHA_OPTION_SIZE, &windows, 1, 100000, 0, 0, NULL},
        {"--seed", MHA_OPTION_SIZE, &seed, 0, SIZE_MAX, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 3, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            heads_usage(out);
        return status;
    }
    const char *dir = line.operand_given;
    const int induction = dir != NULL ? is_induction_checkpoint(dir, err) : 0;
    if (induction < 0)
        return MHA_EXIT_FAILURE;
    if (dir == NULL || (text == NULL && !induction)) {
        mha_cli_error(err, "lm heads: %s is required (try 'mha lm heads --help')",
                      dir == NULL ? "the model directory" : "--text");
        return MHA_EXIT_USAGE;
    }
    if (text != NULL && induction) {
        mha_cli_error(err, "--text: %s is a model of random tokens, with no tokenizer; it is "
                      "measured on random tokens, without --text", dir);
        return MHA_EXIT_USAGE;
    }
    char path[MHA_PATH_SIZE];
    if (!mha_join_path(path, sizeof path, dir, "heads.tsv")) {
        mha_cli_error(err, "%s: name too long", dir);
        return MHA_EXIT_USAGE;
    }
    if (hold_folder(dir, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    struct heads_run run = {0};
    status = induction ? heads_of_induction(dir, path, windows, seed, &run, err)
                       : heads_of_gpt(dir, path, text, windows, seed, &run, err);
    if (status == MHA_EXIT_OK)
        status = heads_publish(path, &run, windows, seed, out, err);
    free(run.scores);
    return status;
}
struct prune_sample { const int *ids; size_t n, windows; };
static mha_status prune_loss(const lm_model *m, void *context, double *loss)
{
    const struct prune_sample *s = context;
    return lm_sample_loss(m, s->ids, s->n, s->windows, loss);
}
static void prune_usage(FILE *out)
{
    fputs("usage: mha lm prune DIR --text FILE [--tokens N] [--max K]\n\n"
          "The loss of the model in DIR on about N tokens of FILE (default 4096: windows\n"
          "of its context spread over the text) with every head, with each head alone\n"
          "removed (its importance), and along the greedy order that removes, step after\n"
          "step, the head whose removal raises the loss least (at most K steps; default\n"
          "every head).  Prints the loss with every head and one line per step:\n"
          "removed=K share=X layer=L head=H loss=X\n"
          "and writes DIR/prune.tsv: per head, its importance, the step that removed it\n"
          "(0: none) and the loss after that step.\n", out);
}
static int lm_prune(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL;
    size_t tokens = 4096, max = SIZE_MAX;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--tokens", MHA_OPTION_SIZE, &tokens, 1, 100000000, 0, 0, NULL},
        {"--max", MHA_OPTION_SIZE, &max, 1, SIZE_MAX, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 3, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            prune_usage(out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm prune: %s is required (try 'mha lm prune --help')",
                      text == NULL ? "--text" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    const char *dir = line.operand_given;
    char path[MHA_PATH_SIZE], message[MHA_PATH_SIZE + 256];
    if (!mha_join_path(path, sizeof path, dir, "prune.tsv")) {
        mha_cli_error(err, "%s: name too long", dir);
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (hold_folder(dir, err) != MHA_EXIT_OK ||
        read_model(dir, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    const size_t T = m.config.context, H = m.config.heads, NH = m.config.layers * H;
    const size_t count = max < NH ? max : NH;
    int *ids = NULL;
    size_t n = 0, bytes = 0, length = 0;
    char sha[LM_SHA_HEX] = "-", *table = NULL;
    double base = 0, *importance = malloc(NH * sizeof *importance);
    lm_prune_step *steps = malloc(NH * sizeof *steps);
    if (mha_output_check(path, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    } else if (importance == NULL || steps == NULL) {
        mha_cli_error(err, "lm prune: out of memory");
        status = MHA_EXIT_FAILURE;
    } else
        status = read_tokens(text, &tokenizer, T + 1, &ids, &n, &bytes, sha, err);
    struct prune_sample sample = {ids, n, tokens / T ? tokens / T : 1};
    if (sample.windows > (n - 1) / T)
        sample.windows = (n - 1) / T ? (n - 1) / T : 1;
    mha_status failed = MHA_OK;
    if (status == MHA_EXIT_OK) {
        failed = lm_heads_importance(&m, prune_loss, &sample, &base, importance);
        if (failed == MHA_OK)
            failed = lm_heads_prune(&m, prune_loss, &sample, count, steps);
    }
    FILE *f = status == MHA_EXIT_OK && failed == MHA_OK ? open_memstream(&table, &length) : NULL;
    if (f != NULL) {
        fprintf(f, "# prune\ttext=%s\ttokens=%zu\tsha256=%s\tcontext=%zu\twindows=%zu\tbase=%.6f\n",
                text, n, sha, T, sample.windows, base);
        fputs("layer\thead\timportance\tstep\tloss\n", f);
        for (size_t k = 0; k < NH; k++) {
            size_t step = 0;
            while (step < count && steps[step].layer * H + steps[step].head != k)
                step++;
            if (step < count)
                fprintf(f, "%zu\t%zu\t%.6f\t%zu\t%.6f\n", k / H, k % H, importance[k], step + 1,
                        steps[step].loss);
            else
                fprintf(f, "%zu\t%zu\t%.6f\t0\t-\n", k / H, k % H, importance[k]);
        }
        failed = fclose(f) == 0 ? MHA_OK : MHA_ERR_NOMEM;
    } else if (status == MHA_EXIT_OK && failed == MHA_OK)
        failed = MHA_ERR_NOMEM;
    if (status == MHA_EXIT_OK && failed != MHA_OK) {
        blame_failure(err, "prune", dir, text, failed);
        status = MHA_EXIT_FAILURE;
    }
    struct heads_table written = {table, length};
    if (status == MHA_EXIT_OK &&
        mha_output_file(path, write_heads, &written, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        status = MHA_EXIT_FAILURE;
    }
    if (status == MHA_EXIT_OK)
        fprintf(out, "tokens=%zu windows=%zu context=%zu loss=%.6f\n", sample.windows * T,
                sample.windows, T, base);
    for (size_t s = 0; status == MHA_EXIT_OK && s < count; s++)
        fprintf(out, "removed=%zu share=%.3f layer=%zu head=%zu loss=%.6f\n", s + 1,
                (double)(s + 1) / (double)NH, steps[s].layer, steps[s].head, steps[s].loss);
    free(ids);
    free(importance);
    free(steps);
    free(table);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
static int lm_repeat(int argc, char **argv, FILE *out, FILE *err)
{
    const char *text = NULL, *mask = NULL;
    size_t passages = 20, least = 40, most = 60;
    const mha_option options[] = {
        {"--text", MHA_OPTION_TEXT, &text, 0, 0, 0, 0, NULL},
        {"--passages", MHA_OPTION_SIZE, &passages, 1, 100000, 0, 0, NULL},
        {"--least", MHA_OPTION_SIZE, &least, 2, 4096, 0, 0, NULL},
        {"--most", MHA_OPTION_SIZE, &most, 2, 4096, 0, 0, NULL},
        {"--mask", MHA_OPTION_TEXT, &mask, 0, 0, 0, 0, NULL}};
    mha_command_line line;
    int status = mha_cli_options(argc, argv, options, 5, "model directory", &line, err);
    if (status != MHA_EXIT_OK || line.help) {
        if (line.help)
            fputs("usage: mha lm repeat DIR --text FILE [--passages N] [--least A] [--most B]\n"
                  "                     [--mask L:H[,L:H...]]\n\n"
                  "Writes N passages of FILE (default 20), spread evenly over it, of A to B\n"
                  "tokens (default 40 to 60, 2B at most the model's context), twice each, and\n"
                  "prints one line:\n"
                  "passages=N first=X second=X gain=X\n"
                  "(the mean loss of the next token in nats on the first copy and on the second,\n"
                  "and first less second).  --mask removes head H of block L for each pair (the\n"
                  "line then ends removed=N).\n", out);
        return status;
    }
    if (line.operand_given == NULL || text == NULL) {
        mha_cli_error(err, "lm repeat: %s is required (try 'mha lm repeat --help')",
                      text == NULL ? "--text" : "the model directory");
        return MHA_EXIT_USAGE;
    }
    if (least > most) {
        mha_cli_error(err, "--least: %zu is more than --most, %zu", least, most);
        return MHA_EXIT_USAGE;
    }
    lm_model m;
    bpe tokenizer;
    if (read_model(line.operand_given, &m, &tokenizer, err) != MHA_EXIT_OK)
        return MHA_EXIT_FAILURE;
    int *ids = NULL;
    size_t n = 0, bytes = 0;
    if (2 * most > m.config.context) {
        mha_cli_error(err, "--most: %zu tokens written twice are beyond the model's context of "
                      "%zu", most, m.config.context);
        status = MHA_EXIT_USAGE;
    } else if (mask != NULL)
        status = remove_heads(&m, mask, err);
    if (status == MHA_EXIT_OK)
        status = read_tokens(text, &tokenizer, most, &ids, &n, &bytes, NULL, err);
    double first, second;
    if (status == MHA_EXIT_OK) {
        const mha_status failed = lm_repeat_gain(&m, ids, n, passages, least, most, &first,
                                                 &second);
        if (failed != MHA_OK) {
            blame_failure(err, "repeat", line.operand_given, text, failed);
            status = MHA_EXIT_FAILURE;
        } else {
            fprintf(out, "passages=%zu first=%.4f second=%.4f gain=%.4f", passages, first,
                    second, first - second);
            if (mask != NULL)
                fprintf(out, " removed=%zu", lm_heads_removed(&m));
            fputc('\n', out);
        }
    }
    free(ids);
    bpe_free(&tokenizer);
    lm_model_free(&m);
    return status;
}
static const struct mha_command lm_commands[] = {
    {"tokenizer", "learn a byte-pair-encoding tokenizer from a text", lm_tokenizer},
    {"encode", "show the tokens of a text: each id and its bytes", lm_encode},
    {"decode", "the text of a list of token ids", lm_decode},
    {"baselines", "bits per character of n-gram models on a held-out text", lm_baselines},
    {"train", "train the small GPT on a text (AdamW, warm-up, cosine; resumable)", lm_train},
    {"eval", "a text's loss and bits per character under a model, in sliding windows", lm_eval},
    {"generate", "continue a prompt, sampling through the KV cache", lm_generate},
    {"heads", "measure what each head attends to on a text, and name its role", lm_heads},
    {"prune", "each head's importance on a text, and the order that removes heads greedily", lm_prune},
    {"repeat", "the loss on a passage and on its repetition: what copying gains", lm_repeat},
};
static const size_t lm_command_count = sizeof lm_commands / sizeof lm_commands[0];

static void lm_usage(FILE *out)
{
    fputs("usage: mha lm SUB-COMMAND [OPTIONS]    (mha lm SUB-COMMAND --help for one)\n\n"
          "A language model of Jane Austen's novels ('make corpus' writes\n"
          "build/corpus/train.txt and valid.txt).  Sub-commands:\n\n", out);
    for (size_t i = 0; i < lm_command_count; i++)
        fprintf(out, "  %-10s %s\n", lm_commands[i].name, lm_commands[i].summary);
}
int mha_cmd_lm(int argc, char **argv, FILE *out, FILE *err)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (argc < 2) {
            mha_cli_error(err, "lm: no sub-command given (try 'mha help lm')");
            return MHA_EXIT_USAGE;
        }
        lm_usage(out);
        return MHA_EXIT_OK;
    }
    for (size_t i = 0; i < lm_command_count; i++)
        if (strcmp(lm_commands[i].name, argv[1]) == 0) {
            char name[64];
            snprintf(name, sizeof name, "lm %s", lm_commands[i].name);
            char **sub = malloc((size_t)argc * sizeof *sub);
            if (sub == NULL) {
                mha_cli_error(err, "lm: out of memory");
                return MHA_EXIT_FAILURE;
            }
            sub[0] = name;
            for (int j = 2; j < argc; j++)
                sub[j - 1] = argv[j];
            sub[argc - 1] = NULL;
            const int status = lm_commands[i].run(argc - 1, sub, out, err);
            free(sub);
            return status;
        }
    mha_cli_error(err, "lm: unknown sub-command '%s' (try 'mha help lm')", argv[1]);
    return MHA_EXIT_USAGE;
}
