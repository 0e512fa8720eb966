/* generated from chapters/17-austen-heads.nw; edit the book, not this file */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lm_files.h"
#include "tables.h"

static const austen_example EXAMPLES[] = {
    {"a verb to its subject", "The cat sat on the mat.", "sat", "cat", 1, 1},
    {"a pronoun to its noun", "The letter lay on the table, and Emma read it twice.", "it",
     "letter", 1, 1},
    {"a pronoun to its noun", "Harriet thanked Mr. Knightley, for he had been very kind.", "he",
     "Knightley", 1, 1},
    {"a pronoun to its noun", "Emma wrote to Harriet, and Harriet answered her at once.", "her",
     "Emma", 1, 1},
    {"a name to its first occurrence", "When Mr. Elton called on Harriet, and then Mr. Elton "
     "called again, she was pleased.", "Elton", "Elton", 2, 1},
    {"a title to the name after its first use", "When Mr. Elton called on Harriet, and then Mr. "
     "Elton called again, she was pleased.", "Mr.", "Elton", 2, 1},
};
enum { EXAMPLE_COUNT = sizeof EXAMPLES / sizeof EXAMPLES[0] };
static long find_word(const char *text, const char *word, int nth, size_t *end)
{
    const size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        const int before = p > text && isalpha((unsigned char)p[-1]);
        const int after = isalpha((unsigned char)p[n]);
        if (!before && !after && --nth == 0) {
            *end = (size_t)(p - text) + n;
            return p - text;
        }
    }
    return -1;
}
int mha_austen_example_weights(const lm_model *m, const bpe *tokenizer,
                               const austen_example *e, austen_example_weights *w)
{
    memset(w, 0, sizeof *w);
    const size_t n = strlen(e->text), T = m->config.context;
    const size_t N = m->config.layers, H = m->config.heads;
    size_t query_end, target_end, count = 0;
    const long query = find_word(e->text, e->query, e->query_nth, &query_end);
    const long target = find_word(e->text, e->target, e->target_nth, &target_end);
    uint32_t *ids = malloc((n + 1) * sizeof *ids);
    int *tokens = malloc((n + 1) * sizeof *tokens);
    size_t *start = malloc((n + 2) * sizeof *start);
    int ok = query >= 0 && target >= 0 && target < query && ids && tokens && start &&
             bpe_encode(tokenizer, (const unsigned char *)e->text, n, ids, &count) == MHA_OK &&
             count > 0 && count <= T;
    for (size_t k = 0, at = 0; ok && k < count; k++) {
        size_t length;
        ok = bpe_token(tokenizer, ids[k], &length) != NULL;
        start[k] = at, at += length, start[k + 1] = at;
        tokens[k] = (int)ids[k];
        if (start[k] < query_end && query_end <= start[k + 1])
            w->query = k;
    }
    size_t pieces = 0;
    for (size_t k = 0; ok && k < count; k++)
        pieces += start[k] < target_end && (long)start[k + 1] > target;
    lm_workspace ws;
    float *weights = ok ? malloc(N * H * count * count * sizeof *weights) : NULL;
    ok = ok && weights && lm_workspace_init(&ws, m, 1, count, 0) == MHA_OK;
    if (ok) {
        ok = lm_forward_weights(m, &ws, tokens, 1, count, weights) == MHA_OK;
        lm_workspace_free(&ws);
    }
    w->best = -1;
    for (size_t l = 0; ok && l < N; l++)
        for (size_t h = 0; h < H; h++) {
            const float *row = weights + (((l * H + h) * count + w->query) * count);
            double sum = 0;
            for (size_t k = 0; k < count; k++)
                if (start[k] < target_end && (long)start[k + 1] > target)
                    sum += row[k];
            w->mean += sum / (double)(N * H);
            if (sum > w->best)
                w->best = sum, w->best_layer = l, w->best_head = h;
        }
    w->tokens = count, w->pieces = pieces;
    w->even = (double)pieces / (double)(w->query + 1);
    free(ids); free(tokens); free(start); free(weights);
    return ok;
}
static const char AUSTEN_MODEL_DIR[] = "models/austen";

