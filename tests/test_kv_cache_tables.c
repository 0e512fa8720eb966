/* generated from chapters/36-tests-kv-cache.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "mha.h"
#include "tables.h"

/* <<test the printed tables>> */
static char *print_to_text(void (*print)(FILE *))
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    print(f);
    fclose(f);
    return text;
}

Test(kv_cache, printed_tables) {
    char *mem = print_to_text(mha_print_cache_memory_table);
    cr_expect(strstr(mem, "Llama 2 70B & 80 & 8192 & 64 & 8 & 4\\,096 & 1280 \\\\") != NULL,
              "%s", mem);
    cr_expect(strstr(mem, "GPT-2 small & 12 & 768 & 12 & 12 & 3\\,072 & 144 \\\\") != NULL,
              "%s", mem);
    char *fl = print_to_text(mha_print_decode_flop_table);
    cr_expect(strstr(fl, "127 & 654 & 5.11 & 128 \\\\") != NULL, "%s", fl);
    cr_expect(fabs(mha_decode_flops(768, 12, 12, 127) - (8.0 * 768 * 768 + 4.0 * 128 * 768)) < 1e-3);
    free(mem); free(fl);
}
