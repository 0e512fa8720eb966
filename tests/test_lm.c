/* generated from chapters/47-tests-austen-model.nw, chapters/48-tests-austen-heads.nw; edit the book, not this file */
#define _DEFAULT_SOURCE                 /* flock, for another run's lock */
#include <dirent.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "cli.h"
#include "fast.h"
#include "fuzz_harness.h"
#include "lm.h"
#include "npy.h"
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
    lm_adamw_step(&opt, &m, g, 1.0, 3e-3);
    lm_adamw_step(&opt, &m, g, -0.5, 3e-3);
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
    cr_expect(fabs(lm_learning_rate(150, 10, 110, 1.0) - 0.1) < 1e-12, "%g",
              lm_learning_rate(150, 10, 110, 1.0));
}
Test(lm, without_a_warm_up_the_cosine_starts_at_once) {
    cr_expect(lm_learning_rate(0, 0, 110, 1.0) == 0.0, "%g", lm_learning_rate(0, 0, 110, 1.0));
    cr_expect(fabs(lm_learning_rate(55, 0, 110, 2.0) - 1.1) < 1e-12);
    cr_expect(fabs(lm_learning_rate(1, 0, 1, 2.0) - 0.2) < 1e-12);
}
Test(lm, a_freed_model_or_workspace_is_refused) {
    lm_model m, gone;
    load_tiny(&m);
    cr_assert_eq(lm_model_init(&gone, &tiny, 1), MHA_OK);
    cr_expect_not_null(lm_tensor_find(&m, "norm.bias"));
    cr_expect_null(lm_tensor_find(&m, "norm.gain"));
    lm_model_free(&gone);
    lm_workspace ws, freed;
    cr_assert_eq(lm_workspace_init(&ws, &m, 1, 4, 0), MHA_OK);
    cr_assert_eq(lm_workspace_init(&freed, &m, 1, 4, 0), MHA_OK);
    lm_workspace_free(&freed);
    const int tokens[4] = {1, 2, 3, 4};
    cr_expect_eq(lm_forward(&gone, &ws, tokens, 1, 4), MHA_ERR_NULL);
    cr_expect_eq(lm_forward(&m, &freed, tokens, 1, 4), MHA_ERR_NULL);
    cr_expect_eq(lm_forward(&m, &ws, tokens, 1, 4), MHA_OK);
    lm_workspace_free(&ws);
    lm_model_free(&m);
}
static void unfused_adamw_step(lm_adamw *opt, lm_model *model, float *g, double rate)
{
    double sum = 0;
    for (size_t i = 0; i < model->count; i++)
        sum += (double)g[i] * g[i];
    const double norm = sqrt(sum);
    if (norm > 1.0)
        for (size_t i = 0; i < model->count; i++)
            g[i] *= (float)(1.0 / norm);
    const double t = (double)(++opt->step);
    const double fix1 = 1 - pow(opt->beta1, t), fix2 = sqrt(1 - pow(opt->beta2, t));
    for (size_t i = 0; i < model->tensor_count; i++) {
        const lm_tensor *tensor = &model->tensors[i];
        const size_t n = tensor->shape[0] * (tensor->rank == 2 ? tensor->shape[1] : 1);
        const double shrink = tensor->decay ? 1 - rate * opt->weight_decay : 1;
        for (size_t k = tensor->offset; k < tensor->offset + n; k++) {
            opt->m[k] = (float)(opt->beta1 * opt->m[k] + (1 - opt->beta1) * g[k]);
            opt->v[k] = (float)(opt->beta2 * opt->v[k] + (1 - opt->beta2) * (double)g[k] * g[k]);
            const double denom = sqrt((double)opt->v[k]) / fix2 + opt->epsilon;
            model->params[k] = (float)(model->params[k] * shrink - rate / fix1 * opt->m[k] / denom);
        }
    }
}

Test(lm, the_fused_step_is_the_same_on_any_threads_and_matches_the_unfused_one) {
    const lm_config c = {64, 16, 32, 4, 2, 160};
    const double rate = 3e-2;
    lm_model m[3];
    lm_adamw opt[3];
    int x[8 * 16], y[8 * 16];
    for (size_t i = 0; i < 8 * 16; i++)
        x[i] = (int)((i * 7 + i / 5) % 64), y[i] = (int)((i * 11 + 3) % 64);
    for (int run = 0; run < 3; run++) {
        cr_assert_eq(lm_model_init(&m[run], &c, 5), MHA_OK);
        cr_assert_eq(lm_adamw_init(&opt[run], &m[run]), MHA_OK);
    }
    const size_t n = m[0].count;
    float *g = malloc(n * sizeof *g);
    cr_assert(g != NULL);
    double worst = 0;
    for (size_t step = 1; step <= 3; step++) {
        for (int run = 0; run < 2; run++) {
            cr_assert_eq(mha_set_threads(run == 0 ? 1 : 0), MHA_OK);
            lm_workspace ws;
            double loss;
            cr_assert_eq(lm_workspace_init(&ws, &m[run], 8, 16, 1), MHA_OK);
            cr_assert_eq(lm_loss(&m[run], &ws, x, y, &loss), MHA_OK);
            if (run == 0) {                      /* the unfused step starts from run 0's */
                memcpy(m[2].params, m[0].params, n * sizeof(float));
                memcpy(opt[2].m, opt[0].m, n * sizeof(float));
                memcpy(opt[2].v, opt[0].v, n * sizeof(float));
                opt[2].step = opt[0].step;
                memcpy(g, ws.grads, n * sizeof *g);
            }
            lm_adamw_step(&opt[run], &m[run], ws.grads,
                          lm_clip_scale(lm_gradient_norm(ws.grads, n), 1.0), rate);
            lm_workspace_free(&ws);
        }
        cr_assert_eq(mha_set_threads(0), MHA_OK);
        cr_expect_arr_eq(m[0].params, m[1].params, n * sizeof(float), "step %zu", step);
        unfused_adamw_step(&opt[2], &m[2], g, rate);
        for (size_t k = 0; k < n; k++) {
            const double e = fabs((double)m[0].params[k] - m[2].params[k]) /
                             ((fabs(m[2].params[k]) + 4 * rate) * 0x1p-24);
            cr_expect(e <= 8.0, "step %zu: parameter %zu is %.9g, the unfused step's %.9g", step,
                      k, (double)m[0].params[k], (double)m[2].params[k]);
            worst = fmax(worst, e);
        }
    }
    cr_log_info("fused against unfused: worst %.2f units", worst);
    for (int run = 0; run < 3; run++)
        lm_adamw_free(&opt[run]), lm_model_free(&m[run]);
    free(g);
}
static void expect_governor(size_t all, double one_time, double all_time, const char *what)
{
    cr_assert_eq(mha_set_threads(all), MHA_OK);
    mha_cli_governor g;
    mha_cli_governor_init(&g);
    for (size_t k = 1; k <= 2 * MHA_GOVERNOR_EVERY + 10; k++) {
        const size_t threads = mha_cli_governor_threads(&g), phase = k % MHA_GOVERNOR_EVERY;
        size_t want = all;
        if (all > 1 && phase == MHA_GOVERNOR_FIRST)
            want = 1;                                            /* the trial on one */
        else if (all > 1 && phase != MHA_GOVERNOR_FIRST + 1 && k > MHA_GOVERNOR_FIRST + 1)
            want = one_time < all_time ? 1 : all;                /* the faster of the two */
        cr_expect_eq(threads, want, "%s: step %zu on %zu threads, not %zu", what, k, threads,
                     want);
        if (k == 7) {
            mha_cli_governor_before(&g);
            cr_expect_eq(mha_threads(), want, "%s: before sets the threads", what);
        }
        mha_cli_governor_after(&g, threads == 1 ? one_time : all_time);
    }
    mha_cli_governor_end(&g);
    cr_expect_eq(mha_threads(), all, "%s: the threads given back", what);
    cr_assert_eq(mha_set_threads(0), MHA_OK);
}

Test(lm, the_governor_keeps_the_faster_thread_count) {
    if (mha_threads_max() < 2)
        cr_skip_test("one core");
    expect_governor(2, 1.0, 2.0, "busy");
    expect_governor(2, 2.0, 1.0, "idle");
    expect_governor(1, 1.0, 2.0, "one thread asked for");
}
Test(lm, the_update_kernel_matches_double_in_every_instruction_set) {
    const fast_kernels *const isas[] = {&fast_kernels_scalar,
#if defined(__x86_64__)
                                        &fast_kernels_avx2, &fast_kernels_avx512,
#endif
    };
    enum { N = 37 };
    const double b1 = 0.9, b2 = 0.95, eps = 1e-8, rate = 3e-3, scale = 0.75, t = 3;
    const double fix1 = 1 - pow(b1, t), fix2 = sqrt(1 - pow(b2, t)), shrink = 1 - rate * 0.1;
    const fast_adamw_rule rule = {(float)scale, (float)b1, (float)b2, (float)eps, (float)shrink,
                                  (float)(rate / fix1), (float)fix2};
    float p0[N], m0[N], v0[N], g[N];
    for (size_t i = 0; i < N; i++) {
        g[i] = (float)((i % 2 ? -1 : 1) * pow(10.0, -6.0 + 7.0 * (double)i / (N - 1)));
        p0[i] = 0.02f * (float)((int)i - 18), m0[i] = 0.3f * g[i], v0[i] = 0.5f * g[i] * g[i];
    }
    for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
        if (!fast_kernels_supported(isas[k]))
            continue;
        float p[N], m[N], v[N];
        memcpy(p, p0, sizeof p), memcpy(m, m0, sizeof m), memcpy(v, v0, sizeof v);
        isas[k]->adamw(p, m, v, g, N, &rule);
        for (size_t i = 0; i < N; i++) {
            const double gi = (double)g[i] * (float)scale;
            const double mi = b1 * m0[i] + (1 - b1) * gi, vi = b2 * v0[i] + (1 - b2) * gi * gi;
            const double step = rate / fix1 * mi / (sqrt(vi) / fix2 + eps);
            const double pi = p0[i] * shrink - step;
            cr_expect(fabs(p[i] - pi) <= 4 * FLT_EPSILON * (fabs(pi) + fabs(step)) &&
                      fabs(m[i] - mi) <= 4 * FLT_EPSILON * fabs(mi) &&
                      fabs(v[i] - vi) <= 4 * FLT_EPSILON * vi,
                      "%s: parameter %zu: %.9g (want %.9g), moments %.9g %.9g (want %.9g %.9g)",
                      isas[k]->name, i, (double)p[i], pi, (double)m[i], (double)v[i], mi, vi);
        }
    }
}

Test(lm, a_batch_repeats_a_passage_in_its_share_of_windows) {
    enum { N = 5000, T = 64, B = 400 };
    static int text[N], x[B * T], y[B * T];
    for (size_t i = 0; i < N; i++)
        text[i] = (int)i;
    uint64_t state = mha_random_seeded(7), copy = state;
    cr_assert_eq(lm_batch(text, N, B, T, 0, &state, x, y), MHA_OK);
    for (size_t b = 0; b < B; b++) {
        const int start = (int)(mha_random(&copy) % (uint64_t)(N - T));
        for (size_t j = 0; j < T; j++)
            cr_assert(x[b * T + j] == start + (int)j && y[b * T + j] == start + (int)j + 1,
                      "window %zu, token %zu: %d %d from %d", b, j, x[b * T + j], y[b * T + j],
                      start);
    }
    const double shares[2] = {1.0, 0.5};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(lm_batch(text, N, B, T, shares[k], &state, x, y), MHA_OK);
        size_t repeated = 0;
        for (size_t b = 0; b < B; b++) {
            int w[T + 1];
            memcpy(w, x + b * T, T * sizeof *w);
            w[T] = y[b * T + T - 1];
            for (size_t j = 1; j < T; j++)
                cr_assert_eq(y[b * T + j - 1], x[b * T + j], "targets are inputs shifted");
            size_t c = 1;                          /* the first break in the run */
            while (c <= T && w[c] == w[c - 1] + 1)
                c++;
            if (c > T)
                continue;
            const int d = w[c - 1] + 1 - w[c];     /* the copy reaches d tokens back */
            size_t r = 0;
            while (c + r <= T && w[c + r] == w[c] + (int)r)
                r++;
            repeated++;
            cr_expect(d >= (int)r && r >= 20 && r <= (T + 1) / 2,
                      "window %zu: a copy of %zu tokens from %d back", b, r, d);
            for (size_t j = c + r; j <= T; j++)
                cr_expect_eq(w[j], w[0] + (int)j, "window %zu goes on after its copy at %zu", b,
                             j);
        }
        if (k == 0)
            cr_expect_eq(repeated, B, "a share of one repeats every window");
        else
            cr_expect(repeated > B / 2 - 60 && repeated < B / 2 + 60, "%zu of %d repeated",
                      repeated, B);
    }
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
        cr_assert_eq(lm_batch(text, 400, 4, 8, 0, &state, x, y), MHA_OK);
        cr_assert_eq(lm_loss(&m, &ws, x, y, &loss), MHA_OK);
        lm_adamw_step(&opt, &m, ws.grads, lm_clip_scale(lm_gradient_norm(ws.grads, m.count), 1.0),
                      lm_learning_rate(step, 10, 150, 1e-2));
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
    const float broken[4] = {0.0f, NAN, 1.0f, 2.0f};
    for (size_t i = 0; i < 20; i++) {
        const int token = lm_sample(broken, 4, 1.0, 0, &s, scratch);
        cr_expect(token >= 0 && token < 4, "token %d from logits holding a NaN", token);
    }
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
/* The tiny run on dir's train.txt and valid.txt into dir/out, with up to six
   more arguments (the first NULL ends them). */
