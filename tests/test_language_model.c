/* generated from chapters/46-tests-language-model.nw, chapters/47-tests-austen-model.nw, chapters/48-tests-austen-heads.nw; edit the book, not this file */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "bpe.h"
#include "bpe_files.h"
#include "fuzz_harness.h"
#include "layer_files.h"
#include "ngram.h"
#include "run.h"
#include "scratch.h"
#include "sha256.h"
#include "tables.h"

/* <<[[test_language_model.c]] helpers>> */
static const char *const sample_text =
    "It is a truth universally acknowledged, that a single man in possession\n"
    "of a good fortune, must be in want of a wife.\n\n"
    "However little known the feelings or views of such a man may be on his\n"
    "first entering a neighbourhood, this truth is so well fixed in the minds\n"
    "of the surrounding families, that he is considered the rightful property\n"
    "of some one or other of their daughters.\n\n"
    "\"My dear Mr. Bennet,\" said his lady to him one day, \"have you heard that\n"
    "Netherfield Park is let at last?\" -- 1811, \xc2\xa3" "4000 a year.\n";

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static void expect_round_trip(const bpe *t, const unsigned char *text, size_t n, const char *what)
{
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    unsigned char *back = malloc(n ? n : 1);
    cr_assert(ids && back);
    size_t count = 99, length = 99;
    cr_assert_eq(bpe_encode(t, text, n, ids, &count), MHA_OK, "%s", what);
    cr_expect_leq(count, n, "%s", what);
    for (size_t i = 0; i < count; i++)
        cr_assert_lt(ids[i], t->vocab, "%s: id %zu", what, i);
    cr_assert_eq(bpe_decode(t, ids, count, back, n, &length), MHA_OK, "%s", what);
    cr_expect_eq(length, n, "%s", what);
    cr_expect(memcmp(back, text, n) == 0, "%s: the bytes differ", what);
    free(ids);
    free(back);
}
/* <<[[test_language_model.c]] helpers>> */
static size_t reference_learn(const unsigned char *text, size_t n, size_t merges,
                              bpe_pair *out)
{
    uint32_t *sym = malloc(n * sizeof *sym);
    size_t *piece = malloc(n * sizeof *piece);           /* the piece of each symbol */
    cr_assert(sym && piece);
    for (size_t at = 0, k = 0; at < n; k++) {
        const size_t length = bpe_piece_length(text + at, n - at);
        for (size_t i = 0; i < length; i++)
            sym[at + i] = text[at + i], piece[at + i] = k;
        at += length;
    }
    size_t count = n, made = 0;
    for (; made < merges; made++) {
        uint32_t best_left = 0, best_right = 0;
        size_t best = 1;
        for (size_t i = 0; i + 1 < count; i++) {
            if (piece[i] != piece[i + 1])
                continue;
            size_t c = 0;
            for (size_t j = 0; j + 1 < count; j++)
                c += piece[j] == piece[j + 1] && sym[j] == sym[i] && sym[j + 1] == sym[i + 1];
            const int smaller = sym[i] < best_left || (sym[i] == best_left && sym[i + 1] < best_right);
            if (c > best || (c == best && smaller))
                best = c, best_left = sym[i], best_right = sym[i + 1];
        }
        if (best < 2)
            break;
        out[made] = (bpe_pair){best_left, best_right};
        size_t to = 0;
        for (size_t i = 0; i < count; i++) {
            if (i + 1 < count && piece[i] == piece[i + 1] && sym[i] == best_left &&
                sym[i + 1] == best_right)
                sym[to] = (uint32_t)(BPE_BYTES + made), piece[to++] = piece[i++];
            else
                sym[to] = sym[i], piece[to++] = piece[i];
        }
        count = to;
    }
    free(sym);
    free(piece);
    return made;
}
static size_t reference_encode(const bpe *t, const unsigned char *text, size_t n, uint32_t *ids)
{
    size_t count = 0;
    for (size_t at = 0; at < n;) {
        const size_t length = bpe_piece_length(text + at, n - at);
        uint32_t sym[BPE_PIECE_MAX];
        size_t k = length;
        for (size_t i = 0; i < length; i++)
            sym[i] = text[at + i];
        for (size_t m = 0; m + BPE_BYTES < t->vocab; m++) {
            size_t to = 0;
            for (size_t i = 0; i < k; i++)
                if (i + 1 < k && sym[i] == t->merge[m].left && sym[i + 1] == t->merge[m].right)
                    sym[to++] = (uint32_t)(BPE_BYTES + m), i++;
                else
                    sym[to++] = sym[i];
            k = to;
        }
        memcpy(ids + count, sym, k * sizeof *sym);
        count += k, at += length;
    }
    return count;
}

