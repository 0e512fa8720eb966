/* generated from chapters/20-command.nw; edit the book, not this file */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* <<take [[OMP_NUM_THREADS]] out of the environment before OpenMP starts>> */
static void take_thread_setting(int argc, char **argv, char **envp)
{
    static const char name[] = "OMP_NUM_THREADS=";
    const char *setting = NULL;
    (void)argc; (void)argv;
    for (char **e = envp; e != NULL && *e != NULL;) {
        if (strncmp(*e, name, sizeof name - 1) != 0) {
            e++;
            continue;
        }
        if (setting == NULL)
            setting = *e + sizeof name - 1;
        for (char **f = e; *f != NULL; f++)                 /* close the gap */
            f[0] = f[1];
    }
    mha_cli_take_thread_setting(setting);
}
__attribute__((section(".preinit_array"), used))
static void (*const take_thread_setting_first)(int, char **, char **) = take_thread_setting;

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
