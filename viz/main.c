/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "viz.h"

int main(int argc, char **argv)
{
    const char *isa = getenv("MHA_ISA"), *scalar = getenv("MHA_FORCE_SCALAR");
    if (scalar != NULL && scalar[0] != '\0' && strcmp(scalar, "0") != 0)
        isa = "scalar";
    if (mha_set_isa(isa) != MHA_OK) {
        fprintf(stderr, "mha-viz: MHA_ISA: unknown instruction set '%s'\n", isa);
        return VIZ_EXIT_USAGE;
    }
    return viz_main(argc, argv);
}