/* The learner's merges are the definition's, in the same order. */
static void expect_merges(const bpe *t, const bpe_pair *want, size_t made)
{
    cr_assert_eq(t->vocab, BPE_BYTES + made);
    for (size_t i = 0; i < made; i++)
        cr_expect(t->merge[i].left == want[i].left && t->merge[i].right == want[i].right,
                  "merge %zu: %u %u, the definition gives %u %u", i, t->merge[i].left,
                  t->merge[i].right, want[i].left, want[i].right);
}
/* <<[[test_language_model.c]] helpers>> */
static void write_text(const char *dir, const char *name, const char *text)
{
    write_bytes(dir, name, text, strlen(text));
}
/* <<[[test_language_model.c]] helpers>> */
static int occurs_at(const uint32_t *text, size_t i, const uint32_t *gram, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (text[i + k] != gram[k])
            return 0;
    return 1;
}
static double direct_count(const uint32_t *text, size_t n, const uint32_t *gram, size_t length,
                           int raw, size_t alphabet)
{
    if (raw) {
        double c = 0;
        for (size_t i = 0; i + length <= n; i++)
            c += occurs_at(text, i, gram, length);
        return c;
    }
    double kinds = 0;                 /* distinct symbols v with v gram in the text */
    for (uint32_t v = 0; v < alphabet; v++) {
        int seen = 0;
        for (size_t i = 1; !seen && i + length <= n; i++)
            seen = text[i - 1] == v && occurs_at(text, i, gram, length);
        kinds += seen;
    }
    return kinds;
}
static double reference_probability(const ngram_model *m, size_t order, const uint32_t *text,
                                    size_t n, const uint32_t *history, size_t length,
                                    uint32_t symbol)
{
    double p = 1.0 / (double)m->alphabet;
    uint32_t gram[NGRAM_ORDER_MAX];
    for (size_t k = 1; k <= order && k <= length + 1; k++) {
        const int raw = k == order;
        memcpy(gram, history + length - (k - 1), (k - 1) * sizeof *gram);
        double sum = 0, kinds = 0, count = 0;
        for (uint32_t w = 0; w < m->alphabet; w++) {
            gram[k - 1] = w;
            const double c = direct_count(text, n, gram, k, raw, m->alphabet);
            sum += c, kinds += c > 0;
            if (w == symbol)
                count = c;
        }
        if (sum == 0)
            continue;
        const double d = m->discount[k][raw];
        p = (fmax(count - d, 0) + d * kinds * p) / sum;
    }
    return p;
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, the_worked_example) {
    bpe t;
    const char *text = "aaabdaaabac";
    cr_assert_eq(bpe_learn((const unsigned char *)text, 11, 259, &t), MHA_OK);
    cr_assert_eq(t.vocab, 259);
    const bpe_pair expected[3] = {{'a', 'a'}, {'a', 'b'}, {256, 257}};
    for (int i = 0; i < 3; i++)
        cr_expect(t.merge[i].left == expected[i].left && t.merge[i].right == expected[i].right,
                  "merge %d: %u %u", i, t.merge[i].left, t.merge[i].right);
    const char *pieces[3] = {"aa", "ab", "aaab"};
    for (uint32_t id = 256; id < 259; id++) {
        size_t length;
        const unsigned char *bytes = bpe_token(&t, id, &length);
        cr_expect(length == strlen(pieces[id - 256]) && memcmp(bytes, pieces[id - 256], length) == 0);
    }
    uint32_t ids[11];
    size_t count;
    cr_assert_eq(bpe_encode(&t, (const unsigned char *)text, 11, ids, &count), MHA_OK);
    const uint32_t want[5] = {258, 100, 258, 97, 99};
    cr_assert_eq(count, 5);
    cr_expect(memcmp(ids, want, sizeof want) == 0);
    bpe_free(&t);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, one_merge_step) {
    const struct { bpe_pair merge; const char *text; size_t count; uint32_t want[4]; } cases[] = {
        {{'a', 'a'}, "aaa", 2, {256, 'a'}},
        {{'a', 'a'}, "aaaa", 2, {256, 256}},
        {{'a', 'a'}, "aaaaa", 3, {256, 256, 'a'}},
        {{'a', 'a'}, "baa", 2, {'b', 256}},
        {{'a', 'b'}, "xab", 2, {'x', 256}},
        {{'a', 'b'}, "abxab", 3, {256, 'x', 256}},
        {{'a', 'b'}, "ba", 2, {'b', 'a'}},
        {{'a', 'b'}, "a", 1, {'a'}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bpe t;
        cr_assert_eq(bpe_from_merges(&cases[c].merge, 1, &t), MHA_OK);
        uint32_t ids[8];
        size_t count = 99;
        const size_t n = strlen(cases[c].text);
        cr_assert_eq(bpe_encode(&t, (const unsigned char *)cases[c].text, n, ids, &count), MHA_OK);
        cr_expect(count == cases[c].count &&
                  memcmp(ids, cases[c].want, count * sizeof *ids) == 0,
                  "%s: %zu ids, the first %u", cases[c].text, count, count ? ids[0] : 0);
        bpe_free(&t);
    }
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, pieces) {
    const struct { const char *text; size_t length; } cases[] = {
        {" the end", 4}, {"the end", 3}, {" 1811, ", 5}, {". ", 1}, {"  a", 1}, {"\n\n", 1},
        {"caf\xc3\xa9 au", 5}, {" \xc2\xa3" "4000", 3}, {"", 0}, {" ", 1}, {"9a", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(bpe_piece_length((const unsigned char *)cases[i].text, strlen(cases[i].text)),
                     cases[i].length, "case %zu", i);
    unsigned char run[200];
    memset(run, 'a', sizeof run);
    cr_expect_eq(bpe_piece_length(run, sizeof run), BPE_PIECE_MAX);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, learner_and_encoder_follow_the_definition) {
    const unsigned char *text = (const unsigned char *)sample_text;
    const size_t n = strlen(sample_text);
    bpe_pair want[80];
    const size_t made = reference_learn(text, n, 80, want);
    cr_assert_gt(made, 40, "the sample should allow many merges (%zu)", made);
    bpe t;
    cr_assert_eq(bpe_learn(text, n, BPE_BYTES + 80, &t), MHA_OK);
    expect_merges(&t, want, made);
    uint32_t *ids = malloc(4096 * sizeof *ids), *ref = malloc(4096 * sizeof *ref);
    uint64_t state = 3;
    for (int trial = 0; trial < 50; trial++) {
        unsigned char buffer[1024];
        const size_t length = next_random(&state) % sizeof buffer;
        for (size_t i = 0; i < length; i++) {               /* pieces of the sample, and noise */
            const uint64_t r = next_random(&state);
            buffer[i] = r % 4 ? text[(r >> 8) % n] : (unsigned char)(r >> 16);
        }
        size_t count;
        cr_assert_eq(bpe_encode(&t, buffer, length, ids, &count), MHA_OK);
        const size_t ref_count = reference_encode(&t, buffer, length, ref);
        cr_expect(count == ref_count && memcmp(ids, ref, count * sizeof *ids) == 0,
                  "trial %d: the encoding differs from the merges applied in order", trial);
    }
    free(ids);
    free(ref);
    bpe_free(&t);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, any_bytes_come_back) {
    bpe t;
    cr_assert_eq(bpe_learn((const unsigned char *)sample_text, strlen(sample_text), 400, &t),
                 MHA_OK);
    expect_round_trip(&t, (const unsigned char *)sample_text, strlen(sample_text), "sample");
    expect_round_trip(&t, (const unsigned char *)"", 0, "empty");
    const unsigned char invalid[] = {0xff, 0xfe, 0xc3, ' ', 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x82,
                                     'a', 0xf0, 0x90, 0x80, 0xed, 0xa0, 0x80, 0x00, '\n'};
    expect_round_trip(&t, invalid, sizeof invalid, "invalid UTF-8");
    const size_t n = 100000;
    unsigned char *bytes = malloc(n);
    cr_assert_not_null(bytes);
    uint64_t state = 17;
    for (int trial = 0; trial < 20; trial++) {
        const size_t length = next_random(&state) % 5000;
        for (size_t i = 0; i < length; i++)
            bytes[i] = (unsigned char)next_random(&state);
        expect_round_trip(&t, bytes, length, "random bytes");
    }
    const unsigned char fill[] = {'a', ' ', 0, 0xff, 'e', '9'};
    for (size_t i = 0; i < sizeof fill; i++) {
        memset(bytes, fill[i], n);
        expect_round_trip(&t, bytes, n, "a long run");
    }
    size_t count;
    uint32_t ids[4];
    unsigned char small[2];
    size_t length;
    cr_expect_eq(bpe_encode(&t, (const unsigned char *)"aa", 2, ids, &count), MHA_OK);
    ids[0] = (uint32_t)t.vocab;
    cr_expect_eq(bpe_decode(&t, ids, 1, small, sizeof small, &length), MHA_ERR_ARG);
    ids[0] = 'a', ids[1] = 'b', ids[2] = 'c';
    cr_expect_eq(bpe_decode(&t, ids, 3, small, sizeof small, &length), MHA_ERR_SHAPE);
    cr_expect_eq(bpe_learn((const unsigned char *)"x", 1, 255, &t), MHA_ERR_ARG);
    free(bytes);
    bpe_free(&t);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, files_round_trip) {
    bpe t, back;
    cr_assert_eq(bpe_learn((const unsigned char *)sample_text, strlen(sample_text), 320, &t),
                 MHA_OK);
    char *dir = make_temp_dir();
    char message[4096];
    cr_assert_eq(bpe_files_write(dir, &t, message, sizeof message), MHA_OK, "%s", message);
    cr_assert_eq(bpe_files_read(dir, &back, message, sizeof message), MHA_OK, "%s", message);
    cr_expect_eq(back.vocab, t.vocab);
    cr_expect(memcmp(back.merge, t.merge, (t.vocab - BPE_BYTES) * sizeof *t.merge) == 0);
    size_t size;
    char *vocab = slurp(path_in(dir, "vocab.txt"), &size);
    cr_expect(strstr(vocab, "92\t\\\\\n") != NULL && strstr(vocab, "10\t\\x0a\n") != NULL &&
              strstr(vocab, "32\t \n") != NULL && strstr(vocab, "200\t\\xc8\n") != NULL);
    free(vocab);
    bpe_free(&back);
    bpe_free(&t);
    remove_dir(dir);
}
Test(bpe, corrupt_files_are_refused) {
    const char *const bad_merges[] = {
        "",                                        /* no header */
        "mha-bpe-merges 2\n",                      /* another version */
        "mha-bpe-merges 1\n97 98",                 /* no final newline */
        "mha-bpe-merges 1\n97  98\n",              /* two spaces */
        "mha-bpe-merges 1\n097 98\n",              /* a leading zero */
        "mha-bpe-merges 1\n97 98 \n",              /* a trailing space */
        "mha-bpe-merges 1\n97 256\n",              /* a token not yet made */
        "mha-bpe-merges 1\n97 98\n97 98\n",        /* a pair merged twice */
        "mha-bpe-merges 1\n97 x\n",
        "mha-bpe-merges 1\n-1 98\n",
        "mha-bpe-merges 1\n97 98\n\n",             /* an empty line */
        "mha-bpe-merges 1\n99999999999 98\n",
        "mha-bpe-merges 1 97 98\n",                /* a header that runs on */
        "mha-bpe-merges 1\n97\n",                  /* one id */
        "mha-bpe-merges 1\n0a 98\n",               /* not a number */
        "mha-bpe-merges 1\n256 97\n",              /* the left token not yet made */
    };
    char *dir = make_temp_dir();
    char message[4096];
    for (size_t i = 0; i < sizeof bad_merges / sizeof bad_merges[0]; i++) {
        bpe t;
        write_text(dir, "merges.txt", bad_merges[i]);
        cr_expect_eq(bpe_files_read(dir, &t, message, sizeof message), MHA_ERR_FORMAT,
                     "case %zu", i);
        cr_expect(strstr(message, "merges.txt") != NULL, "case %zu: %s", i, message);
    }
    bpe good;
    cr_assert_eq(bpe_learn((const unsigned char *)"abab abab", 9, 258, &good), MHA_OK);
    cr_assert_eq(bpe_files_write(dir, &good, message, sizeof message), MHA_OK);
    size_t size;
    char *vocab = slurp(path_in(dir, "vocab.txt"), &size);
    const size_t cut[] = {size - 1, size - 5, 0};
    for (size_t i = 0; i < 3; i++) {               /* a vocabulary cut short, or empty */
        bpe t;
        write_bytes(dir, "vocab.txt", vocab, cut[i]);
        cr_expect_eq(bpe_files_read(dir, &t, message, sizeof message), MHA_ERR_FORMAT);
        cr_expect(strstr(message, "vocab.txt") != NULL, "%s", message);
    }
    char *changed = strstr(vocab, "256\tab");
    cr_assert_not_null(changed);
    bpe t;
    char *longer = malloc(size + 8);                /* a token too many */
    cr_assert_not_null(longer);
    memcpy(longer, vocab, size);
    memcpy(longer + size, "258\tb\n", 6);
    write_bytes(dir, "vocab.txt", longer, size + 6);
    free(longer);
    cr_expect_eq(bpe_files_read(dir, &t, message, sizeof message), MHA_ERR_FORMAT);
    cr_expect(strstr(message, "vocab.txt: line 259") != NULL, "%s", message);
    changed[5] = 'c';                               /* a token's bytes changed */
    write_bytes(dir, "vocab.txt", vocab, size);
    cr_expect_eq(bpe_files_read(dir, &t, message, sizeof message), MHA_ERR_FORMAT);
    cr_expect(strstr(message, "vocab.txt: line 257") != NULL, "%s", message);
    struct cli_result r = run_mha("lm", "encode", dir, "--text", "abab", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strncmp(r.err, "mha: ", 5) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1 &&
              strstr(r.err, "vocab.txt") != NULL, "%s", r.err);
    free_result(&r);
    free(vocab);
    bpe_free(&good);
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, merges_file_edges) {
    bpe t;
    char *dir = make_temp_dir();
    char message[4096];
    cr_assert_eq(bpe_learn((const unsigned char *)"abab", 4, BPE_BYTES, &t), MHA_OK);
    cr_assert_eq(bpe_files_write(dir, &t, message, sizeof message), MHA_OK, "%s",
                 message);
    bpe_free(&t);
    size_t size;
    char *merges = slurp(path_in(dir, "merges.txt"), &size);
    cr_expect(size == strlen(BPE_MERGES_HEADER) + 1 &&
              memcmp(merges, BPE_MERGES_HEADER "\n", size) == 0);
    free(merges);
    cr_assert_eq(bpe_files_read(dir, &t, message, sizeof message), MHA_OK, "%s", message);
    cr_expect_eq(t.vocab, BPE_BYTES);
    bpe_free(&t);
    const char zeros[] = BPE_MERGES_HEADER "\n0 0\n";
    cr_assert_eq(bpe_merges_parse("m", zeros, strlen(zeros), &t, message, sizeof message),
                 MHA_OK, "%s", message);
    size_t length = 0;
    const unsigned char *bytes = bpe_token(&t, BPE_BYTES, &length);
    cr_expect(t.vocab == BPE_BYTES + 1 && length == 2 && bytes[0] == 0 && bytes[1] == 0);
    bpe_free(&t);
    const size_t room = BPE_VOCAB_MAX - BPE_BYTES, header = strlen(BPE_MERGES_HEADER) + 1;
    char *many = malloc(header + room + 1);
    cr_assert_not_null(many);
    memcpy(many, BPE_MERGES_HEADER "\n", header);
    memset(many + header, '\n', room + 1);                /* one empty line too many */
    char expected[128];
    snprintf(expected, sizeof expected, "many: %zu merges, more than %zu", room + 1,
             room);
    const size_t m = sizeof message;
    cr_expect_eq(bpe_merges_parse("many", many, header + room + 1, &t, message, m),
                 MHA_ERR_FORMAT);
    cr_expect(strstr(message, expected) != NULL, "%s", message);
    cr_expect_eq(bpe_merges_parse("many", many, header + room, &t, message, m),
                 MHA_ERR_FORMAT);                     /* as many as there is room for */
    cr_expect(strstr(message, "many: line 2") != NULL, "%s", message);
    free(many);
    char deep[MHA_PATH_SIZE + 16];
    memset(deep, 'd', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    char said[sizeof deep + 64];
    cr_expect_eq(bpe_files_read(deep, &t, said, sizeof said), MHA_ERR_ARG);
    cr_expect(strncmp(said, deep, strlen(deep)) == 0 &&
              strstr(said, ": path too long") != NULL);
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, a_token_longer_than_a_piece_is_refused_before_it_is_made) {
    char *dir = make_temp_dir();
    char message[4096], text[2048];
    const size_t counts[] = {29, 65};
    for (size_t c = 0; c < 2; c++) {
        bpe_pair merges[65];
        size_t used = (size_t)sprintf(text, "%s\n", BPE_MERGES_HEADER);
        for (size_t i = 0; i < counts[c]; i++) {
            const uint32_t last = i == 0 ? 'a' : (uint32_t)(BPE_BYTES + i - 1);
            merges[i] = (bpe_pair){last, last};
            used += (size_t)sprintf(text + used, "%u %u\n", (unsigned)last, (unsigned)last);
        }
        bpe t;
        cr_assert_eq(bpe_from_merges(merges, 6, &t), MHA_OK);
        size_t length = 0;
        cr_expect(bpe_token(&t, BPE_BYTES + 5, &length) != NULL && length == BPE_PIECE_MAX);
        bpe_free(&t);
        cr_expect_eq(bpe_from_merges(merges, counts[c], &t), MHA_ERR_ARG, "%zu merges",
                     counts[c]);
        cr_expect_eq(bpe_merges_parse("merges.txt", text, used, &t, message, sizeof message),
                     MHA_ERR_FORMAT, "%zu merges", counts[c]);
        cr_expect(strstr(message, "merges.txt: line 8: merge 6 makes a token of 128 bytes") !=
                  NULL, "%s", message);
        write_text(dir, "merges.txt", text);
        struct cli_result r = run_mha("lm", "encode", dir, "--text", "abab", NULL);
        cr_expect(r.status != 0 && r.out[0] == '\0' && strncmp(r.err, "mha: ", 5) == 0 &&
                  strchr(r.err, '\n') == r.err + strlen(r.err) - 1 &&
                  strstr(r.err, "merges.txt: line 8") != NULL, "%d '%s'", r.status, r.err);
        free_result(&r);
    }
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, whole_files_and_failed_writes) {
    char *dir = make_temp_dir();
    char message[4096];
    const size_t big = 3 * 65536 + 5;
    char *bytes = malloc(big);
    cr_assert_not_null(bytes);
    for (size_t i = 0; i < big; i++)
        bytes[i] = (char)(i * 7 + i / 251);
    write_bytes(dir, "big", bytes, big);
    unsigned char *back = NULL;
    size_t n = 0;
    const size_t m = sizeof message;
    cr_assert_eq(mha_read_whole_file(path_in(dir, "big"), MHA_READ_TABLE_MAX, &back, &n, message, m),
                 MHA_OK,
                 "%s", message);
    cr_expect(n == big && memcmp(back, bytes, big) == 0);
    free(back);
    free(bytes);
    cr_expect_eq(mha_read_whole_file(dir, MHA_READ_TABLE_MAX, &back, &n, message, m), MHA_ERR_IO);
    cr_expect(strstr(message, dir) != NULL && strstr(message, "not a regular file") != NULL,
              "%s", message);
    cr_expect(back == NULL && n == 0);
    bpe t;
    cr_assert_eq(bpe_learn((const unsigned char *)"abab", 4, BPE_BYTES + 1, &t), MHA_OK);
    FILE *full = fopen("/dev/full", "w");
    cr_assert_not_null(full);
    setvbuf(full, NULL, _IONBF, 0);
    cr_expect_eq(bpe_write_merges(full, &t), -1);
    cr_expect_eq(bpe_write_vocab(full, &t), -1);
    fclose(full);
    bpe_free(&t);
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
Test(lm_command, tokenizer_encode_decode) {
    char *dir = make_temp_dir();
    write_text(dir, "text.txt", "aaabdaaabac");
    char text[4200];
    snprintf(text, sizeof text, "%s", path_in(dir, "text.txt"));
    struct cli_result r = run_mha("lm", "tokenizer", "--text", text, "--vocab", "259", "--out",
                                  dir, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    r = run_mha("lm", "encode", dir, "--text", "aaabdaaabac", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "258\taaab\n100\td\n258\taaab\n97\ta\n99\tc\ntokens=5 bytes=11\n");
    free_result(&r);
    r = run_mha("lm", "decode", dir, "258", "100", "258", "97", "99", "10", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "aaabdaaabac\n");
    free_result(&r);
    r = run_mha("lm", "decode", dir, "259", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strncmp(r.err, "mha: ", 5) == 0 && strstr(r.err, "259") != NULL, "%s", r.err);
    free_result(&r);
    r = run_mha("lm", "decode", dir, "12x", NULL);
    cr_expect_eq(r.status, 2);
    free_result(&r);
    write_bytes(dir, "empty.txt", "", 0);
    char empty[4200];
    snprintf(empty, sizeof empty, "%s", path_in(dir, "empty.txt"));
    r = run_mha("lm", "tokenizer", "--text", empty, "--vocab", "300", "--out", dir, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "mha: ") == r.err && strstr(r.err, "empty.txt: empty text"), "%s", r.err);
    free_result(&r);
    r = run_mha("lm", "tokenizer", "--text", text, "--vocab", "100", "--out", dir, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strncmp(r.err, "mha: ", 5) == 0 && strstr(r.err, "--vocab") != NULL, "%s", r.err);
    free_result(&r);
    r = run_mha("help", "lm", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "tokenizer") && strstr(r.out, "encode") && strstr(r.out, "decode") &&
              strstr(r.out, "baselines"), "%s", r.out);
    free_result(&r);
    r = run_mha("lm", "nonsense", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "mha: lm: unknown sub-command 'nonsense'") == r.err, "%s", r.err);
    free_result(&r);
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
Test(ngram, kneser_ney_matches_direct_counts) {
    uint32_t text[300];
    uint64_t state = 9;
    const size_t n = 300, alphabet = 5;
    for (size_t i = 0; i < n; i++) {                /* a skewed text: repeats and noise */
        const int repeat = i >= 7 && next_random(&state) % 3;
        text[i] = repeat ? text[i - 7] : (uint32_t)(next_random(&state) % 4);
    }
    ngram_model m;
    cr_assert_eq(ngram_count(text, n, alphabet, 4, &m), MHA_OK);
    for (size_t order = 1; order <= 4; order++)
        for (int trial = 0; trial < 30; trial++) {
            uint32_t history[3];
            const size_t length = next_random(&state) % 4;
            for (size_t i = 0; i < length; i++)
                history[i] = (uint32_t)(next_random(&state) % alphabet);
            const uint32_t w = (uint32_t)(next_random(&state) % alphabet);
            const double p = ngram_probability(&m, order, history, length, w);
            const double want = reference_probability(&m, order, text, n, history, length, w);
            cr_expect(fabs(p - want) <= 1e-12, "order %zu, history %zu: %.15g, directly %.15g",
                      order, length, p, want);
        }
    for (size_t k = 1; k < 4; k++)                 /* n1 / (n1 + 2 n2) over distinct k-grams */
        for (int raw = 0; raw < 2; raw++) {
            double n1 = 0, n2 = 0;
            for (size_t i = 0; i + k <= n; i++) {
                int first = 1;
                for (size_t j = 0; first && j < i; j++)
                    first = !occurs_at(text, j, text + i, k);
                if (!first)
                    continue;
                const double c = direct_count(text, n, text + i, k, raw, alphabet);
                n1 += c == 1, n2 += c == 2;
            }
            const double d = n1 + n2 == 0 ? 0.5 : fmin(fmax(n1 / (n1 + 2 * n2), 0.1), 1);
            cr_expect(fabs(m.discount[k][raw] - d) < 1e-12, "D_%zu (%s counts): %g, directly %g",
                      k, raw ? "raw" : "continuation", m.discount[k][raw], d);
        }
    ngram_free(&m);
}
/* <<[[test_language_model.c]] tests>> */
Test(ngram, counts_survive_the_tables_growing) {
    enum { N = 6000, ALPHABET = 64 };
    uint32_t *text = malloc(N * sizeof *text);
    uint64_t state = 17;
    for (size_t i = 0; i < N; i++)
        text[i] = (uint32_t)(next_random(&state) % ALPHABET);
    ngram_model m;
    cr_assert_eq(ngram_count(text, N, ALPHABET, 2, &m), MHA_OK);
    cr_assert_gt(m.table[2].used, 2048, "only %zu distinct pairs", m.table[2].used);
    cr_expect_gt(m.table[2].capacity, 2048);
    for (int trial = 0; trial < 40; trial++) {
        const uint32_t history[1] = {text[next_random(&state) % N]};
        double sum = 0;
        for (uint32_t w = 0; w < ALPHABET; w++)
            sum += ngram_probability(&m, 2, history, 1, w);
        cr_expect(fabs(sum - 1) < 1e-12, "after %u: sum %.15g", history[0], sum);
        const uint32_t w = (uint32_t)(next_random(&state) % ALPHABET);
        const double p = ngram_probability(&m, 2, history, 1, w);
        const double want = reference_probability(&m, 2, text, N, history, 1, w);
        cr_expect(fabs(p - want) <= 1e-12, "%u after %u: %.15g, directly %.15g", w, history[0],
                  p, want);
    }
    ngram_free(&m);
    free(text);
}
Test(bpe, the_learners_counts_survive_their_table_growing) {
    enum { N = 3000 };
    unsigned char *text = malloc(N);
    uint64_t state = 5;
    for (size_t i = 0; i < N; i++) {                /* random bytes, a few pairs repeated */
        const uint64_t r = next_random(&state);
        text[i] = r % 5 == 0 && i > 0 ? (unsigned char)(text[i - 1] + 1) : (unsigned char)(r >> 8);
    }
    bpe_pair want[12];
    const size_t made = reference_learn(text, N, 12, want);
    bpe t;
    cr_assert_eq(bpe_learn(text, N, BPE_BYTES + 12, &t), MHA_OK);
    expect_merges(&t, want, made);
    bpe_free(&t);
    free(text);
}
/* <<[[test_language_model.c]] tests>> */
Test(ngram, probabilities_sum_to_one) {
    const size_t n = strlen(sample_text);
    uint32_t *text = malloc(n * sizeof *text);
    cr_assert_not_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = (unsigned char)sample_text[i];
    ngram_model m;
    cr_assert_eq(ngram_count(text, n, 256, 6, &m), MHA_OK);
    uint64_t state = 21;
    for (size_t order = 1; order <= 6; order++)
        for (int trial = 0; trial < 40; trial++) {
            uint32_t history[8];
            const size_t length = next_random(&state) % 8;
            const size_t from = next_random(&state) % (n - 8);
            for (size_t i = 0; i < length; i++)
                history[i] = trial % 2 ? text[from + i] : (uint32_t)(next_random(&state) % 256);
            double sum = 0, least = 1;
            for (uint32_t w = 0; w < 256; w++) {
                const double p = ngram_probability(&m, order, history, length, w);
                sum += p;
                least = fmin(least, p);
            }
            cr_expect(fabs(sum - 1) < 1e-12, "order %zu, history %zu: sum %.15g", order, length, sum);
            cr_expect(least > 0, "order %zu: a byte has probability %g", order, least);
        }
    double bits, by_hand = 0;
    cr_assert_eq(ngram_bits(&m, 3, text, n, &bits), MHA_OK);
    for (size_t i = 0; i < n; i++)
        by_hand -= log2(ngram_probability(&m, 3, text, i, text[i]));
    cr_expect(fabs(bits - by_hand) < 1e-9 * by_hand);
    cr_expect_eq(ngram_bits(&m, 7, text, n, &bits), MHA_ERR_ARG);
    ngram_free(&m);
    cr_expect_eq(ngram_count(text, n, 256, 9, &m), MHA_ERR_ARG);
    cr_expect_eq(ngram_count(text, n, 100, 3, &m), MHA_ERR_ARG);     /* a byte above 99 */
    cr_expect_eq(ngram_order_max(256), 8);
    cr_expect_eq(ngram_order_max(4096), 5);
    cr_expect_eq(ngram_order_max(65536), 4);
    free(text);
}
/* <<[[test_language_model.c]] tests>> */
Test(ngram, bad_arguments_and_the_empty_text) {
    const uint32_t text[] = {0, 1, 2, 1, 0};
    ngram_model m;
    double bits = -1;
    cr_expect_eq(ngram_count(text, 5, 3, 2, NULL), MHA_ERR_NULL);
    cr_expect_eq(ngram_count(NULL, 5, 3, 2, &m), MHA_ERR_NULL);
    const uint32_t zeros[] = {0, 0, 0};
    cr_expect_eq(ngram_count(zeros, 3, 1, 1, &m), MHA_ERR_ARG);
    cr_expect_eq(ngram_count(text, 5, ((size_t)1 << 31) + 1, 1, &m), MHA_ERR_ARG);
    cr_expect_eq(ngram_count(text, 5, 3, 0, &m), MHA_ERR_ARG);
    cr_expect_eq(ngram_count(text, (size_t)UINT32_MAX + 1, 3, 2, &m), MHA_ERR_ARG);
    cr_assert_eq(ngram_count(NULL, 0, 3, 2, &m), MHA_OK);
    cr_expect_eq(ngram_bits(NULL, 2, text, 5, &bits), MHA_ERR_NULL);
    cr_expect_eq(ngram_bits(&m, 2, text, 5, NULL), MHA_ERR_NULL);
    cr_expect_eq(ngram_bits(&m, 2, NULL, 5, &bits), MHA_ERR_NULL);
    cr_expect_eq(ngram_bits(&m, 0, text, 5, &bits), MHA_ERR_ARG);
    cr_expect_eq(ngram_bits(&m, 3, text, 5, &bits), MHA_ERR_ARG);
    const uint32_t outside[] = {0, 3};
    cr_expect_eq(ngram_bits(&m, 2, outside, 2, &bits), MHA_ERR_ARG);
    cr_assert_eq(ngram_bits(&m, 2, text, 5, &bits), MHA_OK);
    cr_expect(fabs(bits - 5 * log2(3)) < 1e-12, "%.17g bits", bits);
    ngram_free(&m);
    ngram_free(NULL);
    cr_expect_eq(ngram_order_max(2), NGRAM_ORDER_MAX);
    cr_expect_eq(ngram_order_max((size_t)1 << 40), 2, "a symbol of 32 bits at most");
}
/* <<[[test_language_model.c]] tests>> */
Test(sha256, standard_vectors) {
    char hex[65];
    mha_sha256_hex((const unsigned char *)"", 0, hex);
    cr_expect_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    mha_sha256_hex((const unsigned char *)"abc", 3, hex);
    cr_expect_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    mha_sha256_hex((const unsigned char *)two, strlen(two), hex);
    cr_expect_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    unsigned char *million = malloc(1000000);
    cr_assert_not_null(million);
    memset(million, 'a', 1000000);
    mha_sha256_hex(million, 1000000, hex);
    cr_expect_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
}
/* <<[[test_language_model.c]] tests>> */
Test(lm_command, baselines_on_small_texts) {
    char *dir = make_temp_dir();
    const size_t n = strlen(sample_text);
    write_bytes(dir, "train.txt", sample_text, n - 100);
    write_bytes(dir, "valid.txt", sample_text + n - 100, 100);
    write_bytes(dir, "empty.txt", "", 0);
    char train[4200], valid[4200], empty[4200], missing[4200], out[4200];
    snprintf(train, sizeof train, "%s", path_in(dir, "train.txt"));
    snprintf(valid, sizeof valid, "%s", path_in(dir, "valid.txt"));
    snprintf(empty, sizeof empty, "%s", path_in(dir, "empty.txt"));
    snprintf(missing, sizeof missing, "%s", path_in(dir, "missing.txt"));
    snprintf(out, sizeof out, "%s", path_in(dir, "baselines.tsv"));
    struct cli_result r = run_mha("lm", "baselines", "--train", train, "--valid", valid,
                                  "--vocab", "300", "--max-order", "4", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char digest[65], line[200];
    mha_sha256_hex((const unsigned char *)sample_text + n - 100, 100, digest);
    snprintf(line, sizeof line, "\tbytes=100\tsha256=%s\n", digest);
    cr_expect(strstr(r.out, line) != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "byte-kn\t4\t256\ttrain-holdout\t") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\tvalid\t100\t100\t") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "bpe-kn\t3\t300\tvalid\t") != NULL, "%s", r.out);
    free_result(&r);
    r = run_mha("lm", "baselines", "--train", train, "--valid", valid, "--vocab", "300",
                "--max-order", "3", "--out", out, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    austen_baselines table;
    cr_expect(mha_read_austen_baselines(out, &table));
    cr_expect_eq(table.rows, 3 + 1 + 3);
    cr_expect_str_eq(table.valid_sha256, digest);
    free_result(&r);
    const char *const *bad[] = {
        (const char *[]){"mha", "lm", "baselines", "--train", missing, "--valid", valid, NULL},
        (const char *[]){"mha", "lm", "baselines", "--train", train, "--valid", empty, NULL},
        (const char *[]){"mha", "lm", "baselines", "--train", empty, "--valid", valid, NULL},
        (const char *[]){"mha", "lm", "baselines", "--train", train, NULL},
        (const char *[]){"mha", "lm", "baselines", "--train", train, "--valid", valid, "--tokenizer",
                         dir, NULL},
    };
    const char *named[] = {"missing.txt", "empty.txt: empty text", "empty.txt: empty text",
                           "--valid", "merges.txt"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 0;
        while (bad[i][argc] != NULL)
            argc++;
        r = run_argv(argc, (char **)bad[i]);
        cr_expect_neq(r.status, 0, "case %zu", i);
        cr_expect(strncmp(r.err, "mha: ", 5) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                  "case %zu: %s", i, r.err);
        cr_expect(strstr(r.err, named[i]) != NULL, "case %zu: %s", i, r.err);
        cr_expect_str_eq(r.out, "");
        free_result(&r);
    }
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
Test(lm_command, usage_and_refusals) {
    expect_help("lm", "tokenizer");
    expect_help("lm", "encode");
    expect_help("lm", "baselines");
    char *dir = make_temp_dir();
    write_bytes(dir, "text.txt", sample_text, strlen(sample_text));
    write_bytes(dir, "in-the-way", "kept", 4);
    char text[4200], missing[4200], fresh[4200], file[4200], table[4200];
    snprintf(text, sizeof text, "%s", path_in(dir, "text.txt"));
    snprintf(missing, sizeof missing, "%s", path_in(dir, "missing.txt"));
    snprintf(fresh, sizeof fresh, "%s", path_in(dir, "fresh"));
    snprintf(file, sizeof file, "%s", path_in(dir, "in-the-way"));
    snprintf(table, sizeof table, "%s/none/baselines.tsv", dir);
    const char *const *bad[] = {
        (const char *[]){"mha", "lm", NULL},
        (const char *[]){"mha", "lm", "tokenizer", "--vocab", "300", "--out", fresh,
                         NULL},
        (const char *[]){"mha", "lm", "tokenizer", "--text", text, "--out", fresh, NULL},
        (const char *[]){"mha", "lm", "tokenizer", "--text", text, "--vocab", "300",
                         NULL},
        (const char *[]){"mha", "lm", "baselines", "--valid", text, NULL},
        (const char *[]){"mha", "lm", "tokenizer", "--text", missing, "--vocab", "300",
                         "--out", fresh, NULL},
        (const char *[]){"mha", "lm", "tokenizer", "--text", text, "--vocab", "300",
                         "--out", file, NULL},
        (const char *[]){"mha", "lm", "baselines", "--train", text, "--valid", text,
                         "--out", table, NULL},
    };
    const char *named[] = {"lm: no sub-command", "--text", "--vocab", "--out", "--train",
                           "missing.txt", "in-the-way", "none"};
    const size_t usage = 5;                        /* the first five: exit status 2 */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 0;
        while (bad[i][argc] != NULL)
            argc++;
        struct cli_result r = run_argv(argc, (char **)bad[i]);
        cr_expect_eq(r.status, i < usage ? 2 : 1, "case %zu: %s", i, r.err);
        const char *newline = strchr(r.err, '\n');
        cr_expect(strncmp(r.err, "mha: ", 5) == 0 && newline && newline[1] == '\0',
                  "case %zu: %s", i, r.err);
        cr_expect(strstr(r.err, named[i]) != NULL, "case %zu: %s", i, r.err);
        cr_expect_str_eq(r.out, "");
        free_result(&r);
    }
    cr_expect(access(fresh, F_OK) != 0, "a refused tokenizer left its folder behind");
    size_t size;
    char *kept = slurp(file, &size);
    cr_expect(size == 4 && memcmp(kept, "kept", 4) == 0, "the file in the way changed");
    free(kept);
    remove_dir(dir);
}
/* <<[[test_language_model.c]] tests>> */
static char *print_from_top(void (*print)(FILE *))
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    cr_assert_not_null(out);
    cr_assert_eq(chdir(".."), 0);
    print(out);
    cr_assert_eq(chdir("tests"), 0);
    fclose(out);
    return text;
}

Test(lm_figures, the_book_table_follows_the_tsv) {
    austen_baselines t;
    cr_assert(mha_read_austen_baselines("../figures/austen-baselines.tsv", &t));
    cr_expect(strlen(t.train_sha256) == 64 && strlen(t.valid_sha256) == 64);
    char *table = print_from_top(mha_print_austen_baselines);
    size_t rows = 0;
    for (size_t i = 0; i < t.rows; i++)
        if (strcmp(t.row[i].scored_on, "valid") == 0) {
            char figure[32];
            snprintf(figure, sizeof figure, "& %.3f \\\\", t.row[i].bits_per_char);
            cr_expect(strstr(table, figure) != NULL, "%s not in\n%s", figure, table);
            rows++;
        }
    cr_expect_eq(rows, 4);
    free(table);
}
/* <<[[test_language_model.c]] tests>> */
Test(fuzz_replay, bpe) {
    const char *dir = "fuzz/corpus/bpe";
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s: missing", dir);
    size_t seeds = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        char *data = slurp(path, &size);
        fuzz_bpe_one((const uint8_t *)data, size);
        free(data);
        seeds++;
    }
    closedir(d);
    cr_expect_geq(seeds, 3);
}
/* <<[[test_language_model.c]] tests>> */
Test(bpe, every_bad_argument_is_refused) {
    bpe t;
    const unsigned char text[] = "abab";
    uint32_t ids[8] = {97, 98};
    size_t count = 8, n = 0;
    unsigned char out[8];
    cr_expect_eq(bpe_learn(text, 4, 300, NULL), MHA_ERR_NULL);
    cr_expect_eq(bpe_learn(NULL, 4, 300, &t), MHA_ERR_NULL);
    cr_expect_eq(bpe_learn(text, 4, BPE_BYTES - 1, &t), MHA_ERR_ARG);
    cr_expect_eq(bpe_learn(text, 4, (size_t)BPE_VOCAB_MAX + 1, &t), MHA_ERR_ARG);
    cr_expect_eq(bpe_from_merges(NULL, 1, &t), MHA_ERR_NULL);
    const bpe_pair ahead[] = {{97, 98}, {97, BPE_BYTES + 1}}, self[] = {{BPE_BYTES, 97}};
    cr_expect_eq(bpe_from_merges(ahead, 1, NULL), MHA_ERR_NULL);
    cr_expect_eq(bpe_from_merges(ahead, 2, &t), MHA_ERR_ARG);
    cr_expect_eq(bpe_from_merges(self, 1, &t), MHA_ERR_ARG);
    cr_expect_eq(bpe_from_merges(ahead, (size_t)BPE_VOCAB_MAX - BPE_BYTES + 1, &t), MHA_ERR_ARG);
    cr_assert_eq(bpe_from_merges(ahead, 1, &t), MHA_OK);
    cr_expect_eq(bpe_encode(NULL, text, 4, ids, &count), MHA_ERR_NULL);
    cr_expect_eq(bpe_encode(&t, text, 4, ids, NULL), MHA_ERR_NULL);
    cr_expect_eq(bpe_encode(&t, NULL, 4, ids, &count), MHA_ERR_NULL);
    cr_expect_eq(bpe_encode(&t, text, 4, NULL, &count), MHA_ERR_NULL);
    cr_expect_eq(bpe_encode(&t, NULL, 0, NULL, &count), MHA_OK, "no text, no buffers");
    cr_expect_eq(count, 0);
    cr_assert_eq(bpe_encode(&t, text, 4, ids, &count), MHA_OK);
    cr_assert_eq(count, 2, "\"abab\" is two tokens \"ab\"");
    cr_expect_eq(ids[0], BPE_BYTES);
    cr_expect_eq(bpe_decode(NULL, ids, 2, out, sizeof out, &n), MHA_ERR_NULL);
    cr_expect_eq(bpe_decode(&t, ids, 2, out, sizeof out, NULL), MHA_ERR_NULL);
    cr_expect_eq(bpe_decode(&t, NULL, 2, out, sizeof out, &n), MHA_ERR_NULL);
    const uint32_t outside[] = {BPE_BYTES + 1};
    cr_expect_eq(bpe_decode(&t, outside, 1, out, sizeof out, &n), MHA_ERR_ARG);
    cr_expect_eq(bpe_decode(&t, ids, 2, out, 3, &n), MHA_ERR_SHAPE);
    cr_expect_eq(bpe_decode(&t, ids, 2, NULL, 0, &n), MHA_OK);
    cr_expect_eq(n, 4, "the length alone");
    size_t length = 99;
    cr_expect_null(bpe_token(&t, BPE_BYTES + 1, &length));
    cr_expect_null(bpe_token(NULL, 97, &length));
    cr_expect_eq(length, 99, "a refused token's length was written");
    bpe_free(&t);
    bpe_free(NULL);
}
/* <<[[test_language_model.c]] tests>> */
Test(lm_figures, the_committed_model_beats_every_baseline) {
    austen_baselines t;
    austen_eval e;
    cr_assert(mha_read_austen_baselines("../figures/austen-baselines.tsv", &t));
    cr_assert(mha_read_austen_eval("../figures/austen-eval.txt", &e));
    cr_expect_eq(e.bytes, t.valid_bytes);
    size_t rows = 0;
    for (size_t i = 0; i < t.rows; i++)
        if (strcmp(t.row[i].scored_on, "valid") == 0) {
            cr_expect(e.bits_per_char < t.row[i].bits_per_char, "%s order %zu: %.4f, model %.4f",
                      t.row[i].model, t.row[i].order, t.row[i].bits_per_char, e.bits_per_char);
            if (strcmp(t.row[i].model, "bpe-kn") == 0)
                cr_expect_eq(e.tokens, t.row[i].symbols);
            rows++;
        }
    cr_expect_eq(rows, 4);
    const double scored = (double)e.tokens - 1;          /* every token but the first */
    cr_expect(fabs(e.loss * scored / (double)e.bytes / log(2.0) - e.bits_per_char) < 1e-5,
              "loss %.6f nats per token is not %.6f bits per character", e.loss, e.bits_per_char);
}

Test(lm_figures, the_printed_numbers_follow_the_files) {
    austen_eval e;
    austen_history h;
    cr_assert(mha_read_austen_eval("../figures/austen-eval.txt", &e));
    cr_assert(mha_read_austen_history("../figures/austen-history.tsv", &h));
    char *numbers = print_from_top(mha_print_austen_model_numbers);
    char *scores = print_from_top(mha_print_austen_scores);
    char *curve = print_from_top(mha_print_austen_curve);
    char want[128];
    snprintf(want, sizeof want, "\\gdef\\AustenModelBPC{%.3f}", e.bits_per_char);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    snprintf(want, sizeof want, "the small GPT & %.3f \\\\", e.bits_per_char);
    cr_expect(strstr(scores, want) != NULL, "%s not in\n%s", want, scores);
    snprintf(want, sizeof want, "\\gdef\\AustenModelSteps{%s}", format_count((char[64]){0},
             (unsigned long long)h.steps));
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    const unsigned long long V = 2048, T = 128, E = 256, F = 4 * E, L = 4;   /* AUSTEN_MODEL */
    const unsigned long long per_block = 3 * E * E + 3 * E + E * E + E      /* attention */
                                         + F * E + F + E * F + E + 4 * E;    /* MLP, norms */
    snprintf(want, sizeof want, "\\gdef\\AustenModelParams{%s}",
             format_count((char[64]){0}, V * E + T * E + L * per_block + 2 * E));
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    size_t dots = 0, measured = 0;
    for (const char *p = curve; (p = strstr(p, "\\fill[red]")) != NULL; p++)
        dots++;
    for (size_t p = 0; p < h.points; p++)
        measured += !isnan(h.valid[p]);
    cr_expect_eq(dots, measured);
    cr_expect_eq(measured, h.steps / h.eval_every);
    /* <<check the busy-core sentence against [[figures/bench-lm.txt]]>> */
    FILE *bench = fopen("../figures/bench-lm.txt", "r");
    double busy = 0, one = 0;
    char row[1200];
    while (bench != NULL && fgets(row, sizeof row, bench) != NULL) {
        const char *rate = strstr(row, " tokens_per_s=");
        if (rate != NULL && strncmp(row, "impl=busy ", 10) == 0)
            busy = atof(rate + 14);
        if (rate != NULL && strncmp(row, "impl=ours ", 10) == 0 && strstr(row, " threads=1 "))
            one = atof(rate + 14);
    }
    if (bench != NULL)
        fclose(bench);
    if (busy > 0 && one > 0) {
        snprintf(want, sizeof want, "%.1f times the rate of one thread alone", busy / one);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    } else
        cr_expect(strstr(numbers, "\\gdef\\AustenTrainBusy{}") != NULL, "%s", numbers);
    /* <<check PyTorch's best setting and the peak's bound against [[figures/bench-lm.txt]]>> */
    double torch = 0, ours = 0, peak[3] = {0}, torch_one = 0;
    char blas[16] = "", ours_threads[16] = "";
    bench = fopen("../figures/bench-lm.txt", "r");
    while (bench != NULL && fgets(row, sizeof row, bench) != NULL) {
        const char *rate = strstr(row, " tokens_per_s="), *p = strncmp(row, "peak_gflops=", 12) ?
                                                             NULL : row;
        const char *n = strstr(row, " threads="), *b = strstr(row, " blas_threads=");
        if (p != NULL && n != NULL && atoi(n + 9) < 3)
            peak[atoi(n + 9)] = atof(p + 12);
        if (rate != NULL && strncmp(row, "impl=torch ", 11) == 0 && atof(rate + 14) > torch) {
            torch = atof(rate + 14);
            cr_assert(b != NULL, "PyTorch's row names no OpenBLAS threads: %s", row);
            snprintf(blas, sizeof blas, "%d", atoi(b + 14));
        }
        if (rate != NULL && strncmp(row, "impl=torch ", 11) == 0 && n != NULL && b != NULL
            && atoi(n + 9) == 1 && atoi(b + 14) == 1)
            torch_one = atof(rate + 14);
        if (rate != NULL && strncmp(row, "impl=ours ", 10) == 0 && atof(rate + 14) > ours) {
            ours = atof(rate + 14);
            snprintf(ours_threads, sizeof ours_threads, "%d", atoi(n + 9));
        }
    }
    if (bench != NULL)
        fclose(bench);
    if (torch > 0 && ours > 0) {
        snprintf(want, sizeof want, "\\gdef\\AustenTrainTorchBlas{%s}", blas);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        snprintf(want, sizeof want, "\\gdef\\AustenTrainTorch{%s}",
                 format_count((char[64]){0}, (unsigned long long)(torch + 0.5)));
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        const double flops = 6.0 * (double)(L * (4 * E * E + 2 * E * F) + V * E)
                             + (double)L * 3 * 2 * 2 * (double)E * (double)(T + 1) / 2;
        snprintf(want, sizeof want, "\\gdef\\AustenTrainCeiling{%s}",
                 format_count((char[64]){0},
                              (unsigned long long)(peak[atoi(ours_threads)] * 1e9 / flops + 0.5)));
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        snprintf(want, sizeof want, "\\gdef\\AustenTrainTorchPeakShare{%.0f}",
                 100 * torch * flops / 1e9 / peak[atoi(ours_threads)]);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        cr_assert(one > 0 && torch_one > 0, "no one-core rows in figures/bench-lm.txt");
        snprintf(want, sizeof want, "ours runs at %s tokens per second and PyTorch at %s.}",
                 format_count((char[64]){0}, (unsigned long long)(one + 0.5)),
                 format_count((char[64]){0}, (unsigned long long)(torch_one + 0.5)));
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    }
    free(numbers);
    free(scores);
    free(curve);
}

Test(lm_figures, the_samples_are_set_with_their_prompt) {
    char *samples = print_from_top(mha_print_austen_samples);
    cr_expect(strstr(samples, "\\paragraph{At temperature 0.7.}") != NULL, "%s", samples);
    cr_expect(strstr(samples, "\\paragraph{At temperature 1.0.}") != NULL, "%s", samples);
    size_t quotes = 0;
    for (const char *p = samples; (p = strstr(p, "\\itshape It was a fine morning, and\\upshape{}"))
         != NULL; p++)
        quotes++;
    cr_expect_eq(quotes, 2, "%s", samples);
    free(samples);
}
/* <<[[test_language_model.c]] tests>> */
static char *print_profile(const char *text, int numbers)
{
    char path[] = "/tmp/mha-profile-XXXXXX", *out = NULL;
    size_t size = 0;
    const int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    FILE *f = open_memstream(&out, &size);
    cr_assert_not_null(f);
    mha_print_lm_profile_from(f, path, numbers);
    fclose(f);
    unlink(path);
    return out;
}

Test(lm_figures, the_profile_gives_each_part_its_share_of_the_samples) {
    const char *file = "# a machine\n"
                       "run=avx512 threads=2 steps=20 seconds=4.00\n"
                       "part=products run=avx512 samples=600\n"
                       "part=waiting run=avx512 samples=300\n"
                       "part=gelu run=avx512 samples=60\npart=copies run=avx512 samples=40\n"
                       "run=scalar threads=2 steps=20 seconds=10.00\n"
                       "part=products run=scalar samples=900\n"
                       "part=softmax run=scalar samples=100\n";
    char *table = print_profile(file, 0), *numbers = print_profile(file, 1);
    const char *rows[] = {"part of the step & avx512 & scalar \\\\",
                          "products (the micro-kernel) & 60.0\\% & 90.0\\% \\\\",
                          "exponentials and row sums & 0.0\\% & 10.0\\% \\\\",
                          "GELU and its derivative & 6.0\\% & 0.0\\% \\\\",
                          "threads waiting & 30.0\\% & 0.0\\% \\\\",
                          "seconds for 20 steps & 4.0 & 10.0 \\\\"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_expect(strstr(table, rows[i]) != NULL, "%s not in\n%s", rows[i], table);
    const char *macros[] = {"\\gdef\\LmProfileProducts{60}", "\\gdef\\LmProfileWaiting{30}",
                            "\\gdef\\LmProfileElementwise{10}", "\\gdef\\LmProfileSteps{20}",
                            "\\gdef\\LmProfileScalarTimes{2.5}",
                            "\\gdef\\LmProfileScalarProducts{90}",
                            "\\gdef\\LmProfileMachine{Profiled on a machine.}"};
    for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
        cr_expect(strstr(numbers, macros[i]) != NULL, "%s not in\n%s", macros[i], numbers);
    free(table);
    free(numbers);
    const char *bad[] = {
        "run=avx2 threads=2 steps=20 seconds=4\npart=magic run=avx2 samples=5\n",
        "part=products run=avx2 samples=5\nrun=avx2 threads=2 steps=20 seconds=4\n",
        ("run=avx2 threads=2 steps=20 seconds=4\npart=products run=avx2 samples=5\n"
         "run=scalar threads=2 steps=20 seconds=9\n"),
        "run=avx2 threads=2 steps=20 seconds=4\npart=products run=avx2 samples=5\nnoise\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        table = print_profile(bad[i], 0);
        cr_expect(strcmp(table, "(no profile: run make profile-lm)\n") == 0, "%zu: %s", i, table);
        free(table);
    }
}
/* <<[[test_language_model.c]] tests>> */
Test(lm_figures, the_committed_profile_is_the_one_printed) {
    FILE *f = fopen("../figures/lm-profile.txt", "r");
    cr_assert_not_null(f, "figures/lm-profile.txt: run make profile-lm");
    char line[600], run[16], part[32], first[16] = "";
    double products = 0, total = 0, samples;
    size_t runs = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "part=%31s run=%15s samples=%lf", part, run, &samples) == 3) {
            if (strcmp(run, first) == 0)
                total += samples, products += strcmp(part, "products") == 0 ? samples : 0;
        } else if (sscanf(line, "run=%15s", run) == 1 && runs++ == 0)
            strcpy(first, run);
    }
    fclose(f);
    cr_assert(runs >= 2 && total > 0, "%zu runs, %g samples", runs, total);
    char *numbers = print_from_top(mha_print_lm_profile_numbers), want[64];
    snprintf(want, sizeof want, "\\gdef\\LmProfileProducts{%.0f}", 100 * products / total);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    free(numbers);
    lm_profile p;
    cr_assert(mha_read_lm_profile("../figures/lm-profile.txt", &p));
    for (size_t i = 0; i < p.runs; i++) {
        double sum = 0;
        for (size_t j = 0; j < LM_PROFILE_PARTS; j++)
            sum += lm_profile_share(&p, i, j);
        cr_expect(fabs(sum - 100) < 1e-9, "%s: %g", p.isa[i], sum);
    }
}

/* <<[[test_language_model.c]] tests>> */
/* the last evaluation of a committed run: its tokens and the best
   prefix_matching of the blocks after the first; 0 if the file is missing */
static int last_evaluation(const char *name, double *tokens, double *prefix)
{
    char path[256], line[512];
    snprintf(path, sizeof path, "../figures/runs/%s-heads-history.tsv", name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t last = 0;
    *prefix = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t step, n, layer;
        double s[16];
        if (sscanf(line, "%zu\t%zu\t%lf\t%lf\t%lf\t%zu\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf"
                         "\t%lf\t%lf", &step, &n, &s[0], &s[1], &s[2], &layer, &s[3], &s[4],
                   &s[5], &s[6], &s[7], &s[8], &s[9], &s[10], &s[11], &s[12]) != 16)
            continue;
        if (step > last)
            last = step, *prefix = -1, *tokens = (double)n;
        if (layer > 0 && s[12] > *prefix)
            *prefix = s[12];
    }
    fclose(f);
    return last > 0;
}
/* The copying rule's reach, from the first line of the heads table at path, printed as the
   macros \\<macro>CopyEarly, CopyLate, CopyCeiling and the phrase the ceiling calls for. */
static void expect_copying_reach(const char *path, const char *macro, const char *numbers)
{
    char line[1024], want[256];
    double copy[3];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    const char *c = fgets(line, sizeof line, f) ? strstr(line, "\tcopy_early=") : NULL;
    fclose(f);
    cr_assert(c != NULL && sscanf(c, "\tcopy_early=%lf\tcopy_late=%lf\tcopy_ceiling=%lf",
                                  &copy[0], &copy[1], &copy[2]) == 3, "%s: %s", path, line);
    snprintf(want, sizeof want, "\\gdef\\%sCopyEarly{%.1f}\\gdef\\%sCopyLate{%.1f}"
             "\\gdef\\%sCopyCeiling{%.3f}", macro, 100 * copy[0], macro, 100 * copy[1], macro,
             copy[2]);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    cr_expect(strstr(numbers, copy[2] < 0.05 ? "more than copying can give" : "copying alone could")
              != NULL, "%s", numbers);
}
Test(lm_figures, the_runs_numbers_follow_the_files) {
    char *numbers = print_from_top(mha_print_austen_runs_numbers);
    char *table = print_from_top(mha_print_austen_runs);
    FILE *f = fopen("../figures/induction-heads.tsv", "r");
    cr_assert_not_null(f);
    char line[512], want[256];
    double previous = 0, prefix = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t layer, head;
        double s[9];
        if (sscanf(line, "%zu\t%zu\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", &layer, &head,
                   &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7], &s[8]) != 11)
            continue;
        previous = layer == 0 && s[0] > previous ? s[0] : previous;
        prefix = layer > 0 && s[8] > prefix ? s[8] : prefix;
    }
    fclose(f);
    cr_expect(previous >= 0.5 && prefix >= 0.3, "the control: %g %g", previous, prefix);
    snprintf(want, sizeof want, "\\gdef\\ControlPrevious{%.3f}\\gdef\\ControlPrefix{%.3f}",
             previous, prefix);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    expect_copying_reach("../figures/austen-heads.tsv", "AustenHeads", numbers);
    const char *runs[] = {"copy", "bytes-256", "circuit", "pieces", "pieces-half", "curriculum",
                          "spread", "spread-plain", "spread-curriculum"};
    size_t committed = 0;
    for (size_t k = 0; k < 9; k++) {
        double tokens, best;
        if (!last_evaluation(runs[k], &tokens, &best))
            continue;
        committed++;
        snprintf(want, sizeof want, " & %.1f & ", tokens / 1e6);
        cr_expect(strstr(table, want) != NULL, "%s: %s not in\n%s", runs[k], want, table);
        snprintf(want, sizeof want, " & %.3f \\\\\n", best);
        cr_expect(strstr(table, want) != NULL, "%s: %s not in\n%s", runs[k], want, table);
    }
    cr_expect(committed == 9, "the copy, bytes-256, circuit, pieces, pieces-half, curriculum, "
              "spread, spread-plain and spread-curriculum runs are committed");
    free(numbers);
    free(table);
}

