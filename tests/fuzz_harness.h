/* generated from chapters/25-hardening.nw; edit the book, not this file */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H
/* The fuzz targets of the hardening appendix as plain functions, shared by the libFuzzer
   programs in tests/fuzz/ and by the Criterion suite.  Each fuzz_*_one runs
   one input; when a property fails it prints the reason on stderr and calls
   abort(), which libFuzzer and Criterion both report. */
#include <stddef.h>
#include <stdint.h>

int fuzz_setup(void);              /* make a private directory and enter it: 0 on success */
void fuzz_teardown(void);          /* leave it and remove it */
void fuzz_npy_one(const uint8_t *data, size_t size);
void fuzz_cli_one(const uint8_t *data, size_t size);
void fuzz_forward_one(const uint8_t *data, size_t size);
void fuzz_checkpoint_one(const uint8_t *data, size_t size);
void fuzz_bpe_one(const uint8_t *data, size_t size);
void fuzz_lm_one(const uint8_t *data, size_t size);
#endif
