/* generated from chapters/20-command.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tables.h"

/* <<[[tables_command.c]] running the command into memory>> */
/* What 'mha ARGS' prints on standard output, in a string the caller frees;
   NULL if the command fails or memory runs out. */
static char *command_output(int argc, char **argv)
{
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    if (mem == NULL)
        return NULL;
    const int status = mha_cli_main(argc, argv, mem, stderr);
    if (fclose(mem) != 0 || status != MHA_EXIT_OK) {
        free(text);
        return NULL;
    }
    return text;
}
/* <<[[tables_command.c]] the summary>> */
void mha_print_command_summary(FILE *out)
{
    char *help_argv[] = {"mha", "help", NULL};
    char *overview = command_output(2, help_argv);
    if (overview == NULL) {
        fputs("(mha help failed when the book was built)\n", out);
        return;
    }
    fprintf(out, "\\begin{verbatim}\n%s\\end{verbatim}\n", overview);
    for (char *line = overview; line != NULL && *line != '\0';) {
        char *end = strchr(line, '\n'), name[32];
        if (end != NULL)
            *end = '\0';
        if (strncmp(line, "  ", 2) == 0 && line[2] != ' ' && sscanf(line, "%31s", name) == 1
            && strcmp(name, "help") != 0) {
            char *argv[] = {"mha", name, "--help", NULL};
            char *help = command_output(3, argv);
            char *cut = help != NULL ? strchr(help, '\n') : NULL;
            while (cut != NULL && cut[1] == ' ')           /* the usage's indented lines */
                cut = strchr(cut + 1, '\n');
            if (cut != NULL)
                cut[1] = '\0';
            fprintf(out, "\\begin{verbatim}\n%s\\end{verbatim}\n",
                    help != NULL ? help : "(its --help failed when the book was built)\n");
            free(help);
        }
        line = end != NULL ? end + 1 : NULL;
    }
    free(overview);
}
