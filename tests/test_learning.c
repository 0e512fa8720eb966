/* generated from chapters/13-learning.nw, chapters/43-tests-learning.nw; edit the book, not this file */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "learning.h"
#include "tables.h"
#include "run.h"

/* <<[[test_learning.c]] tests>> */
Test(learning, model_gradient_matches_finite_differences) {
    mha_induction_model model;
    mha_learning_workspace ws;
    mha_induction_batch batch;
    cr_assert_eq(mha_induction_model_init(&model, 5, 8, 4, 2, 2, 11), MHA_OK);
    cr_assert_eq(mha_learning_workspace_init(&ws, &model, 2), MHA_OK);
    cr_assert_eq(mha_induction_batch_init(&batch, 2, 8), MHA_OK);
    uint64_t state = 12;
    mha_induction_batch_fill(&batch, 5, &state);
    mha_train_stats up, down;
    cr_assert_eq(mha_induction_gradients(&model, &ws, &batch, &up), MHA_OK);
    float *analytic = malloc(model.count * sizeof *analytic);
    memcpy(analytic, model.grads, model.count * sizeof *analytic);
    double worst = 0, largest = 0;
    for (size_t i = 0; i < model.count; i++) {
        const float keep = model.params[i];
        model.params[i] = keep + 0x1p-7f;
        cr_assert_eq(mha_induction_gradients(&model, &ws, &batch, &up), MHA_OK);
        model.params[i] = keep - 0x1p-7f;
        cr_assert_eq(mha_induction_gradients(&model, &ws, &batch, &down), MHA_OK);
        model.params[i] = keep;
        const double fd = (up.loss - down.loss) / 0x1p-6;
        worst = fmax(worst, fabs(fd - analytic[i]));
        largest = fmax(largest, fabs(analytic[i]));
    }
    cr_expect(largest > 1e-3, "the gradient is not trivially zero");
    cr_expect(worst <= 0.01 * largest, "worst %.3g against largest %.3g", worst, largest);
    free(analytic);
    mha_induction_batch_free(&batch); mha_learning_workspace_free(&ws);
    mha_induction_model_free(&model);
}
/* <<[[test_learning.c]] tests>> */
Test(learning, a_short_run_lowers_the_loss) {
    mha_induction_model model;
    mha_learning_workspace ws;
    mha_induction_batch batch;
    cr_assert_eq(mha_induction_model_init(&model, 8, 12, 8, 2, 2, 3), MHA_OK);
    cr_assert_eq(mha_learning_workspace_init(&ws, &model, 16), MHA_OK);
    cr_assert_eq(mha_induction_batch_init(&batch, 16, 12), MHA_OK);
    const mha_train_options o = {1e-2, 0.01, 0.9, 0.98, 1e-8, 10};
    uint64_t state = 4;
    double first = 0, last = 0;
    for (int step = 0; step < 150; step++) {
        mha_induction_batch_fill(&batch, 8, &state);
        mha_train_stats stats;
        cr_assert_eq(mha_induction_train_step(&model, &ws, &batch, &o, &stats), MHA_OK);
        const double loss = stats.loss;
        cr_assert(isfinite(loss));
        if (step < 20) first += loss / 20;
        if (step >= 130) last += loss / 20;
    }
    cr_expect(last < first - 0.05, "loss %.3f -> %.3f", first, last);
    mha_induction_batch_free(&batch); mha_learning_workspace_free(&ws);
    mha_induction_model_free(&model);
}
/* <<[[test_learning.c]] tests>> */
Test(learning, the_measured_runs_support_the_text) {
    training_curve two, one;
    cr_assert(mha_read_training_history("../figures/training-2layer.tsv", &two));
    cr_assert(mha_read_training_history("../figures/training-1layer.tsv", &one));
    cr_expect(two.accuracy[two.points - 1] >= 0.9, "two layers: %.3f",
              two.accuracy[two.points - 1]);
    cr_expect(one.accuracy[one.points - 1] < two.accuracy[two.points - 1] - 0.5,
              "one layer: %.3f", one.accuracy[one.points - 1]);
    cr_expect(two.best_induction[two.points - 1] > 0.5 && two.best_previous[two.points - 1] > 0.5);
    cr_expect(two.best_induction[0] < 0.2, "no induction head at the start");
    /* <<check the phase change the prose quotes, and the numbers printed for it>> */
    size_t quiet = 0, jump = two.points;
    for (size_t i = two.points; i-- > 0;)
        if (two.accuracy[i] >= 0.9)
            jump = i;
    for (size_t i = 0; i < jump; i++)
        if (two.accuracy[i] < 0.3)
            quiet = i;
    cr_assert(jump < two.points && two.accuracy[quiet] < 0.3 && quiet < jump, "no phase change");
    cr_expect(two.best_induction[quiet] < 0.5 && two.best_induction[jump] > 0.5,
              "induction %.2f then %.2f", two.best_induction[quiet], two.best_induction[jump]);
    cr_expect(two.best_previous[jump] > two.best_previous[quiet] + 0.2, "previous-token head forms");
    /* <<check that both second-layer heads are induction heads at the jump>> */
    FILE *rows = fopen("../figures/training-2layer.tsv", "r");
    cr_assert_not_null(rows);
    char header[128];
    cr_assert_not_null(fgets(header, sizeof header, rows));
    double step, loss, accuracy, previous, induction;
    int layer, head, second = 0, inducting = 0;
    while (fscanf(rows, "%lf %lf %lf %d %d %lf %lf", &step, &loss, &accuracy, &layer, &head,
                  &previous, &induction) == 7)
        if (step == two.step[jump] && layer == 1)
            second++, inducting += induction > 0.5;
    fclose(rows);
    cr_expect(second == 2 && inducting == second, "%d of %d second-layer heads induct at step %.0f",
              inducting, second, two.step[jump]);
    char *text = NULL, want[96];
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    cr_assert_not_null(out);
    cr_assert_eq(chdir(".."), 0, "the printer reads figures/ from the top directory");
    mha_print_training_summary(out);
    fclose(out);
    snprintf(want, sizeof want, "\\newcommand{\\TrainQuietStep}{%.0f}", two.step[quiet]);
    cr_expect(strstr(text, want) != NULL, "%s not in: %s", want, text);
    snprintf(want, sizeof want, "\\newcommand{\\TrainJumpStep}{%.0f}", two.step[jump]);
    cr_expect(strstr(text, want) != NULL, "%s not in: %s", want, text);
    free(text);
}
Test(learning, batches_hold_their_copies) {
    mha_induction_batch batch;
    cr_assert_eq(mha_induction_batch_init(&batch, 200, 32), MHA_OK);
    uint64_t state = 5;
    mha_induction_batch_fill(&batch, 10, &state);
    for (size_t b = 0; b < 200; b++) {
        const size_t a = batch.copy_from[b], c = batch.copy_to[b], r = batch.copy_length[b];
        const int *x = batch.tokens + b * 32;
        cr_expect(r >= 8 && r <= 16 && a + r <= c && c + r <= 32, "a=%zu c=%zu r=%zu", a, c, r);
        cr_expect(memcmp(x + a, x + c, r * sizeof *x) == 0);
        size_t marked = 0;
        for (size_t t = 0; t < 32; t++) {
            marked += batch.predictable[b * 32 + t];
            cr_expect(x[t] >= 0 && x[t] < 10);
        }
        cr_expect_eq(marked, r - 1);
        cr_expect(batch.predictable[b * 32 + c] && !batch.predictable[b * 32 + c + r - 1]);
    }
    mha_induction_batch_free(&batch);
    cr_expect_eq(mha_induction_batch_init(&batch, 1, 5), MHA_ERR_SHAPE);
}
static uint64_t inverse_mod_2_64(uint64_t k)        /* k odd */
{
    uint64_t x = k;                                 /* k k = 1 mod 8 */
    for (int i = 0; i < 5; i++)
        x *= 2 - k * x;
    return x;
}
Test(learning, every_seed_gives_a_generator_that_moves) {
    const uint64_t K = 0x9E3779B97F4A7C15ull, c = 2654435761u;
    const uint64_t bad = 0 - inverse_mod_2_64(K), data = 0 - 7 * inverse_mod_2_64(c),
                   probe = 0 - 99 * inverse_mod_2_64(c);
    cr_assert(bad * K + 1 == 0 && data * c + 7 == 0 && probe * c + 99 == 0);
    cr_expect_eq(bad, 1018231460777725123ull);
    const uint64_t seeds[] = {bad, data, probe};
    for (size_t i = 0; i < 3; i++) {
        uint64_t state = mha_random_seeded(seeds[i]);
        const mha_learning_streams s = mha_learning_streams_from_seed(seeds[i]);
        cr_expect(state != 0 && s.model != 0 && s.data != 0 && s.probe != 0, "seed %llu",
                  (unsigned long long)seeds[i]);
        for (int k = 0; k < 4; k++)
            cr_expect(mha_random(&state) != 0, "seed %llu stalls", (unsigned long long)seeds[i]);
    }
    cr_expect(mha_random_seeded(bad) == mha_random_seeded(0) &&
              mha_learning_streams_from_seed(data).data == 1 &&
              mha_learning_streams_from_seed(probe).probe == 1);
    const uint64_t others[] = {0, 1, 7, 9, 42, bad - 1, bad + 1, data - 1, data + 1, probe - 1,
                               probe + 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        const uint64_t seed = others[i];
        const mha_learning_streams s = mha_learning_streams_from_seed(seed);
        cr_expect(mha_random_seeded(seed) == seed * K + 1 && s.model == seed * K + 1 &&
                  s.data == seed * c + 7 && s.probe == seed * c + 99, "seed %llu",
                  (unsigned long long)seed);
    }
}
Test(learning, sizes_beyond_the_toy_are_refused) {
    const size_t batches[][2] = {{0, 32}, {65537, 32}, {1, 5}, {1, 4097}};
    for (size_t i = 0; i < sizeof batches / sizeof *batches; i++) {
        mha_induction_batch b;
        cr_expect_eq(mha_induction_batch_init(&b, batches[i][0], batches[i][1]),
                     MHA_ERR_SHAPE, "batch %zu", i);
        cr_expect_null(b.tokens);
    }
    const struct { size_t V, T, E, H, layers; mha_status want; } models[] = {
        {1, 8, 4, 2, 1, MHA_ERR_SHAPE}, {4, 5, 4, 2, 1, MHA_ERR_SHAPE},
        {4, 8, 0, 2, 1, MHA_ERR_SHAPE}, {4, 8, 4, 2, 0, MHA_ERR_SHAPE},
        {4, 8, 4, 2, MHA_LEARNING_MAX_LAYERS + 1, MHA_ERR_SHAPE},
        {4, 8, 4, 0, 1, MHA_ERR_HEADS}, {4, 8, 6, 4, 1, MHA_ERR_HEADS},
        {65537, 8, 4, 2, 1, MHA_ERR_OVERFLOW}, {4, 4097, 4, 2, 1, MHA_ERR_OVERFLOW},
        {4, 8, 4098, 2, 1, MHA_ERR_OVERFLOW}};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        mha_induction_model m;
        cr_expect_eq(mha_induction_model_init(&m, models[i].V, models[i].T, models[i].E,
                                              models[i].H, models[i].layers, 1),
                     models[i].want, "model %zu", i);
        cr_expect_null(m.params);
    }
    mha_induction_model model;
    cr_assert_eq(mha_induction_model_init(&model, 4, 8, 4, 2, 1, 1), MHA_OK);
    const size_t sizes[] = {0, 65537};
    for (size_t i = 0; i < 2; i++) {
        mha_learning_workspace ws;
        cr_expect_eq(mha_learning_workspace_init(&ws, &model, sizes[i]), MHA_ERR_SHAPE,
                     "workspace of %zu", sizes[i]);
        cr_expect_null(ws.stream);
    }
    mha_induction_model_free(&model);
}
Test(learning, head_scores_of_hand_built_maps) {
    const size_t T = 8, H = 3;
    mha_induction_batch batch = {1, T, (int[8]){0}, (unsigned char[8]){0},
                             (size_t[1]){1}, (size_t[1]){4}, (size_t[1]){3}};
    float w[3 * 8 * 8] = {0};
    for (size_t t = 0; t < T; t++) {
        w[(0 * T + t) * T + (t ? t - 1 : 0)] = 1;                     /* previous token */
        for (size_t j = 0; j <= t; j++)
            w[(2 * T + t) * T + j] = 1.0f / (float)(t + 1);            /* uniform */
    }
    for (size_t t = 0; t < T; t++)
        w[(1 * T + t) * T + 0] = 1;                                    /* default: first */
    for (size_t i = 0; i + 1 < 3; i++)
        w[(1 * T + 4 + i) * T + 0] = 0, w[(1 * T + 4 + i) * T + 1 + i + 1] = 1;
    mha_head_scores s;
    mha_head_scores_from_weights(w, &batch, H, 0, &s);
    double uniform_previous = 0, uniform_induction = (1.0 / 5 + 1.0 / 6) / 2;
    for (size_t t = 1; t < T; t++)
        uniform_previous += 1.0 / (double)(t + 1) / (double)(T - 1);
    cr_expect(s.previous[0][0] == 1.0 && s.induction[0][1] == 1.0);
    cr_expect(fabs(s.previous[0][2] - uniform_previous) < 1e-6, "%g", s.previous[0][2]);
    cr_expect(fabs(s.induction[0][2] - uniform_induction) < 1e-6, "%g", s.induction[0][2]);
    cr_expect(s.induction[0][0] == 0.0, "the previous-token head misses every target");
    cr_expect(fabs(s.previous[0][1] - 1.0 / 7) < 1e-9, "only t = 1 looks back one position");
}
Test(learning, checkpoints_round_trip) {
    char dir[] = "/tmp/mha-train-XXXXXX", path[256];
    cr_assert_not_null(mkdtemp(dir));
    struct cli_result r = run_mha("train", "--steps", "3", "--every", "3", "--batch", "4",
                                  "--vocab", "7", "--length", "8", "--dim", "4", "--heads", "2",
                                  "--seed", "9", "--out", dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "step=3 loss=") != NULL, "%s", r.out);
    /* <<repeat the run with the library and compare every file>> */
    mha_induction_model model;
    mha_learning_workspace ws;
    mha_induction_batch batch;
    cr_assert_eq(mha_induction_model_init(&model, 7, 8, 4, 2, 2, 9), MHA_OK);
    cr_assert_eq(mha_learning_workspace_init(&ws, &model, 4), MHA_OK);
    cr_assert_eq(mha_induction_batch_init(&batch, 4, 8), MHA_OK);
    const mha_train_options o = {1e-2, 0.01, 0.9, 0.98, 1e-8, 100};
    uint64_t state = mha_learning_streams_from_seed(9).data;      /* the command's data stream */
    for (int step = 0; step < 3; step++) {
        mha_induction_batch_fill(&batch, 7, &state);
        mha_train_stats stats;
        cr_assert_eq(mha_induction_train_step(&model, &ws, &batch, &o, &stats), MHA_OK);
    }
    const mha_model_tensors t = mha_induction_model_tensors(&model);
    const struct { const char *name; const float *data; size_t count; } files[] = {
        {"tok_emb", t.tok_emb, 28}, {"pos_emb", t.pos_emb, 32}, {"unembed", t.unembed, 28},
        {"layers.0.in_proj_weight", t.in_w[0], 48}, {"layers.1.out_proj_bias", t.out_b[1], 4},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t count;
        snprintf(path, sizeof path, "%s/%s.npy", dir, files[f].name);
        float *saved = read_npy_floats(path, &count);
        cr_expect_eq(count, files[f].count, "%s", files[f].name);
        cr_expect(memcmp(saved, files[f].data, files[f].count * sizeof(float)) == 0,
                  "%s differs", files[f].name);
        free(saved);
    }
    mha_induction_batch_free(&batch); mha_learning_workspace_free(&ws); mha_induction_model_free(&model);
    free_result(&r);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    cr_expect_eq(system(path), 0);
}
Test(learning, the_training_figure_plots_the_histories) {
    char dir[] = "/tmp/mha-figure-XXXXXX", path[256];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(chdir(dir), 0);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    mha_print_training_figure(out);
    fflush(out);
    cr_expect(strstr(text, "make train-figure") != NULL, "without histories: %s", text);
    fclose(out);
    free(text);
    cr_assert_eq(mkdir("figures", 0700), 0);
    const char *histories[2][2] = {
        {"figures/training-2layer.tsv",
         "step loss accuracy layer head previous induction\n"
         "100 2.0 0.50 0 0 0.30 0.10\n100 2.0 0.50 0 1 0.10 0.70\n100 2.0 0.50 1 0 0.90 0.60\n"
         "200 1.0 0.90 0 0 0.70 0.10\n200 1.0 0.90 1 1 0.10 0.80\n"},
        {"figures/training-1layer.tsv",
         "step loss accuracy layer head previous induction\n"
         "100 2.0 0.20 0 0 0.10 0.10\n200 1.5 0.25 0 0 0.10 0.10\n"}};
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(histories[k][0], "w");
        cr_assert_not_null(f);
        fputs(histories[k][1], f);
        fclose(f);
    }
    out = open_memstream(&text, &size);
    mha_print_training_figure(out);
    fclose(out);
    static const char *want[] = {
        "\\draw[thick,black] plot coordinates { (5.00,2.500) (10.00,4.500) };",        /* 0.5, 0.9 */
        "\\draw[thick,blue,dashed] plot coordinates { (5.00,1.500) (10.00,3.500) };",  /* 0.3, 0.7 */
        "\\draw[thick,red,dotted] plot coordinates { (5.00,3.000) (10.00,4.000) };",   /* 0.6, 0.8 */
        "\\draw[thick,gray] plot coordinates { (5.00,1.000) (10.00,1.250) };",         /* 0.2, 0.25 */
        "node[below] {200}", "node[below] {50}", "node[left] {0.75}"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        cr_expect(strstr(text, want[k]) != NULL, "%s not in:\n%s", want[k], text);
    free(text);
    for (int k = 0; k < 2; k++)
        unlink(histories[k][0]);
    snprintf(path, sizeof path, "%s/figures", dir);
    rmdir(path);
    rmdir(dir);
}
