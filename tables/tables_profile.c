/* generated from chapters/24-measuring.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables.h"

const char *const lm_profile_part[LM_PROFILE_PARTS] = {
    "products", "packing", "attention", "softmax", "gelu", "layer_norm", "adamw",
    "bias", "copies", "checks", "waiting", "kernel", "setup", "other"};
static const char *const part_label[LM_PROFILE_PARTS] = {
    "products (the micro-kernel)", "packing the panels", "attention core",
    "exponentials and row sums", "GELU and its derivative", "layer norms", "AdamW",
    "bias gradients", "residual adds and copies", "range checks", "threads waiting",
    "the operating system", "reading, initialising, saving", "everything else"};

static const char *value(const char *line, const char *key, char *buf, size_t size)
{
    char pattern[32];
    snprintf(pattern, sizeof pattern, "%s=", key);
    const char *at = strstr(line, pattern);
    if (at == NULL || size == 0)
        return NULL;
    at += strlen(pattern);
    const size_t n = strcspn(at, " \n");
    snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), at);
    return buf;
}
static long index_of(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return (long)i;
    return -1;
}
int mha_read_lm_profile(const char *path, lm_profile *p)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "r");
    char line[600], v[64], part[32], run[16];
    int ok = f != NULL;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "# ", 2) == 0) {
            snprintf(p->machine, sizeof p->machine, "%.*s", (int)strcspn(line + 2, "\n"),
                     line + 2);
        } else if (value(line, "part", part, sizeof part) != NULL) {
            long i = -1;
            for (size_t k = 0; value(line, "run", run, sizeof run) && k < p->runs; k++)
                if (strcmp(p->isa[k], run) == 0)
                    i = (long)k;
            const long j = index_of(part, lm_profile_part, LM_PROFILE_PARTS);
            ok = i >= 0 && j >= 0 && value(line, "samples", v, sizeof v) != NULL;
            if (ok)
                p->samples[i][j] += atof(v), p->total[i] += atof(v);
        } else if (value(line, "run", run, sizeof run) != NULL) {
            ok = p->runs < LM_PROFILE_RUNS && value(line, "seconds", v, sizeof v) != NULL;
            if (ok) {
                const size_t i = p->runs++;
                snprintf(p->isa[i], sizeof p->isa[i], "%s", run);
                p->seconds[i] = atof(v);
                p->steps[i] = value(line, "steps", v, sizeof v) ? atof(v) : 0;
                p->threads[i] = value(line, "threads", v, sizeof v) ? atof(v) : 0;
            }
        } else {
            ok = line[0] == '\n';
        }
    }
    for (size_t i = 0; ok && i < p->runs; i++)
        ok = p->total[i] > 0 && p->seconds[i] > 0 && p->steps[i] > 0;
    ok = ok && p->runs > 0;
    if (f != NULL)
        fclose(f);
    if (!ok)
        memset(p, 0, sizeof *p);
    return ok;
}
double lm_profile_share(const lm_profile *p, size_t run, size_t part)
{
    return run < p->runs && part < LM_PROFILE_PARTS && p->total[run] > 0
               ? 100 * p->samples[run][part] / p->total[run]
               : 0.0;
}
static void print_numbers(FILE *out, const lm_profile *p, int have)
{
    const size_t last = have ? p->runs - 1 : 0;
    double elementwise = 0;
    for (size_t j = 3; have && j <= 8; j++)               /* softmax .. copies */
        elementwise += lm_profile_share(p, 0, j);
    fprintf(out, "\\gdef\\LmProfileSteps{%.0f}\\gdef\\LmProfileThreads{%.0f}%%\n",
            have ? p->steps[0] : 0.0, have ? p->threads[0] : 0.0);
    fprintf(out, "\\gdef\\LmProfileProducts{%.0f}\\gdef\\LmProfilePacking{%.0f}%%\n",
            lm_profile_share(p, 0, 0), lm_profile_share(p, 0, 1));
    fprintf(out, "\\gdef\\LmProfileElementwise{%.0f}\\gdef\\LmProfileWaiting{%.0f}%%\n",
            elementwise, lm_profile_share(p, 0, 10));
    fprintf(out, "\\gdef\\LmProfileScalarTimes{%.1f}\\gdef\\LmProfileScalarProducts{%.0f}%%\n",
            have && p->seconds[0] > 0 ? p->seconds[last] / p->seconds[0] : 0.0,
            lm_profile_share(p, last, 0));
    fprintf(out, "\\gdef\\LmProfileMachine{%s%s.}%%\n", have ? "Profiled on " : "",
            have ? p->machine : "(no profile: run make profile-lm)");
}
static void print_table(FILE *out, const lm_profile *p, int have)
{
    if (!have) {
        fprintf(out, "(no profile: run make profile-lm)\n");
        return;
    }
    fprintf(out, "\\begin{tabular}{l%.*s}\\toprule\npart of the step", (int)p->runs, "rrrr");
    for (size_t i = 0; i < p->runs; i++)
        fprintf(out, " & %s", p->isa[i]);
    fprintf(out, " \\\\ \\midrule\n");
    for (size_t j = 0; j < LM_PROFILE_PARTS; j++) {
        fprintf(out, "%s", part_label[j]);
        for (size_t i = 0; i < p->runs; i++)
            fprintf(out, " & %.1f\\%%", lm_profile_share(p, i, j));
        fprintf(out, " \\\\\n");
    }
    fprintf(out, "\\midrule seconds for %.0f steps", p->steps[0]);
    for (size_t i = 0; i < p->runs; i++)
        fprintf(out, " & %.1f", p->seconds[i]);
    fprintf(out, " \\\\ \\bottomrule\n\\end{tabular}\n");
}
void mha_print_lm_profile_from(FILE *out, const char *path, int numbers)
{
    lm_profile p;
    const int have = mha_read_lm_profile(path, &p);
    if (numbers)
        print_numbers(out, &p, have);
    else
        print_table(out, &p, have);
}
void mha_print_lm_profile(FILE *out)
{
    mha_print_lm_profile_from(out, "figures/lm-profile.txt", 0);
}
void mha_print_lm_profile_numbers(FILE *out)
{
    mha_print_lm_profile_from(out, "figures/lm-profile.txt", 1);
}
