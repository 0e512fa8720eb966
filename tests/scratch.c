/* generated from chapters/45-tests-command.nw; edit the book, not this file */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "check.h"
#include "layer_files.h"
#include "npy.h"
#include "scratch.h"

/* <<[[scratch.c]] functions>> */
char *make_temp_dir(void)
{
    char template[] = "/tmp/mha-test-XXXXXX";
    cr_assert_not_null(mkdtemp(template), "mkdtemp: %s", strerror(errno));
    char *dir = strdup(template);
    cr_assert_not_null(dir);
    return dir;
}

void remove_dir(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *entry;
    char path[4096];
    while (d != NULL && (entry = readdir(d)) != NULL)
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
            if (mha_join_path(path, sizeof path, dir, entry->d_name))
                remove(path);
        }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
    free(dir);
}
/* <<[[scratch.c]] functions>> */
char *path_in(const char *dir, const char *name)
{
    static char path[4096];
    cr_assert(mha_join_path(path, sizeof path, dir, name), "%s/%s: too long", dir, name);
    return path;
}

char *slurp(const char *path, size_t *size)   /* files of under 1 MiB */
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    char *bytes = malloc(1 << 20);
    cr_assert_not_null(bytes);
    *size = fread(bytes, 1, (1 << 20) - 1, f);
    bytes[*size] = '\0';
    fclose(f);
    return bytes;
}

void write_bytes(const char *dir, const char *name, const void *bytes, size_t n)
{
    FILE *f = fopen(path_in(dir, name), "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

void write_npy_raw(const char *dir, const char *name, int major, const char *header,
                   const void *data, size_t data_bytes)
{
    unsigned char file[4096];
    const size_t h = strlen(header), width = major == 1 ? 2 : 4;
    cr_assert(12 + h + data_bytes <= sizeof file);
    memcpy(file, "\x93NUMPY", 6);
    file[6] = (unsigned char)major;
    file[7] = 0;
    for (size_t i = 0; i < width; i++)
        file[8 + i] = (unsigned char)(h >> (8 * i));
    memcpy(file + 8 + width, header, h);
    if (data_bytes > 0)
        memcpy(file + 8 + width + h, data, data_bytes);
    write_bytes(dir, name, file, 8 + width + h + data_bytes);
}
/* <<[[scratch.c]] functions>> */
void write_floats(const char *dir, const char *name, const float *values,
                         size_t rank, const size_t *shape)
{
    char message[256];
    cr_assert_eq(mha_npy_write(path_in(dir, name), values, rank, shape,
                               message, sizeof message), MHA_OK, "%s", message);
}

void write_random(const char *dir, const char *name, uint64_t seed,
                         size_t rank, const size_t *shape)
{
    size_t count = 1;
    for (size_t i = 0; i < rank; i++)
        count *= shape[i];
    rng r = rng_seeded(seed);
    float *values = random_floats(&r, count, -1, 1);
    write_floats(dir, name, values, rank, shape);
    free(values);
}
