/* generated from chapters/46-tests-language-model.nw; edit the book, not this file */
#include <stdlib.h>
#include "fuzz_harness.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    return 0;
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bpe_one(data, size);
    return 0;
}
