/* generated from chapters/15-language-model.nw; edit the book, not this file */
#ifndef MHA_NGRAM_H
#define MHA_NGRAM_H
/* n-gram models with interpolated Kneser-Ney smoothing (chapter "A language
   model of Jane Austen").  Symbols are 0..alphabet-1.  Pure computation. */
#include <stddef.h>
#include <stdint.h>
#include "mha.h"

enum { NGRAM_ORDER_MAX = 8 };
typedef struct ngram_entry {
    uint64_t key;                  /* the symbols, b bits each, the last lowest */
    uint32_t raw, cont;            /* its count; its number of distinct predecessors */
    uint32_t raw_sum, raw_kinds;   /* as a context: the sum and the number of its */
    uint32_t cont_sum, cont_kinds; /*   continuations' counts that are not zero */
} ngram_entry;
typedef struct ngram_table {
    ngram_entry *slot;             /* raw == 0: empty */
    size_t capacity, used;
    unsigned shift;                /* 64 - log2(capacity) */
} ngram_table;
typedef struct ngram_model {
    size_t order, alphabet;
    unsigned bits;                 /* b: bits per symbol in a key */
    ngram_table table[NGRAM_ORDER_MAX + 1];      /* table[n]: the n-grams, n >= 1 */
    ngram_entry empty;             /* the empty context's sums */
    double discount[NGRAM_ORDER_MAX + 1][2];     /* [n][0]: continuation counts, [n][1]: raw */
} ngram_model;
size_t ngram_order_max(size_t alphabet);
MHA_MUST_CHECK
mha_status ngram_count(const uint32_t *symbols, size_t n, size_t alphabet, size_t order,
                       ngram_model *model);
double ngram_probability(const ngram_model *model, size_t order, const uint32_t *history,
                         size_t length, uint32_t symbol);
MHA_MUST_CHECK
mha_status ngram_bits(const ngram_model *model, size_t order, const uint32_t *symbols, size_t n,
                      double *bits);
void ngram_free(ngram_model *model);
#endif