static struct cli_result train_tiny(const char *dir, const char *out,
                                    const char *const more[6])
{
    char text[256], valid[256], where[256];
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(where, sizeof where, "%s/%s", dir, out);
    return run_mha("lm", "train", "--text", text, "--valid", valid, "--out", where, "--vocab",
                   "300", "--layers", "2", "--heads", "2", "--dim", "16", "--context", "16",
                   "--batch", "4", "--steps", "12", "--eval-every", "4", "--lr", "0.01",
                   more[0], more[1], more[2], more[3], more[4], more[5], NULL);
}
static struct cli_result train_small(const char *dir, const char *out, const char *extra1,
                                     const char *extra2)
{
    return train_tiny(dir, out, (const char *const[6]){extra1, extra2});
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
        "a.state/arrays.npy", "a.state/history.tsv", "a.state/heads-history.tsv",
        "a.state/state.txt", "a/model.txt",
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
Test(lm_command, a_model_saved_over_another_removes_its_tables) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result a = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(a.status, 0, "%s", a.err);
    char model[256];
    snprintf(model, sizeof model, "%s/m", dir);
    write_bytes(model, "heads.tsv", "# heads of the first model\n", 27);
    write_bytes(model, "prune.tsv", "# prune of the first model\n", 27);
    write_bytes(model, "notes.txt", "mine\n", 5);
    struct cli_result b = train_small(dir, "m", "--seed", "2");
    cr_assert_eq(b.status, 0, "%s", b.err);
    const char *names[3] = {"heads.tsv", "prune.tsv", "notes.txt"};
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen(path_in(model, names[k]), "r");
        cr_expect((f != NULL) == (k == 2), "%s is %s", names[k], f ? "there" : "gone");
        if (f != NULL)
            fclose(f);
    }
    free_result(&a); free_result(&b);
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
#include <unistd.h>
Test(lm_command, usage_and_refusals_before_any_work) {
    expect_help("lm", "train");
    expect_help("lm", "eval");
    expect_help("lm", "generate");
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 50));
    char text[256], missing[256], none[256], out[256], long_out[5000];
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(missing, sizeof missing, "%s/missing.txt", dir);
    snprintf(none, sizeof none, "%s/none", dir);
    snprintf(out, sizeof out, "%s/m", dir);
    snprintf(long_out, sizeof long_out, "%s/%04200d", dir, 0);
    struct cli_result r = run_mha("lm", "eval", "--text", text, NULL);
    cr_expect_eq(r.status, 2);
    expect_one_error(r, "the model directory");
    r = run_mha("lm", "generate", "--prompt", "Emma", NULL);
    cr_expect_eq(r.status, 2);
    expect_one_error(r, "the model directory");
    r = run_mha("lm", "generate", out, NULL);
    cr_expect_eq(r.status, 2);
    expect_one_error(r, "--prompt");
    expect_one_error(run_mha("lm", "train", "--text", missing, "--out", out, NULL),
                     "missing.txt");
    expect_one_error(run_mha("lm", "train", "--text", text, "--tokenizer", none, "--out",
                             out, NULL), "none/merges.txt");
    r = run_mha("lm", "train", "--text", text, "--out", long_out, NULL);
    cr_expect_eq(r.status, 2);
    expect_one_error(r, "--out: name too long");
    cr_expect(access(out, F_OK) != 0 && access(path_in(dir, "m.state"), F_OK) != 0,
              "a refused run wrote a model");
    remove_tree(dir);
}
Test(lm, every_bad_argument_is_refused) {
    const struct { lm_config c; mha_status want; } configs[] = {
        {{1, 16, 32, 4, 2, 128}, MHA_ERR_SHAPE}, {{64, 1, 32, 4, 2, 128}, MHA_ERR_SHAPE},
        {{64, 16, 0, 4, 2, 128}, MHA_ERR_SHAPE}, {{64, 16, 32, 0, 2, 128}, MHA_ERR_SHAPE},
        {{64, 16, 32, 4, 0, 128}, MHA_ERR_SHAPE}, {{64, 16, 32, 4, 2, 0}, MHA_ERR_SHAPE},
        {{64, 16, 32, 3, 2, 128}, MHA_ERR_HEADS},
        {{64, 16, 32, 4, LM_MAX_LAYERS + 1, 128}, MHA_ERR_ARG},
        {{((size_t)1 << 30) + 1, 16, 32, 4, 2, 128}, MHA_ERR_ARG},
        {{64, 65537, 32, 4, 2, 128}, MHA_ERR_ARG}, {{64, 16, 32, 4, 2, 128}, MHA_OK},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        cr_expect_eq(lm_config_check(&configs[i].c), configs[i].want, "configuration %zu", i);
    cr_expect_eq(lm_config_check(NULL), MHA_ERR_NULL);
    const lm_config absurd[] = {        /* within the limits; the count overflows */
        {64, 16, SIZE_MAX / 4, 1, 1, 4}, {64, 16, 1, 1, 1, SIZE_MAX / 4},
        {64, 16, 1, 1, 4, SIZE_MAX / 8}, {64, 16, (size_t)1 << 32, 1, 1, 4},
        {64, 16, 1, 1, 1, (SIZE_MAX - 48) / 3},
    };
    for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        lm_model big;
        cr_expect_eq(lm_config_check(&absurd[i]), MHA_OK, "absurd %zu", i);
        cr_expect_eq(lm_model_alloc(&big, &absurd[i]), MHA_ERR_OVERFLOW, "absurd %zu", i);
        cr_expect(big.params == NULL && big.tensors == NULL, "absurd %zu allocated", i);
    }
    lm_model_free(NULL);
    lm_workspace_free(NULL);
    lm_decoder_free(NULL);
    lm_model m;
    load_tiny(&m);
    lm_workspace ws;
    cr_expect_eq(lm_workspace_init(&ws, &m, 0, 4, 0), MHA_ERR_SHAPE);
    cr_expect_eq(lm_workspace_init(&ws, &m, 2, 0, 0), MHA_ERR_SHAPE);
    cr_expect_eq(lm_workspace_init(&ws, &m, 2, tiny.context + 1, 0), MHA_ERR_ARG);
    cr_expect_eq(lm_workspace_init(&ws, &m, SIZE_MAX / 2, 4, 0), MHA_ERR_OVERFLOW);
    cr_assert_eq(lm_workspace_init(&ws, &m, 2, 4, 1), MHA_OK);
    int tokens[2 * 4] = {1, 2, 3, 4, 5, 6, 7, 8}, targets[2 * 4] = {2, 3, 4, 5, 6, 7, 8, 9};
    float *weights = malloc(tiny.layers * 2 * tiny.heads * 4 * 4 * sizeof *weights);
    double loss;
    cr_expect_eq(lm_forward(NULL, &ws, tokens, 2, 4), MHA_ERR_NULL);
    cr_expect_eq(lm_forward(&m, NULL, tokens, 2, 4), MHA_ERR_NULL);
    cr_expect_eq(lm_forward(&m, &ws, NULL, 2, 4), MHA_ERR_NULL);
    cr_expect_eq(lm_forward(&m, &ws, tokens, 0, 4), MHA_ERR_SHAPE);
    cr_expect_eq(lm_forward(&m, &ws, tokens, 3, 4), MHA_ERR_ARG);
    cr_expect_eq(lm_forward(&m, &ws, tokens, 2, 5), MHA_ERR_ARG);
    cr_expect_eq(lm_forward_weights(&m, &ws, tokens, 2, 4, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_loss(NULL, &ws, tokens, targets, &loss), MHA_ERR_NULL);
    cr_expect_eq(lm_loss(&m, NULL, tokens, targets, &loss), MHA_ERR_NULL);
    cr_expect_eq(lm_loss(&m, &ws, tokens, NULL, &loss), MHA_ERR_NULL);
    cr_expect_eq(lm_loss(&m, &ws, tokens, targets, NULL), MHA_ERR_NULL);
    tokens[5] = (int)tiny.vocab;
    cr_expect_eq(lm_forward(&m, &ws, tokens, 2, 4), MHA_ERR_ARG);
    tokens[5] = -1;
    cr_expect_eq(lm_forward_weights(&m, &ws, tokens, 2, 4, weights), MHA_ERR_ARG);
    tokens[5] = 6;
    targets[7] = (int)tiny.vocab;
    cr_expect_eq(lm_loss(&m, &ws, tokens, targets, &loss), MHA_ERR_ARG);
    targets[7] = 9;
    cr_expect_eq(lm_loss(&m, &ws, tokens, targets, &loss), MHA_OK);
    uint64_t state = 1;
    int inputs[2 * 4], next[2 * 4];
    cr_expect_eq(lm_batch(NULL, 8, 2, 4, 0, &state, inputs, next), MHA_ERR_NULL);
    cr_expect_eq(lm_batch(tokens, 8, 2, 4, 0, NULL, inputs, next), MHA_ERR_NULL);
    cr_expect_eq(lm_batch(tokens, 8, 2, 4, 0, &state, NULL, next), MHA_ERR_NULL);
    cr_expect_eq(lm_batch(tokens, 8, 2, 4, 0, &state, inputs, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_batch(tokens, 4, 2, 4, 0, &state, inputs, next), MHA_ERR_SHAPE);
    cr_expect_eq(lm_batch(tokens, 8, 2, 0, 0, &state, inputs, next), MHA_ERR_SHAPE);
    cr_expect_eq(lm_batch(tokens, 8, 0, 4, 0, &state, inputs, next), MHA_ERR_SHAPE);
    cr_expect_eq(lm_batch(tokens, 8, 2, 4, -0.1, &state, inputs, next), MHA_ERR_ARG);
    cr_expect_eq(lm_batch(tokens, 8, 2, 4, 1.5, &state, inputs, next), MHA_ERR_ARG);
    cr_expect_eq(lm_batch(tokens, 8, 2, 4, NAN, &state, inputs, next), MHA_ERR_ARG);
    cr_expect_eq(lm_head_keep(NULL, 0, 0, 0), MHA_ERR_NULL);
    cr_expect_eq(lm_head_keep(&m, tiny.layers, 0, 0), MHA_ERR_ARG);
    cr_expect_eq(lm_head_keep(&m, 0, tiny.heads, 0), MHA_ERR_ARG);
    lm_decoder d;
    cr_assert_eq(lm_decoder_init(&d, &m), MHA_OK);
    cr_expect_eq(lm_decoder_step(&d, -1), MHA_ERR_ARG);
    cr_expect_eq(lm_decoder_step(&d, (int)tiny.vocab), MHA_ERR_ARG);
    cr_assert_eq(lm_head_keep(&m, 1, 2, 0), MHA_OK);
    cr_expect_eq(lm_decoder_step(&d, 1), MHA_ERR_ARG, "a head is removed");
    cr_assert_eq(lm_head_keep(&m, 1, 2, 1), MHA_OK);
    for (size_t t = 0; t < tiny.context; t++)
        cr_assert_eq(lm_decoder_step(&d, (int)t), MHA_OK, "position %zu", t);
    cr_expect_eq(lm_decoder_step(&d, 1), MHA_ERR_CACHE_FULL);
    lm_decoder_free(&d);
    free(weights);
    lm_workspace_free(&ws);
    lm_model_free(&m);
}
#include <sys/stat.h>
#include <unistd.h>
#include "lm_files.h"
#include "output.h"
static const lm_config filed = {BPE_BYTES + 12, 8, 16, 2, 2, 32};
static const char filed_text[] = "the cat sat on the mat; the cat ate the rat, and the rat sat "
                                 "on the hat. a mat, a hat, a cat: that is that.";
static char filed_steps[] = "step\tloss\n7\t2.5\n", filed_heads[] = "step\tlayer\n7\t1\n";
static const lm_history filed_history = {filed_steps, sizeof filed_steps - 1, filed_heads,
                                         sizeof filed_heads - 1};
struct filed_run { lm_model m; lm_adamw opt; bpe tokenizer, other; lm_run run; };
static void filed_make(struct filed_run *s)
{
    cr_assert_eq(lm_model_init(&s->m, &filed, 3), MHA_OK);
    cr_assert_eq(lm_adamw_init(&s->opt, &s->m), MHA_OK);
    for (size_t i = 0; i < s->m.count; i++)
        s->opt.m[i] = 0.01f * (float)(i % 7), s->opt.v[i] = 0.001f * (float)(i % 5 + 1);
    cr_assert_eq(bpe_learn((const unsigned char *)filed_text, sizeof filed_text - 1, filed.vocab,
                           &s->tokenizer), MHA_OK);
    cr_assert_eq(bpe_learn((const unsigned char *)filed_text, sizeof filed_text - 1,
                           filed.vocab - 6, &s->other), MHA_OK);
    s->run = (lm_run){filed, 40, 4, 2, 10, 7, 3e-3, 0.25, 11, 12345, "-", "-", 0, LM_INIT_SD,
                      LM_INIT_SD};
}
static void filed_free(struct filed_run *s)
{
    lm_model_free(&s->m), lm_adamw_free(&s->opt), bpe_free(&s->tokenizer), bpe_free(&s->other);
}
static void filed_put_state(const char *dir, const struct filed_run *s, const bpe *tokenizer)
{
    char message[512];
    mkdir(dir, 0777);
    mha_status status = mha_output_begin(dir, LM_STATE_FILES, lm_state_names, message,
                                         sizeof message);
    if (status == MHA_OK)
        status = lm_state_put(dir, &s->run, &s->m, &s->opt, tokenizer, &filed_history, message,
                              sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    cr_assert_eq(status, MHA_OK, "%s", message);
}
static void filed_put_model(const char *dir, const struct filed_run *s, const bpe *tokenizer)
{
    char message[512], names[64][LM_NAME_MAX + 8];
    const char *list[64];
    const size_t n = lm_model_file_count(&s->m);
    cr_assert(n <= 64);
    for (size_t i = 0; i < n; i++)
        lm_model_file_name(&s->m, i, names[i], sizeof names[i]), list[i] = names[i];
    mkdir(dir, 0777);
    const lm_provenance p = {7, "-", "-"};
    mha_status status = mha_output_begin(dir, (int)n, list, message, sizeof message);
    if (status == MHA_OK)
        status = lm_model_put(dir, &s->m, tokenizer, &p, message, sizeof message);
    if (status == MHA_OK)
        status = mha_output_commit(message, sizeof message);
    mha_output_end();
    cr_assert_eq(status, MHA_OK, "%s", message);
}
/* The file cut to its first n bytes, or with the line starting "key " replaced by line
   (line NULL: removed; key NULL: line added at the end). */
static void filed_cut(const char *dir, const char *name, size_t n)
{
    size_t size;
    char *bytes = slurp(path_in(dir, name), &size);
    cr_assert(n < size);
    write_bytes(dir, name, bytes, n);
    free(bytes);
}
static void filed_line(const char *dir, const char *name, const char *key, const char *line)
{
    size_t size;
    char *bytes = slurp(path_in(dir, name), &size), *out = malloc(size + 256);
    size_t used = 0;
    int found = key == NULL;
    for (char *at = bytes, *end; at < bytes + size; at = end + 1) {
        end = memchr(at, '\n', (size_t)(bytes + size - at));
        cr_assert_not_null(end);
        if (key && strncmp(at, key, strlen(key)) == 0 && at[strlen(key)] == ' ') {
            found = 1;
            if (line)
                used += (size_t)sprintf(out + used, "%s\n", line);
        } else {
            memcpy(out + used, at, (size_t)(end - at + 1)), used += (size_t)(end - at + 1);
        }
    }
    if (key == NULL)
        used += (size_t)sprintf(out + used, "%s\n", line);
    cr_assert(found, "%s has no line '%s'", name, key);
    write_bytes(dir, name, out, used);
    free(bytes), free(out);
}
static void expect_state_refused(const char *dir, mha_status want, const char *naming,
                                 const char *what)
{
    lm_run run;
    lm_model m;
    lm_adamw opt;
    bpe tokenizer = {0};
    lm_history history = {0};
    char message[1024] = "";
    const mha_status got = lm_state_read(dir, &run, &m, &opt, &tokenizer, &history, message,
                                         sizeof message);
    cr_expect_eq(got, want, "%s: %s, not %s (%s)", what, mha_status_message(got),
                 mha_status_message(want), message);
    cr_expect(strstr(message, naming) != NULL, "%s: '%s' does not name %s", what, message, naming);
    cr_expect(strchr(message, '\n') == NULL, "%s: '%s' is not one line", what, message);
    cr_expect(m.params == NULL && opt.m == NULL && opt.v == NULL && history.steps == NULL &&
              history.heads == NULL && tokenizer.merge == NULL,
              "%s: a failed read left something allocated", what);
    if (got == MHA_OK)
        lm_model_free(&m), lm_adamw_free(&opt), bpe_free(&tokenizer), free(history.steps),
        free(history.heads);
}
#define SHA_63 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
Test(lm_files, a_damaged_state_gets_its_status_and_names_its_file) {
    struct filed_run s;
    filed_make(&s);
    char *top = make_temp_dir(), dir[256], missing[256];
    snprintf(dir, sizeof dir, "%s/state", top);
    snprintf(missing, sizeof missing, "%s/none", top);
    filed_put_state(dir, &s, &s.tokenizer);
    {   /* the state as written comes back whole */
        lm_run run;
        lm_model m;
        lm_adamw opt;
        bpe tokenizer = {0};
        lm_history history;
        char message[512];
        cr_assert_eq(lm_state_read(dir, &run, &m, &opt, &tokenizer, &history, message,
                                   sizeof message), MHA_OK, "%s", message);
        cr_expect(memcmp(&run.config, &filed, sizeof filed) == 0 && run.steps == 40 &&
                  run.warmup == 4 && run.batch == 2 && run.eval_every == 10 && run.step == 7 &&
                  run.learning_rate == 3e-3 && run.repeat == 0.25 && run.seed == 11 &&
                  run.data_state == 12345 && run.repeat_until == 0 &&
                  strcmp(run.train_sha256, "-") == 0 && opt.step == 7);
        cr_expect(m.count == s.m.count &&
                  memcmp(m.params, s.m.params, m.count * sizeof *m.params) == 0 &&
                  memcmp(opt.m, s.opt.m, m.count * sizeof *opt.m) == 0 &&
                  memcmp(opt.v, s.opt.v, m.count * sizeof *opt.v) == 0);
        cr_expect(history.steps_length == sizeof filed_steps - 1 &&
                  strcmp(history.steps, filed_steps) == 0 &&
                  history.heads_length == sizeof filed_heads - 1 &&
                  strcmp(history.heads, filed_heads) == 0);
        cr_expect(tokenizer.vocab == filed.vocab &&
                  memcmp(tokenizer.merge, s.tokenizer.merge,
                         (filed.vocab - BPE_BYTES) * sizeof *tokenizer.merge) == 0);
        lm_model_free(&m), lm_adamw_free(&opt), bpe_free(&tokenizer), free(history.steps),
        free(history.heads);
    }
    expect_state_refused(missing, MHA_ERR_IO, "none/state.txt", "a missing folder");
    filed_cut(dir, "state.txt", 30);
    expect_state_refused(dir, MHA_ERR_FORMAT, "state.txt", "state.txt cut short");
    filed_put_state(dir, &s, &s.tokenizer);
    filed_line(dir, "state.txt", "format", "format mha-lm-state 9");
    expect_state_refused(dir, MHA_ERR_FORMAT, "state.txt", "another format");
    const struct { const char *key, *line, *what; } lines[] = {
        {"seed", NULL, "no seed"}, {"learning_rate", "learning_rate nan", "a NaN rate"},
        {"learning_rate", "learning_rate 2", "a rate above 1"},
        {"repeat", "repeat 2", "a share above 1"}, {"repeat", "repeat -0.5", "a negative share"},
        {"repeat", NULL, "no share"}, {NULL, "repeat_until 41", "repeats past the last step"},
        {NULL, "repeat_until 3x", "a last step of repeats and more"},
        {"step", "step -1", "a negative step"}, {"train_sha256", "train_sha256 abc", "a short sha"},
        {"steps", "steps 12x", "a number and more"}, {NULL, "steps 40", "a key twice"},
        {NULL, "colour blue", "an unknown key"}, {NULL, "layers", "a key without a value"},
        {"learning_rate", "learning_rate ", "an empty rate"},
        {"learning_rate", "learning_rate 0.5x", "a rate and more"},
        {"learning_rate", "learning_rate 1e-310", "a rate too small to hold exactly"},
        {"seed", "seed 99999999999999999999", "a seed beyond 64 bits"},
        {"train_sha256", "train_sha256 " SHA_63 "g", "a sha of 64 characters, one not hex"},
        {"format", "format " SHA_63 SHA_63, "a word too long to keep"}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        filed_put_state(dir, &s, &s.tokenizer);
        filed_line(dir, "state.txt", lines[i].key, lines[i].line);
        expect_state_refused(dir, MHA_ERR_FORMAT, "state.txt", lines[i].what);
    }
    filed_put_state(dir, &s, &s.tokenizer);
    write_bytes(dir, "state.txt", "format mha-lm-state 1\nlayers 2\0\n", 32);
    expect_state_refused(dir, MHA_ERR_FORMAT, "state.txt", "a NUL byte");
    filed_put_state(dir, &s, &s.tokenizer);
    filed_line(dir, "state.txt", "heads", "heads 3");
    expect_state_refused(dir, MHA_ERR_HEADS, "state.txt", "sizes that make no model");
    filed_put_state(dir, &s, &s.tokenizer);
    filed_line(dir, "state.txt", "layers", "layers 1");
    expect_state_refused(dir, MHA_ERR_SHAPE, "arrays.npy", "the state of a model of 1 layer");
    filed_put_state(dir, &s, &s.tokenizer);
    filed_line(dir, "state.txt", "dim", "dim 24");
    expect_state_refused(dir, MHA_ERR_SHAPE, "arrays.npy", "the state of a wider model");
    filed_put_state(dir, &s, &s.tokenizer);
    filed_cut(dir, "arrays.npy", 200);
    expect_state_refused(dir, MHA_ERR_FORMAT, "arrays.npy", "arrays.npy cut short");
    filed_put_state(dir, &s, &s.tokenizer);
    {
        float *arrays = malloc(3 * s.m.count * sizeof *arrays);
        for (size_t i = 0; i < 3 * s.m.count; i++)
            arrays[i] = 0.5f;
        arrays[2 * s.m.count + 3] = NAN;
        const size_t shape[2] = {3, s.m.count};
        write_floats(dir, "arrays.npy", arrays, 2, shape);
        free(arrays);
    }
    expect_state_refused(dir, MHA_ERR_FORMAT, "arrays.npy", "a moment that is NaN");
    filed_put_state(dir, &s, &s.tokenizer);
    cr_assert_eq(unlink(path_in(dir, "history.tsv")), 0);
    expect_state_refused(dir, MHA_ERR_IO, "history.tsv", "no history");
    filed_put_state(dir, &s, &s.tokenizer);
    write_bytes(dir, "merges.txt", "not a merge\n", 12);
    expect_state_refused(dir, MHA_ERR_FORMAT, "merges.txt", "a damaged tokenizer");
    filed_put_state(dir, &s, &s.other);
    expect_state_refused(dir, MHA_ERR_SHAPE, "tokenizer of", "a tokenizer of another size");
    remove_dir(strdup(dir));
    remove_dir(top);
    filed_free(&s);
}
static void expect_model_refused(const char *dir, mha_status want, const char *naming,
                                 const char *what)
{
    lm_model m;
    bpe tokenizer;
    lm_provenance p;
    char message[1024] = "";
    const mha_status got = lm_model_read(dir, &m, &tokenizer, &p, message, sizeof message);
    cr_expect_eq(got, want, "%s: %s, not %s (%s)", what, mha_status_message(got),
                 mha_status_message(want), message);
    cr_expect(strstr(message, naming) != NULL, "%s: '%s' does not name %s", what, message, naming);
    cr_expect(strchr(message, '\n') == NULL, "%s: '%s' is not one line", what, message);
    cr_expect(m.params == NULL && m.tensors == NULL && tokenizer.merge == NULL,
              "%s: a failed read left something allocated", what);
    if (got == MHA_OK)
        lm_model_free(&m), bpe_free(&tokenizer);
}
Test(lm_files, a_damaged_model_gets_its_status_and_names_its_file) {
    struct filed_run s;
    filed_make(&s);
    char *top = make_temp_dir(), dir[256], missing[256];
    snprintf(dir, sizeof dir, "%s/model", top);
    snprintf(missing, sizeof missing, "%s/none", top);
    filed_put_model(dir, &s, &s.tokenizer);
    {
        lm_model m;
        bpe tokenizer;
        lm_provenance p;
        char message[512];
        cr_assert_eq(lm_model_read(dir, &m, &tokenizer, &p, message, sizeof message), MHA_OK,
                     "%s", message);
        cr_expect(memcmp(&m.config, &filed, sizeof filed) == 0 && m.count == s.m.count &&
                  memcmp(m.params, s.m.params, m.count * sizeof *m.params) == 0 &&
                  p.steps == 7 && tokenizer.vocab == filed.vocab);
        lm_model_free(&m), bpe_free(&tokenizer);
    }
    expect_model_refused(missing, MHA_ERR_IO, "none/model.txt", "a missing folder");
    {
        static char long_name[5001];          /* longer than any path the system takes */
        memset(long_name, 'a', sizeof long_name - 1);
        long_name[0] = '/';
        expect_model_refused(long_name, MHA_ERR_ARG, "/aaaa",
                             "a folder with no room for names");
    }
    filed_cut(dir, "model.txt", 40);
    expect_model_refused(dir, MHA_ERR_FORMAT, "model.txt", "model.txt cut short");
    const struct { const char *key, *line; mha_status want; const char *what; } lines[] = {
        {"model", "model mlp", MHA_ERR_FORMAT, "another kind of model"},
        {"heads", "heads 3", MHA_ERR_HEADS, "sizes that make no model"},
        {"hidden", NULL, MHA_ERR_FORMAT, "no hidden size"},
        {"tensor", NULL, MHA_ERR_FORMAT, "the first tensor's line missing"},
        {"tensor", "tensor tok_emb.weight 268 9", MHA_ERR_FORMAT, "a tensor line of another shape"},
        {NULL, "tensor norm.bias 16", MHA_ERR_FORMAT, "a tensor too many"}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        filed_put_model(dir, &s, &s.tokenizer);
        filed_line(dir, "model.txt", lines[i].key, lines[i].line);
        expect_model_refused(dir, lines[i].want, "model.txt", lines[i].what);
    }
    filed_put_model(dir, &s, &s.tokenizer);
    filed_cut(dir, "norm.weight.npy", 90);
    expect_model_refused(dir, MHA_ERR_FORMAT, "norm.weight.npy", "a tensor cut short");
    filed_put_model(dir, &s, &s.tokenizer);
    write_random(dir, "norm.weight.npy", 5, 1, (const size_t[]){24});
    expect_model_refused(dir, MHA_ERR_SHAPE, "norm.weight.npy", "a tensor of another size");
    {
        const double wide[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        const unsigned char flags[16] = {1};
        const float column[16] = {0};
        const struct { const char *header; const void *data; size_t bytes; const char *what; }
        kinds[] = {
            {HEADER("<f8", "False", "(16,)"), wide, sizeof wide, "norm.weight.npy: <f8 of"},
            {HEADER("|b1", "False", "(16,)"), flags, sizeof flags, "norm.weight.npy: |b1 of"},
            {HEADER("<f4", "False", "(16, 1)"), column, sizeof column,
             "norm.weight.npy: <f4 of shape (16, 1)"}};
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            filed_put_model(dir, &s, &s.tokenizer);
            write_npy_raw(dir, "norm.weight.npy", 1, kinds[i].header, kinds[i].data,
                          kinds[i].bytes);
            expect_model_refused(dir, MHA_ERR_SHAPE, kinds[i].what, kinds[i].what);
        }
    }
    filed_put_model(dir, &s, &s.tokenizer);
    filed_line(dir, "model.txt", "model", "model " SHA_63 SHA_63);
    expect_model_refused(dir, MHA_ERR_FORMAT, "model.txt", "a kind of model too long to keep");
    filed_put_model(dir, &s, &s.tokenizer);
    cr_assert_eq(unlink(path_in(dir, "pos_emb.weight.npy")), 0);
    expect_model_refused(dir, MHA_ERR_IO, "pos_emb.weight.npy", "a tensor missing");
    filed_put_model(dir, &s, &s.tokenizer);
    {
        float values[16];
        for (size_t i = 0; i < 16; i++)
            values[i] = i == 9 ? INFINITY : 1.0f;
        write_floats(dir, "norm.bias.npy", values, 1, (const size_t[]){16});
    }
    expect_model_refused(dir, MHA_ERR_FORMAT, "norm.bias.npy", "a weight that is infinite");
    filed_put_model(dir, &s, &s.other);
    expect_model_refused(dir, MHA_ERR_SHAPE, "tokenizer of", "a tokenizer of another size");
    remove_dir(strdup(dir));
    remove_dir(top);
    filed_free(&s);
}
/* A folder holding a small text, its held-out part and run m stopped after six steps */
static char *stopped_run(void)
{
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", "--stop-at", "6");
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    return dir;
}
static void expect_resume_refused(const char *dir, const char *state, const char *naming)
{
    char text[256], valid[256], out[256], out_state[300];
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(out, sizeof out, "%s/r", dir);
    snprintf(out_state, sizeof out_state, "%s/r.state", dir);
    struct cli_result r = run_mha("lm", "train", "--resume", state, "--text", text, "--valid",
                                  valid, "--out", out, NULL);
    cr_expect(r.status != 0 && r.out[0] == '\0', "%s: status %d, printed '%s'", naming,
              r.status, r.out);
    cr_expect(strncmp(r.err, "mha: ", 5) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
              "not one 'mha:' line: %s", r.err);
    cr_expect(strstr(r.err, naming) != NULL, "'%s' does not name %s", r.err, naming);
    struct stat st;
    cr_expect(stat(out, &st) != 0 && stat(out_state, &st) != 0, "%s: an output was left", naming);
    free_result(&r);
}
Test(lm_command, a_damaged_state_or_model_gets_one_line_and_no_output) {
    char *dir = stopped_run();
    char state[256], none[256], model[256], valid[256];
    snprintf(state, sizeof state, "%s/m.state", dir);
    snprintf(none, sizeof none, "%s/none", dir);
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    size_t arrays_n, text_n;
    char *arrays = slurp(path_in(state, "arrays.npy"), &arrays_n);
    char *text = slurp(path_in(state, "state.txt"), &text_n);
    expect_resume_refused(dir, none, "none/state.txt");
    write_bytes(state, "arrays.npy", arrays, 150);
    expect_resume_refused(dir, state, "arrays.npy");
    filed_line(state, "state.txt", "layers", "layers 1");
    write_bytes(state, "arrays.npy", arrays, arrays_n);
    expect_resume_refused(dir, state, "arrays.npy");
    write_bytes(state, "state.txt", text, text_n);
    cr_assert_eq(unlink(path_in(state, "history.tsv")), 0);
    expect_resume_refused(dir, state, "history.tsv");
    write_bytes(state, "history.tsv", "", 0);
    cr_assert_eq(unlink(path_in(state, "merges.txt")), 0);
    expect_resume_refused(dir, state, "merges.txt");
    free(arrays), free(text);
    write_random(model, "norm.weight.npy", 5, 1, (const size_t[]){24});
    struct cli_result e = run_mha("lm", "eval", model, "--text", valid, NULL);
    cr_expect(e.status != 0 && e.out[0] == '\0' && strncmp(e.err, "mha: ", 5) == 0 &&
              strstr(e.err, "norm.weight.npy") != NULL, "%d '%s'", e.status, e.err);
    free_result(&e);
    cr_assert_eq(unlink(path_in(model, "pos_emb.weight.npy")), 0);
    e = run_mha("lm", "generate", model, "--prompt", "Emma", NULL);
    cr_expect(e.status != 0 && e.out[0] == '\0' && strncmp(e.err, "mha: ", 5) == 0 &&
              strstr(e.err, "pos_emb.weight.npy") != NULL, "%d '%s'", e.status, e.err);
    free_result(&e);
    remove_tree(dir);
}
Test(lm_command, a_state_that_cannot_carry_on_is_refused_by_its_field) {
    char *dir = stopped_run();
    char state[256];
    snprintf(state, sizeof state, "%s/m.state", dir);
    size_t arrays_n, text_n;
    char *arrays = slurp(path_in(state, "arrays.npy"), &arrays_n);
    char *text = slurp(path_in(state, "state.txt"), &text_n);
    const struct { const char *key, *line, *naming; } fields[] = {
        {"steps", "steps 0", "state.txt: 'steps 0'"},
        {"warmup", "warmup 12", "state.txt: 'warmup 12'"},
        {"step", "step 13", "state.txt: 'step 13'"},
        {"batch", "batch 0", "state.txt: 'batch 0'"},
        {"batch", "batch 1000000000", "state.txt: 'batch 1000000000'"},
        {"learning_rate", "learning_rate 0", "state.txt: line 13: 'learning_rate 0'"},
        {"learning_rate", "learning_rate 2", "state.txt: line 13: 'learning_rate 2'"},
        {"eval_every", "eval_every 0", "state.txt: 'eval_every 0'"},
        {"data_state", "data_state 0", "state.txt: 'data_state 0'"}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        write_bytes(state, "state.txt", text, text_n);
        filed_line(state, "state.txt", fields[i].key, fields[i].line);
        expect_resume_refused(dir, state, fields[i].naming);
    }
    write_bytes(state, "state.txt", text, text_n);
    const float bad[] = {-1e-6f, NAN};
    const char *const naming[] = {"arrays.npy: second moment", "arrays.npy: value"};
    for (size_t i = 0; i < 2; i++) {              /* the last value is the last second moment */
        memcpy(arrays + arrays_n - sizeof bad[i], &bad[i], sizeof bad[i]);
        write_bytes(state, "arrays.npy", arrays, arrays_n);
        expect_resume_refused(dir, state, naming[i]);
    }
    free(arrays), free(text);
    remove_tree(dir);
}
Test(lm_command, a_swapped_tokenizer_is_refused) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    char *other = small_text(dir, "valid.txt", 2, 400);
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    char model[256];
    snprintf(model, sizeof model, "%s/m", dir);
    size_t size;
    char *text = slurp(path_in(model, "model.txt"), &size);
    cr_expect(strncmp(text, "format mha-checkpoint 2\n", 24) == 0 &&
              strstr(text, "\ntokenizer_sha256 ") != NULL, "%s", text);
    free(text);
    struct cli_result k = run_mha("lm", "tokenizer", "--text", other, "--vocab", "300", "--out",
                                  model, NULL);
    cr_assert_eq(k.status, 0, "%s", k.err);
    expect_one_error(run_mha("lm", "eval", model, "--text", other, NULL), "m/merges.txt");
    expect_one_error(run_mha("lm", "generate", model, "--prompt", "Emma", NULL), "m/merges.txt");
    struct cli_result old = run_mha("lm", "eval", "../models/austen", "--text", other, NULL);
    cr_expect(old.status == 0, "the committed model of format 1: %s", old.err);
    free_result(&t); free_result(&k); free_result(&old);
    free(other);
    remove_tree(dir);
}
static void expect_refusal(struct cli_result r, int status, const char *naming)
{
    cr_expect_eq(r.status, status, "status %d for %s: %s", r.status, naming, r.err);
    cr_expect(r.out[0] == '\0', "printed '%s'", r.out);
    expect_one_error(r, naming);
}
Test(lm_command, train_and_the_tokenizer_commands_refuse_what_cannot_run) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    char text[256], valid[256], out[256], state[256], nowhere[256];
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(out, sizeof out, "%s/r", dir);
    snprintf(state, sizeof state, "%s/m.state", dir);
    snprintf(nowhere, sizeof nowhere, "%s/no/such/m", dir);
    expect_refusal(run_mha("lm", "train", "--out", out, NULL), 2, "--text");
    expect_refusal(run_mha("lm", "train", "--text", text, NULL), 2, "--out");
    expect_refusal(run_mha("lm", "train", "--text", text, "--out", out, "--heads", "3", "--dim",
                           "16", NULL), 2, "--heads 3");
    expect_refusal(run_mha("lm", "train", "--text", text, "--out", out, "--steps", "10",
                           "--warmup", "10", NULL), 2, "--warmup");
    struct cli_result t = train_small(dir, "m", "--stop-at", "6");
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    expect_refusal(run_mha("lm", "train", "--resume", state, "--text", valid, "--valid", valid,
                           "--out", out, NULL), 1, "not the text");
    expect_refusal(run_mha("lm", "train", "--resume", state, "--text", text, "--valid", text,
                           "--out", out, NULL), 1, "held out");
    const char *fixed[][2] = {{"--steps", "40"}, {"--lr", "0.1"}, {"--layers", "3"},
                              {"--repeat", "0.5"}, {"--tokenizer", dir}, {"--seed", "9"}};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        expect_refusal(run_mha("lm", "train", "--resume", state, "--text", text, "--valid", valid,
                               "--out", out, fixed[k][0], fixed[k][1], NULL), 2, fixed[k][0]);
    struct stat st;
    cr_expect(stat(out, &st) != 0 && stat(path_in(dir, "r.state"), &st) != 0,
              "a refused resume left an output");
    struct cli_result s = run_mha("lm", "train", "--text", text, "--out", nowhere, "--vocab",
                                  "300", "--layers", "1", "--heads", "2", "--dim", "16",
                                  "--context", "16", "--batch", "4", "--steps", "2", NULL);
    cr_expect_neq(s.status, 0);
    cr_expect(strncmp(s.err, "mha: ", 5) == 0 && strchr(s.err, '\n') == s.err + strlen(s.err) - 1
              && strstr(s.err, "no/such") != NULL, "%s", s.err);
    cr_expect(stat(path_in(dir, "no"), &st) != 0, "an unwritable output left a folder");
    free_result(&s);
    char tokenizer[256];
    snprintf(tokenizer, sizeof tokenizer, "%s/m", dir);
    expect_refusal(run_mha("lm", "encode", tokenizer, NULL), 2, "--text");
    expect_refusal(run_mha("lm", "encode", "--text", "Emma", NULL), 2, "tokenizer directory");
    expect_refusal(run_mha("lm", "encode", out, "--text", "Emma", NULL), 1, "r/merges.txt");
    expect_refusal(run_mha("lm", "decode", NULL), 2, "tokenizer directory");
    expect_refusal(run_mha("lm", "decode", "--ids", "3", NULL), 2, "no options");
    expect_refusal(run_mha("lm", "decode", out, "65", NULL), 1, "r/merges.txt");
    struct cli_result h = run_mha("lm", "decode", tokenizer, "--help", NULL);
    cr_expect(h.status == 0 && strncmp(h.out, "usage: mha lm decode", 20) == 0, "%s", h.out);
    free_result(&h);
    remove_tree(dir);
}
/* lm train --resume on the state of run dir/name, with its texts and folders and
   up to two more arguments (NULL for none) */
static struct cli_result resume_tiny(const char *dir, const char *name, const char *extra1,
                                     const char *extra2)
{
    char state[256], text[256], valid[256], out[256];
    snprintf(state, sizeof state, "%s/%s.state", dir, name);
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(out, sizeof out, "%s/%s", dir, name);
    return run_mha("lm", "train", "--resume", state, "--text", text, "--valid", valid, "--out",
                   out, extra1, extra2, NULL);
}
static struct cli_result train_repeating(const char *dir, const char *out, const char *until,
                                         const char *stop)
{
    return train_tiny(dir, out, (const char *const[6]){"--repeat", "1",
                                                       until ? "--repeat-until" : NULL, until,
                                                       stop ? "--stop-at" : NULL, stop});
}
/* the first n lines of the file dir/name, in a string to free */
static char *first_lines(const char *dir, const char *name, size_t n)
{
    size_t size;
    char *text = slurp(path_in(dir, name), &size), *at = text;
    for (size_t k = 0; at != NULL && k < n; k++)
        at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
    if (at != NULL)
        *at = '\0';
    return text;
}
Test(lm_command, a_curriculum_repeats_until_its_step_then_reads_plain_text) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result a = train_repeating(dir, "a", NULL, NULL);
    struct cli_result b = train_repeating(dir, "b", "8", NULL);
    struct cli_result c = train_repeating(dir, "c", "8", "6");
    cr_assert(a.status == 0 && b.status == 0 && c.status == 0, "%s%s%s", a.err, b.err, c.err);
    char *ha = first_lines(dir, "a.state/history.tsv", 9);
    char *hb = first_lines(dir, "b.state/history.tsv", 9);
    cr_expect_str_eq(hb, ha, "the steps with repeats differ");
    cr_expect(!same_file(dir, "a.state/history.tsv", "b.state/history.tsv") &&
              !same_file(dir, "a.state/arrays.npy", "b.state/arrays.npy"),
              "plain text after step 8 trained as the repeats would");
    size_t n;
    char *sa = slurp(path_in(dir, "a.state/state.txt"), &n);
    char *sb = slurp(path_in(dir, "b.state/state.txt"), &n);
    cr_expect(strstr(sa, "repeat_until") == NULL && strstr(sb, "\nrepeat_until 8\n") != NULL,
              "%s\n%s", sa, sb);
    struct cli_result r = resume_tiny(dir, "c", NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(same_file(dir, "b.state/arrays.npy", "c.state/arrays.npy") &&
              same_file(dir, "b.state/state.txt", "c.state/state.txt"),
              "the resumed curriculum differs from the uninterrupted one");
    expect_refusal(resume_tiny(dir, "c", "--repeat-until", "4"), 2, "--repeat-until");
    expect_refusal(train_repeating(dir, "d", "13", NULL), 2, "--repeat-until 13");
    free(ha), free(hb), free(sa), free(sb);
    free_result(&a), free_result(&b), free_result(&c), free_result(&r);
    remove_tree(dir);
}
static double sample_sd(const float *p, size_t n)
{
    double sum = 0, squares = 0;
    for (size_t k = 0; k < n; k++)
        sum += p[k], squares += (double)p[k] * p[k];
    return sqrt(squares / (double)n - (sum / (double)n) * (sum / (double)n));
}
Test(lm, the_embeddings_start_with_the_deviations_asked_for) {
    lm_model a, b, c;
    cr_assert_eq(lm_model_init(&a, &tiny, 9), MHA_OK);
    cr_assert_eq(lm_model_init_with(&b, &tiny, 9, LM_INIT_SD, LM_INIT_SD), MHA_OK);
    cr_assert_eq(lm_model_init_with(&c, &tiny, 9, 0.2, 0.5), MHA_OK);
    cr_expect(memcmp(a.params, b.params, a.count * sizeof *a.params) == 0,
              "GPT-2's deviations are not lm_model_init");
    const lm_tensor *tok = lm_tensor_find(&c, "tok_emb.weight"),
                    *pos = lm_tensor_find(&c, "pos_emb.weight");
    const size_t nt = tok->shape[0] * tok->shape[1], np = pos->shape[0] * pos->shape[1];
    const double st = sample_sd(c.params + tok->offset, nt),
                 sp = sample_sd(c.params + pos->offset, np);
    cr_expect(fabs(st / 0.2 - 1) < 0.05 && fabs(sp / 0.5 - 1) < 0.05, "sds %g %g", st, sp);
    cr_expect(fabs(sample_sd(a.params + tok->offset, nt) / LM_INIT_SD - 1) < 0.05);
    const size_t rest = pos->offset + np;
    cr_expect(memcmp(a.params + rest, c.params + rest, (a.count - rest) * sizeof *a.params)
              == 0,
              "the blocks' tensors moved with the embeddings' deviations");
    lm_model_free(&a), lm_model_free(&b), lm_model_free(&c);
    const double bad[] = {0, -0.02, 1.5, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cr_expect_eq(lm_model_init_with(&a, &tiny, 9, bad[k], LM_INIT_SD), MHA_ERR_ARG, "%g",
                     bad[k]);
        cr_expect_eq(lm_model_init_with(&a, &tiny, 9, LM_INIT_SD, bad[k]), MHA_ERR_ARG, "%g",
                     bad[k]);
        cr_expect(a.params == NULL, "a refused model holds memory");
    }
}
Test(lm_command, the_embeddings_deviations_are_kept_in_the_state) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result a = train_tiny(dir, "a", (const char *const[6]){NULL});
    struct cli_result b = train_tiny(dir, "b", (const char *const[6]){"--token-sd", "0.25",
                                                                     "--position-sd", "0.5"});
    struct cli_result c = train_tiny(dir, "c", (const char *const[6]){"--token-sd", "0.25",
                                                                     "--position-sd", "0.5",
                                                                     "--stop-at", "6"});
    cr_assert(a.status == 0 && b.status == 0 && c.status == 0, "%s%s%s", a.err, b.err, c.err);
    size_t n;
    char *sa = slurp(path_in(dir, "a.state/state.txt"), &n);
    char *sb = slurp(path_in(dir, "b.state/state.txt"), &n);
    cr_expect(strstr(sa, "token_sd") == NULL && strstr(sa, "position_sd") == NULL &&
              strstr(sb, "\ntoken_sd 0.25\nposition_sd 0.5\n") != NULL, "%s\n%s", sa, sb);
    cr_expect(!same_file(dir, "a.state/arrays.npy", "b.state/arrays.npy"));
    struct cli_result r = resume_tiny(dir, "c", NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(same_file(dir, "b.state/arrays.npy", "c.state/arrays.npy") &&
              same_file(dir, "b.state/state.txt", "c.state/state.txt"),
              "the resumed run forgot its deviations");
    expect_refusal(resume_tiny(dir, "c", "--token-sd", "0.02"), 2, "--token-sd");
    expect_refusal(train_tiny(dir, "d", (const char *const[6]){"--position-sd", "2"}), 2,
                   "--position-sd");
    free(sa), free(sb);
    free_result(&a), free_result(&b), free_result(&c), free_result(&r);
    remove_tree(dir);
}
Test(lm_command, a_folder_another_run_writes_in_is_refused) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    char *valid = small_text(dir, "valid.txt", 2, 400);
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    char model[256], state[256];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(state, sizeof state, "%s/m.state", dir);
    size_t size[2];
    char *before[2];
    before[0] = slurp(path_in(model, "model.txt"), &size[0]);
    before[1] = slurp(path_in(state, "state.txt"), &size[1]);
    for (int held = 0; held < 2; held++) {
        const int fd = open(held == 0 ? model : state, O_RDONLY | O_DIRECTORY);
        cr_assert(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);     /* the other run */
        expect_refusal(train_small(dir, "m", "--seed", "2"), 1, "another run is writing in it");
        if (held == 0) {
            expect_refusal(run_mha("lm", "tokenizer", "--text", valid, "--vocab", "300", "--out",
                                   model, NULL), 1, "m: another run");
            expect_refusal(run_mha("lm", "heads", model, "--text", valid, "--windows", "2", NULL),
                           1, "m: another run");
            expect_refusal(run_mha("lm", "prune", model, "--text", valid, NULL), 1,
                           "m: another run");
        }
        close(fd);
    }
    for (int k = 0; k < 2; k++) {
        size_t n;
        char *now = slurp(path_in(k == 0 ? model : state, k == 0 ? "model.txt" : "state.txt"), &n);
        cr_expect(n == size[k] && memcmp(now, before[k], n) == 0, "file %d changed", k);
        free(now), free(before[k]);
    }
    cr_expect(access(path_in(model, "heads.tsv"), F_OK) != 0, "heads.tsv was written");
    struct cli_result again = train_small(dir, "m", "--seed", "2");
    cr_expect_eq(again.status, 0, "once the lock is let go: %s", again.err);
    free_result(&t); free_result(&again);
    free(valid);
    remove_tree(dir);
}
static void scale_tensor(const char *model, const char *name, float value)
{
    char message[512];
    mha_npy a;
    cr_assert_eq(mha_npy_read(path_in(model, name), &a, message, sizeof message), MHA_OK,
                 "%s", message);
    for (size_t i = 0; i < a.count; i++)
        a.values[i] = value;
    cr_assert_eq(mha_npy_write(path_in(model, name), a.values, a.rank, a.shape, message,
                               sizeof message), MHA_OK, "%s", message);
    mha_npy_free(&a);
}
Test(lm_command, weights_that_overflow_are_blamed_not_the_text) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    char *valid = small_text(dir, "valid.txt", 2, 400);
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    char model[256];
    snprintf(model, sizeof model, "%s/m", dir);
    scale_tensor(model, "norm.weight.npy", 3e38f);
    scale_tensor(model, "norm.bias.npy", 3e38f);
    const char *commands[4] = {"eval", "heads", "prune", "repeat"};
    for (int k = 0; k < 4; k++) {
        struct cli_result r = run_mha("lm", commands[k], model, "--text", valid, k < 3 ? NULL
                                      : "--least", "3", "--most", "6", NULL);
        cr_expect(strstr(r.err, "m: the model's weights overflow float on ") != NULL,
                  "lm %s: %s", commands[k], r.err);
        expect_refusal(r, 1, "valid.txt");
    }
    expect_refusal(run_mha("lm", "generate", model, "--prompt", "Emma", NULL), 1,
                   "m: the model's weights overflow float on the prompt");
    free_result(&t);
    free(valid);
    remove_tree(dir);
}
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bpe_files.h"
static void put_in_place(const char *path, int kind)   /* 0: a FIFO; 1: /dev/zero */
{
    char kept[300];
    snprintf(kept, sizeof kept, "%s.kept", path);
    cr_assert_eq(rename(path, kept), 0, "%s", path);
    cr_assert_eq(kind == 0 ? mkfifo(path, 0666) : symlink("/dev/zero", path), 0, "%s", path);
}
static void put_back(const char *path)
{
    char kept[300];
    snprintf(kept, sizeof kept, "%s.kept", path);
    cr_assert_eq(unlink(path), 0, "%s", path);
    cr_assert_eq(rename(kept, path), 0, "%s", path);
}
Test(lm_command, a_fifo_or_a_device_in_place_of_a_file_is_refused_at_once, .timeout = 120) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    char model[256], state[256], text[256], valid[256], out[256], file[300];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(state, sizeof state, "%s/m.state", dir);
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(out, sizeof out, "%s/again", dir);
    const char *model_files[] = {"model.txt", "merges.txt", "vocab.txt"};
    const char *state_files[] = {"state.txt", "history.tsv"};
    for (int kind = 0; kind < 2; kind++) {
        for (int f = 0; f < 3; f++) {
            snprintf(file, sizeof file, "%s/%s", model, model_files[f]);
            put_in_place(file, kind);
            expect_refusal(run_mha("lm", "eval", model, "--text", valid, NULL), 1, file);
            if (f > 0)                                  /* a tokenizer's files */
                expect_refusal(run_mha("lm", "encode", model, "--text", "Emma", NULL), 1, file);
            put_back(file);
        }
        for (int f = 0; f < 2; f++) {
            snprintf(file, sizeof file, "%s/%s", state, state_files[f]);
            put_in_place(file, kind);
            expect_refusal(run_mha("lm", "train", "--resume", state, "--text", text, "--valid",
                                   valid, "--out", out, NULL), 1, file);
            put_back(file);
        }
        put_in_place(valid, kind);
        expect_refusal(run_mha("lm", "eval", model, "--text", valid, NULL), 1,
                       "valid.txt: not a regular file");
        put_back(valid);
    }
    cr_expect(access(out, F_OK) != 0, "a refused run wrote its output");
    char big[256];
    snprintf(big, sizeof big, "%s/big.txt", dir);
    const int fd = open(big, O_WRONLY | O_CREAT | O_EXCL, 0666);
    cr_assert(fd >= 0 && ftruncate(fd, (off_t)MHA_READ_TEXT_MAX + 1) == 0 && close(fd) == 0);
    expect_refusal(run_mha("lm", "eval", model, "--text", big, NULL), 1, "big.txt");
    expect_refusal(run_mha("lm", "tokenizer", "--text", big, "--vocab", "300", "--out", out,
                           NULL), 1, "big.txt");
    remove_tree(dir);
}
Test(lm_command, unusable_folders_are_refused_before_the_first_step) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    write_bytes(dir, "afile", "x", 1);
    char state[256], same[256];
    snprintf(state, sizeof state, "%s/afile/m.state", dir);
    expect_refusal(train_small(dir, "afile/m", NULL, NULL), 1, "afile/m");
    expect_refusal(train_small(dir, "m", "--state", state), 1, "afile/m.state");
    snprintf(same, sizeof same, "%s/m", dir);
    expect_refusal(train_small(dir, "m", "--state", same), 2, "--state");
    snprintf(same, sizeof same, "%s/./m", dir);
    expect_refusal(train_small(dir, "m", "--state", same), 2, "--state");
    cr_expect(access(path_in(dir, "m"), F_OK) != 0, "a refused run made its folder");
    remove_tree(dir);
}
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include "child.h"
#include "cli.h"
Test(lm_command, a_tokenizer_stopped_while_it_learns_leaves_no_folder, .timeout = 60) {
    char *dir = make_temp_dir(), text[256], out[256], err_path[256];
    const size_t words = 200000;
    char *bytes = malloc(words * 13);
    cr_assert_not_null(bytes);
    uint64_t state = mha_random_seeded(3);
    size_t used = 0;
    for (size_t w = 0; w < words; w++) {
        const size_t length = 3 + mha_random(&state) % 10;
        for (size_t k = 0; k < length; k++)
            bytes[used++] = (char)('a' + mha_random(&state) % 26);
        bytes[used++] = ' ';
    }
    write_bytes(dir, "words.txt", bytes, used);
    free(bytes);
    snprintf(text, sizeof text, "%s/words.txt", dir);
    snprintf(out, sizeof out, "%s/tokenizer", dir);
    snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
    fflush(NULL);
    const pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) {
        signal(SIGTERM, SIG_DFL);
        FILE *err = fopen(err_path, "w"), *sink = fopen("/dev/null", "w");
        char *argv[] = {"mha", "lm", "tokenizer", "--text", text, "--vocab", "8000", "--out",
                        out, NULL};
        child_exit(err && sink ? mha_cli_main(9, argv, sink, err) : 3);
    }
    nanosleep(&(struct timespec){0, 400 * 1000 * 1000}, NULL);
    int wstatus;
    cr_assert_eq(waitpid(child, &wstatus, WNOHANG), 0, "the tokenizer was learnt too soon");
    cr_expect(access(out, F_OK) != 0, "the folder was made before the tokenizer was learnt");
    kill(child, SIGTERM);
    cr_assert_eq(waitpid(child, &wstatus, 0), child);
    cr_expect(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM, "status %#x", wstatus);
    cr_expect(access(out, F_OK) != 0, "a stopped tokenizer left its folder");
    size_t n;
    char *said = slurp(err_path, &n);
    cr_expect(strncmp(said, "mha: stopped by SIGTERM", 23) == 0, "%s", said);
    free(said);
    remove_tree(dir);
}
Test(fuzz_replay, lm) {
    const char *names[2] = {"fuzz/corpus/lm", "fuzz/regressions/lm"};
    char here[4096], path[4400];
    cr_assert_not_null(getcwd(here, sizeof here));
    cr_assert_eq(fuzz_setup(), 0, "cannot make the fuzz directory");
    size_t seeds = 0;
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", here, names[k]);
        DIR *d = opendir(path);
        for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s/%s", here, names[k], e->d_name);
            size_t size;
            char *data = slurp(path, &size);
            fuzz_lm_one((const uint8_t *)data, size);
            free(data);
            seeds += k == 0;
        }
        if (d != NULL)
            closedir(d);
    }
    fuzz_teardown();
    cr_expect_geq(seeds, 5, "found %zu seeds", seeds);
}
#include <unistd.h>
#include "head_roles.h"

