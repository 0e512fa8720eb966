/* generated from chapters/15-language-model.nw; edit the book, not this file */
#ifndef MHA_SHA256_H
#define MHA_SHA256_H
/* SHA-256 (FIPS 180-4) of bytes in memory, as 64 lowercase hex digits and a NUL. */
#include <stddef.h>

void mha_sha256_hex(const unsigned char *bytes, size_t n, char hex[65]);
#endif
