/* generated from chapters/15-language-model.nw; edit the book, not this file */
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
#include "lm_cmd.h"
#include "ngram.h"
#include "output.h"
#include "sha256.h"

/* <<[[lm_text.c]] sub-commands>> */
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
/* <<[[lm_text.c]] sub-commands>> */
int mha_cmd_lm_tokenizer(int argc, char **argv, FILE *out, FILE *err)
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
    if (lm_cmd_hold_folder(dir, err) != MHA_EXIT_OK)
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
/* <<[[lm_text.c]] sub-commands>> */
int mha_cmd_lm_encode(int argc, char **argv, FILE *out, FILE *err)
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
/* <<[[lm_text.c]] sub-commands>> */
int mha_cmd_lm_decode(int argc, char **argv, FILE *out, FILE *err)
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
/* <<[[lm_text.c]] sub-commands>> */
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
/* <<[[lm_text.c]] sub-commands>> */
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
/* <<[[lm_text.c]] sub-commands>> */
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
/* <<[[lm_text.c]] sub-commands>> */
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
int mha_cmd_lm_baselines(int argc, char **argv, FILE *out, FILE *err)
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
