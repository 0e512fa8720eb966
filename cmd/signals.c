/* generated from chapters/23-writing-results.nw; edit the book, not this file */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "output.h"
#include "signals.h"

static const struct { int sig; const char *line; } stops[] = {
    {SIGHUP, "mha: stopped by SIGHUP (the terminal hung up)\n"},
    {SIGINT, "mha: stopped by SIGINT (interrupted)\n"},
    {SIGQUIT, "mha: stopped by SIGQUIT\n"},
    {SIGTERM, "mha: stopped by SIGTERM (terminated)\n"},
    {SIGALRM, "mha: stopped by SIGALRM (a timer ran out)\n"},
    {SIGUSR1, "mha: stopped by SIGUSR1\n"},
    {SIGUSR2, "mha: stopped by SIGUSR2\n"},
    {SIGPIPE, "mha: stopped by SIGPIPE (a pipe it wrote to was closed)\n"},
    {SIGXCPU, "mha: stopped by SIGXCPU (the CPU time limit)\n"},
};
enum { STOPS = sizeof stops / sizeof stops[0] };
static volatile sig_atomic_t stop_fd = STDERR_FILENO;

static void stop(int sig)
{
    if (!mha_output_abandon(sig))
        return;                              /* in a commit: raised again after it */
    for (int k = 0; k < STOPS; k++)
        if (stops[k].sig == sig && write(stop_fd, stops[k].line, strlen(stops[k].line)) < 0)
            break;
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(sig, &fallback, NULL);
    raise(sig);
}

int mha_run_stoppable(mha_command_fn *run, int argc, char **argv, FILE *out, FILE *err)
{
    struct sigaction action, ignore, previous[STOPS], previous_xfsz;
    memset(&action, 0, sizeof action);
    memset(&ignore, 0, sizeof ignore);
    action.sa_handler = stop;
    sigfillset(&action.sa_mask);
    ignore.sa_handler = SIG_IGN;
    stop_fd = fileno(err) >= 0 ? fileno(err) : STDERR_FILENO;
    for (int k = 0; k < STOPS; k++) {
        sigaction(stops[k].sig, NULL, &previous[k]);
        if (!(previous[k].sa_flags & SA_SIGINFO) && previous[k].sa_handler == SIG_DFL)
            sigaction(stops[k].sig, &action, NULL);
    }
    sigaction(SIGXFSZ, &ignore, &previous_xfsz);
    const int status = run(argc, argv, out, err);
    for (int k = 0; k < STOPS; k++)
        sigaction(stops[k].sig, &previous[k], NULL);
    sigaction(SIGXFSZ, &previous_xfsz, NULL);
    return status;
}
