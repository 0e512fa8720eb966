/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include "fuzz_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_forward_one(data, size);
    return 0;
}
