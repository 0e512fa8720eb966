/* generated from chapters/47-tests-austen-model.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "lm.h"
#include "random.h"
#include "run.h"

static const lm_config tiny = {64, 16, 32, 4, 2, 128};

static float *golden(const char *name, size_t *n)
{
    char path[128];
    snprintf(path, sizeof path, "golden/lm_tiny/%s.npy", name);
    return read_npy_floats(path, n);
}
static void load_tiny(lm_model *m)
{
    size_t n;
    cr_assert_eq(lm_model_alloc(m, &tiny), MHA_OK);
    float *p = golden("params", &n);
    cr_assert_eq(n, m->count, "params.npy holds %zu values, the model %zu", n, m->count);
    memcpy(m->params, p, n * sizeof *p);
    free(p);
}
static int *golden_ints(const char *name, size_t *n)
{
    float *f = golden(name, n);
    int *t = malloc(*n * sizeof *t);
    for (size_t i = 0; i < *n; i++)
        t[i] = (int)f[i];
    free(f);
    return t;
}
Test(lm, loss_and_gradients_equal_pytorch) {
    lm_model m;
    load_tiny(&m);
    size_t n;
    int *x = golden_ints("tokens", &n), *y = golden_ints("targets", &n);
    float *want = golden("grads", &n), *loss_want = golden("loss", &n);
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, 2, 16, 1), MHA_OK);
    double loss;
    cr_assert_eq(lm_loss(&m, &ws, x, y, &loss), MHA_OK);
    cr_expect(fabs(loss - loss_want[0]) <= 1e-5 * loss_want[0], "loss %.8f, PyTorch %.8f",
              loss, (double)loss_want[0]);
    for (size_t t = 0; t < m.tensor_count; t++) {
        const lm_tensor *tensor = &m.tensors[t];
        const size_t count = tensor->shape[0] * (tensor->rank == 2 ? tensor->shape[1] : 1);
        double top = 0, worst = 0;
        for (size_t k = 0; k < count; k++)
            top = fmax(top, fabs(want[tensor->offset + k]));
        for (size_t k = 0; k < count; k++) {
            const double d = fabs((double)ws.grads[tensor->offset + k] - want[tensor->offset + k]);
            worst = d > worst || d != d ? d : worst;
        }
        cr_expect(worst <= 1e-4 * top + 1e-7, "%s: gradient off by %g (largest %g)",
                  tensor->name, worst, top);
    }
    lm_workspace_free(&ws);
    lm_model_free(&m);
    free(x); free(y); free(want); free(loss_want);
}
Test(lm, decoding_through_the_caches_equals_the_full_forward) {
    lm_model m;
    load_tiny(&m);
    size_t n;
    int *x = golden_ints("tokens", &n);
    float *want = golden("logits", &n);
    lm_workspace ws;
    lm_decoder d;
    cr_assert_eq(lm_workspace_init(&ws, &m, 1, 16, 0), MHA_OK);
    cr_assert_eq(lm_decoder_init(&d, &m), MHA_OK);
    cr_assert_eq(lm_forward(&m, &ws, x, 1, 16), MHA_OK);
    double top = 0, worst = 0, decoded = 0;
    for (size_t k = 0; k < 16 * 64; k++) {
        top = fmax(top, fabs(want[k]));
        const double e = fabs((double)ws.logits[k] - want[k]);
        worst = e > worst || e != e ? e : worst;
    }
    cr_expect(worst <= 1e-5 * top, "forward logits off by %g", worst);
    for (size_t t = 0; t < 16; t++) {
        cr_assert_eq(lm_decoder_step(&d, x[t]), MHA_OK);
        for (size_t v = 0; v < 64; v++) {
            const double e = fabs((double)d.logits[v] - ws.logits[t * 64 + v]);
            decoded = e > decoded || e != e ? e : decoded;
        }
    }
    cr_expect(decoded <= 1e-5 * top, "decoded logits off by %g", decoded);
    cr_expect_eq(lm_decoder_step(&d, x[0]), MHA_ERR_CACHE_FULL);
    lm_decoder_free(&d);
    lm_workspace_free(&ws);
    lm_model_free(&m);
    free(x); free(want);
}
Test(lm, two_adamw_steps_equal_pytorch) {
    lm_model m;
    load_tiny(&m);
    size_t n;
    float *g = golden("grads", &n), *want = golden("adamw_after", &n);
    cr_assert_eq(n, m.count);
    lm_adamw opt;
    cr_assert_eq(lm_adamw_init(&opt, &m), MHA_OK);
    cr_expect(opt.beta1 == 0.9 && opt.beta2 == 0.95 && opt.weight_decay == 0.1);
    lm_adamw_step(&opt, &m, g, 3e-3);
    for (size_t k = 0; k < n; k++)
        g[k] *= -0.5f;
    lm_adamw_step(&opt, &m, g, 3e-3);
    double worst = 0;
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        const double e = fabs((double)m.params[k] - want[k]) / fmax(1e-3, fabs(want[k]));
        if (e > worst || e != e)
            worst = e, at = k;
    }
    cr_expect(worst <= 1e-5, "parameter %zu off by %g relative", at, worst);
    lm_adamw_free(&opt);
    lm_model_free(&m);
    free(g); free(want);
}
Test(lm, the_schedule_warms_up_then_follows_the_cosine) {
    cr_expect(lm_learning_rate(0, 10, 110, 1.0) == 0.0);
    cr_expect(fabs(lm_learning_rate(5, 10, 110, 1.0) - 0.5) < 1e-12);
    cr_expect(fabs(lm_learning_rate(10, 10, 110, 1.0) - 1.0) < 1e-12);
    cr_expect(fabs(lm_learning_rate(60, 10, 110, 1.0) - 0.55) < 1e-12);
    cr_expect(fabs(lm_learning_rate(110, 10, 110, 1.0) - 0.1) < 1e-12);
}
Test(lm, a_short_training_run_lowers_the_loss) {
    lm_model m;
    const lm_config c = {16, 8, 16, 2, 1, 64};
    cr_assert_eq(lm_model_init(&m, &c, 3), MHA_OK);
    int text[400];
    for (size_t i = 0; i < 400; i++)
        text[i] = (int)((i * 7 + i / 5) % 11);
    lm_workspace ws;
    lm_adamw opt;
    cr_assert_eq(lm_workspace_init(&ws, &m, 4, 8, 1), MHA_OK);
    cr_assert_eq(lm_adamw_init(&opt, &m), MHA_OK);
    uint64_t state = mha_random_seeded(1);
    int x[32], y[32];
    double first = 0, last = 0;
    for (size_t step = 1; step <= 150; step++) {
        double loss;
        cr_assert_eq(lm_batch(text, 400, 4, 8, &state, x, y), MHA_OK);
        cr_assert_eq(lm_loss(&m, &ws, x, y, &loss), MHA_OK);
        lm_clip_gradient(ws.grads, m.count, 1.0);
        lm_adamw_step(&opt, &m, ws.grads, lm_learning_rate(step, 10, 150, 1e-2));
        first = step == 1 ? loss : first;
        last = loss;
    }
    cr_expect(first > 0.9 * log(16.0), "first loss %g", first);
    cr_expect(last < 0.25 * first, "loss %g after 150 steps, %g at the first", last, first);
    lm_adamw_free(&opt);
    lm_workspace_free(&ws);
    lm_model_free(&m);
}
Test(lm, sampling_follows_the_softmax_and_its_seed) {
    const float z[4] = {0.0f, (float)log(2.0), (float)log(3.0), (float)log(4.0)};
    float scratch[4];
    uint64_t s = mha_random_seeded(7);
    cr_expect_eq(lm_sample(z, 4, 0.0, 0, &s, scratch), 3);
    cr_expect_eq(lm_sample(z, 4, 5.0, 1, &s, scratch), 3);
    size_t counts[4] = {0};
    for (size_t i = 0; i < 100000; i++) {
        counts[lm_sample(z, 4, 1.0, 0, &s, scratch)]++;
    }
    for (size_t v = 0; v < 4; v++)
        cr_expect(fabs((double)counts[v] / 100000 - (double)(v + 1) / 10) < 0.01,
                  "token %zu drawn %zu times in 100000", v, counts[v]);
    uint64_t u = mha_random_seeded(9), w = mha_random_seeded(9);
    for (size_t i = 0; i < 100; i++)
        cr_expect_eq(lm_sample(z, 4, 0.8, 3, &u, scratch), lm_sample(z, 4, 0.8, 3, &w, scratch));
}
#include "scratch.h"

static char *small_text(const char *dir, const char *name, uint64_t seed, size_t words)
{
    static const char *const vocabulary[] = {
        "the", "of", "and", "to", "her", "a", "I", "in", "was", "it", "she", "not", "be",
        "that", "he", "had", "as", "for", "you", "with", "his", "Elizabeth", "Darcy", "Emma",
        "Mr.", "Mrs.", "could", "would", "very", "said", "much", "must", "sister", "Anne"};
    const size_t count = sizeof vocabulary / sizeof vocabulary[0];
    uint64_t state = mha_random_seeded(seed);
    char *text = malloc(words * 16 + 1);
    size_t used = 0;
    for (size_t w = 0; w < words; w++)
        used += (size_t)sprintf(text + used, "%s%s", vocabulary[mha_random(&state) % count],
                                w % 12 == 11 ? ".\n" : " ");
    write_bytes(dir, name, text, used);
    free(text);
    return strdup(path_in(dir, name));
}
static void remove_tree(char *dir)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
    free(dir);
}
static struct cli_result train_small(const char *dir, const char *out, const char *extra1,
                                     const char *extra2)
{
    char text[256], valid[256], where[256];
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(where, sizeof where, "%s/%s", dir, out);
    return run_mha("lm", "train", "--text", text, "--valid", valid, "--out", where, "--vocab",
                   "300", "--layers", "2", "--heads", "2", "--dim", "16", "--context", "16",
                   "--batch", "4", "--steps", "12", "--eval-every", "4", "--lr", "0.01",
                   extra1, extra2, NULL);
}
static int same_file(const char *dir, const char *a, const char *b)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/%s", dir, a);
    snprintf(pb, sizeof pb, "%s/%s", dir, b);
    a = pa, b = pb;
    size_t n, m;
    char *x = slurp(a, &n), *y = slurp(b, &m);
    const int same = n == m && memcmp(x, y, n) == 0;
    free(x);
    free(y);
    return same;
}
Test(lm_command, a_resumed_run_equals_the_uninterrupted_one) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result a = train_small(dir, "a", NULL, NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    struct cli_result b = train_small(dir, "b", "--stop-at", "6");
    cr_assert_eq(b.status, 0, "%s", b.err);
    char state[256], text[256], valid[256], out[256];
    snprintf(state, sizeof state, "%s/b.state", dir);
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(out, sizeof out, "%s/b", dir);
    cr_assert(!same_file(dir, "a.state/arrays.npy", "b.state/arrays.npy"),
              "the stopped run's state equals the finished one's");
    struct cli_result c = run_mha("lm", "train", "--resume", state, "--text", text, "--valid",
                                  valid, "--out", out, NULL);
    cr_assert_eq(c.status, 0, "%s", c.err);
    static const char *const files[] = {
        "a.state/arrays.npy", "a.state/history.tsv", "a.state/state.txt", "a/model.txt",
        "a/tok_emb.weight.npy", "a/blocks.1.linear2.weight.npy", "a/norm.bias.npy",
        "a/merges.txt"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char other[256];
        snprintf(other, sizeof other, "b%s", files[f] + 1);
        cr_expect(same_file(dir, files[f], other), "%s differs after the resume",
                  files[f] + 1);
    }
    free_result(&a); free_result(&b); free_result(&c);
    remove_tree(dir);
}
Test(lm_command, eval_prints_one_line_and_generation_follows_its_seed) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    char model[256], valid[256];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    struct cli_result e = run_mha("lm", "eval", model, "--text", valid, NULL);
    cr_assert_eq(e.status, 0, "%s", e.err);
    size_t tokens, bytes, context, stride;
    double loss, bits;
    int used = 0;
    cr_expect_eq(sscanf(e.out, "tokens=%zu bytes=%zu loss=%lf bits_per_char=%lf context=%zu "
                        "stride=%zu\n%n", &tokens, &bytes, &loss, &bits, &context, &stride,
                        &used), 6, "%s", e.out);
    cr_expect(used > 0 && e.out[used] == '\0' && context == 16 && stride == 8, "%s", e.out);
    cr_expect(loss > 0 && loss < log(300.0) && bits > 0, "%s", e.out);
    struct cli_result g[3];
    const char *seeds[3] = {"5", "5", "6"};
    for (int k = 0; k < 3; k++) {
        g[k] = run_mha("lm", "generate", model, "--prompt", "Emma was", "--tokens", "40",
                       "--temperature", "1", "--seed", seeds[k], NULL);
        cr_assert_eq(g[k].status, 0, "%s", g[k].err);
    }
    cr_expect(strlen(g[0].out) > 40 && strcmp(g[0].out, g[1].out) == 0, "%s|%s", g[0].out,
              g[1].out);
    cr_expect(strcmp(g[0].out, g[2].out) != 0, "seeds 5 and 6 gave the same text");
    free_result(&t); free_result(&e);
    for (int k = 0; k < 3; k++)
        free_result(&g[k]);
    remove_tree(dir);
}
static void expect_one_error(struct cli_result r, const char *naming)
{
    cr_expect(r.status != 0, "succeeded: %s", r.out);
    cr_expect(strncmp(r.err, "mha: ", 5) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
              "not one 'mha:' line: %s", r.err);
    cr_expect(strstr(r.err, naming) != NULL, "'%s' does not name %s", r.err, naming);
    free_result(&r);
}
Test(lm_command, bad_inputs_get_one_line) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    write_bytes(dir, "empty.txt", "", 0);
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    char model[256], valid[256], empty[256], missing[256], long_prompt[4000] = "";
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(empty, sizeof empty, "%s/empty.txt", dir);
    snprintf(missing, sizeof missing, "%s/none", dir);
    expect_one_error(run_mha("lm", "eval", missing, "--text", valid, NULL), "none/model.txt");
    expect_one_error(run_mha("lm", "eval", model, "--text", empty, NULL), "empty.txt");
    expect_one_error(run_mha("lm", "train", "--text", empty, "--out", missing, NULL),
                     "empty.txt");
    expect_one_error(run_mha("lm", "eval", model, "--text", valid, "--context", "17", NULL),
                     "--context");
    for (int i = 0; i < 100; i++)
        strcat(long_prompt, "Anne Darcy ");
    expect_one_error(run_mha("lm", "generate", model, "--prompt", long_prompt, NULL),
                     "--prompt");
    write_bytes(model, "norm.bias.npy", "\x93NUMPY", 6);
    expect_one_error(run_mha("lm", "eval", model, "--text", valid, NULL), "norm.bias.npy");
    write_bytes(model, "model.txt", "format mha-checkpoint 1\nmodel gpt\nlayers 2\n", 43);
    expect_one_error(run_mha("lm", "generate", model, "--prompt", "Emma", NULL), "model.txt");
    remove_tree(dir);
}
