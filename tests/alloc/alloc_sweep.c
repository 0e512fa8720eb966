/* generated from chapters/25-hardening.nw; edit the book, not this file */
#include <dirent.h>
#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpe_files.h"
#include "checkpoint.h"
#include "designed.h"
#include "fast.h"
#include "head_roles.h"
#include "layer_files.h"
#include "lm_files.h"
#include "ngram.h"
#include "npy.h"
#include "output.h"
#include "printable.h"
#include "wrap_alloc.h"

/* <<[[alloc_sweep.c]] the failing allocator>> */
static long fail_at;     /* the allocation that fails, counted from 1; 0: none fails */
static long made;        /* allocations asked for since the count began */
static int counting;
int alloc_fail_now(void)
{
    if (!counting)
        return 0;
    long n;
#pragma omp atomic capture
    n = ++made;
    return n == fail_at;
}
/* <<[[alloc_sweep.c]] the objects>> */
static char dir[64], path[128];
static char message[512];
static float *fill(size_t n, unsigned seed, float scale)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = scale * ((float)(seed >> 8) / 16777216.0f - 0.5f);
    }
    return x;
}
enum { B = 2, L = 5, E = 8, H = 2, F = 16 };
static const mha_shape shape = {B, L, L, E, H};
static float *in_w, *in_b, *out_w, *out_b, *x, *y, *weights, *grad_out;
static float *g[7];
static mha_params params;
static mha_grads grads;
static const unsigned char padding[B * L] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const mha_mask mask = {1, NULL, NULL, padding};
static mha_saved saved;
static mha_kv_cache cache;
static mha_decoder decoder;
static float *dec_w;
static const mha_impl *impl;
static const mha_decode_impl *decode_impl;
static const mha_backward_impl *backward_impl;
static const mha_block_shape block_shape = {B, L, E, H, F};
static float *block_t[MHA_BLOCK_TENSORS], *block_g[MHA_BLOCK_TENSORS];
static mha_block_params block_params;
static mha_block_grads block_grads;
static mha_block_saved block_saved;
static const lm_config config = {BPE_BYTES + 12, 8, 16, 2, 2, 32};
static lm_model model, model_in;
static lm_workspace ws_infer, ws_train, ws_made;
static lm_adamw adamw;
static lm_decoder lm_dec;
static int tokens[B * 8], targets[B * 8];
static double loss;
static bpe tokenizer, tokenizer_made;
static const char text[] = "the cat sat on the mat; the cat ate the rat, and the rat sat on the hat. "
                           "a mat, a hat, a cat: that is that.";
