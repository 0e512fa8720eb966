/* generated from chapters/16-austen-model.nw; edit the book, not this file */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tables.h"

int mha_read_austen_history(const char *path, austen_history *h)
{
    memset(h, 0, sizeof *h);
    FILE *f = fopen(path, "r");
    char line[256];
    int ok = f != NULL && fgets(line, sizeof line, f) != NULL &&
             strcmp(line, "step\tlearning_rate\tloss\tvalid_loss\n") == 0;
    size_t in_point = 0;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        size_t step;
        double rate, loss;
        char valid[32];
        ok = sscanf(line, "%zu %lf %lf %31s", &step, &rate, &loss, valid) == 4 &&
             step == h->steps + 1;
        const size_t p = (step - 1) / 100;
        ok = ok && p < 256;
        if (!ok)
            break;
        if (p == h->points)
            h->points++, h->train[p] = 0, h->valid[p] = NAN, in_point = 0;
        h->train[p] = (h->train[p] * (double)in_point + loss) / (double)(in_point + 1);
        in_point++;
        h->step[p] = (double)step;
        h->valid[p] = strcmp(valid, "-") == 0 ? NAN : atof(valid);
        if (strcmp(valid, "-") != 0 && h->eval_every == 0)
            h->eval_every = step;
        h->steps = step;
    }
    if (f != NULL)
        fclose(f);
    return ok && h->points > 0;
}

int mha_read_austen_eval(const char *path, austen_eval *e)
{
    memset(e, 0, sizeof *e);
    FILE *f = fopen(path, "r");
    int ok = f != NULL && fscanf(f, "tokens=%zu bytes=%zu loss=%lf bits_per_char=%lf context=%zu "
                                    "stride=%zu", &e->tokens, &e->bytes, &e->loss,
                                 &e->bits_per_char, &e->context, &e->stride) == 6;
    if (f != NULL)
        fclose(f);
    return ok && e->tokens > 0 && e->bytes > 0;
}
typedef struct austen_model_facts {
    size_t layers, heads, vocab, context, dim, hidden, steps, params;
    double megabytes;
} austen_model_facts;

static int read_model_facts(const char *dir, austen_model_facts *m)
{
    char path[512], line[256], name[128];
    memset(m, 0, sizeof *m);
    snprintf(path, sizeof path, "%s/model.txt", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t a = 0, b = 1;
        if (sscanf(line, "tensor %127s %zu %zu", name, &a, &b) >= 2)
            m->params += a * b;
        sscanf(line, "layers %zu", &m->layers), sscanf(line, "heads %zu", &m->heads);
        sscanf(line, "vocab %zu", &m->vocab), sscanf(line, "context %zu", &m->context);
        sscanf(line, "dim %zu", &m->dim), sscanf(line, "hidden %zu", &m->hidden);
        sscanf(line, "steps %zu", &m->steps);
    }
    fclose(f);
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            m->megabytes += (double)st.st_size / 1e6;
    }
    if (d != NULL)
        closedir(d);
    return m->params > 0 && m->layers > 0;
}

/* The value of key=... in line, up to the next space (or the line's end
   when rest is set), in buf; NULL if the key is not there. */
static const char *field(const char *line, const char *key, int rest, char *buf, size_t size)
{
    const size_t k = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p++)
        if ((p == line || p[-1] == ' ') && p[k] == '=') {
            p += k + 1;
            size_t n = rest ? strcspn(p, "\n") : strcspn(p, " \n");
            n = n < size - 1 ? n : size - 1;
            memcpy(buf, p, n);
            buf[n] = '\0';
            return buf;
        }
    return NULL;
}
typedef struct lm_speed {
    double ours, torch, peak;          /* tokens per second; GFLOP/s */
    size_t ours_threads, torch_threads;
    char torch_blas[16];               /* OpenBLAS's threads inside PyTorch's best row */
    double torch_one;                  /* PyTorch with one thread and OpenBLAS on one */
    double one, busy;                  /* ours on one thread; on all, a core kept busy */
    size_t busy_threads;
    char machine[1024];
} lm_speed;

