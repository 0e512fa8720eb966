/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include "reentrancy.h"

int main(void)
{
    const size_t mismatches = reentrancy_check(stderr);
    printf("tsan: reentrancy: %zu mismatches\n", mismatches);
    return mismatches == 0 ? 0 : 1;
}