/* <<[[test_language_model.c]] tests>> */
/* One head's line of a heads history: the step, the tokens seen, the block and the
   head; s[0..2] the held-out, early and late losses, s[3..11] prev_token to
   prefix_matching.  0 for the header or a line of another shape. */
static int history_row(const char *line, size_t *step, size_t *n, size_t *layer, size_t *head,
                       double s[12])
{
    return sscanf(line, "%zu\t%zu\t%lf\t%lf\t%lf\t%zu\t%zu\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf"
                        "\t%lf\t%lf\t%lf", step, n, &s[0], &s[1], &s[2], layer, head, &s[3],
                  &s[4], &s[5], &s[6], &s[7], &s[8], &s[9], &s[10], &s[11]) == 16;
}
Test(lm_figures, the_half_repeated_pieces_verdict_follows_its_history) {
    FILE *f = fopen("../figures/runs/pieces-half-heads-history.tsv", "r");
    cr_assert_not_null(f, "no pieces-half run committed");
    char line[512], want[200];
    double previous = 0, prefix = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t step, n, layer, head;
        double s[12];
        if (!history_row(line, &step, &n, &layer, &head, s))
            continue;
        previous = layer == 0 && s[3] > previous ? s[3] : previous;     /* prev_token */
        prefix = layer > 0 && s[11] > prefix ? s[11] : prefix;          /* prefix_matching */
    }
    fclose(f);
    char *numbers = print_from_top(mha_print_austen_runs_numbers);
    snprintf(want, sizeof want, "\\gdef\\RunsHalfPrevious{%.2f}\\gdef\\RunsHalfPrefix{%.3f}"
             "\\gdef\\RunsHalfVerdict{%s}", previous, prefix,
             prefix >= 0.3 ? "twice the repeats brought an induction head"
             : previous >= 0.5 ? "twice the repeats brought a previous-token head, but no "
                                 "induction head"
                               : "twice the repeats brought neither head");
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    free(numbers);
}

