/* generated from chapters/20-command.nw; edit the book, not this file */
#ifndef MHA_PRINTABLE_H
#define MHA_PRINTABLE_H
/* Text that is safe to print on a terminal (the companion's chapter on the
   command).
   mha_printable_char(s) returns the length in bytes, 1 to 4, of the character
   that starts at s if it is printable: ASCII ' ' to '~', or well-formed UTF-8
   for a code point that is not a C1 control (U+0080..U+009F); otherwise 0,
   as for the terminating zero. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

size_t mha_printable_char(const char *s);
/* One line on stream: "program: ", the message with every character that is
   not printable written as \xHH, a newline. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 0)))
#endif
void mha_print_error(FILE *stream, const char *program, const char *format, va_list args);
#endif
