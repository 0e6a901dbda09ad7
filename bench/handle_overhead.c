/* The C ABI's hot calls, per-kind (lfb_filter_*) and through the one handle (lfb_add, lfb_contains,
 * lfb_batch_run), on a blocked filter of 1M keys at 1% (1.2 MB: in cache), 16-byte keys: single
 * adds and queries, and batches of 64. Each figure is the median of 15 repetitions (ns per key),
 * the two paths interleaved. It uses only calls of lfbloom 1.5, so the same source built against
 * an older library measures that library: run both builds in turn to compare versions.
 *   gcc -O2 -Icapi/include bench/handle_overhead.c -Lbuild/lib -Wl,-rpath,build/lib -llfbloom -o /tmp/ho && /tmp/ho
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lfbloom.h"
#define N (1 << 20)
#define B 64
#define REPS 15

static char data[N * 16];
static uint64_t off[N + 1];
static uint8_t res[B];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* One pass of `op` over all keys through path 0 (per-kind) or 1 (one handle); ns per key. */
static double pass(int path, int op, lfb_filter* f, lfb_handle* h) {
    uint64_t n = 0, i;
    double t0 = now();
    for (i = 0; i + B <= N; i += B) {
        const uint64_t* o = off + i;
        if (op >= 2) { /* batches */
            if (path == 0 && op == 2) lfb_filter_add_many(f, data, o, B, res, &n);
            else if (path == 0) lfb_filter_contains_many(f, data, o, B, res, &n);
            else {
                lfb_batch b = {sizeof b, op == 2 ? LFB_OP_ADD : LFB_OP_CONTAINS, B, data, o, NULL, res, 0, 0};
                lfb_batch_run(h, &b);
            }
        } else {
            uint64_t j;
            for (j = i; j < i + B; ++j) {
                const void* k = data + off[j];
                if (path == 0) n += op == 0 ? lfb_filter_add(f, k, 16) : lfb_filter_contains(f, k, 16);
                else n += op == 0 ? lfb_add(h, k, 16) : lfb_contains(h, k, 16);
            }
        }
    }
    if (n == 12345678) puts(""); /* keeps the answers alive */
    return (now() - t0) / N;
}

int main(void) {
    static const char* ops[] = {"add single", "contains single", "add batch64", "contains batch64"};
    uint64_t i;
    int op, r, path;
    lfb_spec s;
    for (i = 0; i < N; ++i) {
        uint64_t a = i * 0x9e3779b97f4a7c15ull, b = ~a * 0xbf58476d1ce4e5b9ull;
        memcpy(data + 16 * i, &a, 8);
        memcpy(data + 16 * i + 8, &b, 8);
        off[i + 1] = 16 * (i + 1);
    }
    lfb_spec_init(&s);
    s.capacity = 1000000;
    s.fpr = 0.01;
    for (op = 0; op < 4; ++op) {
        double per[2][REPS];
        for (r = 0; r < REPS; ++r)
            for (path = 0; path < 2; ++path) {
                lfb_filter* f = NULL;
                lfb_handle* h = NULL;
                lfb_filter_create(1000000, 0.01, NULL, &f);
                lfb_create(&s, &h);
                if (op % 2 == 1) { /* queries of a half-full filter: half present, half absent */
                    lfb_filter_add_many(f, data, off, N / 2, NULL, NULL);
                    lfb_batch b = {sizeof b, LFB_OP_ADD, N / 2, data, off, NULL, NULL, 0, 0};
                    lfb_batch_run(h, &b);
                }
                per[path][r] = pass(path, op, f, h);
                lfb_filter_free(f);
                lfb_free(h);
            }
        qsort(per[0], REPS, sizeof(double), cmp);
        qsort(per[1], REPS, sizeof(double), cmp);
        printf("%-17s ns/key median: per-kind %6.2f  one handle %6.2f  (one handle / per-kind %.3f)\n", ops[op],
               per[0][REPS / 2], per[1][REPS / 2], per[1][REPS / 2] / per[0][REPS / 2]);
    }
    printf("library %s\n", lfb_version_string());
    return 0;
}