/* <<[[test_language_model.c]] tests>> */
static double mean_of_last(const double *x, size_t n, size_t k)
{
    double sum = 0;
    for (size_t i = n - k; i < n; i++)
        sum += x[i] / (double)k;
    return sum;
}
Test(lm_figures, the_wider_runs_verdicts_follow_their_histories) {
    const char *runs[3] = {"spread", "spread-plain", "spread-curriculum"};
    const char *macros[3] = {"Spread", "SpreadPlain", "SpreadCurriculum"};
    char *numbers = print_from_top(mha_print_austen_runs_numbers);
    double late_context[3];
    for (int k = 0; k < 3; k++) {
        double contexts[512];                      /* each evaluation's in-context score */
        double prefixes[512] = {0}, last_previous = 0;  /* its best prefix matching */
        size_t steps[512], evals = 0, last = 0;
        char path[128], line[512], want[320];
        snprintf(path, sizeof path, "../figures/runs/%s-heads-history.tsv", runs[k]);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "no %s run committed", runs[k]);
        double previous = 0, prefix = 0, previous_at = -1, prefix_at = -1, last_prefix = 0;
        while (fgets(line, sizeof line, f) != NULL) {
            size_t step, n, layer, head;
            double s[12];
            if (!history_row(line, &step, &n, &layer, &head, s))
                continue;
            if (step != last && evals < 512)
                steps[evals] = step, contexts[evals++] = s[2] - s[1], last = step,
                last_prefix = 0, last_previous = 0;
            if (layer > 0)                                 /* the last evaluation's best */
                last_prefix = s[11] > last_prefix ? s[11] : last_prefix;
            else
                last_previous = s[3] > last_previous ? s[3] : last_previous;
            if (layer > 0 && evals > 0 && s[11] > prefixes[evals - 1])
                prefixes[evals - 1] = s[11];
            if (layer == 0) {
                previous = s[3] > previous ? s[3] : previous;
                if (previous_at < 0 && s[3] >= 0.5)
                    previous_at = (double)n / 1e6;
            } else {
                prefix = s[11] > prefix ? s[11] : prefix;
                if (prefix_at < 0 && s[11] >= 0.3)
                    prefix_at = (double)n / 1e6;
            }
        }
        fclose(f);
        snprintf(want, sizeof want, "\\gdef\\%sPrevious{%.2f}\\gdef\\%sPrefix{%.3f}", macros[k],
                 previous, macros[k], prefix);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        if (previous_at >= 0 && prefix_at >= 0 && last_prefix < 0.3)
            snprintf(want, sizeof want, "\\gdef\\%sVerdict{both heads formed, a previous-token "
                     "head by %.1f million tokens and an induction head by %.1f million, and "
                     "the induction head faded (prefix matching %.3f at the end)}", macros[k],
                     previous_at, prefix_at, last_prefix);
        else if (previous_at >= 0 && prefix_at >= 0)
            snprintf(want, sizeof want, "\\gdef\\%sVerdict{both heads formed, a previous-token "
                     "head by %.1f million tokens and an induction head by %.1f million}",
                     macros[k], previous_at, prefix_at);
        else if (previous_at >= 0)
            snprintf(want, sizeof want, "\\gdef\\%sVerdict{a previous-token head formed by %.1f "
                     "million tokens, but no induction head", macros[k], previous_at);
        else
            snprintf(want, sizeof want, "\\gdef\\%sVerdict{neither head formed", macros[k]);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        late_context[k] = mean_of_last(contexts, evals, 8);
        snprintf(want, sizeof want, "\\gdef\\%sPreviousEndPhrase{the previous-token head %s "
                 "(%.2f at the end)}", macros[k], last_previous >= 0.5 ? "stays" : "fades too",
                 last_previous);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        snprintf(path, sizeof path, "../figures/runs/%s-state.txt", runs[k]);
        size_t size, until = 0;
        char *state = slurp(path, &size);
        const char *key = state ? strstr(state, "\nrepeat_until ") : NULL;
        if (key != NULL)
            until = strtoul(key + strlen("\nrepeat_until "), NULL, 10);
        free(state);
        size_t at = 0;                             /* the last evaluation with repeats */
        while (until > 0 && at + 1 < evals && steps[at + 1] <= until)
            at++;
        const size_t next = at + 1 < evals ? at + 1 : at;
        snprintf(want, sizeof want, "\\gdef\\%sFadePhrase{%s (prefix matching %.3f at the "
                 "last evaluation with repeats, %.3f at the next, %.3f at the end)}", macros[k],
                 until == 0 ? "its repeats never end"
                 : prefixes[next] < 0.3 ? "its induction head was gone by the next evaluation"
                 : last_prefix < 0.3 ? "its induction head faded" : "its induction head stayed",
                 until ? prefixes[at] : 0.0, until ? prefixes[next] : 0.0,
                 until ? last_prefix : 0.0);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
        snprintf(want, sizeof want, "\\gdef\\%sInContextLate{$%+.3f$}", macros[k],
                 late_context[k]);
        cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    }
    const char *phrase = late_context[0] > late_context[1] + 0.02
                             ? "they also teach the model to expect a copy"
                             : "the repeats cost the model nothing";
    cr_expect(strstr(numbers, phrase) != NULL, "%s not in\n%s", phrase, numbers);
    free(numbers);
}

