/* generated from chapters/26-exercises.nw; edit the book, not this file */
/* src/exercise_record.c of a grading directory (the exercises appendix): the
   lines after an exercise's end marker report what the hole computed, one line
   a call, to the file that EXERCISE_RECORD names.  The grader compares the
   lines with those of the book's answer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void exercise_record_floats(const float *x, size_t n);
void exercise_record_int(long value);
void exercise_record_case(const char *format, ...);

enum { RECORD_VALUES = 1 << 18 };
static FILE *record;
static int opened;
static size_t recorded;

static FILE *record_file(void)
{
    if (!opened) {
        const char *path = getenv("EXERCISE_RECORD");
        opened = 1;
        record = path ? fopen(path, "a") : NULL;
    }
    if (record != NULL && recorded > RECORD_VALUES) {
        fputs("more\n", record);               /* the rest is not recorded */
        fclose(record);
        record = NULL;
    }
    return record;
}

void exercise_record_floats(const float *x, size_t n)
{
    FILE *f = record_file();
    if (f == NULL)
        return;
    fprintf(f, "floats %zu", n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %.9g", (double)x[i]);
    fputc('\n', f);
    fflush(f);
    recorded += n + 1;
}

void exercise_record_int(long value)
{
    FILE *f = record_file();
    if (f == NULL)
        return;
    fprintf(f, "int %ld\n", value);
    fflush(f);
    recorded++;
}

void exercise_record_case(const char *format, ...)
{
    FILE *f = record_file();
    char text[160];
    if (f == NULL)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    for (char *c = text; *c != '\0'; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    fprintf(f, "case %s\n", text);
    fflush(f);
    recorded++;
}