static uint32_t ids[sizeof text], id_count;
static unsigned char decoded[sizeof text];
static mha_induction_model induction, induction_in;
static mha_learning_workspace learning_ws;
static mha_induction_trainer trainer;
static mha_train_stats stats;
static mha_head_scores scores;
static mha_npy array;
static lm_provenance provenance = {7, "-", "-"};
/* <<[[alloc_sweep.c]] the calls>> */
static size_t dir_entries(void)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}
static void empty(const char *where)
{
    DIR *d = opendir(where);
    char name[400];
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(name, sizeof name, "%s/%s", where, e->d_name);
            remove(name);
        }
    if (d)
        closedir(d);
}
static mha_status call_forward(void)
{
    return impl->forward(&shape, &params, x, NULL, NULL, &mask, y, weights);
}
static mha_saved saved_made;
static mha_status call_forward_saving(void)
{
    return mha_forward_saving(&shape, &params, x, NULL, NULL, &mask, y, &saved_made);
}
static void free_saved(void) { mha_saved_free(&saved_made); }
static mha_status call_backward(void)
{
    return backward_impl->backward(&shape, &params, x, NULL, NULL, &mask, grad_out, &grads);
}
static mha_status call_backward_saved(void)
{
    return mha_backward_saved(&params, x, NULL, NULL, &mask, &saved, grad_out, &grads);
}
static mha_kv_cache cache_made;
static mha_status call_cache_init(void)
{
    return mha_kv_cache_init(&cache_made, B, 1, 8, E / H);
}
static void free_cache_made(void) { mha_kv_cache_free(&cache_made); }
static mha_status call_cache_append(void)
{
    return mha_kv_cache_append(&cache, 1, 3, x, x + 4, E, NULL);
}
static void reset_cache(void) { mha_kv_cache_reset(&cache); }
static mha_status call_decode(void)
{
    return decode_impl->step(&decoder, &cache, 3, x, NULL, y, NULL);
}
static mha_block_saved block_saved_made;
static mha_status call_block_saved_init(void)
{
    return mha_block_saved_init(&block_saved_made, &block_shape);
}
static void free_block_saved_made(void) { mha_block_saved_free(&block_saved_made); }
static mha_status call_block_forward(void)
{
    return mha_block_forward(&block_shape, &block_params, x, &mask, y, &block_saved);
}
static mha_status call_block_backward(void)
{
    return mha_block_backward(&block_shape, &block_params, x, &mask, &block_saved, grad_out, g[0],
                              &block_grads);
}
static mha_status call_block_weights(void)
{
    return mha_block_forward_weights(&block_shape, &block_params, x, &mask, y, weights);
}
static mha_status call_lm_init(void) { return lm_model_init(&model_in, &config, 5); }
static void free_lm_in(void) { lm_model_free(&model_in); bpe_free(&tokenizer_made); }
static mha_status call_ws_init(void) { return lm_workspace_init(&ws_made, &model, B, 8, 1); }
static void free_ws_made(void) { lm_workspace_free(&ws_made); }
static mha_status call_lm_forward(void) { return lm_forward(&model, &ws_infer, tokens, B, 8); }
static mha_status call_lm_loss(void)
{
    return lm_loss(&model, &ws_train, tokens, targets, &loss);
}
static mha_status call_lm_weights(void)
{
    return lm_forward_weights(&model, &ws_infer, tokens, B, 8, weights);
}
static mha_status call_adamw_init(void) { return lm_adamw_init(&adamw, &model); }
static void free_adamw(void) { lm_adamw_free(&adamw); }
static mha_status call_decoder_init(void) { return lm_decoder_init(&lm_dec, &model); }
static void free_decoder(void) { lm_decoder_free(&lm_dec); }
static lm_decoder lm_stepper;
static mha_status call_decoder_step(void) { return lm_decoder_step(&lm_stepper, 3); }
static void reset_decoder(void) { lm_decoder_reset(&lm_stepper); }
static uint64_t batch_state;
static mha_status call_lm_batch(void)
{
    batch_state = 1;
    return lm_batch(tokens, B * 8, 2, 4, 0, &batch_state, targets, targets + 8);
}
static mha_status call_bpe_learn(void)
{
    return bpe_learn((const unsigned char *)text, sizeof text - 1, BPE_BYTES + 12, &tokenizer_made);
}
static void free_tokenizer_made(void) { bpe_free(&tokenizer_made); }
static mha_status call_bpe_from_merges(void)
{
    return bpe_from_merges(tokenizer.merge, tokenizer.vocab - BPE_BYTES, &tokenizer_made);
}
static size_t ids_n;
static mha_status call_bpe_encode(void)
{
    ids_n = sizeof ids / sizeof ids[0];
    return bpe_encode(&tokenizer, (const unsigned char *)text, sizeof text - 1, ids, &ids_n);
}
static size_t decoded_n;
static mha_status call_bpe_decode(void)
{
    return bpe_decode(&tokenizer, ids, id_count, decoded, sizeof decoded, &decoded_n);
}
static mha_status call_induction_init(void)
{
    return mha_induction_model_init(&induction_in, 8, 12, 8, 2, 2, 1);
}
static void free_induction_in(void) { mha_induction_model_free(&induction_in); }
static mha_status call_learning_ws(void)
{
    return mha_learning_workspace_init(&learning_ws, &induction, 4);
}
static void free_learning_ws(void) { mha_learning_workspace_free(&learning_ws); }
static mha_induction_trainer trainer_made;
static const mha_trainer_config *trainer_config(void)
{
    static mha_trainer_config c;
    c = (mha_trainer_config){8, 12, 8, 2, 2, 4, 4, 1, mha_trainer_defaults.optimiser};
    return &c;
}
static mha_status call_trainer_init(void)
{
    return mha_induction_trainer_init(&trainer_made, trainer_config());
}
static void free_trainer_made(void) { mha_induction_trainer_free(&trainer_made); }
static mha_status call_trainer_step(void)
{
    return mha_induction_trainer_step(&trainer, &stats);
}
static mha_induction_trainer trainer_sliced;     /* a batch of two slices */
static const mha_trainer_config *sliced_config(void)
{
    static mha_trainer_config c;
    c = *trainer_config();
    c.batch = MHA_LEARNING_SLICE + 1;
    return &c;
}
static mha_status call_trainer_step_sliced(void)
{
    return mha_induction_trainer_step(&trainer_sliced, &stats);
}
static mha_status call_trainer_measure(void)
{
    return mha_induction_trainer_measure(&trainer, &scores);
}
static const size_t npy_shape[2] = {L, E};
static mha_status call_npy_write(void)
{
    return mha_npy_write(path, x, 2, npy_shape, message, sizeof message);
}
static void clean_dir(void) { empty(dir); }
static char npy_path[128];
static mha_status call_npy_read(void)
{
    return mha_npy_read(npy_path, &array, message, sizeof message);
}
static void free_array(void) { mha_npy_free(&array); }
static mha_status call_checkpoint_write(void)
{
    return induction_checkpoint_write(dir, &induction, message, sizeof message);
}
static char checkpoint_dir[64], lm_dir[64];
static mha_status call_checkpoint_read(void)
{
    return induction_checkpoint_read(checkpoint_dir, 0, &induction_in, message, sizeof message);
}
static mha_status put_model(const char *where, char *text_out, size_t size)
{
    const size_t n = lm_model_file_count(&model);
    char names[64][LM_NAME_MAX + 8];
    const char *list[64];
    if (n > 64)
        return MHA_ERR_ARG;
    for (size_t i = 0; i < n; i++) {
        lm_model_file_name(&model, i, names[i], sizeof names[i]);
        list[i] = names[i];
    }
    mha_status status = mha_output_begin(where, (int)n, list, text_out, size);
    if (status == MHA_OK)
        status = lm_model_put(where, &model, &tokenizer, &provenance, text_out, size);
    if (status == MHA_OK)
        status = mha_output_commit(text_out, size);
    mha_output_end();
    return status;
}
static mha_status call_lm_put(void) { return put_model(dir, message, sizeof message); }
static lm_provenance provenance_in;
static mha_status call_lm_read(void)
{
    return lm_model_read(lm_dir, &model_in, &tokenizer_made, &provenance_in, message, sizeof message);
}
static mha_status call_bpe_write(void)
{
    return bpe_files_write(dir, &tokenizer, message, sizeof message);
}
static mha_status call_bpe_read(void)
{
    return bpe_files_read(lm_dir, &tokenizer_made, message, sizeof message);
}
/* <<[[alloc_sweep.c]] the calls>> */
static char wide_path[128];
static int write_wide(const char *to)
{
    const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
    const size_t total = (10 + sizeof dict + 63) / 64 * 64;   /* the dict, a newline */
    unsigned char bytes[128 + 32] = "\x93NUMPY\x01";
    memset(bytes + 10, ' ', total - 10);
    bytes[8] = (unsigned char)(total - 10);
    memcpy(bytes + 10, dict, sizeof dict - 1);
    bytes[total - 1] = '\n';
    const double wide[4] = {0.5, -1.25, 3.0, 1e-3};
    for (size_t i = 0; i < 4; i++) {
        uint64_t u;
        memcpy(&u, &wide[i], sizeof u);
        for (size_t b = 0; b < 8; b++)
            bytes[total + 8 * i + b] = (unsigned char)(u >> (8 * b));
    }
    FILE *f = fopen(to, "wb");
    const int ok = f != NULL && fwrite(bytes, 1, total + 32, f) == total + 32;
    return (f == NULL || fclose(f) != 0 || !ok) ? -1 : 0;
}
static mha_status call_npy_read_wide(void)
{
    return mha_npy_read(wide_path, &array, message, sizeof message);
}
/* <<[[alloc_sweep.c]] the calls>> */
static ngram_model ngram_made;
static mha_status call_ngram_count(void)
{
    return ngram_count(ids, id_count, tokenizer.vocab, 3, &ngram_made);
}
static void free_ngram_made(void) { ngram_free(&ngram_made); }
static double sample_loss;
static mha_status call_sample_loss(void)
{
    return lm_sample_loss(&model, tokens, B * 8, 2, &sample_loss);
}
static unsigned char classes[BPE_BYTES + 12];
static lm_head_scores head_scores[2 * 2];
static mha_status call_heads_measure(void)
{
    return lm_heads_measure(&model, tokens, B * 8, classes, 2, 1, head_scores);
}
static mha_status mask_loss(const lm_model *m, void *context, double *out)
{
    (void)context;
    return lm_sample_loss(m, tokens, B * 8, 2, out);
}
static double importance[1 + 2 * 2];
static mha_status call_heads_importance(void)
{
    return lm_heads_importance(&model, mask_loss, NULL, importance, importance + 1);
}
static unsigned char *whole;
static size_t whole_n;
static mha_status call_read_whole(void)
{
    whole = NULL;
    return mha_read_whole_file(npy_path, MHA_READ_TABLE_MAX, &whole, &whole_n, message,
                               sizeof message);
}
static void free_whole(void) { free(whole), whole = NULL; }
static char long_path[128];            /* a file longer than the reader's least buffer */
static mha_status call_read_whole_long(void)
{
    whole = NULL;
    return mha_read_whole_file(long_path, MHA_READ_TABLE_MAX, &whole, &whole_n, message,
                               sizeof message);
}
static unsigned char *merges;
static size_t merges_n;
static mha_status call_merges_parse(void)
{
    return bpe_merges_parse(BPE_MERGES_FILE, (const char *)merges, merges_n, &tokenizer_made,
                            message, sizeof message);
}
static const char *const output_names[] = {"a.npy", "b.npy"};
static mha_status call_output_begin(void)
{
    return mha_output_begin(dir, 2, output_names, message, sizeof message);
}
static void end_output(void) { mha_output_end(); }
static double worst[MHA_DESIGNED_HEADS];
static mha_status call_worst_miss(void)
{
    return mha_designed_worst_miss("the cat sat on the mat and the cat ate", worst);
}
static FILE *printed;               /* a temporary file, made by the setup */
static char long_name[1500];
static void print_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    mha_print_error(printed, "mha", format, args);
    va_end(args);
}
static mha_status call_print_error(void)   /* the whole line, or the line cut as promised */
{
    if (fflush(printed) != 0 || ftruncate(fileno(printed), 0) != 0)
        return MHA_ERR_IO;
    rewind(printed);
    print_error("%s: no such file", long_name);
    const long length = ftell(printed);       /* each sizeof's NUL stands for the newline */
    return length == (long)(sizeof "mha: " - 1 + strlen(long_name) + sizeof ": no such file")
               ? MHA_OK
               : length == (long)(sizeof "mha: " - 1 + 1023 + 1) ? MHA_ERR_NOMEM : MHA_ERR_IO;
}
static const char *const family[] = {"s.#.txt", NULL};
static char word[] = "new\n";
static int write_word(FILE *file, void *context)
{
    return fputs(context, file) < 0 ? -1 : 0;
}
static mha_status call_output_removals(void)
{
    static const char *const first[] = {"s.0.txt"};
    mha_status status = mha_output_begin(dir, 1, first, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_own(family, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_stream(write_word, word, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    return status;
}
static void stale_family(void)     /* what a run with six layers left behind */
{
    empty(dir);
    for (int i = 0; i < 6; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s/s.%d.txt", dir, i);
        FILE *f = fopen(name, "w");
        if (f == NULL || fputs("old\n", f) < 0 || fclose(f) != 0) {
            perror(name);                      /* without them the case tests nothing */
            exit(1);
        }
    }
}
static int setup_files(void);
static int setup_more(void)
{
    char merges_path[160];
    snprintf(merges_path, sizeof merges_path, "%s/%s", lm_dir, BPE_MERGES_FILE);
    lm_token_classes(&tokenizer, classes);
    if (mha_read_whole_file(merges_path, MHA_READ_TABLE_MAX, &merges, &merges_n, message,
                            sizeof message) != MHA_OK)
        return fprintf(stderr, "alloc-sweep: setting up: %s\n", message), 1;
    return setup_files();
}
/* <<[[alloc_sweep.c]] the calls>> */
static char state_dir[64], layer_dir[64];
static lm_adamw moments, moments_in;
static const lm_run run = {{BPE_BYTES + 12, 8, 16, 2, 2, 32}, 40, 4, 2, 10, 7, 3e-3, 0.25, 11,
                           12345, "-", "-", 0, LM_INIT_SD, LM_INIT_SD};
static char history_steps[] = "step\tloss\n7\t2.5\n", history_heads[] = "step\tlayer\n7\t0\n";
static const lm_history history = {history_steps, sizeof history_steps - 1, history_heads,
                                   sizeof history_heads - 1};
static mha_status put_state(const char *where, char *text_out, size_t size)
{
    mha_status status = mha_output_begin(where, LM_STATE_FILES, lm_state_names, text_out, size);
    if (status == MHA_OK)
        status = lm_state_put(where, &run, &model, &moments, &tokenizer, &history, text_out,
                              size);
    if (status == MHA_OK)
        status = mha_output_commit(text_out, size);
    mha_output_end();
    return status;
}
static mha_status call_state_put(void) { return put_state(dir, message, sizeof message); }
static lm_run run_in;
static lm_history history_in;
static mha_status call_state_read(void)
{
    return lm_state_read(state_dir, &run_in, &model_in, &moments_in, &tokenizer_made,
                         &history_in, message, sizeof message);
}
static void free_state_in(void)
{
    lm_model_free(&model_in), lm_adamw_free(&moments_in), bpe_free(&tokenizer_made);
    free(history_in.steps), free(history_in.heads), history_in = (lm_history){0};
}
static mha_layer_files layer_in;
static mha_shape layer_shape;
static void free_layer_in(void) { mha_layer_files_free(&layer_in); }
static mha_status call_layer_read(void)
{
    return mha_layer_read(layer_dir, "in_proj_weight.npy", 1, MHA_WANT_FLOAT,
                          &layer_in.in_proj_weight, message, sizeof message);
}
static mha_status call_layer_read_checked(void)
{
    const mha_axis axes[] = {{"E", E}};
    return mha_layer_read_checked(layer_dir, "out_proj_bias.npy", 1, MHA_WANT_FLOAT,
                                  &layer_in.out_proj_bias, 1, axes, message, sizeof message);
}
static mha_status call_layer_read_projections(void)
{
    return mha_layer_read_projections(layer_dir, "3E", 3 * E, E, &layer_in, message,
                                      sizeof message);
}
static mha_status call_layer_read_query(void)
{
    return mha_layer_read_query(layer_dir, &layer_in, message, sizeof message);
}
static mha_status call_layer_read_forward(void)
{
    return mha_layer_read_forward(layer_dir, H, &layer_in, &layer_shape, message, sizeof message);
}
static lm_prune_step pruned[2];
static mha_status call_heads_prune(void)
{
    return lm_heads_prune(&model, mask_loss, NULL, 2, pruned);
}
static ngram_model ngram;
static double ngram_bits_out;
static mha_status call_ngram_bits(void)
{
    return ngram_bits(&ngram, 3, ids, id_count, &ngram_bits_out);
}
static int setup_files(void)
{
    const size_t in_w_shape[2] = {3 * E, E}, in_b_shape[1] = {3 * E};
    const size_t out_w_shape[2] = {E, E}, out_b_shape[1] = {E}, query_shape[3] = {B, L, E};
    const struct { const char *name; const float *data; size_t rank; const size_t *shape; }
        layer[] = {{"query.npy", x, 3, query_shape}, {"in_proj_weight.npy", in_w, 2, in_w_shape},
                   {"in_proj_bias.npy", in_b, 1, in_b_shape},
                   {"out_proj_weight.npy", out_w, 2, out_w_shape},
                   {"out_proj_bias.npy", out_b, 1, out_b_shape}};
    char *made_dir[2] = {state_dir, layer_dir};
    for (size_t i = 0; i < 2; i++) {
        strcpy(made_dir[i], "/tmp/mha-alloc-sweep-XXXXXX");
        if (!mkdtemp(made_dir[i]))
            return perror("alloc-sweep: mkdtemp"), 1;
    }
    mha_status status = lm_adamw_init(&moments, &model);
    for (size_t i = 0; status == MHA_OK && i < model.count; i++)  /* moments that are not 0 */
        moments.m[i] = 0.01f * (float)(i % 7), moments.v[i] = 0.001f * (float)(i % 5);
    if (status == MHA_OK)
        status = ngram_count(ids, id_count, tokenizer.vocab, 3, &ngram);
    if (status == MHA_OK)
        status = put_state(state_dir, message, sizeof message);
    for (size_t i = 0; status == MHA_OK && i < sizeof layer / sizeof layer[0]; i++) {
        char file[160];
        snprintf(file, sizeof file, "%s/%s", layer_dir, layer[i].name);
        status = mha_npy_write(file, layer[i].data, layer[i].rank, layer[i].shape, message,
                               sizeof message);
    }
    if (status != MHA_OK)
        return fprintf(stderr, "alloc-sweep: setting up the files: %s\n", message), 1;
    return 0;
}
/* <<[[alloc_sweep.c]] the cases>> */
typedef struct sweep_case {
    char name[40];
    mha_status (*call)(void);
    void (*undo)(void);        /* gives back what the call made; NULL: nothing */
    int undo_failed;           /* undo after a failed call too (what an init leaves, to free) */
    void *out;                 /* compared with the first call's, bit for bit; NULL: nothing */
    size_t out_bytes;
    int writes;                /* a writer: the directory must be left as it was */
} sweep_case;
/* <<[[alloc_sweep.c]] the setup>> */
static int setup(void)
{
    const size_t n3 = 3 * E * E;
    in_w = fill(n3, 1, 0.5f), in_b = fill(3 * E, 2, 0.1f);
    out_w = fill(E * E, 3, 0.5f), out_b = fill(E, 4, 0.1f);
    x = fill(B * L * E, 5, 1.0f), grad_out = fill(B * L * E, 6, 1.0f);
    y = calloc(B * L * E, sizeof *y);
    weights = calloc(config.layers * B * config.heads * 8 * 8, sizeof *weights);
    params = (mha_params){in_w, in_b, out_w, out_b};
    const size_t sizes[7] = {B * L * E, B * L * E, B * L * E, n3, 3 * E, E * E, E};
    for (size_t i = 0; i < 7; i++)
        g[i] = calloc(sizes[i], sizeof *g[i]);
    grads = (mha_grads){g[0], NULL, NULL, g[3], g[4], g[5], g[6]};
    mha_status status = mha_forward_saving(&shape, &params, x, NULL, NULL, &mask, y, &saved);
    dec_w = fill((E + 2 * (E / H)) * E, 7, 0.5f);
    decoder = (mha_decoder){E, H, 1, {dec_w, NULL, out_w, out_b}, 1, 0};
    if (status == MHA_OK)
        status = mha_kv_cache_init(&cache, B, 1, 8, E / H);
    for (size_t i = 0; i < MHA_BLOCK_TENSORS; i++) {
        size_t dims[2];
        const size_t count = mha_block_tensor_shape(&block_shape, i, dims) == 2 ? dims[0] * dims[1]
                                                                                : dims[0];
        block_t[i] = fill(count, 10 + (unsigned)i, 0.3f);
        block_g[i] = calloc(count, sizeof *block_g[i]);
    }
    block_params = mha_block_params_from((const float *const *)block_t);
    block_grads = mha_block_grads_from(block_g);
    if (status == MHA_OK)
        status = mha_block_saved_init(&block_saved, &block_shape);
    if (status == MHA_OK)
        status = mha_block_forward(&block_shape, &block_params, x, &mask, y, &block_saved);
    for (size_t i = 0; i < B * 8; i++)
        tokens[i] = (int)((i * 7 + 3) % config.vocab), targets[i] = (int)((i * 5 + 1) % config.vocab);
    if (status == MHA_OK)
        status = lm_model_init(&model, &config, 3);
    if (status == MHA_OK)
        status = lm_workspace_init(&ws_infer, &model, B, 8, 0);
    if (status == MHA_OK)
        status = lm_workspace_init(&ws_train, &model, B, 8, 1);
    if (status == MHA_OK)
        status = lm_decoder_init(&lm_stepper, &model);
    if (status == MHA_OK)
        status = bpe_learn((const unsigned char *)text, sizeof text - 1, BPE_BYTES + 12, &tokenizer);
    size_t count = sizeof ids / sizeof ids[0];
    if (status == MHA_OK)
        status = bpe_encode(&tokenizer, (const unsigned char *)text, sizeof text - 1, ids, &count);
    id_count = (uint32_t)count;
    if (status == MHA_OK)
        status = mha_induction_model_init(&induction, 8, 12, 8, 2, 2, 1);
    if (status == MHA_OK)
        status = mha_induction_trainer_init(&trainer, trainer_config());
    if (status == MHA_OK)
        status = mha_induction_trainer_init(&trainer_sliced, sliced_config());
    if (status != MHA_OK)
        return fprintf(stderr, "alloc-sweep: setting up: %s\n", mha_status_message(status)), 1;
    char *made_dir[3] = {dir, checkpoint_dir, lm_dir};
    for (size_t i = 0; i < 3; i++) {
        strcpy(made_dir[i], "/tmp/mha-alloc-sweep-XXXXXX");
        if (!mkdtemp(made_dir[i]))
            return perror("alloc-sweep: mkdtemp"), 1;
    }
    snprintf(path, sizeof path, "%s/x.npy", dir);
    snprintf(npy_path, sizeof npy_path, "%s/x.npy", checkpoint_dir);
    snprintf(wide_path, sizeof wide_path, "%s/wide.npy", checkpoint_dir);
    if (write_wide(wide_path) != 0)
        return perror("alloc-sweep: writing wide.npy"), 1;
    memset(long_name, 'n', sizeof long_name - 1);
    if ((printed = tmpfile()) == NULL)
        return perror("alloc-sweep: tmpfile"), 1;
    snprintf(long_path, sizeof long_path, "%s/long.txt", checkpoint_dir);
    FILE *longer = fopen(long_path, "wb");
    for (size_t i = 0; longer != NULL && i <= (size_t)1 << 16; i++)
        putc('a' + (int)(i % 26), longer);
    if (longer == NULL || fclose(longer) != 0)
        return perror("alloc-sweep: writing long.txt"), 1;
    if (mha_npy_write(npy_path, x, 2, npy_shape, message, sizeof message) != MHA_OK ||
        induction_checkpoint_write(checkpoint_dir, &induction, message, sizeof message) != MHA_OK ||
        put_model(lm_dir, message, sizeof message) != MHA_OK)
        return fprintf(stderr, "alloc-sweep: setting up: %s\n", message), 1;
    return setup_more();
}
/* <<[[alloc_sweep.c]] the sweep>> */
typedef struct sweep_result {
    long allocations, failed, other, absorbed;
} sweep_result;
static int same_output(const sweep_case *c, const void *want)
{
    return c->out == NULL || memcmp(c->out, want, c->out_bytes) == 0;
}
static int sweep(const sweep_case *c, sweep_result *r)
{
    *r = (sweep_result){0, 0, 0, 0};
    unsigned char *want = malloc(c->out_bytes ? c->out_bytes : 1);
    int bad = !want;
    if (c->call() != MHA_OK)                 /* a first call may make what later calls reuse */
        bad = fprintf(stderr, "alloc-sweep: %s: %s\n", c->name, message);
    if (c->undo)
        c->undo();
    const size_t entries = dir_entries();    /* what each counted call finds */
    for (long n = 0; !bad; n++) {
        if (c->out)                          /* NaN bytes: a result must be written again */
            memset(c->out, 0xff, c->out_bytes);
        fast_scratch_release();              /* the kept scratch is allocated again, and failed */
        made = 0, fail_at = n, counting = 1;
        mha_status status = c->call();
        counting = 0, fail_at = 0;
        const int injected = n > 0 && made >= n;
        if (n == 0) {
            r->allocations = made;
            if (status != MHA_OK) {
                fprintf(stderr, "alloc-sweep: %s: %s\n", c->name, mha_status_message(status));
                bad = 1;
            } else if (c->out)
                memcpy(want, c->out, c->out_bytes);
        } else if (!injected) {
            if (status != MHA_OK || !same_output(c, want)) {
                fprintf(stderr, "alloc-sweep: %s: %s after %ld allocations\n", c->name,
                        mha_status_message(status), n - 1);
                bad = 1;
            }
        } else if (status == MHA_OK) {
            r->absorbed++;
            if (!same_output(c, want)) {
                fprintf(stderr, "alloc-sweep: %s: allocation %ld failed and the call returned "
                        "MHA_OK with another result\n", c->name, n);
                bad = 1;
            }
        } else {
            r->failed++;
            r->other += status != MHA_ERR_NOMEM;
            if (c->writes && dir_entries() != entries) {
                fprintf(stderr, "alloc-sweep: %s: allocation %ld failed and %s holds %zu "
                        "entries, not %zu\n", c->name, n, dir, dir_entries(), entries);
                bad = 1;
            }
            if (c->undo && c->undo_failed)
                c->undo();
            if (c->out)
                memset(c->out, 0xff, c->out_bytes);
            status = c->call();
            if (status != MHA_OK || !same_output(c, want)) {
                fprintf(stderr, "alloc-sweep: %s: after allocation %ld failed, the next call "
                        "gives %s%s\n", c->name, n, mha_status_message(status),
                        status == MHA_OK ? " and another result" : "");
                bad = 1;
            }
        }
        if (c->undo && (status == MHA_OK || c->undo_failed))
            c->undo();
        if (n > 0 && !injected)
            break;
    }
    free(want);
    return bad;
}
/* <<[[alloc_sweep.c]] the program>> */
int main(int argc, char **argv)
{
    const char *tex = argc == 3 && strcmp(argv[1], "--tex") == 0 ? argv[2] : NULL;
    if (argc != 1 && !tex)
        return fprintf(stderr, "usage: alloc-sweep [--tex FILE]\n"), 2;
    omp_set_num_threads(1);
    if (mha_set_threads(1) != MHA_OK || setup() != 0)
        return 1;
    enum { CASES_MAX = 96 };
    static sweep_case c[CASES_MAX];
    size_t n = 0;
    const size_t yb = B * L * E * sizeof(float), gb = 3 * E * E * sizeof(float);
    const void *impl_of[CASES_MAX] = {0};
    for (size_t i = 0; i < mha_impl_count; i++, n++) {
        c[n] = (sweep_case){"", call_forward, NULL, 0, y, yb, 0};
        snprintf(c[n].name, sizeof c[n].name, "mha_forward (%s)", mha_impls[i].name);
        impl_of[n] = &mha_impls[i];
    }
    c[n++] = (sweep_case){"mha_forward_saving", call_forward_saving, free_saved, 1, y, yb, 0};
    for (size_t i = 0; i < mha_backward_impl_count; i++, n++) {
        c[n] = (sweep_case){"", call_backward, NULL, 0, g[3], gb, 0};
        snprintf(c[n].name, sizeof c[n].name, "mha_backward (%s)", mha_backward_impls[i].name);
        impl_of[n] = &mha_backward_impls[i];
    }
    c[n++] = (sweep_case){"mha_backward_saved", call_backward_saved, NULL, 0, g[3], gb, 0};
    c[n++] = (sweep_case){"mha_kv_cache_init", call_cache_init, free_cache_made, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_kv_cache_append", call_cache_append, reset_cache, 0, NULL, 0, 0};
    for (size_t i = 0; i < mha_decode_impl_count; i++, n++) {
        c[n] = (sweep_case){"", call_decode, reset_cache, 0, y, B * 3 * E * sizeof(float), 0};
        snprintf(c[n].name, sizeof c[n].name, "mha_decode_step (%s)", mha_decode_impls[i].name);
        impl_of[n] = &mha_decode_impls[i];
    }
    c[n++] = (sweep_case){"mha_block_saved_init", call_block_saved_init, free_block_saved_made, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_block_forward", call_block_forward, NULL, 0, y, yb, 0};
    c[n++] = (sweep_case){"mha_block_backward", call_block_backward, NULL, 0, g[0], yb, 0};
    c[n++] = (sweep_case){"mha_block_forward_weights", call_block_weights, NULL, 0, y, yb, 0};
    c[n++] = (sweep_case){"lm_model_init", call_lm_init, free_lm_in, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"lm_workspace_init", call_ws_init, free_ws_made, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"lm_forward", call_lm_forward, NULL, 0, ws_infer.logits,
                          B * 8 * config.vocab * sizeof(float), 0};
    c[n++] = (sweep_case){"lm_loss", call_lm_loss, NULL, 0, &loss, sizeof loss, 0};
    c[n++] = (sweep_case){"lm_forward_weights", call_lm_weights, NULL, 0, weights,
                          config.layers * B * config.heads * 8 * 8 * sizeof(float), 0};
    c[n++] = (sweep_case){"lm_adamw_init", call_adamw_init, free_adamw, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"lm_decoder_init", call_decoder_init, free_decoder, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"lm_decoder_step", call_decoder_step, reset_decoder, 0, NULL, 0, 0};
    c[n++] = (sweep_case){"lm_batch", call_lm_batch, NULL, 0, targets, sizeof targets, 0};
    c[n++] = (sweep_case){"bpe_learn", call_bpe_learn, free_tokenizer_made, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"bpe_from_merges", call_bpe_from_merges, free_tokenizer_made, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"bpe_encode", call_bpe_encode, NULL, 0, ids, sizeof ids, 0};
    c[n++] = (sweep_case){"bpe_decode", call_bpe_decode, NULL, 0, decoded, sizeof decoded, 0};
    c[n++] = (sweep_case){"mha_induction_model_init", call_induction_init, free_induction_in, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_learning_workspace_init", call_learning_ws, free_learning_ws, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_induction_trainer_init", call_trainer_init, free_trainer_made, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_induction_trainer_step", call_trainer_step, NULL, 0, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_induction_trainer_step (slices)", call_trainer_step_sliced, NULL,
                          0, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_induction_trainer_measure", call_trainer_measure, NULL, 0,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_npy_write", call_npy_write, clean_dir, 0, NULL, 0, 1};
    c[n++] = (sweep_case){"mha_npy_read", call_npy_read, free_array, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_npy_read (float64)", call_npy_read_wide, free_array, 1, NULL, 0,
                          0};
    c[n++] = (sweep_case){"induction_checkpoint_write", call_checkpoint_write, clean_dir, 0,
                          NULL, 0, 1};
    c[n++] = (sweep_case){"induction_checkpoint_read", call_checkpoint_read, free_induction_in, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"lm_model_put", call_lm_put, clean_dir, 0, NULL, 0, 1};
    c[n++] = (sweep_case){"lm_model_read", call_lm_read, free_lm_in, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"bpe_files_write", call_bpe_write, clean_dir, 0, NULL, 0, 1};
    c[n++] = (sweep_case){"bpe_files_read", call_bpe_read, free_tokenizer_made, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"ngram_count", call_ngram_count, free_ngram_made, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"lm_sample_loss", call_sample_loss, NULL, 0, &sample_loss,
                          sizeof sample_loss, 0};
    c[n++] = (sweep_case){"lm_heads_measure", call_heads_measure, NULL, 0, head_scores,
                          sizeof head_scores, 0};
    c[n++] = (sweep_case){"lm_heads_importance", call_heads_importance, NULL, 0, importance,
                          sizeof importance, 0};
    c[n++] = (sweep_case){"mha_read_whole_file", call_read_whole, free_whole, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_read_whole_file (long)", call_read_whole_long, free_whole, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"bpe_merges_parse", call_merges_parse, free_tokenizer_made, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_designed_worst_miss", call_worst_miss, NULL, 0, worst,
                          sizeof worst, 0};
    c[n++] = (sweep_case){"mha_print_error", call_print_error, NULL, 0, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_output_begin", call_output_begin, end_output, 1, NULL, 0, 1};
    c[n++] = (sweep_case){"mha_output_commit (removals)", call_output_removals, stale_family, 0,
                          NULL, 0, 1};
    c[n++] = (sweep_case){"lm_state_put", call_state_put, clean_dir, 0, NULL, 0, 1};
    c[n++] = (sweep_case){"lm_state_read", call_state_read, free_state_in, 1, &run_in,
                          sizeof run_in, 0};
    c[n++] = (sweep_case){"mha_layer_read", call_layer_read, free_layer_in, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_layer_read_checked", call_layer_read_checked, free_layer_in, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_layer_read_projections", call_layer_read_projections,
                          free_layer_in, 1, NULL, 0, 0};
    c[n++] = (sweep_case){"mha_layer_read_query", call_layer_read_query, free_layer_in, 1,
                          NULL, 0, 0};
    c[n++] = (sweep_case){"mha_layer_read_forward", call_layer_read_forward, free_layer_in, 1,
                          &layer_shape, sizeof layer_shape, 0};
    c[n++] = (sweep_case){"lm_heads_prune", call_heads_prune, NULL, 0, pruned, sizeof pruned, 0};
    c[n++] = (sweep_case){"ngram_bits", call_ngram_bits, NULL, 0, &ngram_bits_out,
                          sizeof ngram_bits_out, 0};
    int bad = 0;
    long points = 0;
    FILE *t = tex ? fopen(tex, "w") : NULL;
    if (tex && !t)
        return perror(tex), 1;
    printf("%-32s %11s %8s %6s %8s\n", "entry point", "allocations", "failures", "other", "absorbed");
    if (t)
        fputs("\\begin{tabular}{lrr}\nentry point & allocations & failed in turn \\\\\n\\hline\n", t);
    for (size_t i = 0; i < n; i++) {
        impl = impl_of[i], decode_impl = impl_of[i], backward_impl = impl_of[i];
        sweep_result r;
        bad |= sweep(&c[i], &r);
        points += r.failed + r.absorbed;
        printf("%-32s %11ld %8ld %6ld %8ld\n", c[i].name, r.allocations, r.failed, r.other,
               r.absorbed);
        if (t) {
            fputs("\\texttt{", t);
            for (const char *s = c[i].name; *s; s++)
                fputs(*s == '_' ? "\\_" : (char[2]){*s, 0}, t);
            fprintf(t, "} & %ld & %ld \\\\\n", r.allocations, r.failed);
        }
    }
    printf("alloc-sweep: %zu entry points, %ld allocations failed in turn%s\n", n, points,
           bad ? "; FAILED" : "");
    if (t)
        fputs("\\end{tabular}\n", t);
    if (t && fclose(t) != 0)
        return perror(tex), 1;
    const char *made_dir[5] = {dir, checkpoint_dir, lm_dir, state_dir, layer_dir};
    for (size_t i = 0; i < 5; i++)
        empty(made_dir[i]), rmdir(made_dir[i]);
    free(merges);
    fclose(printed);
    return bad;
}