/* <<[[test_language_model.c]] tests>> */
Test(lm_figures, the_faded_circuit_curve_follows_its_history) {
    FILE *f = fopen("../figures/runs/spread-curriculum-heads-history.tsv", "r");
    cr_assert_not_null(f, "no spread-curriculum run committed");
    char line[512], want[4096] = " ", point[64];
    size_t last = 0, tokens = 0, points = 0;
    double best = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t step, n, layer, head;
        double s[12];
        if (!history_row(line, &step, &n, &layer, &head, s))
            continue;
        if (step != last && last >= 7000) {             /* the evaluation before is whole */
            snprintf(point, sizeof point, "(%.3f,%.4f) ", (double)tokens / 1e6, best);
            strncat(want, point, sizeof want - strlen(want) - 1);
            points++;
        }
        if (step != last)
            last = step, tokens = n, best = -1;
        if (layer > 0 && s[11] > best)
            best = s[11];
    }
    fclose(f);
    snprintf(point, sizeof point, "(%.3f,%.4f) ", (double)tokens / 1e6, best);
    strncat(want, point, sizeof want - strlen(want) - 1);
    strncat(want, "};% prefix matching, repeats ended", sizeof want - strlen(want) - 1);
    cr_expect_eq(points + 1, 21, "the repeats end at step 7000 of 12000, an evaluation "
                 "every 250 steps");
    char *figure = print_from_top(mha_print_austen_pieces_forming);
    cr_expect(strstr(figure, want) != NULL, "%s not in\n%s", want, figure);
    free(figure);
}
/* <<[[test_language_model.c]] tests>> */
Test(lm_figures, the_curriculum_sentence_follows_its_history) {
    double tokens = 0, prefix = 0;
    cr_assert(last_evaluation("curriculum", &tokens, &prefix), "no curriculum run committed");
    char want[160];
    char *numbers = print_from_top(mha_print_austen_circuit_numbers);
    snprintf(want, sizeof want, "\\gdef\\CurriculumPrefix{%.3f}", prefix);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    const char *phrase = prefix >= 0.3 ? "the circuit stayed" : "the circuit faded";
    cr_expect(strstr(numbers, phrase) != NULL, "%s not in\n%s", phrase, numbers);
    free(numbers);
}

