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
