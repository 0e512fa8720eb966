/* generated from chapters/23-demo-command.nw; edit the book, not this file */
#include <stdio.h>
#include "cli.h"
#include "tables.h"

/* What 'mha demo --heads 2 --text "a rose is a rose"' prints to a file. */
void mha_print_demo_sample(FILE *out)
{
    char *argv[] = {"demo", "--heads", "2", "--text", "a rose is a rose", NULL};
    fputs("\\begin{verbatim}\n", out);
    if (mha_cmd_demo(5, argv, out, stderr) != MHA_EXIT_OK)
        fputs("(mha demo failed when the book was built)\n", out);
    fputs("\\end{verbatim}\n", out);
}
