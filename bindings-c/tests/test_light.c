/*
 * Tests of libidmint without the store clients (bindings-c/install.sh without --stores): the file
 * lease store and the memory segment store work, and a URL of a store it lacks fails with
 * IDMINT_INVALID_CONFIG whose message names the library to link instead (libidmint-stores).
 * tests/test_idmint.c covers the rest of the API against both libraries.
 *
 * Build and run: bash bindings-c/test.sh. The last line is "C light tests: N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "idmint.h"

#define EXPECT(call, want) expect_impl((call), (want), NULL, #call, __LINE__)
#define OK(call) EXPECT(call, IDMINT_OK)

static bool names_the_full_library(void) {
    return strstr(idmint_last_error_message(), "link libidmint-stores instead of libidmint") != NULL;
}

int main(void) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/idmint-c-light-XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL)) return 1;

    CTX("file lease store");
    idmint_config cfg = {0};
    idmint_leased_snowflake *a = NULL, *b = NULL;
    if (OK(idmint_leased_snowflake_new(dir, &cfg, NULL, &a)) &&
        OK(idmint_leased_snowflake_new(dir, &cfg, NULL, &b))) {
        uint64_t na = 0, nb = 0, x = 0, y = 0;
        OK(idmint_leased_snowflake_node(a, &na));
        OK(idmint_leased_snowflake_node(b, &nb));
        CHECK(na != nb);
        OK(idmint_leased_snowflake_next_id(a, &x));
        OK(idmint_leased_snowflake_next_id(b, &y));
        CHECK(x != y);
    }
    idmint_leased_snowflake_free(a);
    idmint_leased_snowflake_free(b);

    CTX("memory segment store");
    idmint_segment_allocator *s = NULL;
    if (OK(idmint_segment_allocator_new("memory:", NULL, &s))) {
        uint64_t ids[3] = {0};
        OK(idmint_segment_allocator_next_ids(s, "k", ids, 3));
        CHECK(ids[0] < ids[1] && ids[1] < ids[2]);
    }
    idmint_segment_allocator_free(s);

    const char *lease_urls[] = {"redis://127.0.0.1:1/", "postgres://u@127.0.0.1:1/db",
                                "mysql://u@127.0.0.1:1/db", "etcd://127.0.0.1:1/p", "zk://127.0.0.1:1/p"};
    for (size_t i = 0; i < sizeof lease_urls / sizeof *lease_urls; i++) {
        CTX("lease store %s", lease_urls[i]);
        idmint_lease_options opts = {0};
        opts.url = lease_urls[i];
        idmint_leased_snowflake *g = NULL;
        EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &g), IDMINT_INVALID_CONFIG);
        CHECK(g == NULL && names_the_full_library());
    }
    const char *segment_urls[] = {"sqlite:/tmp/idmint-c-light.db", "redis://127.0.0.1:1/",
                                  "idmint+http://127.0.0.1:1/"};
    for (size_t i = 0; i < sizeof segment_urls / sizeof *segment_urls; i++) {
        CTX("segment store %s", segment_urls[i]);
        idmint_segment_allocator *g = NULL;
        EXPECT(idmint_segment_allocator_new(segment_urls[i], NULL, &g), IDMINT_INVALID_CONFIG);
        CHECK(g == NULL && names_the_full_library());
    }

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("C light tests: %u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
