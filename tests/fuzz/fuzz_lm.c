/* generated from chapters/47-tests-austen-model.nw; edit the book, not this file */
#include <stdlib.h>
#include "fuzz_harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    if (fuzz_setup() != 0)
        abort();
    atexit(fuzz_teardown);
    return 0;
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lm_one(data, size);
    return 0;
}