/* w (L, L): row i from f(i, j) for j <= i, zero above; malloc'd */
static float *pattern(size_t L, double (*f)(size_t, size_t, size_t))
{
    float *w = calloc(L * L, sizeof *w);
    cr_assert_not_null(w);
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j <= i; j++)
            w[i * L + j] = (float)f(i, j, L);
    return w;
}
static double previous_only(size_t i, size_t j, size_t L)
{
    (void)L;
    return i == 0 || j + 1 == i ? 1 : 0;
}
static double even(size_t i, size_t j, size_t L)
{
    (void)j, (void)L;
    return 1.0 / (double)(i + 1);
}
static double first_only(size_t i, size_t j, size_t L)
{
    (void)i, (void)L;
    return j == 0;
}
static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-6;              /* false for a NaN */
}
Test(heads, a_previous_token_pattern_scores_one) {
    enum { L = 24 };
    int tokens[L];
    unsigned char classes[L] = {0}, starts[L] = {0};
    for (int i = 0; i < L; i++)
        tokens[i] = i;
    float *w = pattern(L, previous_only);
    lm_head_tally t = {0};
    lm_head_tally_window(&t, w, tokens, L, classes, starts);
    const lm_head_scores s = lm_head_scores_of(&t);
    cr_expect(close_to(s.prev_token, 1) && close_to(s.mean_distance, 1) &&
              close_to(s.entropy_bits, 0), "prev %g distance %g entropy %g", s.prev_token,
              s.mean_distance, s.entropy_bits);
    cr_expect(close_to(s.first_token, 1.0 / (L - 1)) && close_to(s.same_token, 0) &&
              close_to(s.punctuation, 0) && close_to(s.sentence_start, 0),
              "first %g same %g", s.first_token, s.same_token);
    cr_expect_str_eq(lm_head_role(&s), "previous-token");
    free(w);
}
Test(heads, an_even_spread_scores_its_closed_forms) {
    enum { L = 40 };
    int tokens[L];
    unsigned char classes[5] = {0, LM_TOKEN_ENDS_SENTENCE, 0, LM_TOKEN_PUNCTUATION, 0}, starts[L];
    for (int i = 0; i < L; i++)
        tokens[i] = i % 5;
    lm_sentence_starts(tokens, L, classes, starts);
    float *w = pattern(L, even);
    lm_head_tally t = {0};
    lm_head_tally_window(&t, w, tokens, L, classes, starts);
    lm_head_tally_induction(&t, w, L, 2, 12, 6);
    const lm_head_scores s = lm_head_scores_of(&t);
    double previous = 0, entropy = 0, same = 0, punctuation = 0, sentence = 0, induction = 0;
    for (size_t i = 1; i < L; i++) {
        previous += 1.0 / (double)(i + 1) / (L - 1);
        entropy += log2((double)(i + 1)) / (L - 1);
        punctuation += (double)((i + 2) / 5) / (double)(i + 1) / (L - 1);
        sentence += (double)((i + 3) / 5) / (double)(i + 1) / (L - 1);
        same += i >= 5 ? (double)(i / 5) / (double)(i + 1) / (L - 5) : 0;
    }
    for (size_t k = 0; k < 5; k++)
        induction += 1.0 / (double)(12 + k + 1) / 5;
    cr_expect(close_to(s.prev_token, previous) && close_to(s.first_token, previous),
              "prev %g first %g, want %g", s.prev_token, s.first_token, previous);
    cr_expect(close_to(s.mean_distance, L / 4.0), "distance %g, want %g", s.mean_distance,
              L / 4.0);
    cr_expect(close_to(s.entropy_bits, entropy), "entropy %g, want %g", s.entropy_bits, entropy);
    cr_expect(close_to(s.same_token, same), "same %g, want %g", s.same_token, same);
    cr_expect(close_to(s.punctuation, punctuation), "punctuation %g, want %g", s.punctuation,
              punctuation);
    cr_expect(close_to(s.sentence_start, sentence), "sentence %g, want %g", s.sentence_start,
              sentence);
    cr_expect(close_to(s.induction, induction) && close_to(s.induction_even, induction),
              "induction %g and its even spread %g, want %g", s.induction, s.induction_even,
              induction);
    cr_expect_str_eq(lm_head_role(&s), "broad");
    free(w);
}
Test(heads, first_token_and_induction_patterns_score_one) {
    enum { L = 30 };
    int tokens[L];
    unsigned char classes[L] = {0}, starts[L] = {0};
    for (int i = 0; i < L; i++)
        tokens[i] = i;
    float *w = pattern(L, first_only);
    lm_head_tally t = {0};
    lm_head_tally_window(&t, w, tokens, L, classes, starts);
    lm_head_scores s = lm_head_scores_of(&t);
    cr_expect(close_to(s.first_token, 1) && close_to(s.mean_distance, L / 2.0) &&
              close_to(s.entropy_bits, 0), "first %g distance %g entropy %g", s.first_token,
              s.mean_distance, s.entropy_bits);
    cr_expect_str_eq(lm_head_role(&s), "first-token");
    const size_t a = 3, c = 17, r = 9;
    memset(w, 0, L * L * sizeof *w);
    for (size_t i = 0; i < L; i++)
        w[i * L + (i >= c && i + 1 < c + r ? a + (i - c) + 1 : i)] = 1;
    lm_head_tally u = {0};
    lm_head_tally_window(&u, w, tokens, L, classes, starts);
    lm_head_tally_induction(&u, w, L, a, c, r);
    s = lm_head_scores_of(&u);
    cr_expect(close_to(s.induction, 1) && close_to(s.prev_token, 0), "induction %g prev %g",
              s.induction, s.prev_token);
    cr_expect_str_eq(lm_head_role(&s), "induction");
    const size_t half = L / 2;                     /* random tokens written twice */
    memset(w, 0, L * L * sizeof *w);
    for (size_t i = 0; i < L; i++)
        w[i * L + (i >= half && i + 1 < 2 * half ? i - half + 1 : i)] = 1;
    lm_head_tally v = {0};
    lm_head_tally_prefix(&v, w, L, half);
    cr_expect(close_to(lm_head_scores_of(&v).prefix_matching, 1), "prefix matching %g",
              lm_head_scores_of(&v).prefix_matching);
    free(w);
    w = pattern(L, even);
    lm_head_tally e = {0};
    lm_head_tally_prefix(&e, w, L, half);
    double spread = 0;                             /* query half + k gives 1/(half + k + 1) */
    for (size_t k = 0; k + 1 < half; k++)
        spread += 1.0 / (double)(half + k + 1) / (double)(half - 1);
    cr_expect(close_to(lm_head_scores_of(&e).prefix_matching, spread),
              "an even spread scores %g, want %g", lm_head_scores_of(&e).prefix_matching, spread);
    cr_expect(close_to(lm_head_scores_of(&e).prefix_even, spread) &&
              close_to(lm_head_scores_of(&v).prefix_even, spread),
              "the even spread recorded: %g %g, want %g", lm_head_scores_of(&e).prefix_even,
              lm_head_scores_of(&v).prefix_even, spread);
    free(w);
}
Test(heads, the_role_rule_at_its_thresholds) {
    lm_head_scores s = {0};
    s.mean_distance = 4.01;
    cr_expect_str_eq(lm_head_role(&s), "broad");
    s.mean_distance = 4.0;
    cr_expect_str_eq(lm_head_role(&s), "local");
    const char *roles[] = {"punctuation", "sentence-start", "same-token", "first-token",
                           "previous-token"};
    double *scores[] = {&s.punctuation, &s.sentence_start, &s.same_token, &s.first_token,
                        &s.prev_token};
    for (size_t k = 0; k < 5; k++) {
        *scores[k] = 0.499;
        cr_expect_str_eq(lm_head_role(&s), k ? roles[k - 1] : "local");
        *scores[k] = 0.5;
        cr_expect_str_eq(lm_head_role(&s), roles[k]);
    }
    s.induction = 0.6;                             /* above prev_token, 0.5 */
    cr_expect_str_eq(lm_head_role(&s), "induction");
    s.induction = 0.5;                             /* equal to it */
    cr_expect_str_eq(lm_head_role(&s), "previous-token");
    s.prev_token = 0.1, s.induction = 0.299;
    cr_expect_str_eq(lm_head_role(&s), "first-token");
    s.induction = 0.3;
    cr_expect_str_eq(lm_head_role(&s), "induction");
}
Test(heads, token_classes_and_sentence_starts) {
    bpe tokenizer;
    const bpe_pair none = {0, 0};
    cr_assert_eq(bpe_from_merges(&none, 0, &tokenizer), MHA_OK);
    unsigned char classes[256];
    lm_token_classes(&tokenizer, classes);
    cr_expect_eq(classes['.'], LM_TOKEN_PUNCTUATION | LM_TOKEN_ENDS_SENTENCE);
    cr_expect_eq(classes['?'], LM_TOKEN_PUNCTUATION | LM_TOKEN_ENDS_SENTENCE);
    cr_expect_eq(classes[','], LM_TOKEN_PUNCTUATION);
    cr_expect_eq(classes['"'], LM_TOKEN_PUNCTUATION | LM_TOKEN_SPACE_OR_QUOTE);
    cr_expect_eq(classes[' '], LM_TOKEN_SPACE_OR_QUOTE);
    cr_expect_eq(classes['a'], 0);
    cr_expect_eq(classes[0xC3], 0);
    const char *text = "a.\" b? c, d";
    const unsigned char want[] = {0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    int tokens[11];
    unsigned char starts[11];
    for (size_t i = 0; i < 11; i++)
        tokens[i] = (unsigned char)text[i];
    lm_sentence_starts(tokens, 11, classes, starts);
    for (size_t i = 0; i < 11; i++)
        cr_expect_eq(starts[i], want[i], "position %zu ('%c'): %d", i, text[i], starts[i]);
    bpe_free(&tokenizer);
}
static void layer_norm_64(size_t L, size_t E, const double *x, const float *g, const float *b,
                          double *y)
{
    for (size_t i = 0; i < L; i++) {
        double mean = 0, var = 0;
        for (size_t e = 0; e < E; e++)
            mean += x[i * E + e] / (double)E;
        for (size_t e = 0; e < E; e++)
            var += (x[i * E + e] - mean) * (x[i * E + e] - mean) / (double)E;
        for (size_t e = 0; e < E; e++)
            y[i * E + e] = (x[i * E + e] - mean) / sqrt(var + 1e-5) * g[e] + b[e];
    }
}
/* y (L, O) = x (L, K) W^T + bias, W (O, K) */
static void linear_64(size_t L, size_t K, size_t O, const double *x, const float *W,
                      const float *bias, double *y)
{
    for (size_t i = 0; i < L; i++)
        for (size_t o = 0; o < O; o++) {
            double s = bias[o];
            for (size_t k = 0; k < K; k++)
                s += x[i * K + k] * W[o * K + k];
            y[i * O + o] = s;
        }
}
/* want (N, H, L, L): the weights of the tiny model on one window x (L), with
   the output of head h of block l zeroed before the output projection where
   removed[l H + h] (removed NULL: none); its logits (L, V) too, unless NULL */
static void weights_64(const lm_model *m, const int *x, size_t L, const unsigned char *removed,
                       double *want, double *logits)
{
    const size_t E = tiny.embed_dim, H = tiny.heads, D = E / H, F = tiny.hidden;
    double *h = calloc(L * E, sizeof *h), *u = calloc(L * E, sizeof *u);
    double *qkv = calloc(L * 3 * E, sizeof *qkv), *ctx = calloc(L * E, sizeof *ctx);
    double *a = calloc(L * E, sizeof *a), *hidden = calloc(L * F, sizeof *hidden);
    const float *tok = m->params + lm_tensor_find(m, "tok_emb.weight")->offset;
    const float *pos = m->params + lm_tensor_find(m, "pos_emb.weight")->offset;
    for (size_t i = 0; i < L; i++)
        for (size_t e = 0; e < E; e++)
            h[i * E + e] = (double)tok[(size_t)x[i] * E + e] + pos[i * E + e];
    for (size_t l = 0; l < tiny.layers; l++) {
        const mha_block_params p = lm_block_params(m, l);
        layer_norm_64(L, E, h, p.norm1_weight, p.norm1_bias, u);
        linear_64(L, E, 3 * E, u, p.attn.in_proj_weight, p.attn.in_proj_bias, qkv);
        for (size_t hd = 0; hd < H; hd++)
            for (size_t i = 0; i < L; i++) {
                double *w = want + ((l * H + hd) * L + i) * L, top = -INFINITY, sum = 0;
                for (size_t j = 0; j < L; j++) {
                    double s = 0;
                    for (size_t d = 0; d < D; d++)
                        s += qkv[i * 3 * E + hd * D + d] * qkv[j * 3 * E + E + hd * D + d];
                    w[j] = j <= i ? s / sqrt((double)D) : -INFINITY;
                    top = fmax(top, w[j]);
                }
                for (size_t j = 0; j < L; j++)
                    sum += w[j] = exp(w[j] - top);
                for (size_t d = 0; d < D; d++) {
                    double c = 0;
                    for (size_t j = 0; j <= i; j++)
                        c += w[j] / sum * qkv[j * 3 * E + 2 * E + hd * D + d];
                    ctx[i * E + hd * D + d] = c;
                }
                for (size_t j = 0; j < L; j++)
                    w[j] /= sum;
            }
        for (size_t k = 0; removed != NULL && k < L * E; k++)
            ctx[k] = removed[l * H + k % E / D] ? 0 : ctx[k];
        linear_64(L, E, E, ctx, p.attn.out_proj_weight, p.attn.out_proj_bias, a);
        for (size_t k = 0; k < L * E; k++)
            h[k] += a[k];
        layer_norm_64(L, E, h, p.norm2_weight, p.norm2_bias, u);
        linear_64(L, E, F, u, p.linear1_weight, p.linear1_bias, hidden);
        for (size_t k = 0; k < L * F; k++)
            hidden[k] = 0.5 * hidden[k] * (1 + erf(hidden[k] / sqrt(2.0)));
        linear_64(L, F, E, hidden, p.linear2_weight, p.linear2_bias, a);
        for (size_t k = 0; k < L * E; k++)
            h[k] += a[k];
    }
    if (logits != NULL) {
        const float *g = m->params + lm_tensor_find(m, "norm.weight")->offset;
        const float *b = m->params + lm_tensor_find(m, "norm.bias")->offset;
        const size_t V = tiny.vocab;
        layer_norm_64(L, E, h, g, b, u);
        float *zero = calloc(V, sizeof *zero);
        linear_64(L, E, V, u, tok, zero, logits);
        free(zero);
    }
    free(h); free(u); free(qkv); free(ctx); free(a); free(hidden);
}
Test(heads, forward_weights_equal_a_float64_recomputation) {
    lm_model m;
    load_tiny(&m);
    size_t n;
    int *x = golden_ints("tokens", &n);
    cr_assert_eq(n, 32);
    const size_t B = 2, L = 16, N = tiny.layers, H = tiny.heads, V = tiny.vocab;
    float *got = malloc(N * B * H * L * L * sizeof *got), *logits = malloc(B * L * V * sizeof *logits);
    double *want = malloc(N * H * L * L * sizeof *want);
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, B, L, 0), MHA_OK);
    cr_assert_eq(lm_forward(&m, &ws, x, B, L), MHA_OK);
    memcpy(logits, ws.logits, B * L * V * sizeof *logits);
    cr_assert_eq(lm_forward_weights(&m, &ws, x, B, L, got), MHA_OK);
    cr_expect(memcmp(logits, ws.logits, B * L * V * sizeof *logits) == 0,
              "the logits changed when the weights were asked for");
    double worst = 0;
    size_t above = 0;
    for (size_t b = 0; b < B; b++) {
        weights_64(&m, x + b * L, L, NULL, want, NULL);
        for (size_t l = 0; l < N; l++)
            for (size_t h = 0; h < H; h++)
                for (size_t i = 0; i < L; i++)
                    for (size_t j = 0; j < L; j++) {
                        const float g = got[((((l * B + b) * H + h) * L + i) * L) + j];
                        const double e = fabs(g - want[((l * H + h) * L + i) * L + j]);
                        worst = e > worst || e != e ? e : worst;
                        above += j > i && g != 0.0f;
                    }
    }
    cr_expect(worst <= 1e-5, "weights off by %g", worst);
    cr_expect_eq(above, 0, "%zu weights above the diagonal are not zero", above);
    cr_expect_eq(lm_forward_weights(&m, &ws, x, B, L, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_forward_weights(NULL, &ws, x, B, L, got), MHA_ERR_NULL);
    cr_expect_eq(lm_forward_weights(&m, NULL, x, B, L, got), MHA_ERR_NULL);
    lm_workspace_free(&ws);
    lm_model_free(&m);
    free(x); free(got); free(logits); free(want);
}
Test(heads_command, prints_one_line_per_head_and_writes_the_same_table) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    char model[256], valid[256];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    struct cli_result r = run_mha("lm", "heads", model, "--text", valid, "--windows", "5", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    size_t size;
    char *tsv = slurp(path_in(model, "heads.tsv"), &size);
    char *row = strchr(tsv, '\n');
    cr_assert(strncmp(tsv, "# heads\ttext=", 13) == 0 && row != NULL, "%s", tsv);
    cr_expect(strncmp(row + 1, "layer\thead\tprev_token\tinduction\tsame_token\tfirst_token\t"
                      "punctuation\tsentence_start\tmean_distance\tentropy_bits\t"
                      "prefix_matching\trole\n", 130)
              == 0, "%s", tsv);
    row = strchr(row + 1, '\n') + 1;
    const char *line = r.out;
    for (size_t k = 0; k < 4; k++) {
        size_t layer, head;
        double s[9];
        char role[24], again[512], cells[512];
        int used = 0;
        cr_assert_eq(sscanf(line, "layer=%zu head=%zu prev_token=%lf induction=%lf "
                            "same_token=%lf first_token=%lf punctuation=%lf "
                            "sentence_start=%lf mean_distance=%lf entropy_bits=%lf "
                            "prefix_matching=%lf role=%23s%n", &layer, &head, &s[0], &s[1],
                            &s[2], &s[3], &s[4], &s[5], &s[6], &s[7], &s[8], role, &used), 12,
                     "%s", line);
        cr_expect(layer == k / 2 && head == k % 2 && line[used] == '\n', "%s", line);
        snprintf(again, sizeof again, "layer=%zu head=%zu prev_token=%.3f induction=%.3f "
                 "same_token=%.3f first_token=%.3f punctuation=%.3f sentence_start=%.3f "
                 "mean_distance=%.2f entropy_bits=%.3f prefix_matching=%.3f role=%s\n", layer,
                 head, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], role);
        cr_expect(strncmp(line, again, (size_t)used + 1) == 0, "%.*s is not %s", used, line,
                  again);
        for (int q = 0; q < 9; q++)
            cr_expect(q == 6 || q == 7 || (s[q] >= 0 && s[q] <= 1), "score %d is %g", q, s[q]);
        cr_expect(s[6] >= 0 && s[6] <= 15 && s[7] >= 0 && s[7] <= log2(16.0), "%s", line);
        const lm_head_scores scores = {s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], 0, 0};
        cr_expect_str_eq(role, lm_head_role(&scores));
        snprintf(cells, sizeof cells, "%zu\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t"
                 "%.3f\t%s\n", layer, head, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
                 role);
        cr_expect(strncmp(row, cells, strlen(cells)) == 0, "heads.tsv has %.60s, not %s", row,
                  cells);
        line += used + 1;
        row += strlen(cells);
    }
    double early, late, score;
    int used = 0;
    cr_expect(sscanf(line, "in_context early_loss=%lf late_loss=%lf score=%lf\n%n", &early,
                     &late, &score, &used) == 3 && fabs(late - early - score) < 2e-4 &&
              early > 0 && late > 0, "%s", line);
    double shares[2], ceiling;
    line += used;
    used = 0;
    cr_expect(sscanf(line, "copying early_share=%lf late_share=%lf ceiling=%lf\n%n", &shares[0],
                     &shares[1], &ceiling, &used) == 3 && shares[0] >= 0 &&
              shares[0] <= shares[1] && shares[1] <= 1 && ceiling >= 0 && ceiling <= early,
              "%s", line);
    cr_expect(line[used] == '\0' && row == tsv + size, "more than four heads: %s", line);
    struct cli_result help = run_mha("help", "lm", NULL);
    cr_expect(strstr(help.out, "  heads ") != NULL, "%s", help.out);
    struct cli_result usage = run_mha("lm", "heads", "--help", NULL);
    cr_expect(usage.status == 0 &&
              strncmp(usage.out, "usage: mha lm heads DIR ", 24) == 0, "%s", usage.out);
    free_result(&usage);
    free(tsv);
    free_result(&t); free_result(&r); free_result(&help);
    remove_tree(dir);
}
static double loss_64(const float *z, size_t V, int target)
{
    double top = z[0], sum = 0;
    for (size_t v = 0; v < V; v++)
        top = z[v] > top ? z[v] : top;
    for (size_t v = 0; v < V; v++)
        sum += exp((double)z[v] - top);
    return top + log(sum) - z[target];
}
Test(heads, the_in_context_score_and_the_copying_gain_are_their_losses) {
    lm_model m;
    load_tiny(&m);
    const size_t T = tiny.context, V = tiny.vocab, W = 5, n = 300;
    int ids[300];
    uint64_t state = mha_random_seeded(4);
    for (size_t i = 0; i < n; i++)
        ids[i] = (int)(mha_random(&state) % V);
    double early, late, want_early = 0, want_late = 0;
    cr_assert_eq(lm_in_context_score(&m, ids, n, W, &early, &late), MHA_OK);
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, 1, T, 0), MHA_OK);
    const size_t run = T / 8, shift = T - run - 5 * T / 32;  /* the same tokens twice */
    for (size_t k = 0; k < W; k++) {
        const size_t start = (n - shift - T - 1) * k / (W - 1), later = start + shift;
        cr_assert_eq(lm_forward(&m, &ws, ids + start, 1, T), MHA_OK);
        for (size_t i = T - run; i < T; i++)
            want_late += loss_64(ws.logits + i * V, V, ids[start + i + 1]) /
                         (double)(W * run);
        cr_assert_eq(lm_forward(&m, &ws, ids + later, 1, T), MHA_OK);
        for (size_t j = 0; j < run; j++)   /* token start + T - run + j + 1, at 5T/32 + j */
            want_early += loss_64(ws.logits + (5 * T / 32 + j) * V, V,
                                  ids[start + T - run + j + 1]) / (double)(W * run);
    }
    cr_expect(fabs(early - want_early) < 1e-5 && fabs(late - want_late) < 1e-5,
              "early %g late %g, want %g %g", early, late, want_early, want_late);
    const size_t P = 4, a = 3, b = 8;
    double first, second, want_first = 0, want_second = 0;
    cr_assert_eq(lm_repeat_gain(&m, ids, n, P, a, b, &first, &second), MHA_OK);
    for (size_t k = 0; k < P; k++) {
        const size_t r = a + k % (b - a + 1), start = (n - b) * k / (P - 1);
        int x[16];
        for (size_t i = 0; i < 2 * r; i++)
            x[i] = ids[start + i % r];
        cr_assert_eq(lm_forward(&m, &ws, x, 1, 2 * r), MHA_OK);
        for (size_t i = 1; i < 2 * r; i++) {
            const double loss = loss_64(ws.logits + (i - 1) * V, V, x[i]);
            want_first += i < r ? loss / (double)(r - 1) / (double)P : 0;
            want_second += i >= r ? loss / (double)r / (double)P : 0;
        }
    }
    cr_expect(fabs(first - want_first) < 1e-5 && fabs(second - want_second) < 1e-5,
              "first %g second %g, want %g %g", first, second, want_first, want_second);
    lm_workspace_free(&ws);
    lm_model_free(&m);
}
/* the rule written again: the latest j < t from start on with ids[j] == ids[t] */
static int copies_right(const int *ids, size_t start, size_t t)
{
    size_t j = t;
    while (j > start && ids[j - 1] != ids[t])
        j--;
    return j > start && ids[j] == ids[t + 1];
}
Test(heads, the_copying_reach_in_closed_form_and_recomputed) {
    lm_model m;
    load_tiny(&m);
    const size_t T = tiny.context, V = tiny.vocab, W = 40, n = 200;
    const size_t run = T / 8, from = 5 * T / 32, shift = T - run - from, period = 8;
    cr_assert(period > from + run - 1 && period <= T - run && period <= V);
    int ids[200];
    double early, late, ceiling, early_loss, late_loss;
    for (size_t i = 0; i < n; i++)
        ids[i] = (int)(i % period);
    cr_assert_eq(lm_copying_reach(&m, ids, n, W, &early, &late, &ceiling), MHA_OK);
    cr_assert_eq(lm_in_context_score(&m, ids, n, W, &early_loss, &late_loss), MHA_OK);
    cr_expect(early == 0 && late == 1 && fabs(ceiling - early_loss) < 1e-9,
              "shares %g %g, ceiling %g against the early loss %g", early, late, ceiling,
              early_loss);
    for (size_t i = 0; i < n; i++)
        ids[i] = 5;
    cr_assert_eq(lm_copying_reach(&m, ids, n, W, &early, &late, &ceiling), MHA_OK);
    cr_expect(early == 1 && late == 1 && ceiling == 0, "%g %g %g", early, late, ceiling);
    uint64_t state = mha_random_seeded(9);
    for (size_t i = 0; i < n; i++)
        ids[i] = (int)(mha_random(&state) % 3);
    cr_assert_eq(lm_copying_reach(&m, ids, n, W, &early, &late, &ceiling), MHA_OK);
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, 1, T, 0), MHA_OK);
    size_t near = 0, far = 0;
    double saved = 0;
    for (size_t k = 0; k < W; k++) {
        const size_t start = (n - shift - T - 1) * k / (W - 1);
        cr_assert_eq(lm_forward(&m, &ws, ids + start + shift, 1, T), MHA_OK);
        for (size_t i = 0; i < run; i++) {
            const size_t t = start + T - run + i;
            const int a = copies_right(ids, start + shift, t), b = copies_right(ids, start, t);
            near += (size_t)a, far += (size_t)b;
            if (b && !a)
                saved += loss_64(ws.logits + (from + i) * V, V, ids[t + 1]);
        }
    }
    cr_expect(far > near && near > 0, "the test's text should give both kinds: %zu %zu", near,
              far);
    cr_expect(early == (double)near / (double)(W * run) && late == (double)far / (double)(W * run),
              "shares %g %g, want %zu and %zu of %zu", early, late, near, far, W * run);
    cr_expect(fabs(ceiling - saved / (double)(W * run)) < 1e-5, "ceiling %g, want %g", ceiling,
              saved / (double)(W * run));
    lm_workspace_free(&ws);
    lm_model_free(&m);
}
Test(heads_command, the_copying_gain_is_what_eval_gives_on_the_passage_and_its_double) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    char *valid_path = small_text(dir, "valid.txt", 2, 400), text[256], vtext[256], model[256];
    size_t size;
    char *valid = slurp(valid_path, &size);
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(vtext, sizeof vtext, "%s/valid.txt", dir);
    snprintf(model, sizeof model, "%s/m", dir);
    struct cli_result t = run_mha("lm", "train", "--text", text, "--out", model, "--vocab", "256",
                                  "--layers", "1", "--heads", "2", "--dim", "16", "--context",
                                  "32", "--batch", "4", "--steps", "30", "--eval-every", "30",
                                  NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    enum { R = 12 };
    char twice[2 * R];
    memcpy(twice, valid, R);
    memcpy(twice + R, valid, R);
    write_bytes(dir, "once.txt", valid, R);
    write_bytes(dir, "twice.txt", twice, 2 * R);
    double loss[2];
    const char *names[] = {"once.txt", "twice.txt"};
    for (int k = 0; k < 2; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        struct cli_result e = run_mha("lm", "eval", model, "--text", path, NULL);
        cr_assert(e.status == 0 && sscanf(e.out, "tokens=%*u bytes=%*u loss=%lf", &loss[k]) == 1,
                  "%s%s", e.out, e.err);
        free_result(&e);
    }
    const double want_second = (loss[1] * (2 * R - 1) - loss[0] * (R - 1)) / R;
    struct cli_result r = run_mha("lm", "repeat", model, "--text", vtext, "--passages", "1",
                                  "--least", "12", "--most", "12", NULL);
    double first, second, gain;
    cr_assert(r.status == 0 && sscanf(r.out, "passages=1 first=%lf second=%lf gain=%lf", &first,
                                      &second, &gain) == 3, "%s%s", r.out, r.err);
    cr_expect(fabs(first - loss[0]) < 2e-4 && fabs(second - want_second) < 2e-4 &&
              fabs(gain - (first - second)) < 2e-4,
              "repeat says %g %g, eval %g %g", first, second, loss[0], want_second);
    expect_one_error(run_mha("lm", "repeat", model, "--text", vtext, "--most", "17", NULL),
                     "--most");
    expect_one_error(run_mha("lm", "repeat", model, "--text", vtext, "--least", "9", "--most",
                             "8", NULL), "--least");
    expect_one_error(run_mha("lm", "repeat", model, "--text", vtext, "--least", "4", "--most",
                             "8", "--mask", "3:0", NULL), "--mask");
    expect_one_error(run_mha("lm", "repeat", model, NULL), "--text");
    struct cli_result masked = run_mha("lm", "repeat", model, "--text", vtext, "--least", "4",
                                       "--most", "8", "--mask", "0:1", NULL);
    cr_expect(masked.status == 0 && strstr(masked.out, " removed=1\n") != NULL, "%s%s",
              masked.out, masked.err);
    free_result(&masked);
    free_result(&t);
    free_result(&r);
    free(valid);
    free(valid_path);
    remove_tree(dir);
}
static void copy_file(const char *from, const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", from, name);
    size_t size;
    char *bytes = slurp(path, &size);
    write_bytes(dir, name, bytes, size);
    free(bytes);
}
Test(heads_command, sees_the_heads_of_the_committed_induction_model) {
    const char *from = "../models/induction";
    char *dir = make_temp_dir();
    const char *names[] = {"model.txt", "tok_emb.npy", "pos_emb.npy", "unembed.npy"};
    for (size_t i = 0; i < 4; i++)
        copy_file(from, dir, names[i]);
    const char *parts[] = {"in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias"};
    for (int l = 0; l < 2; l++)
        for (size_t k = 0; k < 4; k++) {
            char name[64];
            snprintf(name, sizeof name, "layers.%d.%s.npy", l, parts[k]);
            copy_file(from, dir, name);
        }
    struct cli_result r = run_mha("lm", "heads", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int previous = 0, induction = 0;
    double even = 0;                               /* T = 32: the mean of 1/(16 + k + 1) */
    for (int k = 0; k < 15; k++)
        even += 1.0 / (16 + k + 1) / 15;
    for (const char *line = r.out; *line; line = strchr(line, '\n') + 1) {
        size_t layer, head;
        double prev, prefix;
        char role[24];
        if (sscanf(line, "layer=%zu head=%zu prev_token=%lf", &layer, &head, &prev) == 3) {
            const char *p = strstr(line, "prefix_matching=");
            cr_assert(p != NULL && sscanf(p, "prefix_matching=%lf role=%23s", &prefix, role) == 2,
                      "%s", line);
            previous += layer == 0 && prev >= 0.5 && strcmp(role, "previous-token") == 0;
            induction += layer == 1 && prefix >= 0.3 && prefix >= 10 * even &&
                         strcmp(role, "induction") == 0;
        }
    }
    cr_expect(previous >= 1 && induction >= 1, "no previous-token (%d) or induction (%d) head "
              "seen in:\n%s", previous, induction, r.out);
    free_result(&r);
    expect_one_error(run_mha("lm", "heads", dir, "--text", "../models/induction/model.txt", NULL),
                     "--text");
    remove_tree(dir);
}
Test(heads_command, bad_inputs_get_one_line) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    write_bytes(dir, "empty.txt", "", 0);
    write_bytes(dir, "short.txt", "Emma was.", 9);
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    char model[256], valid[256], text[256], missing[256];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(missing, sizeof missing, "%s/none", dir);
    expect_one_error(run_mha("lm", "heads", missing, "--text", valid, NULL), "none/model.txt");
    const char *texts[] = {"empty.txt", "short.txt", "absent.txt"};
    for (size_t k = 0; k < 3; k++) {
        snprintf(text, sizeof text, "%s/%s", dir, texts[k]);
        expect_one_error(run_mha("lm", "heads", model, "--text", text, NULL), texts[k]);
    }
    expect_one_error(run_mha("lm", "heads", model, NULL), "--text");
    expect_one_error(run_mha("lm", "heads", model, "--text", valid, "--windows", "0", NULL),
                     "--windows");
    expect_one_error(run_mha("lm", "heads", "--text", valid, NULL),
                     "the model directory");
    char long_dir[5000];
    snprintf(long_dir, sizeof long_dir, "%s/%04200d", dir, 0);
    expect_one_error(run_mha("lm", "heads", long_dir, "--text", valid, NULL),
                     "name too long");
    cr_expect(access(path_in(model, "heads.tsv"), F_OK) != 0, "a refused run wrote heads.tsv");
    cr_assert_eq(mkdir(path_in(model, "heads.tsv"), 0777), 0);
    expect_one_error(run_mha("lm", "heads", model, "--text", valid, "--windows", "1",
                             NULL), "heads.tsv");
    struct stat in_the_way;
    cr_expect(stat(path_in(model, "heads.tsv"), &in_the_way) == 0 &&
              S_ISDIR(in_the_way.st_mode), "the folder in the way was replaced");
    rmdir(path_in(model, "heads.tsv"));
    remove_tree(dir);
}
Test(heads_mask, removing_a_head_equals_zeroing_its_slice) {
    lm_model m;
    load_tiny(&m);
    size_t n;
    int *x = golden_ints("tokens", &n);
    const size_t L = 16, N = tiny.layers, H = tiny.heads, V = tiny.vocab;
    double *want = malloc(N * H * L * L * sizeof *want), *z = malloc(L * V * sizeof *z);
    double *z_all = malloc(L * V * sizeof *z_all);
    float *plain = malloc(L * V * sizeof *plain);
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, 1, L, 0), MHA_OK);
    cr_assert_eq(lm_forward(&m, &ws, x, 1, L), MHA_OK);
    memcpy(plain, ws.logits, L * V * sizeof *plain);
    weights_64(&m, x, L, NULL, want, z_all);
    const size_t cases[3][2][2] = {{{0, 1}, {0, 1}}, {{1, 3}, {1, 3}}, {{0, 2}, {1, 0}}};
    for (size_t c = 0; c < 3; c++) {
        unsigned char removed[8] = {0};
        for (size_t k = 0; k < 2; k++) {
            cr_assert_eq(lm_head_keep(&m, cases[c][k][0], cases[c][k][1], 0), MHA_OK);
            removed[cases[c][k][0] * H + cases[c][k][1]] = 1;
        }
        cr_expect_eq(lm_heads_removed(&m), c < 2 ? 1 : 2);
        for (size_t k = 0; k <= 8; k++)                    /* and one past the last head */
            cr_expect_eq(lm_head_removed(&m, k), k < 8 && removed[k], "head %zu", k);
        cr_assert_eq(lm_forward(&m, &ws, x, 1, L), MHA_OK);
        weights_64(&m, x, L, removed, want, z);
        double worst = 0, moved = 0;
        for (size_t k = 0; k < L * V; k++) {
            const double e = fabs(ws.logits[k] - z[k]);
            worst = e > worst || e != e ? e : worst;
            moved = fmax(moved, fabs(z[k] - z_all[k]));
        }
        cr_expect(worst <= 1e-5, "case %zu: logits off by %g", c, worst);
        cr_expect(moved >= 1e-3, "case %zu: removing the heads moved no logit (%g)", c, moved);
        lm_heads_restore(&m);
    }
    cr_assert_eq(lm_forward(&m, &ws, x, 1, L), MHA_OK);
    cr_expect(memcmp(plain, ws.logits, L * V * sizeof *plain) == 0,
              "the logits with every head kept again are not the model's");
    cr_expect_eq(lm_head_keep(&m, N, 0, 0), MHA_ERR_ARG);
    cr_expect_eq(lm_head_keep(&m, 0, H, 0), MHA_ERR_ARG);
    cr_expect_eq(lm_head_keep(NULL, 0, 0, 0), MHA_ERR_NULL);
    lm_workspace train;
    cr_assert_eq(lm_workspace_init(&train, &m, 1, L, 1), MHA_OK);
    cr_assert_eq(lm_head_keep(&m, 1, 1, 0), MHA_OK);
    double loss;
    cr_expect_eq(lm_loss(&m, &train, x, x + 1, &loss), MHA_ERR_ARG);
    lm_decoder dec;
    cr_assert_eq(lm_decoder_init(&dec, &m), MHA_OK);
    cr_expect_eq(lm_decoder_step(&dec, x[0]), MHA_ERR_ARG);
    lm_decoder_free(&dec);
    lm_workspace_free(&train);
    lm_workspace_free(&ws);
    lm_model_free(&m);
    free(x); free(want); free(z); free(z_all); free(plain);
}
struct tokens_of { const int *ids; size_t n, windows; };
static mha_status sample_loss(const lm_model *m, void *context, double *loss)
{
    const struct tokens_of *t = context;
    return lm_sample_loss(m, t->ids, t->n, t->windows, loss);
}
Test(heads_prune, a_head_that_writes_nothing_has_importance_zero) {
    lm_model m;
    load_tiny(&m);
    size_t n;
    int *x = golden_ints("tokens", &n);
    const size_t T = tiny.context, E = tiny.embed_dim, H = tiny.heads, D = E / H;
    int inputs[2 * 16], targets[2 * 16];
    for (size_t b = 0; b < 2; b++)                 /* windows at 0 and n - T - 1 */
        for (size_t i = 0; i < T; i++) {
            inputs[b * T + i] = x[b * (n - T - 1) + i];
            targets[b * T + i] = x[b * (n - T - 1) + i + 1];
        }
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, 2, T, 0), MHA_OK);
    double want, got;
    cr_assert_eq(lm_loss(&m, &ws, inputs, targets, &want), MHA_OK);
    cr_assert_eq(lm_sample_loss(&m, x, n, 2, &got), MHA_OK);
    cr_expect(fabs(got - want) <= 1e-6 * want, "sample loss %.17g, lm_loss %.17g", got, want);
    float *w = m.params + lm_tensor_find(&m, "blocks.1.self_attn.out_proj.weight")->offset;
    for (size_t o = 0; o < E; o++)
        for (size_t d = 0; d < D; d++)
            w[o * E + 2 * D + d] = 0;
    struct tokens_of sample = {x, n, 2};
    double base, importance[8];
    cr_assert_eq(lm_heads_importance(&m, sample_loss, &sample, &base, importance), MHA_OK);
    cr_expect(importance[1 * H + 2] == 0.0, "importance %g", importance[1 * H + 2]);
    for (size_t k = 0; k < 8; k++)
        cr_expect(k == 1 * H + 2 || fabs(importance[k]) > 1e-6, "head %zu: importance %g", k,
                  importance[k]);
    cr_expect_eq(lm_heads_removed(&m), 0);
    cr_expect_eq(lm_sample_loss(&m, x, T, 1, &got), MHA_ERR_SHAPE);
    cr_expect_eq(lm_sample_loss(&m, x, n, 0, &got), MHA_ERR_SHAPE);
    lm_workspace_free(&ws);
    lm_model_free(&m);
    free(x);
}
static mha_status made_loss(const lm_model *m, void *context, double *loss)
{
    const double cost[4] = {0.3, 0.1, 0.25, 0.2};
    const float *keep = m->head_mask;
    *loss = 2.0 + (keep[1] == 0 && keep[3] == 0 ? 0.5 : 0);
    for (size_t k = 0; k < 4; k++)
        *loss += keep[k] == 0 ? cost[k] : 0;
    ++*(size_t *)context;
    return MHA_OK;
}
static mha_status nan_loss(const lm_model *m, void *context, double *loss)
{
    (void)m, (void)context;
    *loss = NAN;
    return MHA_OK;
}
Test(heads_prune, the_greedy_order_on_a_loss_made_by_hand) {
    const lm_config c = {4, 2, 2, 2, 2, 1};
    lm_model m;
    cr_assert_eq(lm_model_alloc(&m, &c), MHA_OK);
    size_t calls = 0;
    double base, importance[4];
    cr_assert_eq(lm_heads_importance(&m, made_loss, &calls, &base, importance), MHA_OK);
    const double cost[4] = {0.3, 0.1, 0.25, 0.2};
    cr_expect(fabs(base - 2.0) <= 1e-12 && calls == 5, "base %g after %zu passes", base, calls);
    for (size_t k = 0; k < 4; k++)
        cr_expect(fabs(importance[k] - cost[k]) <= 1e-12, "head %zu: %g", k, importance[k]);
    lm_prune_step steps[4];
    calls = 0;
    cr_assert_eq(lm_heads_prune(&m, made_loss, &calls, 4, steps), MHA_OK);
    const size_t order[4][2] = {{0, 1}, {1, 0}, {0, 0}, {1, 1}};
    const double loss[4] = {2.1, 2.35, 2.65, 3.35};
    for (size_t s = 0; s < 4; s++)
        cr_expect(steps[s].layer == order[s][0] && steps[s].head == order[s][1] &&
                  fabs(steps[s].loss - loss[s]) <= 1e-12, "step %zu: head %zu of block %zu, "
                  "loss %g", s + 1, steps[s].head, steps[s].layer, steps[s].loss);
    cr_expect_eq(calls, 4 + 3 + 2 + 1);
    cr_expect_eq(lm_heads_removed(&m), 0);
    cr_expect_eq(lm_heads_prune(&m, made_loss, &calls, 2, steps), MHA_OK);
    cr_expect(steps[1].layer == 1 && steps[1].head == 0, "a shorter run changed the order");
    cr_expect_eq(lm_heads_prune(&m, made_loss, &calls, 5, steps), MHA_ERR_ARG);
    cr_expect_eq(lm_heads_prune(&m, nan_loss, NULL, 1, steps), MHA_ERR_RANGE);
    cr_expect_eq(lm_heads_importance(&m, nan_loss, NULL, &base, importance), MHA_ERR_RANGE);
    cr_assert_eq(lm_head_keep(&m, 0, 0, 0), MHA_OK);
    cr_expect_eq(lm_heads_prune(&m, made_loss, &calls, 1, steps), MHA_ERR_ARG);
    cr_expect_eq(lm_heads_importance(&m, made_loss, &calls, &base, importance), MHA_ERR_ARG);
    cr_expect_eq(lm_heads_importance(&m, NULL, &calls, &base, importance), MHA_ERR_NULL);
    lm_model_free(&m);
}
static double field(const char *text, const char *name)
{
    const char *at = strstr(text, name);
    return at ? strtod(at + strlen(name), NULL) : NAN;
}
Test(prune_command, prints_each_step_and_writes_the_table) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    char model[256], valid[256];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    struct cli_result all = run_mha("lm", "eval", model, "--text", valid, NULL);
    struct cli_result cut = run_mha("lm", "eval", model, "--text", valid, "--mask", "1:0,0:1",
                                    NULL);
    cr_assert(all.status == 0 && cut.status == 0, "%s%s", all.err, cut.err);
    cr_expect(strstr(all.out, "removed=") == NULL && strstr(cut.out, " removed=2\n") != NULL,
              "%s%s", all.out, cut.out);
    cr_expect(field(cut.out, "loss=") != field(all.out, "loss="), "%s%s", all.out, cut.out);
    struct cli_result r = run_mha("lm", "prune", model, "--text", valid, "--tokens", "64", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double base;
    int used = 0;
    cr_assert_eq(sscanf(r.out, "tokens=64 windows=4 context=16 loss=%lf\n%n", &base, &used), 1,
                 "%s", r.out);
    size_t size;
    char *tsv = slurp(path_in(model, "prune.tsv"), &size);
    char *row = strchr(tsv, '\n');
    cr_assert(strncmp(tsv, "# prune\ttext=", 13) == 0 && row != NULL, "%s", tsv);
    cr_expect(field(tsv, "base=") == base, "%s", tsv);
    cr_expect(strncmp(row + 1, "layer\thead\timportance\tstep\tloss\n", 32) == 0, "%s", tsv);
    row = strchr(row + 1, '\n') + 1;
    double importance[4], after[4], least = INFINITY;
    size_t step_of[4];
    for (size_t k = 0; k < 4; k++) {
        size_t layer, head;
        int n = 0;
        cr_assert_eq(sscanf(row, "%zu\t%zu\t%lf\t%zu\t%lf\n%n", &layer, &head, &importance[k],
                            &step_of[k], &after[k], &n), 5, "%s", row);
        cr_expect(layer == k / 2 && head == k % 2 && step_of[k] >= 1 && step_of[k] <= 4, "%s",
                  row);
        least = fmin(least, importance[k]);
        row += n;
    }
    cr_expect(row == tsv + size, "more than four rows: %s", row);
    const char *line = r.out + used;
    for (size_t s = 1; s <= 4; s++) {
        size_t k, layer, head;
        double share, loss;
        char again[256];
        int n = 0;
        cr_assert_eq(sscanf(line, "removed=%zu share=%lf layer=%zu head=%zu loss=%lf\n%n", &k,
                            &share, &layer, &head, &loss, &n), 5, "%s", line);
        snprintf(again, sizeof again, "removed=%zu share=%.3f layer=%zu head=%zu loss=%.6f\n",
                 s, s / 4.0, layer, head, loss);
        cr_expect(strncmp(line, again, (size_t)n) == 0 && layer < 2 && head < 2, "%.*s is not %s",
                  n, line, again);
        cr_expect(step_of[layer * 2 + head] == s && after[layer * 2 + head] == loss,
                  "step %zu: the table says step %zu, loss %g", s, step_of[layer * 2 + head],
                  after[layer * 2 + head]);
        if (s == 1)
            cr_expect(fabs(loss - (base + least)) <= 2e-6, "first step %g, base %g + %g", loss,
                      base, least);
        line += n;
    }
    cr_expect(*line == '\0', "more lines: %s", line);
    struct cli_result two = run_mha("lm", "prune", model, "--text", valid, "--tokens", "64",
                                    "--max", "2", NULL);
    cr_assert_eq(two.status, 0, "%s", two.err);
    cr_expect(strncmp(two.out, r.out, (size_t)(strstr(r.out, "removed=3") - r.out)) == 0 &&
              strstr(two.out, "removed=3") == NULL, "%s", two.out);
    char *short_tsv = slurp(path_in(model, "prune.tsv"), &size);
    size_t untouched = 0;
    for (const char *p = strstr(short_tsv, "\t0\t-\n"); p; p = strstr(p + 1, "\t0\t-\n"))
        untouched++;
    cr_expect_eq(untouched, 2, "%s", short_tsv);
    struct cli_result help = run_mha("help", "lm", NULL);
    cr_expect(strstr(help.out, "  prune ") != NULL, "%s", help.out);
    struct cli_result usage = run_mha("lm", "prune", "--help", NULL);
    cr_expect(usage.status == 0 &&
              strncmp(usage.out, "usage: mha lm prune DIR ", 24) == 0, "%s", usage.out);
    free_result(&usage);
    free(tsv); free(short_tsv);
    free_result(&t); free_result(&all); free_result(&cut); free_result(&r); free_result(&two);
    free_result(&help);
    remove_tree(dir);
}
Test(prune_command, bad_inputs_get_one_line) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    write_bytes(dir, "short.txt", "Emma was.", 9);
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    char model[256], valid[256], text[256], missing[256];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(text, sizeof text, "%s/short.txt", dir);
    snprintf(missing, sizeof missing, "%s/none", dir);
    const char *masks[] = {"", "x", "0", "0:", ":1", "0:1,", "0:1;1:0", "-1:0", "0:-1", "2:0",
                           "0:2", "0:1,7:0", "99999999999999999999:0", " 0:1", "0,1", "0.1"};
    for (size_t k = 0; k < sizeof masks / sizeof masks[0]; k++)
        expect_one_error(run_mha("lm", "eval", model, "--text", valid, "--mask", masks[k], NULL),
                         "--mask");
    expect_one_error(run_mha("lm", "prune", missing, "--text", valid, NULL), "none/model.txt");
    expect_one_error(run_mha("lm", "prune", model, "--text", text, NULL), "short.txt");
    expect_one_error(run_mha("lm", "prune", model, NULL), "--text");
    expect_one_error(run_mha("lm", "prune", model, "--text", valid, "--tokens", "0", NULL),
                     "--tokens");
    expect_one_error(run_mha("lm", "prune", model, "--text", valid, "--max", "0", NULL),
                     "--max");
    expect_one_error(run_mha("lm", "prune", "--text", valid, NULL),
                     "the model directory");
    char long_dir[5000];
    snprintf(long_dir, sizeof long_dir, "%s/%04200d", dir, 0);
    expect_one_error(run_mha("lm", "prune", long_dir, "--text", valid, NULL),
                     "name too long");
    cr_expect(access(path_in(model, "prune.tsv"), F_OK) != 0, "a refused run wrote prune.tsv");
    cr_assert_eq(mkdir(path_in(model, "prune.tsv"), 0777), 0);
    expect_one_error(run_mha("lm", "prune", model, "--text", valid, "--max", "1", NULL),
                     "prune.tsv");
    struct stat in_the_way;
    cr_expect(stat(path_in(model, "prune.tsv"), &in_the_way) == 0 &&
              S_ISDIR(in_the_way.st_mode), "the folder in the way was replaced");
    rmdir(path_in(model, "prune.tsv"));
    remove_tree(dir);
}
#include "tables.h"
Test(prune_command, the_printers_read_the_table) {
    char *dir = make_temp_dir();
    static const char head[] = "# prune\ttext=v.txt\ttokens=900\tsha256=ab\tcontext=16\t"
                               "windows=4\tbase=3.250000\nlayer\thead\timportance\tstep\tloss\n";
    static const char *const rows[] = {
        "0\t0\t0.500000\t2\t3.900000\n0\t1\t0.100000\t1\t3.350000\n1\t0\t0.000000\t0\t-\n"
        "1\t1\t0.200000\t0\t-\n",
        "0\t0\t0.500000\t2\t3.900000\n0\t1\t0.100000\t2\t3.350000\n1\t0\t0.000000\t0\t-\n"
        "1\t1\t0.200000\t0\t-\n",
        "0\t0\t0.500000\t2\t3.900000\n0\t1\t0.100000\t1\t-\n1\t0\t0.000000\t0\t-\n"
        "1\t1\t0.200000\t0\t-\n",
        "0\t0\t0.500000\t2\t3.900000\n1\t0\t0.000000\t0\t-\n0\t1\t0.100000\t1\t3.350000\n"
        "1\t1\t0.200000\t0\t-\n"};
    for (size_t k = 0; k < 4; k++) {
        char text[1024], path[512];
        snprintf(text, sizeof text, "%s%s", head, rows[k]);
        write_bytes(dir, "prune.tsv", text, strlen(text));
        snprintf(path, sizeof path, "%s/prune.tsv", dir);
        austen_prune *t = malloc(sizeof *t);
        cr_assert_not_null(t);
        const int read = mha_read_austen_prune(path, t);
        cr_expect_eq(read, k == 0, "table %zu: read %d", k, read);
        if (k == 0)
            cr_expect(t->layers == 2 && t->heads == 2 && t->context == 16 && t->windows == 4 &&
                      t->base == 3.25 && t->importance[0] == 0.5 && t->step[1] == 1 &&
                      t->loss[1] == 3.35 && t->step[2] == 0 && isnan(t->loss[3]),
                      "read %zu x %zu, base %g", t->layers, t->heads, t->base);
        free(t);
    }
    remove_tree(dir);
}
#include <sys/stat.h>
static int run_heads_study(const char *dir, const char *heads, const char *work,
                           const char *results, char *log, size_t size)
{
    const char *mha = getenv("MHA_BINARY") ? getenv("MHA_BINARY") : "../build/mha";
    char command[2048];
    snprintf(command, sizeof command, "HEADS='%s' SEEDS='1 2' LAYERS=1 DIM=16 CONTEXT=8 "
             "BATCH=2 STEPS=4 EVAL_EVERY=2 bash ../tools/heads-study.sh %s %s/train.txt "
             "%s/valid.txt %s/m %s/%s %s/%s > %s/study.log 2>&1", heads, mha, dir, dir, dir,
             dir, work, dir, results, dir);
    const int status = system(command);
    size_t n;
    char *text = slurp(path_in(dir, "study.log"), &n);
    snprintf(log, size, "%s", text);
    free(text);
    return status;
}
static const char *study_row(const char *table, size_t heads, size_t seed, double *bpc,
                             double *loss, int *resumed)
{
    for (const char *row = strchr(table, '\n'); row; row = strchr(row + 1, '\n')) {
        size_t h, s;
        if (sscanf(row + 1, "%zu\t%*u\t%zu\t%*u\t%*u\t%*u\t%*u\t%*u\t%*u\t%*u\t%lf\t%lf\t%*f\t%d",
                   &h, &s, bpc, loss, resumed) == 5 && h == heads && s == seed)
            return row + 1;
    }
    return NULL;
}
Test(heads_study, the_script_on_a_tiny_budget) {
    char *dir = make_temp_dir(), log[4096];
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);     /* the tokenizer */
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    cr_assert_eq(run_heads_study(dir, "1 2", "work", "count.tsv", log, sizeof log), 0, "%s",
                 log);
    size_t size;
    char *table = slurp(path_in(dir, "count.tsv"), &size);
    cr_assert(strncmp(table, "# heads-study\ttrain_sha256=", 27) == 0, "%s", table);
    const char *row = strchr(table, '\n') + 1;
    cr_assert(strncmp(row, "heads\thead_dim\tseed\tlayers\tdim\tcontext\tbatch\tsteps\t"
                           "tokens_seen\tparameters\tbits_per_char\tloss\tseconds\tresumed\n",
                      109) == 0, "%s", table);
    row = strchr(row, '\n') + 1;
    for (size_t k = 0; k < 4; k++) {
        size_t h, width, seed, layers, dim, context, batch, steps, tokens, parameters;
        double bpc, loss, seconds;
        int resumed, n = 0;
        cr_assert_eq(sscanf(row, "%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%lf\t%lf\t"
                                 "%lf\t%d\n%n", &h, &width, &seed, &layers, &dim, &context,
                            &batch, &steps, &tokens, &parameters, &bpc, &loss, &seconds,
                            &resumed, &n), 14, "%s", row);
        cr_expect(h == 1 + k / 2 && width == 16 / h && seed == 1 + k % 2 && layers == 1 &&
                  dim == 16 && context == 8 && batch == 2 && steps == 4 && tokens == 64 &&
                  resumed == 0, "%.*s", n, row);
        char model[256], valid[256];
        snprintf(model, sizeof model, "%s/work/h%zu-s%zu", dir, h, seed);
        snprintf(valid, sizeof valid, "%s/valid.txt", dir);
        struct cli_result e = run_mha("lm", "eval", model, "--text", valid, NULL);
        cr_expect(e.status == 0 && field(e.out, "bits_per_char=") == bpc &&
                  field(e.out, "loss=") == loss, "%s is not %.*s", e.out, n, row);
        free_result(&e);
        row += n;
    }
    cr_expect(*row == '\0', "more rows: %s", row);
    heads_count *c = malloc(sizeof *c);
    cr_assert_not_null(c);
    cr_expect(mha_read_heads_count(path_in(dir, "count.tsv"), c) && c->runs == 4 &&
              c->groups == 2 && c->group[1].heads == 2 && c->group[1].runs == 2, "%zu runs",
              c->runs);
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s/work'", dir);
    cr_assert_eq(system(command), 0);
    cr_assert_eq(run_heads_study(dir, "1 2", "work", "count.tsv", log, sizeof log), 0, "%s",
                 log);
    cr_expect(strstr(log, "training") == NULL && strstr(log, "heads=2 seed=2: done"), "%s",
              log);
    size_t again_size;
    char *again = slurp(path_in(dir, "count.tsv"), &again_size);
    cr_expect(again_size == size && memcmp(again, table, size) == 0, "%s", again);
    free(table); free(again); free(c);
    remove_tree(dir);
}
static struct cli_result stop_half_way(const char *dir, const char *work, const char *seed)
{
    char model[256], state[256], text[256], valid[256], tokenizer[256];
    snprintf(model, sizeof model, "%s/%s/h4-s1", dir, work);
    snprintf(state, sizeof state, "%s/%s/h4-s1.state", dir, work);
    snprintf(text, sizeof text, "%s/train.txt", dir);
    snprintf(valid, sizeof valid, "%s/valid.txt", dir);
    snprintf(tokenizer, sizeof tokenizer, "%s/m", dir);
    cr_assert_eq(mkdir(path_in(dir, work), 0700), 0);
    return run_mha("lm", "train", "--text", text, "--valid", valid, "--out", model, "--state",
                   state, "--tokenizer", tokenizer, "--layers", "1", "--heads", "4", "--dim",
                   "16", "--context", "8", "--batch", "2", "--steps", "4", "--seed", seed,
                   "--lr", "0.003", "--eval-every", "2", "--stop-at", "2", NULL);
}
Test(heads_study, a_stopped_run_carries_on_and_a_foreign_state_is_refused) {
    char *dir = make_temp_dir(), log[4096];
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    struct cli_result s = stop_half_way(dir, "work", "1");
    cr_assert_eq(s.status, 0, "%s", s.err);
    free_result(&s);
    cr_assert_eq(run_heads_study(dir, "4", "work", "count.tsv", log, sizeof log), 0, "%s", log);
    cr_assert_eq(run_heads_study(dir, "4", "fresh", "fresh.tsv", log, sizeof log), 0, "%s",
                 log);
    size_t size;
    char *carried = slurp(path_in(dir, "count.tsv"), &size);
    char *fresh = slurp(path_in(dir, "fresh.tsv"), &size);
    double bpc[2], loss[2];
    int resumed[2];
    cr_assert(study_row(carried, 4, 1, &bpc[0], &loss[0], &resumed[0]) &&
              study_row(fresh, 4, 1, &bpc[1], &loss[1], &resumed[1]), "%s%s", carried, fresh);
    cr_expect(resumed[0] == 1 && resumed[1] == 0, "%s%s", carried, fresh);
    cr_expect(bpc[0] == bpc[1] && loss[0] == loss[1], "carried on %g %g, afresh %g %g",
              bpc[0], loss[0], bpc[1], loss[1]);
    s = stop_half_way(dir, "foreign", "2");
    cr_assert_eq(s.status, 0, "%s", s.err);
    free_result(&s);
    cr_expect_neq(run_heads_study(dir, "4", "foreign", "foreign.tsv", log, sizeof log), 0);
    cr_expect(strstr(log, "foreign/h4-s1.state: a run with another --seed") != NULL, "%s", log);
    free(carried); free(fresh);
    remove_tree(dir);
}
static void write_count_table(const char *dir, const double bpc[10], const char *extra)
{
    char text[4096];
    int used = snprintf(text, sizeof text, "# heads-study\ttrain_sha256=aa\tvalid_sha256=bb\t"
                        "tokenizer=models/austen\tcpu=Test CPU\tthreads=1\nheads\thead_dim\t"
                        "seed\tlayers\tdim\tcontext\tbatch\tsteps\ttokens_seen\tparameters\t"
                        "bits_per_char\tloss\tseconds\tresumed\n");
    static const int heads[5] = {1, 2, 4, 8, 16};
    for (size_t k = 0; k < 10; k++)
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "%d\t%d\t%zu\t2\t128\t64\t16\t2000\t2048000\t660000\t%.4f\t3.0\t"
                         "1800\t0\n", heads[k / 2], 128 / heads[k / 2], 1 + k % 2, bpc[k]);
    used += snprintf(text + used, sizeof text - (size_t)used, "%s", extra);
    write_bytes(dir, "count.tsv", text, (size_t)used);
}
static char *count_numbers(const heads_count *c)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    cr_assert_not_null(f);
    mha_write_heads_count_numbers(f, c);
    fclose(f);
    return text;
}
Test(heads_study, the_printers_numbers_from_tables_made_by_hand) {
    char *dir = make_temp_dir();
    heads_count *c = malloc(sizeof *c);
    cr_assert_not_null(c);
    const double rising[10] = {2.50, 2.52, 2.40, 2.42, 2.35, 2.37, 2.30, 2.32, 2.305, 2.335};
    write_count_table(dir, rising, "");
    cr_assert(mha_read_heads_count(path_in(dir, "count.tsv"), c));
    cr_expect(c->runs == 10 && c->groups == 5 && strcmp(c->cpu, "Test CPU") == 0);
    cr_expect(fabs(c->group[0].mean - 2.51) < 1e-12 && fabs(c->group[4].mean - 2.32) < 1e-12 &&
              fabs(c->group[0].spread - sqrt(0.0002)) < 1e-12 && c->group[4].best == 2.305 &&
              c->group[4].worst == 2.335, "%g %g %g", c->group[0].mean, c->group[4].mean,
              c->group[0].spread);
    char *numbers = count_numbers(c);
    const char *want[] = {
        "\\gdef\\HeadsCountParameters{660\\,000}", "\\gdef\\HeadsCountTokens{2\\,048\\,000}",
        "\\gdef\\HeadsCountRuns{10}", "\\gdef\\HeadsCountHours{5.0}",
        ("\\gdef\\HeadsCountBest{8 heads}\\gdef\\HeadsCountBestBPC{2.310}"
         "\\gdef\\HeadsCountSpread{0.030}"),
        "\\gdef\\HeadsCountOne{2.510}\\gdef\\HeadsCountOneGap{0.200}",
        "\\gdef\\HeadsCountRiseVerdict{The first claim holds:",
        ("\\gdef\\HeadsCountSixteenVerdict{Sixteen heads score 2.320, 0.010 worse than eight: "
         "within the runs' spread, flat"),
        ("\\gdef\\HeadsCountSweetVerdict{Heads of width 64 --- 2 heads at this width --- score "
         "2.410; other widths do better")};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        cr_expect(strstr(numbers, want[k]) != NULL, "no %s in\n%s", want[k], numbers);
    free(numbers);
    const double turning[10] = {2.50, 2.52, 2.00, 2.01, 2.35, 2.37, 2.30, 2.32, 2.10, 2.11};
    write_count_table(dir, turning, "");
    cr_assert(mha_read_heads_count(path_in(dir, "count.tsv"), c));
    numbers = count_numbers(c);
    const char *other[] = {
        "\\gdef\\HeadsCountBest{2 heads}",
        "\\gdef\\HeadsCountRiseVerdict{The first claim holds only in part",
        ("2.105, 0.205 better than eight: clearly better, so the claim that the gains "
         "stop at eight is refuted"),
        "score 2.005; they are clearly the best, and the claimed sweet spot holds"};
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
        cr_expect(strstr(numbers, other[k]) != NULL, "no %s in\n%s", other[k], numbers);
    free(numbers);
    const char *bad[] = {
        "1\t128\t3\t2\t128\t64\t16\t2000\t2048000\t660000\t2.5\t3.0\t1\t0\n",
        "32\t4\t1\t2\t128\t64\t16\t2000\t2048000\t660000\t2.5\t3.0\t1\t0\n",
        "32\t8\t1\t2\t128\t64\t16\t2000\t2048000\t660000\t2.5\t3.0\t1\t0\n",
        "32\t4\t1\t2\t128\t64\t16\t2000\t2048000\t660001\t2.5\t3.0\t1\t0\n",
        "32\t4\t1\t2\t128\t64\t16\t2000\t2048001\t660000\t2.5\t3.0\t1\t0\n"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_count_table(dir, rising, bad[k]);
        cr_expect_eq(mha_read_heads_count(path_in(dir, "count.tsv"), c), k == 1,
                     "row %zu: %s", k, bad[k]);
    }
    free(c);
    remove_tree(dir);
}
#include "lm_files.h"
static size_t tokens_of(const bpe *tokenizer, const char *text, size_t n)
{
    uint32_t ids[256];
    size_t count = 0;
    cr_assert(n < 256 && bpe_encode(tokenizer, (const unsigned char *)text, n, ids, &count) ==
              MHA_OK);
    return count;
}
Test(heads_sentences, a_querys_weight_on_its_target) {
    char *dir = make_temp_dir();
    free(small_text(dir, "train.txt", 1, 3000));
    free(small_text(dir, "valid.txt", 2, 400));
    struct cli_result t = train_small(dir, "m", NULL, NULL);
    cr_assert_eq(t.status, 0, "%s", t.err);
    free_result(&t);
    lm_model m = {0};
    bpe tokenizer = {0};
    lm_provenance p;
    char message[256];
    cr_assert_eq(lm_model_read(path_in(dir, "m"), &m, &tokenizer, &p, message, sizeof message),
                 MHA_OK, "%s", message);
    const char *text = "the sister said that the sister was";
    const austen_example e = {"test", text, "sister", "sister", 2, 1};
    austen_example_weights w;
    cr_assert(mha_austen_example_weights(&m, &tokenizer, &e, &w));
    const size_t n = tokens_of(&tokenizer, text, strlen(text));
    const size_t q = tokens_of(&tokenizer, text, 31) - 1;    /* up to the second "sister" */
    const size_t a = tokens_of(&tokenizer, text, 3), b = tokens_of(&tokenizer, text, 10);
    const size_t N = m.config.layers, H = m.config.heads;
    cr_assert(n <= m.config.context && q < n && a < b && b <= q, "%zu %zu %zu %zu", n, q, a, b);
    float *weights = malloc(N * H * n * n * sizeof *weights);
    int tokens[64];
    uint32_t ids[64];
    size_t count;
    cr_assert(bpe_encode(&tokenizer, (const unsigned char *)text, strlen(text), ids, &count) ==
              MHA_OK && count == n);
    for (size_t k = 0; k < n; k++)
        tokens[k] = (int)ids[k];
    lm_workspace ws;
    cr_assert_eq(lm_workspace_init(&ws, &m, 1, n, 0), MHA_OK);
    cr_assert_eq(lm_forward_weights(&m, &ws, tokens, 1, n, weights), MHA_OK);
    double best = -1, mean = 0;
    size_t best_l = 0, best_h = 0;
    for (size_t l = 0; l < N; l++)
        for (size_t h = 0; h < H; h++) {
            double sum = 0;
            for (size_t j = a; j < b; j++)
                sum += weights[((l * H + h) * n + q) * n + j];
            mean += sum / (double)(N * H);
            if (sum > best)
                best = sum, best_l = l, best_h = h;
        }
    cr_expect(w.tokens == n && w.query == q && w.pieces == b - a, "%zu %zu %zu", w.tokens,
              w.query, w.pieces);
    cr_expect(w.best_layer == best_l && w.best_head == best_h && fabs(w.best - best) < 1e-9 &&
              fabs(w.mean - mean) < 1e-9, "%g %g", w.best, best);
    cr_expect(fabs(w.even - (double)(b - a) / (double)(q + 1)) < 1e-12, "%g", w.even);
    cr_expect(best > 0 && best <= 1 + 1e-6, "%g", best);
    const austen_example backwards = {"test", text, "sister", "sister", 1, 2};
    const austen_example missing = {"test", text, "brother", "sister", 1, 1};
    const austen_example partial = {"test", text, "sist", "the", 1, 1};
    const austen_example longer = {"test", "the sister said that the sister was very much the "
                                   "sister of Anne and Emma and the sister", "sister", "the", 4,
                                   1};
    cr_expect(!mha_austen_example_weights(&m, &tokenizer, &backwards, &w));
    cr_expect(!mha_austen_example_weights(&m, &tokenizer, &missing, &w));
    cr_expect(!mha_austen_example_weights(&m, &tokenizer, &partial, &w));
    cr_expect(!mha_austen_example_weights(&m, &tokenizer, &longer, &w), "%zu tokens", w.tokens);
    lm_workspace_free(&ws);
    lm_model_free(&m);
    bpe_free(&tokenizer);
    free(weights);
    remove_tree(dir);
}
struct loss_script { int calls, bad_at; double bad; };
static mha_status scripted_loss(const lm_model *m, void *context, double *loss)
{
    struct loss_script *s = context;
    *loss = ++s->calls == s->bad_at ? s->bad : (double)lm_heads_removed(m);
    return MHA_OK;
}
Test(heads, every_bad_argument_is_refused) {
    lm_model m;
    load_tiny(&m);
    const size_t T = tiny.context, NH = tiny.layers * tiny.heads;
    int ids[40];
    for (size_t i = 0; i < 40; i++)
        ids[i] = (int)(i * 5 % tiny.vocab);
    unsigned char classes[64] = {0};
    lm_head_scores scores[2 * 4];
    double loss, base, importance[2 * 4];
    lm_prune_step steps[2 * 4 + 1];
    cr_expect_eq(lm_heads_measure(NULL, ids, 40, classes, 2, 1, scores), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_measure(&m, NULL, 40, classes, 2, 1, scores), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_measure(&m, ids, 40, NULL, 2, 1, scores), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_measure(&m, ids, 40, classes, 2, 1, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_measure(&m, ids, 40, classes, 0, 1, scores), MHA_ERR_SHAPE);
    cr_expect_eq(lm_heads_measure(&m, ids, T - 1, classes, 2, 1, scores), MHA_ERR_SHAPE);
    cr_expect_eq(lm_sample_loss(NULL, ids, 40, 2, &loss), MHA_ERR_NULL);
    cr_expect_eq(lm_sample_loss(&m, NULL, 40, 2, &loss), MHA_ERR_NULL);
    cr_expect_eq(lm_sample_loss(&m, ids, 40, 2, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_sample_loss(&m, ids, 40, 0, &loss), MHA_ERR_SHAPE);
    cr_expect_eq(lm_sample_loss(&m, ids, T, 2, &loss), MHA_ERR_SHAPE);
    double early, late, first, second;
    cr_expect_eq(lm_in_context_score(NULL, ids, 40, 2, &early, &late), MHA_ERR_NULL);
    cr_expect_eq(lm_in_context_score(&m, ids, 40, 2, NULL, &late), MHA_ERR_NULL);
    cr_expect_eq(lm_in_context_score(&m, ids, 40, 0, &early, &late), MHA_ERR_SHAPE);
    cr_expect_eq(lm_in_context_score(&m, ids, T, 2, &early, &late), MHA_ERR_SHAPE);
    double ceiling;
    cr_expect_eq(lm_copying_reach(NULL, ids, 40, 2, &early, &late, &ceiling), MHA_ERR_NULL);
    cr_expect_eq(lm_copying_reach(&m, ids, 40, 2, &early, &late, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_copying_reach(&m, ids, 40, 0, &early, &late, &ceiling), MHA_ERR_SHAPE);
    cr_expect_eq(lm_copying_reach(&m, ids, T, 2, &early, &late, &ceiling), MHA_ERR_SHAPE);
    cr_expect_eq(lm_repeat_gain(NULL, ids, 40, 2, 4, 8, &first, &second), MHA_ERR_NULL);
    cr_expect_eq(lm_repeat_gain(&m, ids, 40, 2, 4, 8, NULL, &second), MHA_ERR_NULL);
    cr_expect_eq(lm_repeat_gain(&m, ids, 40, 0, 4, 8, &first, &second), MHA_ERR_SHAPE);
    cr_expect_eq(lm_repeat_gain(&m, ids, 40, 2, 1, 8, &first, &second), MHA_ERR_SHAPE);
    cr_expect_eq(lm_repeat_gain(&m, ids, 40, 2, 6, 5, &first, &second), MHA_ERR_SHAPE);
    cr_expect_eq(lm_repeat_gain(&m, ids, 40, 2, 4, T / 2 + 1, &first, &second), MHA_ERR_SHAPE);
    cr_expect_eq(lm_repeat_gain(&m, ids, 7, 2, 4, 8, &first, &second), MHA_ERR_SHAPE);
    ids[3] = (int)tiny.vocab;
    cr_expect_eq(lm_heads_measure(&m, ids, 40, classes, 1, 1, scores), MHA_ERR_ARG);
    cr_expect_eq(lm_sample_loss(&m, ids, 40, 1, &loss), MHA_ERR_ARG);
    cr_expect_eq(lm_repeat_gain(&m, ids, 40, 1, 4, 8, &first, &second), MHA_ERR_ARG);
    ids[3] = 1;
    struct loss_script s = {0, 0, 0};
    lm_model absurd = {0};                      /* a configuration, never allocated */
    const size_t huge = (size_t)1 << 40;
    absurd.config = (lm_config){64, 65536, huge, huge, LM_MAX_LAYERS, 4};
    int *many = calloc(65536, sizeof *many);
    cr_assert_not_null(many);
    cr_expect_eq(lm_heads_measure(&absurd, many, 65536, classes, 2, 1, scores),
                 MHA_ERR_OVERFLOW);
    free(many);
    cr_expect_eq(lm_head_keep(&absurd, 0, 0, 0), MHA_ERR_NULL);
    lm_heads_restore(&absurd);
    cr_expect_eq(lm_heads_removed(&absurd), 0);
    cr_expect_eq(lm_heads_importance(NULL, scripted_loss, &s, &base, importance), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_importance(&m, NULL, &s, &base, importance), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_importance(&m, scripted_loss, &s, NULL, importance), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_importance(&m, scripted_loss, &s, &base, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_prune(NULL, scripted_loss, &s, 1, steps), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_prune(&m, NULL, &s, 1, steps), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_prune(&m, scripted_loss, &s, 1, NULL), MHA_ERR_NULL);
    cr_expect_eq(lm_heads_prune(&m, scripted_loss, &s, NH + 1, steps), MHA_ERR_ARG);
    cr_assert_eq(lm_head_keep(&m, 1, 3, 0), MHA_OK);
    cr_expect_eq(lm_heads_importance(&m, scripted_loss, &s, &base, importance), MHA_ERR_ARG);
    cr_expect_eq(lm_heads_prune(&m, scripted_loss, &s, 1, steps), MHA_ERR_ARG);
    cr_assert_eq(lm_head_keep(&m, 1, 3, 1), MHA_OK);
    cr_expect_eq(s.calls, 0, "a refused call asked for a loss");
    const struct { int bad_at; double bad; } range[] = {{1, NAN}, {3, INFINITY}, {8, -INFINITY}};
    for (size_t r = 0; r < 3; r++) {
        s = (struct loss_script){0, range[r].bad_at, range[r].bad};
        cr_expect_eq(lm_heads_importance(&m, scripted_loss, &s, &base, importance), MHA_ERR_RANGE,
                     "importance, loss %d not finite", range[r].bad_at);
        cr_expect_eq(s.calls, range[r].bad_at, "a loss was asked for after the one not finite");
        cr_expect_eq(lm_heads_removed(&m), 0, "a head was left removed");
        s = (struct loss_script){0, range[r].bad_at, range[r].bad};
        cr_expect_eq(lm_heads_prune(&m, scripted_loss, &s, 2, steps), MHA_ERR_RANGE,
                     "prune, loss %d not finite", range[r].bad_at);
        cr_expect_eq(s.calls, range[r].bad_at, "a loss was asked for after the one not finite");
        cr_expect_eq(lm_heads_removed(&m), 0, "a head was left removed");
    }
    s = (struct loss_script){0, 0, 0};
    cr_expect_eq(lm_heads_importance(&m, scripted_loss, &s, &base, importance), MHA_OK);
    cr_expect_eq(base, 0.0);
    for (size_t k = 0; k < NH; k++)
        cr_expect_eq(importance[k], 1.0, "head %zu: one head removed", k);
    lm_model_free(&m);
}
Test(lm_heads, the_table_readers_keep_only_what_a_table_says) {
    const char heads[] = "# heads\tof a model\nlayer\thead\trole\n0\t0\tprevious-token\n"
                         "0\t1\tinduction\r\n1\t0\ta-role-far-longer-than-the-room\n"
                         "2\t0\tbeyond\n0\t-1\tnegative\n1\t1\tbad\x01role\n";
    char roles[4][8];
    lm_table_roles((const unsigned char *)heads, sizeof heads - 1, 2, 2, roles[0], 8);
    const char *want[4] = {"previou", "inducti", "a-role-", "?"};
    for (int k = 0; k < 4; k++)
        cr_expect_str_eq(roles[k], want[k], "head %d", k);
    const char study[] = "# prune\tbase=2.5\nlayer\thead\timportance\n0\t0\t0.5\t1\t3\n"
                         "0\t1\tnan\t2\t3\n0\t0\t0.25\t3\t3\n1\t0\t0.1\n1\t1\t0.2\n";
    double base = 0, importance[4] = {0};
    cr_expect(!lm_table_study((const unsigned char *)study, sizeof study - 1, 2, 2, &base,
                              importance), "a study without head 0 1 is whole");
    cr_expect(base == 2.5 && importance[0] == 0.25 && importance[1] == 0,
              "base %g, importance %g %g", base, importance[0], importance[1]);
    const char whole[] = "# base=2.5\n0\t0\t0.5\n0\t1\t-0.125\n1\t0\t0.1\n1\t1\t0.2\n";
    cr_expect(lm_table_study((const unsigned char *)whole, sizeof whole - 1, 2, 2, &base,
                             importance) && importance[1] == -0.125);
}
Test(lm_heads, a_score_is_read_by_its_columns_name) {
    const char heads[] = "0\t0\t0.9\t0.8\n"              /* before the header: no column */
                         "layer\thead\textra\tprev_token\tinduction\trole\n"
                         "0\t0\t7\t0.565\t0.001\tprevious-token\n"
                         "0\t1\t7\t0.5x\t0.25\tbroad\n"
                         "1\t0\t7\tinf\t0.46\tinduction\n"
                         "1\t1\t7\t0.125\n"
                         "2\t0\t7\t0.75\t0.5\tbeyond\n";
    double prev[4], induction[4], missing[4];
    const unsigned char *t = (const unsigned char *)heads;
    cr_expect_eq(lm_table_column(t, sizeof heads - 1, 2, 2, "prev_token", prev), 2);
    cr_expect(prev[0] == 0.565 && isnan(prev[1]) && isnan(prev[2]) && prev[3] == 0.125,
              "%g %g %g %g", prev[0], prev[1], prev[2], prev[3]);
    cr_expect_eq(lm_table_column(t, sizeof heads - 1, 2, 2, "induction", induction), 3);
    cr_expect(induction[0] == 0.001 && induction[1] == 0.25 && induction[2] == 0.46 &&
              isnan(induction[3]), "%g %g %g %g", induction[0], induction[1], induction[2],
              induction[3]);
    cr_expect_eq(lm_table_column(t, sizeof heads - 1, 2, 2, "prev", missing), 0,
                 "a name's beginning is not the name");
    cr_expect(isnan(missing[0]) && isnan(missing[3]));
    cr_expect_eq(lm_table_column(NULL, 0, 2, 2, "prev_token", missing), 0);
}
