/*
 * Per-ID cost of idmint_snowflake_next_id and idmint_snowflake_next_ids from C.
 *
 *   bench [IDS] [ROUNDS] [MODE]   (defaults 20000000, 5 and "both"; MODE "next_id" or "next_ids"
 *                                  runs only that loop; prints the median round of each)
 *
 * Same configuration as the Rust side (rust_bench.rs) and idmint-bench: Twitter layout, node 1,
 * on_exhausted = borrow:1000000000 so that minting flat out never waits for the clock (with the
 * default `wait` a generator is held to 4,096 IDs per ms, ~244 ns per ID, whatever its cost).
 * bench/run.sh runs both sides in one go and prints the ratio.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "idmint.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAX_ROUNDS 64
#define BATCH 1000

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 20000000u;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *mode = argc > 3 ? argv[3] : "both";
    int do_one = strcmp(mode, "next_ids") != 0, do_many = strcmp(mode, "next_id") != 0;
    if (rounds < 1 || rounds > MAX_ROUNDS || n < BATCH) return 2;
    idmint_config cfg = {0};
    cfg.layout = "twitter";
    cfg.has_node = 1;
    cfg.node = 1;
    cfg.on_exhausted = "borrow:1000000000";
    idmint_snowflake *gen = NULL;
    if (idmint_snowflake_new(&cfg, &gen) != IDMINT_OK) {
        fprintf(stderr, "bench: %s\n", idmint_last_error_message());
        return 1;
    }
    static uint64_t batch[BATCH];
    double one[MAX_ROUNDS], many[MAX_ROUNDS];
    uint64_t sink = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_s();
        for (size_t i = 0; do_one && i < n; i++) {
            uint64_t id;
            if (idmint_snowflake_next_id(gen, &id) != IDMINT_OK) return 1;
            sink ^= id;
        }
        one[r] = (now_s() - t0) * 1e9 / (double)n;
        t0 = now_s();
        for (size_t i = 0; do_many && i < n / BATCH; i++) {
            if (idmint_snowflake_next_ids(gen, batch, BATCH) != IDMINT_OK) return 1;
            sink ^= batch[BATCH - 1];
        }
        many[r] = (now_s() - t0) * 1e9 / (double)(n / BATCH * BATCH);
    }
    qsort(one, (size_t)rounds, sizeof one[0], cmp_double);
    qsort(many, (size_t)rounds, sizeof many[0], cmp_double);
    if (do_one) printf("c idmint_snowflake_next_id %.2f ns/id\n", one[rounds / 2]);
    if (do_many) printf("c idmint_snowflake_next_ids(%d) %.2f ns/id\n", BATCH, many[rounds / 2]);
    idmint_snowflake_free(gen);
    return sink == 42 ? 3 : 0; /* keeps `sink` alive */
}
