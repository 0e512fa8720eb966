/* generated from chapters/12-viewer.nw; edit the book, not this file */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "clock.h"
#include "state.h"

const char viz_default_text[] = "the cat sat on the mat because the cat was tired";
/* <<[[state.c]] functions>> */
static size_t split_sentence(char *words, int padding, const char **tokens)
{
    static const char pad[] = "<pad>";
    size_t n = 0;
    for (; padding && n < VIZ_PADDING; n++)
        tokens[n] = pad;
    for (char *w = strtok(words, " \t\n"); w != NULL; w = strtok(NULL, " \t\n")) {
        if (n == VIZ_TOKENS_MAX)
            return VIZ_TOKENS_MAX + 1;               /* too long */
        tokens[n++] = w;
    }
    return n;
}
/* <<[[state.c]] functions>> */
unsigned viz_fold_letter(unsigned c)
{
    if (c < 0x80)
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;          /* Latin-1 */
    if (c == 0x130) return 'i';                                       /* capital I with dot */
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c | 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return c + (c & 1);
    if (c == 0x178) return 0xFF;
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;        /* Greek */
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 63;
    if (c == 0x3C2) return 0x3C3;                                     /* final sigma */
    if (c >= 0x400 && c <= 0x40F) return c + 80;                      /* Cyrillic */
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || (c >= 0x4D0 && c <= 0x52F))
        return c | 1;
    if (c >= 0x4C1 && c <= 0x4CE) return c + (c & 1);
    return c;
}
/* <<[[state.c]] functions>> */
static size_t utf8_read(const char *w, const char *end, unsigned *c)
{
    const unsigned char *u = (const unsigned char *)w;
    const size_t n = u[0] < 0x80 ? 1 : (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3
                   : (u[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (size_t)(end - w) < n) {
        *c = 0x110000;                                /* no character: copied as a byte */
        return 1;
    }
    *c = n == 1 ? u[0] : u[0] & (0x7F >> n);
    for (size_t k = 1; k < n; k++) {
        if ((u[k] & 0xC0) != 0x80) {
            *c = 0x110000;
            return 1;
        }
        *c = *c << 6 | (u[k] & 0x3F);
    }
    return n;
}

static size_t utf8_write(unsigned c, char *out)      /* c < 0x800: every folded letter */
{
    if (c < 0x80) { out[0] = (char)c; return 1; }
    out[0] = (char)(0xC0 | c >> 6);
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
}
/* <<[[state.c]] functions>> */
static void fold_words(const viz_state *s, char folded[VIZ_TEXT_MAX],
                       const char *same[VIZ_TOKENS_MAX])
{
    size_t used = 0;
    for (size_t i = 0; i < s->length; i++) {
        const char *w = s->tokens[i], *end = w + strlen(w);
        same[i] = w;
        if (w < s->words || w >= s->words + sizeof s->words)
            continue;                                      /* a padding token */
        while (w < end && ispunct((unsigned char)*w)) w++;
        while (end > w && ispunct((unsigned char)end[-1])) end--;
        if (w == end || used + (size_t)(end - w) + 1 > VIZ_TEXT_MAX)
            continue;
        same[i] = folded + used;
        while (w < end) {
            unsigned c;
            const size_t n = utf8_read(w, end, &c);
            if (c > 0xFFFF || viz_fold_letter(c) == c)
                memcpy(folded + used, w, n), used += n;       /* as typed */
            else
                used += utf8_write(viz_fold_letter(c), folded + used);
            w += n;
        }
        folded[used++] = '\0';
    }
}
/* <<[[state.c]] functions>> */
static mha_status use_text(viz_state *s, const char *text, int padding)
{
    char words[VIZ_TEXT_MAX];
    const char *tokens[VIZ_TOKENS_MAX];
    if (strlen(text) >= VIZ_TEXT_MAX)
        return MHA_ERR_ARG;                   /* too many characters, whatever the words */
    strcpy(words, text);
    const size_t n = split_sentence(words, padding, tokens);
    if (n > VIZ_TOKENS_MAX || n == (padding ? VIZ_PADDING : 0))
        return MHA_ERR_SHAPE;
    /* <<make [[text]], [[words]] and [[tokens]] the state's sentence>> */
    if (text != s->text)
        strcpy(s->text, text);
    memcpy(s->words, words, sizeof words);
    for (size_t i = 0; i < n; i++)
        s->tokens[i] = tokens[i] >= words && tokens[i] < words + sizeof words
            ? s->words + (tokens[i] - words) : tokens[i];
    s->length = n;
    s->padding = padding;
    char folded[VIZ_TEXT_MAX];
    const char *same[VIZ_TOKENS_MAX];
    fold_words(s, folded, same);
    return mha_designed_embed(same, s->length, s->x);
}
/* <<[[state.c]] functions>> */
mha_status viz_set_text(viz_state *s, const char *text)
{
    mha_status status = use_text(s, text, s->padding);
    if (status != MHA_OK)
        return status;
    s->selected = -1;                       /* a word of the old sentence */
    s->step = 1;
    s->playing = 1;
    s->since_step = 0;
    return viz_run(s);
}

/* The rule a refused sentence broke: its length in bytes, or its word count. */
void viz_text_rule(char *message, size_t size, const char *text, int padding)
{
    if (strlen(text) >= VIZ_TEXT_MAX)
        snprintf(message, size, "a sentence is at most %d characters long",
                 VIZ_TEXT_MAX - 1);
    else
        snprintf(message, size, "a sentence is 1 to %d words",
                 VIZ_TOKENS_MAX - (padding ? VIZ_PADDING : 0));
}
/* <<[[state.c]] functions>> */
mha_status viz_state_init(viz_state *s, const char *text)
{
    memset(s, 0, sizeof *s);
    const size_t E = VIZ_EMBED, L = VIZ_TOKENS_MAX;
    s->in_proj_weight = malloc(3 * E * E * sizeof(float));
    s->effective_weight = malloc(3 * E * E * sizeof(float));
    s->out_proj_weight = malloc(E * E * sizeof(float));
    s->x = malloc(L * E * sizeof(float));
    s->weights = malloc(VIZ_HEADS * L * L * sizeof(float));
    s->out = malloc(L * E * sizeof(float));
    s->reference_out = malloc(L * E * sizeof(float));
    if (mha_kv_cache_init(&s->cache, 1, VIZ_HEADS, L, MHA_DESIGNED_HEAD_DIM) != MHA_OK ||
        !s->in_proj_weight || !s->effective_weight || !s->out_proj_weight || !s->x ||
        !s->weights || !s->out || !s->reference_out) {
        viz_state_free(s);
        return MHA_ERR_NOMEM;
    }
    /* <<set the state's switches to their defaults>> */
    s->speed = 1.5;
    s->causal = 1;
    s->temperature = 1.0f;
    s->zoom = 1.0;
    s->focus = 1;                       /* the same-token head: the most telling */
    s->hover_head = s->hover_row = s->hover_col = s->selected = -1;
    /* <<run the viewer's layers on the calling thread alone>> */
    omp_set_num_threads(1);
    mha_designed_params(s->in_proj_weight, s->out_proj_weight);
    return viz_set_text(s, text ? text : viz_default_text);
}
/* <<[[state.c]] functions>> */
void viz_state_free(viz_state *s)
{
    free(s->in_proj_weight);
    free(s->effective_weight);
    free(s->out_proj_weight);
    free(s->x);
    free(s->weights);
    free(s->out);
    free(s->reference_out);
    mha_kv_cache_free(&s->cache);
    memset(s, 0, sizeof *s);
}
/* <<[[state.c]] functions>> */
static void make_effective_weight(viz_state *s, int ablate)
{
    const size_t E = VIZ_EMBED, D = MHA_DESIGNED_HEAD_DIM;
    memcpy(s->effective_weight, s->in_proj_weight, 3 * E * E * sizeof(float));
    for (size_t i = 0; i < E * E; i++)                   /* W_Q: rows 0..E-1 */
        s->effective_weight[i] /= s->temperature;
    /* <<zero the value rows of every head that is switched off>> */
    for (size_t h = 0; ablate && h < VIZ_HEADS; h++)
        if (s->ablated >> h & 1)
            memset(s->effective_weight + (2 * E + h * D) * E, 0, D * E * sizeof(float));
}
/* <<[[state.c]] functions>> */
static double now_ms(void)
{
    return mha_seconds() * 1e3;
}
/* <<[[state.c]] functions>> */
static mha_status decode_tokens(viz_state *s, const mha_decode_impl *impl, int extend)
{
    const size_t n = s->step, L = s->length, H = VIZ_HEADS, E = VIZ_EMBED, T = VIZ_TOKENS_MAX;
    const mha_decoder decoder = {E, H, H, {s->effective_weight, NULL, s->out_proj_weight, NULL},
                                 0, 0.0f};
    float row[VIZ_HEADS * VIZ_TOKENS_MAX];               /* (1, H, 1, T_max) */
    mha_status status = MHA_OK;
    if (!extend) {
        mha_kv_cache_reset(&s->cache);
        memset(s->weights, 0, H * L * L * sizeof *s->weights);
    }
    for (size_t i = s->cache.length[0]; status == MHA_OK && i < n; i++) {
        /* <<decode token [[i]] through the cache, timing it>> */
        const unsigned char padding = s->padding && i < VIZ_PADDING;
        s->ms_per_step = INFINITY;
        for (int run = 0; status == MHA_OK && run < VIZ_TIMING_RUNS; run++) {
            s->cache.length[0] = i;                       /* the same token, into the same slot */
            const double start = now_ms();
            status = impl->step(&decoder, &s->cache, 1, s->x + i * E, &padding, s->out + i * E, row);
            s->ms_per_step = fmin(s->ms_per_step, now_ms() - start);
        }
        for (size_t h = 0; status == MHA_OK && h < H; h++)
            memcpy(s->weights + (h * L + i) * L, row + h * T, L * sizeof *row);
    }
    return status;
}
/* <<[[state.c]] functions>> */
/* The mask the switches stand for; padding (VIZ_TOKENS_MAX) receives its flags. */
static mha_mask viz_mask(const viz_state *s, unsigned char *padding)
{
    for (size_t j = 0; j < VIZ_TOKENS_MAX; j++)
        padding[j] = s->padding && j < VIZ_PADDING;
    return (mha_mask){s->causal, NULL, NULL, s->padding ? padding : NULL};
}

static mha_status run_prefix(const viz_state *s, const mha_impl *impl, const float *in_w,
                             float *out, float *weights)
{
    const size_t n = s->step;
    unsigned char padding[VIZ_TOKENS_MAX];
    const mha_shape shape = {1, n, n, VIZ_EMBED, VIZ_HEADS};
    const mha_params params = {in_w, NULL, s->out_proj_weight, NULL};
    const mha_mask mask = viz_mask(s, padding);
    return impl->forward(&shape, &params, s->x, NULL, NULL, &mask, out, weights);
}
/* <<[[state.c]] functions>> */
static mha_status run_layer(viz_state *s, int extend)
{
    const size_t n = s->step, L = s->length, E = VIZ_EMBED, H = VIZ_HEADS;
    float *weights = malloc(H * n * n * sizeof *weights),
          *check = malloc(H * n * n * sizeof *check),
          *out = malloc(n * E * sizeof *out);
    mha_status status = weights && check && out ? MHA_OK : MHA_ERR_NOMEM;
    if (status == MHA_OK) {
        /* <<decode with the chosen implementation, or run it on the prefix>> */
        make_effective_weight(s, 1);
        const mha_decode_impl *decoder =
            s->causal ? mha_decode_impl_find(mha_impls[s->impl].name) : NULL;
        extend = extend && s->decoding && decoder != NULL && s->cache.length[0] + 1 == n;
        s->decoding = decoder != NULL;
        if (decoder != NULL) {
            status = decode_tokens(s, decoder, extend);
        } else {
            s->ms_per_step = INFINITY;
            for (int run = 0; status == MHA_OK && run < VIZ_TIMING_RUNS; run++) {
                const double start = now_ms();
                status = run_prefix(s, &mha_impls[s->impl], s->effective_weight, s->out, weights);
                s->ms_per_step = fmin(s->ms_per_step, now_ms() - start);
            }
            /* <<copy the prefix's weights into the state's [[(H, L, L)]] maps>> */
            memset(s->weights, 0, H * L * L * sizeof *s->weights);
            for (size_t h = 0; status == MHA_OK && h < H; h++)
                for (size_t i = 0; i < n; i++)
                    memcpy(s->weights + (h * L + i) * L, weights + (h * n + i) * n, n * sizeof *weights);
        }
        /* <<compare with the naive version, and measure the ablation>> */
        if (status == MHA_OK)
            status = run_prefix(s, &mha_impls[0], s->effective_weight, out, check);
        s->impl_difference = 0;
        for (size_t h = 0; status == MHA_OK && h < H; h++)
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    s->impl_difference = fmax(s->impl_difference,
                                              fabs(s->weights[(h * L + i) * L + j] -
                                                   check[(h * n + i) * n + j]));
        for (size_t i = 0; status == MHA_OK && i < n * E; i++)
            s->impl_difference = fmax(s->impl_difference, fabs(s->out[i] - out[i]));
        make_effective_weight(s, 0);
        if (status == MHA_OK)
            status = run_prefix(s, &mha_impls[0], s->effective_weight, s->reference_out, check);
        double change = 0, whole = 0;
        for (size_t i = 0; status == MHA_OK && i < n * E; i++) {
            const double d = (double)s->out[i] - s->reference_out[i];
            change += d * d;
            whole += (double)s->reference_out[i] * s->reference_out[i];
        }
        s->output_change = whole > 0 ? sqrt(change / whole) : 0;
    }
    free(weights);
    free(check);
    free(out);
    return status;
}

mha_status viz_run(viz_state *s)
{
    return run_layer(s, 0);
}
/* <<[[state.c]] functions>> */
double viz_score(const viz_state *s, size_t h, size_t i, size_t j)
{
    const size_t E = VIZ_EMBED, D = MHA_DESIGNED_HEAD_DIM;
    double dot = 0;
    for (size_t d = 0; d < D; d++) {
        const float *wq = s->in_proj_weight + (h * D + d) * E;
        const float *wk = s->in_proj_weight + (E + h * D + d) * E;
        double q = 0, k = 0;
        for (size_t e = 0; e < E; e++) {
            q += (double)wq[e] * s->x[i * E + e];
            k += (double)wk[e] * s->x[j * E + e];
        }
        dot += q * k;
    }
    return dot / sqrt((double)D) / s->temperature;
}

int viz_blocked(const viz_state *s, size_t i, size_t j)
{
    unsigned char padding[VIZ_TOKENS_MAX];
    const mha_mask mask = viz_mask(s, padding);
    return mha_key_masked(&mask, VIZ_TOKENS_MAX, 0, i, j);
}
/* <<[[state.c]] functions>> */
void viz_short_label(const char *token, char *label, size_t size)
{
    static const char ellipsis[] = "\xe2\x80\xa6";
    size_t chars = 0, cut = 0, n = 0;              /* cut: the bytes of the first nine */
    for (; token[n] != '\0'; n++)
        if (((unsigned char)token[n] & 0xC0) != 0x80 && ++chars == VIZ_LABEL_CHARS)
            cut = n;
    if (chars <= VIZ_LABEL_CHARS)
        snprintf(label, size, "%s", token);
    else
        snprintf(label, size, "%.*s%s", (int)cut, token, ellipsis);
}
/* <<[[state.c]] functions>> */
static void go_to_step(viz_state *s, size_t step)
{
    const size_t before = s->step;
    s->step = step < 1 ? 1 : step > s->length ? s->length : step;
    if (run_layer(s, s->step == before + 1) != MHA_OK)
        snprintf(s->message, sizeof s->message, "out of memory");
}

int viz_sentence_tick(viz_state *s, void *data, double seconds)
{
    (void)data;                         /* the sentence's data is the state itself */
    if (!s->playing)
        return 0;
    s->since_step += seconds;
    if (s->since_step < 1.0 / s->speed)
        return 0;                       /* nothing to draw again */
    s->since_step = 0;
    go_to_step(s, s->step == s->length ? 1 : s->step + 1);
    return 1;
}
/* <<[[state.c]] functions>> */
void viz_sentence_act(viz_state *s, void *data, const viz_action *a)
{
    (void)data;
    switch (a->kind) {
    /* <<actions that move the decoding>> */
    case VIZ_PLAY_PAUSE: s->playing = !s->playing; s->since_step = 0; break;
    case VIZ_STEP_FORWARD: s->playing = 0; go_to_step(s, s->step + 1); break;
    case VIZ_STEP_BACK: s->playing = 0; go_to_step(s, s->step - 1); break;
    case VIZ_FIRST_TOKEN: go_to_step(s, 1); break;
    case VIZ_FASTER: s->speed = fmin(s->speed * 1.5, 20.0); break;
    case VIZ_SLOWER: s->speed = fmax(s->speed / 1.5, 0.25); break;
    /* <<actions that flip a switch>> */
    case VIZ_SWITCH_CAUSAL: s->causal = !s->causal; go_to_step(s, s->step);
        s->hover_head = s->hover_row = s->hover_col = -1; break;   /* the pointer moves again */
    case VIZ_SWITCH_PADDING:
        if (use_text(s, s->text, !s->padding) == MHA_OK)
            go_to_step(s, s->padding ? s->step + VIZ_PADDING : s->step - VIZ_PADDING);
        else
            snprintf(s->message, sizeof s->message, "no room for padding: %d words at most",
                     VIZ_TOKENS_MAX - VIZ_PADDING);
        break;
    case VIZ_SHARPER: s->temperature = (float)fmax(s->temperature / 1.5, VIZ_TEMPERATURE_MIN);
        go_to_step(s, s->step); break;
    case VIZ_FLATTER: s->temperature = (float)fmin(s->temperature * 1.5, VIZ_TEMPERATURE_MAX);
        go_to_step(s, s->step); break;
    case VIZ_SWITCH_HEAD: s->ablated ^= 1u << a->head; go_to_step(s, s->step); break;
    case VIZ_NEXT_IMPL: s->impl = (s->impl + 1) % mha_impl_count; go_to_step(s, s->step); break;
    case VIZ_NEXT_FOCUS: s->focus = (s->focus + 1) % VIZ_HEADS;
        s->hover_head = s->hover_row = s->hover_col = -1; break;
    /* <<actions that type a sentence>> */
    case VIZ_START_TYPING: s->typing = 1; s->typed[0] = '\0'; break;
    case VIZ_TYPE:
        if (strlen(s->typed) + strlen(a->text) < VIZ_TEXT_MAX)
            strcat(s->typed, a->text);
        break;
    case VIZ_ERASE: {
        size_t n = strlen(s->typed);
        while (n > 0 && ((unsigned char)s->typed[--n] & 0xC0) == 0x80)
            ;
        s->typed[n] = '\0';
        break;
    }
    case VIZ_ACCEPT:
        if (viz_set_text(s, s->typed) == MHA_OK)
            s->typing = 0;
        else
            viz_text_rule(s->message, sizeof s->message, s->typed, s->padding);
        break;
    case VIZ_CANCEL: s->typing = 0; s->message[0] = '\0'; break;    /* the error goes too */
    /* <<actions of the pointer>> */
    case VIZ_POINT: s->hover_head = a->head; s->hover_row = a->row; s->hover_col = a->col; break;
    case VIZ_SELECT: s->selected = a->row; break;
    case VIZ_FOCUS_HEAD: s->focus = (size_t)a->head; break;
    case VIZ_SET_TEMPERATURE: s->temperature = (float)a->temperature; go_to_step(s, s->step); break;
    default:
        break;
    }
}
/* <<[[state.c]] functions>> */
int viz_sentence_busy(const viz_state *s, const void *data)
{
    (void)data;
    return s->playing;
}

mha_status viz_sentence_start(viz_state *s, void *data, const viz_start *how)
{
    const viz_action forward = {.kind = VIZ_STEP_FORWARD};
    while (s->step < how->step && s->step < s->length)
        viz_sentence_act(s, data, &forward);
    return MHA_OK;
}
void viz_fit_message(char *to, size_t size, const char *message)
{
    const size_t n = strlen(message);
    if (size == 0)
        return;
    if (n < size || size < 8) {
        snprintf(to, size, "%s", message);
        return;
    }
    size_t head = (size - 4) / 3, tail = size - 4 - head;
    while (head > 0 && ((unsigned char)message[head] & 0xC0) == 0x80)
        head--;                                        /* a character's continuation byte */
    while (tail > 0 && ((unsigned char)message[n - tail] & 0xC0) == 0x80)
        tail--;
    memcpy(to, message, head);
    memcpy(to + head, "...", 3);
    memcpy(to + head + 3, message + n - tail, tail);
    to[head + 3 + tail] = '\0';
}
