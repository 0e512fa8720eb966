/* generated from chapters/06-kv-cache.nw; edit the book, not this file */
#include <stdio.h>
#include "tables.h"

/* <<[[tables_kv_cache.c]] functions>> */
void mha_print_decode_flop_table(FILE *out)
{
    static const size_t positions[] = {127, 1023, 4095};
    char a[64];
    fprintf(out, "\\begin{tabular}{rrrr}\n\\toprule\n"
                 "token position $t$ & recompute (MFLOP) & with cache (MFLOP) & ratio \\\\\n"
                 "\\midrule\n");
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        const size_t t = positions[i];
        const mha_shape s = {1, t + 1, t + 1, 768, 12};
        const double full = mha_flop_count(&s).total, cached = mha_decode_flops(768, 12, 12, t);
        fprintf(out, "%zu & %s & %.3g & %.0f \\\\\n", t, format_millions(a, full),
                cached / 1e6, full / cached);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
/* <<[[tables_kv_cache.c]] functions>> */
static const struct cache_model {
    const char *name;
    size_t layers, embed_dim, heads, kv_heads;
} cache_models[] = {
    {"GPT-2 small", 12, 768, 12, 12},   {"Llama 2 7B", 32, 4096, 32, 32},
    {"Llama 2 70B", 80, 8192, 64, 8},   {"Mistral 7B", 32, 4096, 32, 8},
    {"Falcon 7B", 32, 4544, 71, 1},
};

void mha_print_cache_memory_table(FILE *out)
{
    char a[64];
    fprintf(out, "\\begin{tabular}{lrrrrrr}\n\\toprule\n"
                 "model & layers & $E$ & $H$ & $H_{kv}$ & bytes/token/layer & 4096 tokens (MiB) \\\\\n"
                 "\\midrule\n");
    for (size_t i = 0; i < sizeof cache_models / sizeof cache_models[0]; i++) {
        const struct cache_model *m = &cache_models[i];
        const size_t D = m->embed_dim / m->heads, per_token = 2 * m->kv_heads * D * 2;
        const double total = (double)per_token * (double)m->layers * 4096.0 / (1024.0 * 1024.0);
        fprintf(out, "%s & %zu & %zu & %zu & %zu & %s & %.0f \\\\\n", m->name, m->layers,
                m->embed_dim, m->heads, m->kv_heads, format_count(a, per_token), total);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
}
