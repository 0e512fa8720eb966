/* generated from chapters/06-kv-cache.nw, chapters/10-terminal-heads.nw, chapters/11-designed-heads.nw, chapters/13-learning.nw, chapters/15-language-model.nw, chapters/16-austen-model.nw, chapters/17-austen-heads.nw, chapters/20-command.nw, chapters/23-demo-command.nw, chapters/24-measuring.nw, chapters/27-book-tables.nw; edit the book, not this file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables.h"

struct table { const char *file; void (*print)(FILE *); };
static const struct table tables[] = {
    /* <<tables the book includes>> */
    {"decode-flops.tex", mha_print_decode_flop_table},
    {"cache-memory.tex", mha_print_cache_memory_table},
    /* <<tables the book includes>> */
    {"demo-terminal.tex", mha_print_demo_terminal},
    /* <<tables the book includes>> */
    {"designed.tex", mha_print_designed_table},
    /* <<tables the book includes>> */
    {"training.tex", mha_print_training_figure},
    {"training-summary.tex", mha_print_training_summary},
    /* <<tables the book includes>> */
    {"austen-numbers.tex", mha_print_austen_numbers},
    {"austen-baselines.tex", mha_print_austen_baselines},
    /* <<tables the book includes>> */
    {"austen-model-numbers.tex", mha_print_austen_model_numbers},
    {"austen-curve.tex", mha_print_austen_curve},
    {"austen-scores.tex", mha_print_austen_scores},
    {"austen-samples.tex", mha_print_austen_samples},
    /* <<tables the book includes>> */
    {"austen-heads-numbers.tex", mha_print_austen_heads_numbers},
    {"austen-heads.tex", mha_print_austen_heads},
    {"austen-heads-scores.tex", mha_print_austen_heads_scores},
    /* <<tables the book includes>> */
    {"austen-sentences-numbers.tex", mha_print_austen_sentences_numbers},
    {"austen-sentences.tex", mha_print_austen_sentences},
    /* <<tables the book includes>> */
    {"austen-prune-numbers.tex", mha_print_austen_prune_numbers},
    {"austen-prune.tex", mha_print_austen_prune},
    {"austen-prune-curve.tex", mha_print_austen_prune_curve},
    {"austen-prune-plot.tex", mha_print_austen_prune_plot},
    {"austen-prune-roles.tex", mha_print_austen_prune_roles},
    /* <<tables the book includes>> */
    {"heads-count-numbers.tex", mha_print_heads_count_numbers},
    {"heads-count.tex", mha_print_heads_count},
    {"heads-count-figure.tex", mha_print_heads_count_figure},
    /* <<tables the book includes>> */
    {"austen-runs-numbers.tex", mha_print_austen_runs_numbers},
    {"austen-runs.tex", mha_print_austen_runs},
    {"austen-forming.tex", mha_print_austen_forming},
    {"austen-circuit-numbers.tex", mha_print_austen_circuit_numbers},
    {"austen-circuit-names.tex", mha_print_austen_circuit_names},
    {"austen-pieces-forming.tex", mha_print_austen_pieces_forming},
    {"austen-pieces-numbers.tex", mha_print_austen_pieces_numbers},
    {"austen-pieces-names.tex", mha_print_austen_pieces_names},
    /* <<tables the book includes>> */
    {"command-summary.tex", mha_print_command_summary},
    /* <<tables the book includes>> */
    {"demo-sample.tex", mha_print_demo_sample},
    /* <<tables the book includes>> */
    {"lm-profile.tex", mha_print_lm_profile},
    {"lm-profile-numbers.tex", mha_print_lm_profile_numbers},
    /* <<tables the book includes>> */
    {"params.tex", mha_print_param_table},
    {"flops.tex", mha_print_flop_table},
    /* <<tables the book includes>> */
    {"numbers.tex", mha_print_numbers},
    /* <<tables the book includes>> */
    {"example.tex", mha_print_example_table},
    {"erratum.tex", mha_print_erratum},
    /* <<tables the book includes>> */
    {"example-heatmap.tex", mha_print_example_heatmap},

    /* <<tables the book includes>> */
    {"sqrt-d.tex", mha_print_sqrt_d},
    {"softmax-temperature.tex", mha_print_softmax_temperature},
    {"designed-heatmaps.tex", mha_print_designed_heatmaps},
    {"sinusoidal.tex", mha_print_sinusoidal_table},
    {"gelu.tex", mha_print_gelu_curve},
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mha-tables DIR\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], tables[i].file);
        FILE *f = fopen(path, "w");
        if (f == NULL) { perror(path); return 1; }
        tables[i].print(f);
        if (fclose(f) != 0) { perror(path); return 1; }
    }
    return 0;
}