static int measure(austen_example_weights w[EXAMPLE_COUNT], austen_heads *roles)
{
    lm_model m = {0};
    bpe tokenizer = {0};
    lm_provenance p;
    char message[512];
    int ok = lm_model_read(AUSTEN_MODEL_DIR, &m, &tokenizer, &p, message, sizeof message) ==
             MHA_OK;
    for (size_t k = 0; ok && k < EXAMPLE_COUNT; k++)
        ok = mha_austen_example_weights(&m, &tokenizer, &EXAMPLES[k], &w[k]);
    if (ok && (!mha_read_austen_heads("figures/austen-heads.tsv", roles) ||
               roles->layers != m.config.layers || roles->heads != m.config.heads))
        memset(roles, 0, sizeof *roles);
    lm_model_free(&m);
    bpe_free(&tokenizer);
    return ok;
}
static const char *role_of(const austen_heads *roles, size_t layer, size_t head)
{
    return roles->heads ? roles->head[layer * roles->heads + head].role : "unmeasured";
}
static void print_marked(FILE *out, const austen_example *e)
{
    size_t query_end, target_end;
    const long q = find_word(e->text, e->query, e->query_nth, &query_end);
    const long t = find_word(e->text, e->target, e->target_nth, &target_end);
    for (long k = 0; e->text[k] != '\0'; k++) {
        if (k == q)
            fputs("\\textbf{", out);
        if (k == t)
            fputs("\\underline{", out);
        fputc(e->text[k], out);
        if ((size_t)k + 1 == query_end || (size_t)k + 1 == target_end)
            fputc('}', out);
    }
}
void mha_print_austen_sentences(FILE *out)
{
    austen_example_weights w[EXAMPLE_COUNT];
    austen_heads *roles = malloc(sizeof *roles);
    if (roles == NULL || !measure(w, roles)) {
        fprintf(out, "(run \\texttt{make austen-model} to make this table)\n");
        free(roles);
        return;
    }
    fprintf(out, "\\begin{tabular}{@{}p{4.4cm}lrrr@{}}\n\\toprule\nsentence & strongest head "
                 "& weight & mean & even \\\\\n\\midrule\n");
    for (size_t k = 0; k < EXAMPLE_COUNT; k++) {
        fprintf(out, "\\raggedright ");
        print_marked(out, &EXAMPLES[k]);
        fprintf(out, " & %zu:%zu (%s) & %.2f & %.2f & %.2f \\\\\n", w[k].best_layer,
                w[k].best_head, role_of(roles, w[k].best_layer, w[k].best_head), w[k].best,
                w[k].mean, w[k].even);
    }
    fprintf(out, "\\bottomrule\n\\end{tabular}\n");
    free(roles);
}
void mha_print_austen_sentences_numbers(FILE *out)
{
    austen_example_weights w[EXAMPLE_COUNT];
    austen_heads *roles = malloc(sizeof *roles);
    if (roles == NULL || !measure(w, roles)) {
        fprintf(out, "\\gdef\\AustenSentencesVerdict{(run \\texttt{make austen-model})}%%\n");
        free(roles);
        return;
    }
    size_t named = 0, above = 0, clearest = 0;
    for (size_t k = 0; k < EXAMPLE_COUNT; k++) {
        const char *role = role_of(roles, w[k].best_layer, w[k].best_head);
        named += strcmp(role, "local") != 0 && strcmp(role, "broad") != 0 &&
                 strcmp(role, "unmeasured") != 0;
        above += w[k].best > 2 * w[k].even;
        clearest = w[k].best / w[k].even > w[clearest].best / w[clearest].even ? k : clearest;
    }
    const austen_example_weights *c = &w[clearest];
    fprintf(out, "\\gdef\\AustenSentencesVerdict{The example of a verb and its subject, "
                 "\\emph{sat} and \\emph{cat}, %s: the strongest head gives cat %.2f of "
                 "the row of sat, but an even spread over the first %zu tokens already "
                 "gives it %.2f, cat being %zu %s.  In %zu of the %d sentences the "
                 "strongest head gives the target more than twice an even spread's "
                 "weight, and in %s of them is that head one the rule names.  The "
                 "clearest is %s: head %zu of block %zu gives %.2f, %.0f times an even spread, "
                 "though the rule calls it %s.}%%\n",
            w[0].best > 2 * w[0].even ? "holds" : "says little here", w[0].best, w[0].query + 1,
            w[0].even, w[0].pieces, w[0].pieces == 1 ? "piece" : "pieces", above, EXAMPLE_COUNT,
            named == 0 ? "none" : named == 1 ? "one" : "several",
            EXAMPLES[clearest].relation, c->best_head, c->best_layer, c->best,
            c->best / c->even, role_of(roles, c->best_layer, c->best_head));
    free(roles);
}
