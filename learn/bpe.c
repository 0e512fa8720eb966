/* generated from chapters/15-language-model.nw; edit the book, not this file */
#include <stdlib.h>
#include <string.h>
#include "bpe.h"

static int is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}
static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}
size_t bpe_piece_length(const unsigned char *text, size_t n)
{
    if (n == 0)
        return 0;
    size_t i = text[0] == ' ' && n > 1 && (is_letter(text[1]) || is_digit(text[1])) ? 1 : 0;
    int (*const same)(unsigned char) = is_letter(text[i]) ? is_letter
                                       : is_digit(text[i]) ? is_digit : NULL;
    if (same == NULL)
        return 1;
    while (i < n && i < BPE_PIECE_MAX && same(text[i]))
        i++;
    return i;
}
static uint64_t pair_key(uint32_t left, uint32_t right)
{
    return (uint64_t)left << 32 | right;
}
static size_t slot_of(uint64_t key, size_t capacity)
{
    return (size_t)((key * 0x9E3779B97F4A7C15u) >> 20) & (capacity - 1);
}
static mha_status bpe_alloc(bpe *t, size_t count)
{
    memset(t, 0, sizeof *t);
    size_t capacity = 16;
    while (capacity < 2 * count + 2)
        capacity *= 2;
    t->vocab = BPE_BYTES + count;
    t->merge = malloc((count ? count : 1) * sizeof *t->merge);
    t->start = malloc((t->vocab + 1) * sizeof *t->start);
    t->rank_key = calloc(capacity, sizeof *t->rank_key);
    t->rank = calloc(capacity, sizeof *t->rank);
    t->rank_capacity = capacity;
    if (!t->merge || !t->start || !t->rank_key || !t->rank) {
        bpe_free(t);
        return MHA_ERR_NOMEM;
    }
    return MHA_OK;
}
mha_status bpe_from_merges(const bpe_pair *merges, size_t count, bpe *tokenizer)
{
    if (tokenizer == NULL || (merges == NULL && count > 0))
        return MHA_ERR_NULL;
    if (count > BPE_VOCAB_MAX - BPE_BYTES)
        return MHA_ERR_ARG;
    bpe t;
    mha_status status = bpe_alloc(&t, count);
    if (status != MHA_OK)
        return status;
    size_t total = BPE_BYTES;
    t.start[0] = 0;
    for (size_t i = 0; i < BPE_BYTES; i++)
        t.start[i + 1] = i + 1;
    for (size_t i = 0; i < count && status == MHA_OK; i++) {
        const bpe_pair p = merges[i];
        if (p.left >= BPE_BYTES + i || p.right >= BPE_BYTES + i) {
            status = MHA_ERR_ARG;
            break;
        }
        const size_t length = (t.start[p.left + 1] - t.start[p.left]) +
                              (t.start[p.right + 1] - t.start[p.right]);
        if (length > BPE_PIECE_MAX) {
            status = MHA_ERR_ARG;
            break;
        }
        const uint64_t key = pair_key(p.left, p.right) + 1;
        size_t s = slot_of(key, t.rank_capacity);
        while (t.rank_key[s] != 0 && t.rank_key[s] != key)
            s = (s + 1) & (t.rank_capacity - 1);
        if (t.rank_key[s] == key) {
            status = MHA_ERR_ARG;
            break;
        }
        t.rank_key[s] = key;
        t.rank[s] = (uint32_t)i;
        t.merge[i] = p;
        total += length;
        t.start[BPE_BYTES + i + 1] = total;
    }
    if (status == MHA_OK && (t.bytes = malloc(total)) == NULL)
        status = MHA_ERR_NOMEM;
    if (status != MHA_OK) {
        bpe_free(&t);
        return status;
    }
    for (size_t i = 0; i < BPE_BYTES; i++)
        t.bytes[i] = (unsigned char)i;
    for (size_t i = 0; i < count; i++) {
        const bpe_pair p = merges[i];
        const size_t left = t.start[p.left + 1] - t.start[p.left];
        unsigned char *to = t.bytes + t.start[BPE_BYTES + i];
        memcpy(to, t.bytes + t.start[p.left], left);
        memcpy(to + left, t.bytes + t.start[p.right], t.start[p.right + 1] - t.start[p.right]);
    }
    *tokenizer = t;
    return MHA_OK;
}
void bpe_free(bpe *t)
{
    if (t == NULL)
        return;
    free(t->merge);
    free(t->start);
    free(t->bytes);
    free(t->rank_key);
    free(t->rank);
    memset(t, 0, sizeof *t);
}
const unsigned char *bpe_token(const bpe *t, uint32_t id, size_t *length)
{
    if (t == NULL || id >= t->vocab)
        return NULL;
    *length = t->start[id + 1] - t->start[id];
    return t->bytes + t->start[id];
}
static int rank_of(const bpe *t, uint32_t left, uint32_t right, uint32_t *rank)
{
    const uint64_t key = pair_key(left, right) + 1;
    for (size_t s = slot_of(key, t->rank_capacity); t->rank_key[s] != 0;
         s = (s + 1) & (t->rank_capacity - 1))
        if (t->rank_key[s] == key) {
            *rank = t->rank[s];
            return 1;
        }
    return 0;
}
static size_t merge_everywhere(uint32_t *sym, size_t length, uint32_t left, uint32_t right,
                               uint32_t made)
{
    size_t to = 0;
    /* <<replace each pair [[left]], [[right]] of [[sym]] by [[made]], from the left>> */
    for (size_t i = 0; i < length; i++)
        if (i + 1 < length && sym[i] == left && sym[i + 1] == right)
            sym[to++] = made, i++;
        else
            sym[to++] = sym[i];
    return to;
}
mha_status bpe_encode(const bpe *t, const unsigned char *text, size_t n, uint32_t *ids,
                      size_t *count)
{
    if (t == NULL || count == NULL || ((text == NULL || ids == NULL) && n > 0))
        return MHA_ERR_NULL;
    size_t out = 0;
    for (size_t at = 0; at < n;) {
        const size_t length = bpe_piece_length(text + at, n - at);
        uint32_t sym[BPE_PIECE_MAX];
        size_t k = length;
        for (size_t i = 0; i < length; i++)
            sym[i] = text[at + i];
        for (;;) {
            uint32_t best = UINT32_MAX, rank;
            size_t where = 0;
            for (size_t i = 0; i + 1 < k; i++)
                if (rank_of(t, sym[i], sym[i + 1], &rank) && rank < best)
                    best = rank, where = i;
            if (best == UINT32_MAX)
                break;
            k = merge_everywhere(sym, k, sym[where], sym[where + 1], BPE_BYTES + best);
        }
        memcpy(ids + out, sym, k * sizeof *sym);
        out += k;
        at += length;
    }
    *count = out;
    return MHA_OK;
}
mha_status bpe_decode(const bpe *t, const uint32_t *ids, size_t count, unsigned char *text,
                      size_t capacity, size_t *n)
{
    if (t == NULL || n == NULL || (ids == NULL && count > 0))
        return MHA_ERR_NULL;
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        if (ids[i] >= t->vocab)
            return MHA_ERR_ARG;
        total += t->start[ids[i] + 1] - t->start[ids[i]];
    }
    *n = total;
    if (text == NULL)
        return MHA_OK;                      /* the length alone */
    if (total > capacity)
        return MHA_ERR_SHAPE;
    for (size_t i = 0, at = 0; i < count; i++) {
        const size_t length = t->start[ids[i] + 1] - t->start[ids[i]];
        memcpy(text + at, t->bytes + t->start[ids[i]], length);
        at += length;
    }
    return MHA_OK;
}
typedef struct pair_counts {
    uint64_t *key;                 /* pair_key + 1; 0 = empty */
    int64_t *count;
    size_t capacity, used;
} pair_counts;
typedef struct piece_set {
    size_t count;                  /* distinct pieces */
    size_t *at;                    /* (count): where its ids begin in sym */
    size_t *length;                /* (count): its current number of ids */
    int64_t *times;                /* (count): its occurrences in the text */
    uint32_t *sym;
} piece_set;

