/* generated from chapters/03-naive.nw, chapters/04-batched.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#include <string.h>
#include "mha_internal.h"

const mha_impl mha_impls[] = {
    /* <<the implementations>> */
    {"naive", mha_forward_naive},
    /* <<the implementations>> */
    {"batched", mha_forward_batched},
    /* <<the implementations>> */
    {"blocked", mha_forward_blocked},
};
const size_t mha_impl_count = sizeof mha_impls / sizeof mha_impls[0];

const void *mha_version_find(const void *table, size_t count, size_t size, const char *name)
{
    const unsigned char *entry = table;
    for (size_t i = 0; name != NULL && i < count; i++, entry += size)
        if (strcmp(*(const char *const *)(const void *)entry, name) == 0)
            return entry;
    return NULL;
}

const mha_impl *mha_impl_find(const char *name)
{
    return mha_version_find(mha_impls, mha_impl_count, sizeof mha_impls[0], name);
}
