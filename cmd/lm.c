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
#include "lm_cmd.h"
#include "ngram.h"
#include "output.h"
#include "sha256.h"

/* <<the [[mha lm]] helpers>> */
int lm_cmd_hold_folder(const char *dir, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    if (mha_output_hold(dir, message, sizeof message) != MHA_OK) {
        mha_cli_error(err, "%s", message);
        return MHA_EXIT_FAILURE;
    }
    return MHA_EXIT_OK;
}
/* <<the [[mha lm]] helpers>> */
void lm_cmd_blame(FILE *err, const char *command, const char *dir, const char *text,
                  mha_status failed)
{
    if (failed == MHA_ERR_RANGE)
        mha_cli_error(err, "lm %s: %s: the model's weights overflow float on %s (an infinite "
                      "or NaN result)", command, dir, text);
    else
        mha_cli_error(err, "lm %s: %s: %s", command, text, mha_status_message(failed));
}
/* <<the [[mha lm]] helpers>> */
#include "head_roles.h"
#include "lm.h"
#include "lm_files.h"
#include "random.h"
#include "sha256.h"

mha_status lm_cmd_encode_text(const bpe *tokenizer, const unsigned char *text, size_t n,
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
int lm_cmd_read_tokens(const char *path, const bpe *tokenizer, size_t min, int **ids,
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
    const mha_status status = lm_cmd_encode_text(tokenizer, text, *bytes, ids, count);
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
/* <<the [[mha lm]] helpers>> */
/* The model folder dir read for a command that only uses it; one mha: line
   naming the file at fault when it cannot be. */
int lm_cmd_read_model(const char *dir, lm_model *m, bpe *tokenizer, FILE *err)
{
    char message[MHA_PATH_SIZE + 256];
    lm_provenance p;
    if (lm_model_read(dir, m, tokenizer, &p, message, sizeof message) == MHA_OK)
        return MHA_EXIT_OK;
    mha_cli_error(err, "%s", message);
    return MHA_EXIT_FAILURE;
}

/* <<the [[mha lm]] helpers>> */
/* The heads that spec ("L:H[,L:H...]") names removed from m; one mha: line
   naming --mask if spec is malformed or names a head m does not have. */
int lm_cmd_remove_heads(lm_model *m, const char *spec, FILE *err)
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
static const struct mha_command lm_commands[] = {
    /* <<[[mha lm]] sub-commands>> */
    {"tokenizer", "learn a byte-pair-encoding tokenizer from a text", mha_cmd_lm_tokenizer},
    {"encode", "show the tokens of a text: each id and its bytes", mha_cmd_lm_encode},
    {"decode", "the text of a list of token ids", mha_cmd_lm_decode},
    /* <<[[mha lm]] sub-commands>> */
    {"baselines", "bits per character of n-gram models on a held-out text",
     mha_cmd_lm_baselines},
    /* <<[[mha lm]] sub-commands>> */
    {"train", "train the small GPT on a text (AdamW, warm-up, cosine; resumable)",
     mha_cmd_lm_train},
    {"eval", "a text's loss and bits per character under a model, in sliding windows",
     mha_cmd_lm_eval},
    {"generate", "continue a prompt, sampling through the KV cache", mha_cmd_lm_generate},
    /* <<[[mha lm]] sub-commands>> */
    {"heads", "measure what each head attends to on a text, and name its role",
     mha_cmd_lm_heads},
    /* <<[[mha lm]] sub-commands>> */
    {"prune", "each head's importance on a text, and the order that removes heads greedily",
     mha_cmd_lm_prune},
    /* <<[[mha lm]] sub-commands>> */
    {"repeat", "the loss on a passage and on its repetition: what copying gains",
     mha_cmd_lm_repeat},
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