/* <<[[test_language_model.c]] tests>> */
/* the induction head, its scores, the in-context score and the gains that
   figures/FIG-heads.tsv and FIG-repeat.txt give, in numbers as MACRO... */
static void expect_circuit_numbers(const char *fig, const char *macro, const char *numbers)
{
    char path[128], line[512], want[256];
    snprintf(path, sizeof path, "../figures/%s-heads.tsv", fig);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    double best = -1, text = 0, early = NAN, late = NAN;
    size_t best_layer = 0, best_head = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t layer, head;
        double s[9];
        const char *e = strstr(line, "early_loss="), *l = strstr(line, "late_loss=");
        if (line[0] == '#' && e && l)
            early = strtod(e + 11, NULL), late = strtod(l + 10, NULL);
        if (sscanf(line, "%zu\t%zu\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", &layer, &head,
                   &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7], &s[8]) == 11 &&
            layer > 0 && s[8] > best)
            best = s[8], text = s[1], best_layer = layer, best_head = head;
    }
    fclose(f);
    snprintf(want, sizeof want, "\\gdef\\%sInductionLayer{%zu}\\gdef\\%sInductionHead{%zu}",
             macro, best_layer, macro, best_head);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    snprintf(want, sizeof want, "\\gdef\\%sPrefix{%.3f}\\gdef\\%sText{%.3f}", macro, best,
             macro, text);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    snprintf(want, sizeof want, "\\gdef\\%sInContext{$%+.3f$}", macro, late - early);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    snprintf(want, sizeof want, "\\gdef\\%sInContextSign{%s}", macro,
             late - early < -0.01 ? "below zero" : "not below zero");
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
    expect_copying_reach(path, macro, numbers);
    snprintf(path, sizeof path, "../figures/%s-repeat.txt", fig);
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    double gain[3];
    for (int k = 0; k < 3; k++) {
        cr_assert(fgets(line, sizeof line, f) != NULL);
        const char *g = strstr(line, "gain=");
        cr_assert_not_null(g);
        gain[k] = strtod(g + 5, NULL);
    }
    fclose(f);
    snprintf(want, sizeof want, "\\gdef\\%sGain{%.2f}\\gdef\\%sGainNoInduction{%.2f}"
             "\\gdef\\%sGainNoPrevious{%.2f}", macro, gain[0], macro, gain[1], macro, gain[2]);
    cr_expect(strstr(numbers, want) != NULL, "%s not in\n%s", want, numbers);
}
static size_t table_rows(const char *table)
{
    size_t rows = 0;
    for (const char *p = table; (p = strstr(p, " \\\\\n")) != NULL; p++)
        rows++;
    return rows;
}
Test(lm_figures, the_circuit_numbers_follow_the_files) {
    char *numbers = print_from_top(mha_print_austen_circuit_numbers);
    char *names = print_from_top(mha_print_austen_circuit_names);
    expect_circuit_numbers("circuit", "Circuit", numbers);
    cr_expect(table_rows(names) == 5, "a header and four sentences:\n%s", names);
    cr_expect(strstr(names, "\\textit{Elton} & yes") != NULL, "%s", names);
    free(numbers);
    free(names);
}
Test(lm_figures, the_pieces_circuit_numbers_follow_the_files) {
    char *numbers = print_from_top(mha_print_austen_pieces_numbers);
    char *names = print_from_top(mha_print_austen_pieces_names);
    expect_circuit_numbers("pieces", "Pieces", numbers);
    cr_expect(strstr(numbers, "\\Circuit") == NULL, "a macro not renamed:\n%s", numbers);
    cr_expect(table_rows(names) == 5, "a header and four sentences:\n%s", names);
    FILE *f = fopen("../figures/pieces-names.txt", "r");
    cr_assert_not_null(f);
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {  /* each continuation set without its space */
        const char *tab = strchr(line, '\t');
        cr_assert_not_null(tab);
        char word[64];
        cr_assert(sscanf(tab + 1, " %63[^ ,.;\n]", word) == 1, "%s", line);
        char want[96];
        snprintf(want, sizeof want, "\\textit{%s}", word);
        cr_expect(strpbrk(word, "#$%&_{}\\^~") != NULL || strstr(names, want) != NULL,
                  "%s not in\n%s", want, names);       /* a word TeX takes as it is */
    }
    fclose(f);
    free(numbers);
    free(names);
}
