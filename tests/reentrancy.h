/* generated from chapters/25-hardening.nw; edit the book, not this file */
#ifndef REENTRANCY_H
#define REENTRANCY_H
/* Reentrancy: run every implementation in two threads at once and compare
   with the same calls made one after the other.  Returns the number of
   mismatches, each described on report; 0 means reentrant. */
#include <stddef.h>
#include <stdio.h>
size_t reentrancy_check(FILE *report);
#endif
