/* generated from chapters/20-command.nw; edit the book, not this file */
#include <stdlib.h>
#include "printable.h"

size_t mha_printable_char(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] >= 0x20 && u[0] < 0x7f)
        return 1;
    if (u[0] < 0xc2 || u[0] > 0xf4)                 /* controls, continuations, overlong */
        return 0;
    const size_t n = u[0] < 0xe0 ? 2 : u[0] < 0xf0 ? 3 : 4;
    unsigned long code = u[0] & (0x7f >> n);
    for (size_t k = 1; k < n; k++) {
        if ((u[k] & 0xc0) != 0x80)                  /* also stops at the zero byte */
            return 0;
        code = code << 6 | (u[k] & 0x3f);
    }
    static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < least[n] || code > 0x10ffff || (code >= 0xd800 && code < 0xe000) ||
        (code >= 0x80 && code < 0xa0))
        return 0;
    return n;
}

void mha_print_error(FILE *stream, const char *program, const char *format, va_list args)
{
    va_list again;
    char line[1024], *text = line;
    va_copy(again, args);
    const int n = vsnprintf(line, sizeof line, format, args);
    if (n >= (int)sizeof line && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, format, again);
    va_end(again);
    fprintf(stream, "%s: ", program);
    for (const char *p = text != NULL ? text : line; *p != '\0';) {
        const size_t k = mha_printable_char(p);
        if (k > 0)
            fwrite(p, 1, k, stream);
        else
            fprintf(stream, "\\x%02x", (unsigned char)*p);
        p += k > 0 ? k : 1;
    }
    fputc('\n', stream);
    if (text != line)
        free(text);
}
