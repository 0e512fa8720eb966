/* generated from chapters/15-language-model.nw; edit the book, not this file */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpe.h"
#include "bpe_files.h"
#include "cli.h"
#include "clock.h"
#include "layer_dir.h"
#include "layer_files.h"
#include "output.h"

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
                    "DIR/%s and DIR/%s, both or neither.\n", BPE_BYTES, BPE_VOCAB_MAX,
                    BPE_MERGES_FILE, BPE_VOCAB_FILE);
        return status;
    }
    if (text_path == NULL || vocab == 0 || dir == NULL) {
        mha_cli_error(err, "lm tokenizer: %s is required (try 'mha lm tokenizer --help')",
                      text_path == NULL ? "--text" : vocab == 0 ? "--vocab" : "--out");
        return MHA_EXIT_USAGE;
    }
    char message[MHA_PATH_SIZE + 256];
    if (mha_output_check_dir(dir, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    unsigned char *text;
    size_t n;
    if (mha_read_whole_file(text_path, &text, &n, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    bpe tokenizer;
    const double started = mha_seconds();
    mha_status learned = bpe_learn(text, n, vocab, &tokenizer);
    const double seconds = mha_seconds() - started;
    free(text);
    if (learned != MHA_OK) {
        mha_cli_error(err, "lm tokenizer: %s: %s", text_path, mha_status_message(learned));
        return MHA_EXIT_FAILURE;
    }
    if (bpe_files_write(dir, &tokenizer, message, sizeof message) != MHA_OK) {
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
        char name[32];
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
static const struct mha_command lm_commands[] = {
    {"tokenizer", "learn a byte-pair-encoding tokenizer from a text", lm_tokenizer},
    {"encode", "show the tokens of a text: each id and its bytes", lm_encode},
    {"decode", "the text of a list of token ids", lm_decode},
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
