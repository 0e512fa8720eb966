/* generated from chapters/03-naive.nw, chapters/04-batched.nw, chapters/08-fast-attention.nw; edit the book, not this file */
#include <string.h>
#include "mha.h"

const mha_impl mha_impls[] = {
    {"naive", mha_forward_naive},
    {"batched", mha_forward_batched},
    {"blocked", mha_forward_blocked},
};
const size_t mha_impl_count = sizeof mha_impls / sizeof mha_impls[0];

const mha_impl *mha_impl_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < mha_impl_count; i++)
        if (strcmp(mha_impls[i].name, name) == 0)
            return &mha_impls[i];
    return NULL;
}
