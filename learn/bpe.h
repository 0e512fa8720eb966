/* generated from chapters/15-language-model.nw; edit the book, not this file */
#ifndef MHA_BPE_H
#define MHA_BPE_H
/* A byte-level byte-pair-encoding tokenizer (chapter "A language model of
   Jane Austen").  Tokens 0..255 are the bytes; token 256 + i is merge i, its
   left token's bytes then its right token's.  No piece, and so no token, is
   longer than BPE_PIECE_MAX bytes.  Pure computation: no I/O. */
#include <stddef.h>
#include <stdint.h>
#include "mha.h"

enum { BPE_BYTES = 256, BPE_VOCAB_MAX = 65536, BPE_PIECE_MAX = 64 };
typedef struct bpe_pair { uint32_t left, right; } bpe_pair;
typedef struct bpe {
    size_t vocab;                  /* 256 + the number of merges */
    bpe_pair *merge;               /* (vocab - 256) */
    size_t *start;                 /* (vocab + 1): token t is bytes[start[t]..start[t+1]) */
    unsigned char *bytes;
    uint64_t *rank_key;            /* a hash table: pair -> the index of its merge */
    uint32_t *rank;
    size_t rank_capacity;          /* a power of two */
} bpe;
size_t bpe_piece_length(const unsigned char *text, size_t n);
MHA_MUST_CHECK
mha_status bpe_learn(const unsigned char *text, size_t n, size_t vocab, bpe *tokenizer);
MHA_MUST_CHECK
mha_status bpe_from_merges(const bpe_pair *merges, size_t count, bpe *tokenizer);
MHA_MUST_CHECK
mha_status bpe_encode(const bpe *tokenizer, const unsigned char *text, size_t n,
                      uint32_t *ids, size_t *count);
MHA_MUST_CHECK
mha_status bpe_decode(const bpe *tokenizer, const uint32_t *ids, size_t count,
                      unsigned char *text, size_t capacity, size_t *n);
const unsigned char *bpe_token(const bpe *tokenizer, uint32_t id, size_t *length);
void bpe_free(bpe *tokenizer);
#endif