static mha_status counts_grow(pair_counts *c)
{
    const size_t capacity = c->capacity ? 2 * c->capacity : 1024;
    uint64_t *key = calloc(capacity, sizeof *key);
    int64_t *count = calloc(capacity, sizeof *count);
    if (key == NULL || count == NULL) {
        free(key);
        free(count);
        return MHA_ERR_NOMEM;
    }
    for (size_t i = 0; i < c->capacity; i++)
        if (c->key[i] != 0) {
            size_t s = slot_of(c->key[i], capacity);
            while (key[s] != 0)
                s = (s + 1) & (capacity - 1);
            key[s] = c->key[i], count[s] = c->count[i];
        }
    free(c->key);
    free(c->count);
    c->key = key, c->count = count, c->capacity = capacity;
    return MHA_OK;
}
static mha_status counts_add(pair_counts *c, uint32_t left, uint32_t right, int64_t times)
{
    if (2 * (c->used + 1) > c->capacity) {
        const mha_status status = counts_grow(c);
        if (status != MHA_OK)
            return status;
    }
    const uint64_t key = pair_key(left, right) + 1;
    size_t s = slot_of(key, c->capacity);
    while (c->key[s] != 0 && c->key[s] != key)
        s = (s + 1) & (c->capacity - 1);
    if (c->key[s] == 0)
        c->key[s] = key, c->used++;
    c->count[s] += times;
    return MHA_OK;
}
static mha_status counts_piece(pair_counts *c, const uint32_t *sym, size_t length, int64_t times)
{
    mha_status status = MHA_OK;
    for (size_t i = 0; status == MHA_OK && i + 1 < length; i++)
        status = counts_add(c, sym[i], sym[i + 1], times);
    return status;
}
static uint64_t bytes_hash(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}
static mha_status pieces_find(const unsigned char *text, size_t n, piece_set *set)
{
    size_t pieces = 0;
    for (size_t at = 0; at < n; at += bpe_piece_length(text + at, n - at))
        pieces++;
    size_t capacity = 16;
    while (capacity < 2 * pieces + 2)
        capacity *= 2;
    size_t *slot = calloc(capacity, sizeof *slot);
    size_t *from = malloc((pieces ? pieces : 1) * sizeof *from);
    set->at = malloc((pieces ? pieces : 1) * sizeof *set->at);
    set->length = malloc((pieces ? pieces : 1) * sizeof *set->length);
    set->times = malloc((pieces ? pieces : 1) * sizeof *set->times);
    mha_status status = slot && from && set->at && set->length && set->times
                        ? MHA_OK : MHA_ERR_NOMEM;
    size_t distinct = 0, symbols = 0;
    for (size_t at = 0; status == MHA_OK && at < n;) {
        const size_t length = bpe_piece_length(text + at, n - at);
        size_t s = bytes_hash(text + at, length) & (capacity - 1);
        for (; slot[s] != 0; s = (s + 1) & (capacity - 1)) {
            const size_t k = slot[s] - 1;
            if (set->length[k] == length && memcmp(text + from[k], text + at, length) == 0)
                break;
        }
        if (slot[s] == 0) {
            slot[s] = distinct + 1;
            from[distinct] = at, set->length[distinct] = length, set->times[distinct] = 0;
            set->at[distinct] = symbols;
            symbols += length, distinct++;
        }
        set->times[slot[s] - 1]++;
        at += length;
    }
    if (status == MHA_OK && (set->sym = malloc((symbols ? symbols : 1) * sizeof *set->sym)) == NULL)
        status = MHA_ERR_NOMEM;
    for (size_t k = 0; status == MHA_OK && k < distinct; k++)
        for (size_t i = 0; i < set->length[k]; i++)
            set->sym[set->at[k] + i] = text[from[k] + i];
    set->count = distinct;
    free(slot);
    free(from);
    return status;
}
static int holds_pair(const uint32_t *sym, size_t length, uint32_t left, uint32_t right)
{
    for (size_t i = 0; i + 1 < length; i++)
        if (sym[i] == left && sym[i + 1] == right)
            return 1;
    return 0;
}
mha_status bpe_learn(const unsigned char *text, size_t n, size_t vocab, bpe *tokenizer)
{
    if (tokenizer == NULL || (text == NULL && n > 0))
        return MHA_ERR_NULL;
    if (vocab < BPE_BYTES || vocab > BPE_VOCAB_MAX)
        return MHA_ERR_ARG;
    piece_set set = {0};
    pair_counts counts = {0};
    bpe_pair *merges = malloc((vocab - BPE_BYTES + 1) * sizeof *merges);
    size_t made = 0;
    mha_status status = merges ? pieces_find(text, n, &set) : MHA_ERR_NOMEM;
    for (size_t k = 0; status == MHA_OK && k < set.count; k++)
        status = counts_piece(&counts, set.sym + set.at[k], set.length[k], set.times[k]);
    while (status == MHA_OK && BPE_BYTES + made < vocab) {
        uint64_t best_key = 0;
        int64_t best = 1;
        for (size_t s = 0; s < counts.capacity; s++)
            if (counts.key[s] != 0 && (counts.count[s] > best ||
                                       (counts.count[s] == best && counts.key[s] < best_key)))
                best = counts.count[s], best_key = counts.key[s];
        if (best_key == 0)
            break;                                          /* no pair occurs twice */
        const uint32_t left = (uint32_t)((best_key - 1) >> 32), right = (uint32_t)(best_key - 1);
        const uint32_t id = (uint32_t)(BPE_BYTES + made);
        merges[made++] = (bpe_pair){left, right};
        for (size_t k = 0; status == MHA_OK && k < set.count; k++) {
            uint32_t *sym = set.sym + set.at[k];
            if (!holds_pair(sym, set.length[k], left, right))
                continue;
            status = counts_piece(&counts, sym, set.length[k], -set.times[k]);
            set.length[k] = merge_everywhere(sym, set.length[k], left, right, id);
            if (status == MHA_OK)
                status = counts_piece(&counts, sym, set.length[k], set.times[k]);
        }
    }
    if (status == MHA_OK)
        status = bpe_from_merges(merges, made, tokenizer);
    free(merges);
    free(set.at);
    free(set.length);
    free(set.times);
    free(set.sym);
    free(counts.key);
    free(counts.count);
    return status;
}