static int read_lm_speed(const char *path, lm_speed *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    char line[1200], v[64], impl[16];
    double peak[64] = {0};
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "# ", 2) == 0) {
            snprintf(s->machine, sizeof s->machine, "%.*s", (int)strcspn(line + 2, "\n"), line + 2);
            /* <<leave out of [[s->machine]] the machine's load that an older run wrote into it>> */
            char *load = strstr(s->machine, "; load average ");
            const char *began = load ? strstr(load, " when the run began") : NULL;
            if (began != NULL)
                memmove(load, began + strlen(" when the run began"),
                        strlen(began + strlen(" when the run began")) + 1);

            continue;
        }
        const char *rate = field(line, "tokens_per_s", 0, v, sizeof v);
        const double x = rate ? atof(rate) : 0.0;
        const size_t n = field(line, "threads", 0, v, sizeof v) ? (size_t)atoi(v) : 0;
        if (field(line, "peak_gflops", 0, v, sizeof v) && n < 64)
            peak[n] = atof(v);
        if (rate == NULL || field(line, "impl", 0, impl, sizeof impl) == NULL)
            continue;
        if (strcmp(impl, "ours") == 0 && n == 1)
            s->one = x;
        if (strcmp(impl, "torch") == 0 && n == 1 &&
            field(line, "blas_threads", 0, v, sizeof v) != NULL && strcmp(v, "1") == 0)
            s->torch_one = x;
        if (strcmp(impl, "busy") == 0)
            s->busy = x, s->busy_threads = n;
        if (strcmp(impl, "ours") == 0 && x > s->ours)
            s->ours = x, s->ours_threads = n;
        else if (strcmp(impl, "torch") == 0 && x > s->torch) {
            s->torch = x, s->torch_threads = n;
            if (field(line, "blas_threads", 0, s->torch_blas, sizeof s->torch_blas) == NULL)
                strcpy(s->torch_blas, "--");
        }
    }
    if (f != NULL)
        fclose(f);
    s->peak = s->ours_threads < 64 ? peak[s->ours_threads] : 0.0;
    return s->ours > 0 && s->torch > 0 && s->peak > 0;
}

/* Operations per token of a training step, counting products only. */
static double step_flops_per_token(const austen_model_facts *m)
{
    const double E = (double)m->dim, F = (double)m->hidden, V = (double)m->vocab;
    const double weights = (double)m->layers * (4 * E * E + 2 * E * F) + V * E;
    /* the scores and weighted sums: two products of 2 E operations per key,
       over the (T + 1) / 2 keys a token sees on average, three times */
    const double core = (double)m->layers * 3 * 2 * 2 * E * ((double)m->context + 1) / 2;
    return 6 * weights + core;
}
static const austen_row *best_baseline(const austen_baselines *t)
{
    const austen_row *best = NULL;
    for (size_t i = 0; i < t->rows; i++)
        if (strcmp(t->row[i].scored_on, "valid") == 0 &&
            (best == NULL || t->row[i].bits_per_char < best->bits_per_char))
            best = &t->row[i];
    return best;
}

static double nats_per_token(const austen_row *r)
{
    return r->bits_per_char * (double)r->bytes / (double)r->symbols * log(2.0);
}

