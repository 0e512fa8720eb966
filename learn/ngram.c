/* generated from chapters/15-language-model.nw; edit the book, not this file */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ngram.h"

static ngram_entry *table_find(const ngram_table *t, uint64_t key)
{
    if (t->capacity == 0)
        return NULL;
    for (size_t s = (size_t)((key * 0x9E3779B97F4A7C15u) >> t->shift); t->slot[s].raw != 0;
         s = (s + 1) & (t->capacity - 1))
        if (t->slot[s].key == key)
            return &t->slot[s];
    return NULL;
}
static mha_status table_grow(ngram_table *t)
{
    const size_t capacity = t->capacity ? 2 * t->capacity : 1024;
    const unsigned shift = t->capacity ? t->shift - 1 : 64 - 10;
    ngram_entry *slot = calloc(capacity, sizeof *slot);
    if (slot == NULL)
        return MHA_ERR_NOMEM;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slot[i].raw != 0) {
            size_t s = (size_t)((t->slot[i].key * 0x9E3779B97F4A7C15u) >> shift);
            while (slot[s].raw != 0)
                s = (s + 1) & (capacity - 1);
            slot[s] = t->slot[i];
        }
    free(t->slot);
    t->slot = slot, t->capacity = capacity, t->shift = shift;
    return MHA_OK;
}
static mha_status table_count(ngram_table *t, uint64_t key)
{
    if (10 * (t->used + 1) > 7 * t->capacity) {
        const mha_status status = table_grow(t);
        if (status != MHA_OK)
            return status;
    }
    size_t s = (size_t)((key * 0x9E3779B97F4A7C15u) >> t->shift);
    while (t->slot[s].raw != 0 && t->slot[s].key != key)
        s = (s + 1) & (t->capacity - 1);
    if (t->slot[s].raw == 0)
        t->slot[s].key = key, t->used++;
    t->slot[s].raw++;                 /* one per position at most: never past UINT32_MAX */
    return MHA_OK;
}
size_t ngram_order_max(size_t alphabet)
{
    unsigned bits = 1;
    while (bits < 32 && ((size_t)1 << bits) < alphabet)
        bits++;
    const size_t order = 64 / bits;
    return order < NGRAM_ORDER_MAX ? order : NGRAM_ORDER_MAX;
}
static uint64_t low_bits(unsigned bits)
{
    return ((uint64_t)1 << bits) - 1;      /* bits < 64: an order fits its key */
}
static void add_context(ngram_entry *context, const ngram_entry *g)
{
    context->raw_sum += g->raw, context->raw_kinds++;
    if (g->cont > 0)
        context->cont_sum += g->cont, context->cont_kinds++;
}
static double discount_of(const ngram_table *t, int raw)
{
    double n1 = 0, n2 = 0;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slot[i].raw != 0) {
            const uint32_t c = raw ? t->slot[i].raw : t->slot[i].cont;
            n1 += c == 1, n2 += c == 2;
        }
    const double d = n1 + 2 * n2 > 0 ? n1 / (n1 + 2 * n2) : 0.5;
    return d < 0.1 ? 0.1 : d;             /* n1 / (n1 + 2 n2) is at most 1 */
}
mha_status ngram_count(const uint32_t *symbols, size_t n, size_t alphabet, size_t order,
                       ngram_model *model)
{
    if (model == NULL || (symbols == NULL && n > 0))
        return MHA_ERR_NULL;
    memset(model, 0, sizeof *model);
    if (alphabet < 2 || alphabet > ((size_t)1 << 31) || order < 1 ||
        order > ngram_order_max(alphabet) || n > UINT32_MAX)
        return MHA_ERR_ARG;
    for (size_t i = 0; i < n; i++)
        if (symbols[i] >= alphabet)
            return MHA_ERR_ARG;
    model->order = order, model->alphabet = alphabet, model->bits = 1;
    while (((size_t)1 << model->bits) < alphabet)
        model->bits++;
    const unsigned b = model->bits;
    mha_status status = MHA_OK;
    for (size_t i = 0; i < n && status == MHA_OK; i++) {
        uint64_t key = 0;
        for (size_t k = 1; k <= order && k <= i + 1 && status == MHA_OK; k++) {
            key |= (uint64_t)symbols[i + 1 - k] << (b * (k - 1));     /* the k symbols ending at i */
            status = table_count(&model->table[k], key);
        }
    }
    for (size_t k = 2; k <= order && status == MHA_OK; k++) {
        const ngram_table *t = &model->table[k];
        for (size_t i = 0; i < t->capacity; i++)
            if (t->slot[i].raw != 0)
                table_find(&model->table[k - 1], t->slot[i].key & low_bits(b * (k - 1)))->cont++;
    }
    for (size_t k = 1; k <= order && status == MHA_OK; k++) {
        const ngram_table *t = &model->table[k];
        for (size_t i = 0; i < t->capacity; i++)
            if (t->slot[i].raw != 0)
                add_context(k == 1 ? &model->empty : table_find(&model->table[k - 1],
                                                                t->slot[i].key >> b),
                            &t->slot[i]);
        model->discount[k][0] = discount_of(t, 0);
        model->discount[k][1] = discount_of(t, 1);
    }
    if (status != MHA_OK)
        ngram_free(model);
    return status;
}
void ngram_free(ngram_model *model)
{
    if (model == NULL)
        return;
    for (size_t k = 0; k <= NGRAM_ORDER_MAX; k++)
        free(model->table[k].slot);
    memset(model, 0, sizeof *model);
}
double ngram_probability(const ngram_model *model, size_t order, const uint32_t *history,
                         size_t length, uint32_t symbol)
{
    const unsigned b = model->bits;
    double p = 1.0 / (double)model->alphabet;
    uint64_t context = 0;                 /* the n-1 symbols before, as a key */
    for (size_t n = 1; n <= order && n <= length + 1; n++) {
        if (n >= 2)
            context |= (uint64_t)history[length - (n - 1)] << (b * (n - 2));
        const int raw = n == order;
        const ngram_entry *c = n == 1 ? &model->empty : table_find(&model->table[n - 1], context);
        const uint32_t sum = c == NULL ? 0 : raw ? c->raw_sum : c->cont_sum;
        const uint32_t kinds = c == NULL ? 0 : raw ? c->raw_kinds : c->cont_kinds;
        if (sum == 0)
            continue;
        const ngram_entry *g = table_find(&model->table[n], context << b | symbol);
        const double count = g == NULL ? 0 : raw ? g->raw : g->cont;
        const double d = model->discount[n][raw];
        p = (fmax(count - d, 0) + d * kinds * p) / sum;
    }
    return p;
}
mha_status ngram_bits(const ngram_model *model, size_t order, const uint32_t *symbols, size_t n,
                      double *bits)
{
    if (model == NULL || bits == NULL || (symbols == NULL && n > 0))
        return MHA_ERR_NULL;
    if (order < 1 || order > model->order)
        return MHA_ERR_ARG;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        if (symbols[i] >= model->alphabet)
            return MHA_ERR_ARG;
        total -= log2(ngram_probability(model, order, symbols, i, symbols[i]));
    }
    *bits = total;
    return MHA_OK;
}
