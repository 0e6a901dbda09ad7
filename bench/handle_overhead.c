/* The one handle's cost against the per-kind handle it replaces, in C: contains through
 * lfb_filter_contains(_many) and through lfb_contains/lfb_batch_run on the same blocked filter
 * (1M keys at 1%), interleaved repetitions, medians. Build and run (after the CMake build):
 *   gcc -O2 -Icapi/include bench/handle_overhead.c -Lbuild/lib -Wl,-rpath,build/lib -llfbloom -o /tmp/ho && /tmp/ho
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lfbloom.h"
#define N (1 << 20)
#define B 64
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(void) {
    static char data[N * 32]; static uint64_t off[N + 1]; static uint8_t res[B];
    off[0] = 0;
    for (uint64_t i = 0; i < N; ++i) off[i + 1] = off[i] + (uint64_t)sprintf(data + off[i], "key%llu", (unsigned long long)i * 2654435761u);
    lfb_filter* f; lfb_handle* h; lfb_spec s; lfb_spec_init_size(&s, sizeof s); s.capacity = 1000000; s.fpr = 0.01;
    lfb_filter_create(1000000, 0.01, NULL, &f); lfb_create(&s, &h);
    uint64_t n;
    for (uint64_t i = 0; i < N / 2; i += B) { uint64_t o2[B + 1]; for (int j = 0; j <= B; ++j) o2[j] = off[i + j];
        lfb_filter_add_many(f, data, o2, B, NULL, &n); lfb_batch b = {sizeof b, LFB_OP_ADD, B, data, o2, NULL, NULL, 0, 0}; lfb_batch_run(h, &b); }
    double per[2][15];
    for (int r = 0; r < 15; ++r) for (int which = 0; which < 2; ++which) {
        double t0 = now();
        for (uint64_t i = 0; i + B <= N; i += B) {
            const uint64_t* o2 = off + i;  /* offsets into one buffer: fine for both */
            if (which == 0) lfb_filter_contains_many(f, data, o2, B, res, &n);
            else { lfb_batch b = {sizeof b, LFB_OP_CONTAINS, B, data, o2, NULL, res, 0, 0}; lfb_batch_run(h, &b); }
        }
        per[which][r] = (now() - t0) / N;
    }
    qsort(per[0], 15, sizeof(double), cmp); qsort(per[1], 15, sizeof(double), cmp);
    printf("contains batch of 64, ns/key median: per-kind %.2f, generic %.2f, ratio %.3f\n", per[0][7], per[1][7], per[1][7] / per[0][7]);
    for (int r = 0; r < 15; ++r) for (int which = 0; which < 2; ++which) {
        double t0 = now();
        for (uint64_t i = 0; i < N; ++i) {
            if (which == 0) lfb_filter_contains(f, data + off[i], off[i + 1] - off[i]);
            else lfb_contains(h, data + off[i], off[i + 1] - off[i]);
        }
        per[which][r] = (now() - t0) / N;
    }
    qsort(per[0], 15, sizeof(double), cmp); qsort(per[1], 15, sizeof(double), cmp);
    printf("contains single, ns/key median: per-kind %.2f, generic %.2f, ratio %.3f\n", per[0][7], per[1][7], per[1][7] / per[0][7]);
    return 0;
}