void mha_print_austen_model_numbers(FILE *out)
{
    austen_model_facts m;
    austen_eval e;
    austen_history h;
    austen_baselines t;
    lm_speed s;
    char a[64], b[64], line[1200], cpu[256] = "--", v[64];
    const int have_model = read_model_facts("models/austen", &m);
    const int have_eval = mha_read_austen_eval("figures/austen-eval.txt", &e);
    const int have_history = mha_read_austen_history("figures/austen-history.tsv", &h);
    const int have_baselines = mha_read_austen_baselines("figures/austen-baselines.tsv", &t);
    const int have_speed = read_lm_speed("figures/bench-lm.txt", &s);
    const austen_row *best = have_baselines ? best_baseline(&t) : NULL;
    /* <<print the model's sizes and its training>> */
    if (!have_model)
        memset(&m, 0, sizeof m);
    fprintf(out, "\\gdef\\AustenModelLayers{%zu}\\gdef\\AustenModelHeads{%zu}%%\n", m.layers, m.heads);
    fprintf(out, "\\gdef\\AustenModelDim{%zu}\\gdef\\AustenModelContext{%zu}%%\n", m.dim, m.context);
    fprintf(out, "\\gdef\\AustenModelVocab{%s}\\gdef\\AustenModelParams{%s}%%\n",
            format_count(a, m.vocab), format_count(b, m.params));
    fprintf(out, "\\gdef\\AustenModelMB{%.1f}\\gdef\\AustenModelSteps{%s}%%\n", m.megabytes,
            format_count(a, m.steps));
    double seconds = 0, threads = 0, batch = 0, train_tokens = 0;
    FILE *f = fopen("figures/austen-training.txt", "r");
    if (f != NULL && fgets(line, sizeof line, f) != NULL) {
        seconds = field(line, "seconds", 0, v, sizeof v) ? atof(v) : 0;
        threads = field(line, "threads", 0, v, sizeof v) ? atof(v) : 0;
        batch = field(line, "batch", 0, v, sizeof v) ? atof(v) : 0;
        train_tokens = field(line, "train_tokens", 0, v, sizeof v) ? atof(v) : 0;
        if (field(line, "cpu", 1, cpu, sizeof cpu) == NULL)
            strcpy(cpu, "--");
    }
    if (f != NULL)
        fclose(f);
    const double seen = (double)m.steps * batch * (double)m.context;
    fprintf(out, "\\gdef\\AustenModelBatch{%.0f}\\gdef\\AustenModelTokensSeen{%.1f million}%%\n",
            batch, seen / 1e6);
    fprintf(out, "\\gdef\\AustenModelEpochs{%.1f}%%\n", train_tokens > 0 ? seen / train_tokens : 0);
    fprintf(out, "\\gdef\\AustenModelMinutes{%.0f}\\gdef\\AustenModelThreads{%.0f}%%\n",
            seconds / 60, threads);
    fprintf(out, "\\gdef\\AustenModelCPU{%s}%%\n", cpu);
    fprintf(out, "\\gdef\\AustenModelEvalEvery{%zu}%%\n", have_history ? h.eval_every : 0);
    /* <<print its score against the best baseline>> */
    if (!have_eval)
        memset(&e, 0, sizeof e);
    fprintf(out, "\\gdef\\AustenModelBPC{%.3f}\\gdef\\AustenModelStride{%zu}%%\n", e.bits_per_char,
            e.stride);
    fprintf(out, "\\gdef\\AustenModelGain{%.0f}%%\n",
            best && have_eval ? 100 * (1 - e.bits_per_char / best->bits_per_char) : 0.0);
    size_t pass = 0;
    for (size_t p = 0; best && have_history && p < h.points && pass == 0; p++)
        if (!isnan(h.valid[p]) && h.valid[p] < nats_per_token(best))
            pass = (size_t)h.step[p];
    fprintf(out, "\\gdef\\AustenModelPassStep{%s}%%\n", format_count(a, pass));
    fprintf(out, "\\gdef\\AustenModelLastTrain{%.2f}\\gdef\\AustenModelLastValid{%.2f}%%\n",
            have_history ? h.train[h.points - 1] : 0.0, have_history ? h.valid[h.points - 1] : 0.0);
    /* <<print the speed of its training step>> */
    const double flops = have_model ? step_flops_per_token(&m) : 0;
    if (!have_speed)
        memset(&s, 0, sizeof s), strcpy(s.machine, "(no measurement: run make bench-lm)");
    fprintf(out, "\\gdef\\AustenTrainOurs{%s}\\gdef\\AustenTrainOursThreads{%zu}%%\n",
            format_count(a, (unsigned long long)(s.ours + 0.5)), s.ours_threads);
    fprintf(out, "\\gdef\\AustenTrainTorch{%s}\\gdef\\AustenTrainTorchThreads{%zu}%%\n",
            format_count(a, (unsigned long long)(s.torch + 0.5)), s.torch_threads);
    fprintf(out, "\\gdef\\AustenTrainTorchBlas{%s}%%\n", have_speed ? s.torch_blas : "--");
    fprintf(out, "\\gdef\\AustenTrainSpeedup{%.1f}\\gdef\\AustenTrainMflop{%.1f}%%\n",
            s.torch > 0 ? s.ours / s.torch : 0.0, flops / 1e6);
    fprintf(out, "\\gdef\\AustenTrainGflops{%.0f}\\gdef\\AustenTrainPeakShare{%.0f}%%\n",
            s.ours * flops / 1e9, s.peak > 0 ? 100 * s.ours * flops / 1e9 / s.peak : 0.0);
    fprintf(out, "\\gdef\\AustenTrainCeiling{%s}\\gdef\\AustenTrainTorchPeakShare{%.0f}%%\n",
            format_count(a, (unsigned long long)(flops > 0 ? s.peak * 1e9 / flops + 0.5 : 0)),
            s.peak > 0 ? 100 * s.torch * flops / 1e9 / s.peak : 0.0);
    if (s.one > 0 && s.torch_one > 0)
        fprintf(out, "\\gdef\\AustenTrainOneCore{On one core each (PyTorch on one thread and "
                "OpenBLAS on one), ours runs at %s tokens per second and PyTorch at %s.}%%\n",
                format_count(a, (unsigned long long)(s.one + 0.5)),
                format_count(b, (unsigned long long)(s.torch_one + 0.5)));
    else
        fprintf(out, "\\gdef\\AustenTrainOneCore{}%%\n");
    fprintf(out, "\\gdef\\AustenTrainMachine{Measured on %s.}%%\n", s.machine);
    if (s.busy > 0 && s.one > 0)
        fprintf(out, "\\gdef\\AustenTrainBusy{With a loop kept busy on one core beside it, the "
                "step on %zu threads runs at %s tokens per second, %.1f times the rate of one "
                "thread alone (%s).}%%\n", s.busy_threads,
                format_count(a, (unsigned long long)(s.busy + 0.5)), s.busy / s.one,
                format_count(b, (unsigned long long)(s.one + 0.5)));
    else
        fprintf(out, "\\gdef\\AustenTrainBusy{}%%\n");
}
void mha_print_austen_curve(FILE *out)
{
    austen_history h;
    austen_baselines t;
    const austen_row *best = NULL;
    if (!mha_read_austen_history("figures/austen-history.tsv", &h) ||
        !mha_read_austen_baselines("figures/austen-baselines.tsv", &t) ||
        (best = best_baseline(&t)) == NULL) {
        fprintf(out, "(run \\texttt{make austen-model} to draw this figure)\n");
        return;
    }
    const double low = 3.0, high = 7.0, last = h.step[h.points - 1];
    const double xs = 10.0 / last, ys = 5.0 / (high - low);
#define Y(v) ((fmin(fmax((v), low), high) - low) * ys)
    fprintf(out, "\\begin{tikzpicture}[font=\\small]\n"
                 "\\draw[->] (0,0) -- (10.4,0) node[right] {step};\n"
                 "\\draw[->] (0,0) -- (0,5.4) node[above] {nats per token};\n");
    for (double k = low; k <= high + 1e-9; k += 1)
        fprintf(out, "\\draw (0,%.2f) -- (-0.1,%.2f) node[left] {%.0f};\n", Y(k), Y(k), k);
    for (int k = 0; k <= 4; k++)
        fprintf(out, "\\draw (%.2f,0) -- (%.2f,-0.1) node[below] {%.0f};\n", 2.5 * k, 2.5 * k,
                0.25 * k * last);
    fprintf(out, "\\draw[thick,black] plot coordinates {");
    for (size_t p = 0; p < h.points; p++)
        fprintf(out, " (%.3f,%.3f)", h.step[p] * xs, Y(h.train[p]));
    fprintf(out, "};\n");
    for (size_t p = 0; p < h.points; p++)
        if (!isnan(h.valid[p]))
            fprintf(out, "\\fill[red] (%.3f,%.3f) circle (1.5pt);\n", h.step[p] * xs,
                    Y(h.valid[p]));
    fprintf(out, "\\draw[gray,dashed] (0,%.3f) -- (10,%.3f);\n", Y(nats_per_token(best)),
            Y(nats_per_token(best)));
#undef Y
    fprintf(out, "\\node[anchor=north east,align=left] at (10,5.3) {"
                 "\\textcolor{black}{---} training loss, mean of 100 steps\\\\"
                 "\\textcolor{red}{$\\bullet$} held-out loss\\\\"
                 "\\textcolor{gray}{- -} token trigram (%.3f bits per character)};\n"
                 "\\end{tikzpicture}\n", best->bits_per_char);
}
void mha_print_austen_scores(FILE *out)
{
    austen_baselines t;
    austen_eval e;
    static const char *names[] = {"token unigram", "token bigram", "token trigram"};
    if (!mha_read_austen_baselines("figures/austen-baselines.tsv", &t) ||
        !mha_read_austen_eval("figures/austen-eval.txt", &e)) {
        fprintf(out, "(run \\texttt{make austen-figures} to make this table)\n");
        return;
    }
    fprintf(out, "\\begin{tabular}{lr}\n\\toprule\nmodel & bits per character \\\\\n\\midrule\n");
    for (size_t i = 0; i < t.rows; i++) {
        const austen_row *r = &t.row[i];
        if (strcmp(r->scored_on, "valid") != 0)
            continue;
        if (strcmp(r->model, "byte-kn") == 0)
            fprintf(out, "bytes, Kneser-Ney, order %zu", r->order);
        else
            fprintf(out, "%s", r->order >= 1 && r->order <= 3 ? names[r->order - 1] : "tokens");
        fprintf(out, " & %.3f \\\\\n", r->bits_per_char);
    }
    fprintf(out, "\\midrule\nthe small GPT & %.3f \\\\\n\\bottomrule\n\\end{tabular}\n",
            e.bits_per_char);
}
static void put_text(FILE *out, const char *s, int *after_space)
{
    for (; *s; s++) {
        const char c = *s;
        if (c == '"')
            fputs(*after_space ? "``" : "''", out);
        else if (strchr("#$%&_{}", c))
            fprintf(out, "\\%c", c);
        else if (c == '\\' || c == '~' || c == '^')
            fprintf(out, "\\char%d{}", c);
        else if (c != '\r')
            fputc(c, out);
        *after_space = c == ' ' || c == '\n' || c == '(' || c == '\t';
    }
}

void mha_print_austen_samples(FILE *out)
{
    FILE *f = fopen("figures/austen-samples.txt", "r");
    char line[1024], v[512];
    int samples = 0, after_space = 1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "# temperature=", 14) == 0) {
            if (samples > 0)
                fprintf(out, "\\end{quote}\n");
            fprintf(out, "\\paragraph{At temperature %s.}\n\\begin{quote}\\itshape ",
                     field(line + 2, "temperature", 0, v, sizeof v) ? v : "--");
            after_space = 1;
            put_text(out, field(line + 2, "prompt", 1, v, sizeof v) ? v : "", &after_space);
            fprintf(out, "\\upshape{}");
            samples++;
        } else if (samples > 0)
            put_text(out, line, &after_space);
    }
    if (samples > 0)
        fprintf(out, "\\end{quote}\n");
    else
        fprintf(out, "(run \\texttt{make austen-figures} to make the samples)\n");
    if (f != NULL)
        fclose(f);
}
