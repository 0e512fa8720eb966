/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

int main(int argc, char **argv)
{
    int status = mha_cli_main(argc, argv, stdout, stderr);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mha: standard output: %s\n", strerror(errno));
        if (status == MHA_EXIT_OK)
            status = MHA_EXIT_FAILURE;
    }
    return status;
}
