/*
 * Tests of the idmint C API against real stores: leased generators on Redis and PostgreSQL
 * (options.url), a store that accepts connections and never answers (IDMINT_STORE_UNAVAILABLE
 * within its timeout), segments on SQLite and Redis from 4 threads with no duplicate, the segment
 * journal across a close and a reopen, named generators of the store-backed types
 * (`type=segment`, `type=snowflake,...,lease=...`), and bad input to every new function.
 *
 * The servers come from IDMINT_TEST_REDIS_URL and IDMINT_TEST_POSTGRES_URL (bindings-c/test.sh
 * starts private ones with scripts/services.sh); without them those parts are skipped, unless
 * IDMINT_TEST_REQUIRE_SERVERS is set, which makes a missing server a failure.
 *
 * Build and run: bash bindings-c/test.sh. The last line is "C store tests: N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "idmint.h"

#define EXPECT(call, want) expect_impl((call), (want), NULL, #call, __LINE__)
#define OK(call) EXPECT(call, IDMINT_OK)

static bool last_has(const char *part) { return strstr(idmint_last_error_message(), part) != NULL; }

static uint64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Twitter layout: 41 time bits above 10 node bits above 12 sequence bits. */
static uint64_t tw_node(uint64_t id) { return id >> 12 & 1023; }

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether `ids` (sorted here) holds no value twice. */
static bool all_distinct(uint64_t *ids, size_t n) {
    qsort(ids, n, sizeof *ids, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (ids[i] == ids[i - 1]) {
            fprintf(stderr, "  %" PRIu64 " twice\n", ids[i]);
            return false;
        }
    return true;
}

static char dir[64];
static const char *redis_url, *postgres_url;

/* A server from the environment, or NULL (a failure when servers are required). Its calls get
 * a generous deadline: under valgrind every call is tens of times slower, and a PostgreSQL
 * acquire that keeps meeting rows locked by a concurrent commit gives up after one timeout. */
static const char *server(const char *var, char *buf, size_t len) {
    const char *url = getenv(var);
    if (url != NULL && url[0] != '\0') {
        snprintf(buf, len, "%s%stimeout_ms=10000", url, strchr(url, '?') ? "&" : "?");
        return buf;
    }
    CTX("servers");
    if (getenv("IDMINT_TEST_REQUIRE_SERVERS") != NULL)
        CHECK(!"a server is required: set IDMINT_TEST_REDIS_URL and IDMINT_TEST_POSTGRES_URL");
    else
        printf("%s is not set: skipping its tests\n", var);
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */

/* Two leased generators on one network store get distinct nodes; each mints on its own; the
 * lease reports its TTL; a third that finds every node held gets IDMINT_NO_FREE_NODE. A short
 * TTL: a namespace's first grant on Redis waits out the lock delay (twice the TTL), since it
 * cannot be told from the first grant after a wipe. */
static void test_leased_on(const char *kind, const char *url) {
    CTX("leased on %s", kind);
    char ns[64];
    snprintf(ns, sizeof ns, "c-%s-%ld", kind, (long)getpid());
    idmint_config cfg = {0};
    idmint_lease_options opts = {0};
    opts.url = url;
    opts.namespace_name = ns;
    opts.nodes = 2;
    opts.ttl_ms = 600;
    idmint_leased_snowflake *a = NULL, *b = NULL, *c = (idmint_leased_snowflake *)&opts;
    if (!OK(idmint_leased_snowflake_new(NULL, &cfg, &opts, &a))) return;
    if (!OK(idmint_leased_snowflake_new(NULL, &cfg, &opts, &b))) goto out;
    uint64_t na = 99, nb = 99;
    OK(idmint_leased_snowflake_node(a, &na));
    OK(idmint_leased_snowflake_node(b, &nb));
    CHECK(na < 2 && nb < 2 && na != nb);
    uint64_t ids[2000];
    if (OK(idmint_leased_snowflake_next_ids(a, ids, 1000)) &&
        OK(idmint_leased_snowflake_next_ids(b, ids + 1000, 1000))) {
        CHECK(tw_node(ids[0]) == na && tw_node(ids[1999]) == nb);
        CHECK(all_distinct(ids, 2000));
    }
    idmint_lease_info info = {0};
    OK(idmint_leased_snowflake_lease(a, &info));
    CHECK(info.node == na && info.ttl_ms == 600 && info.token > 0);
    EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &c), IDMINT_NO_FREE_NODE);
    CHECK(c == NULL);
out:
    idmint_leased_snowflake_free(a);
    idmint_leased_snowflake_free(b);
}

/* A TCP port that accepts connections (the kernel completes them into the backlog) and never
 * answers: a server that hangs, the case client-side deadlines are for. */
static int silent_listener(int *port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* Every call to a store that never answers fails with IDMINT_STORE_UNAVAILABLE within a few
 * of its timeouts, never hangs. */
static void test_unreachable_stores(void) {
    CTX("unreachable stores");
    int port = 0, fd = silent_listener(&port);
    if (!CHECK(fd >= 0)) return;
    const char *forms[] = {"redis://127.0.0.1:%d/?timeout_ms=300",
                           "postgres://idmint@127.0.0.1:%d/postgres?timeout_ms=300"};
    for (size_t i = 0; i < 2; i++) {
        char url[128];
        snprintf(url, sizeof url, forms[i], port);
        CTX("unreachable store %s", url);
        idmint_config cfg = {0};
        idmint_lease_options opts = {0};
        opts.url = url;
        idmint_leased_snowflake *g = (idmint_leased_snowflake *)&opts;
        uint64_t t0 = mono_ms();
        EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &g), IDMINT_STORE_UNAVAILABLE);
        uint64_t took = mono_ms() - t0;
        CHECK(g == NULL);
        /* Connect, then the call: PostgreSQL's deadline is up to three timeouts. */
        if (!CHECK(took < 3 * 300 + 1500)) fprintf(stderr, "  took %" PRIu64 " ms\n", took);
    }
    /* A segment allocator on it: the first ID waits at most wait_timeout_ms, then says why. */
    char url[128];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/?timeout_ms=300", port);
    CTX("unreachable segment store %s", url);
    idmint_segment_allocator_options so = {0};
    so.wait_timeout_ms = 500;
    idmint_segment_allocator *s = NULL;
    uint64_t t0 = mono_ms();
    idmint_status st = idmint_segment_allocator_new(url, &so, &s);
    if (st == IDMINT_OK) {
        uint64_t id = 0;
        EXPECT(idmint_segment_allocator_next_id(s, "orders", &id), IDMINT_STORE_UNAVAILABLE);
        idmint_segment_allocator_free(s);
    } else {
        EXPECT(st, IDMINT_STORE_UNAVAILABLE);
    }
    uint64_t took = mono_ms() - t0;
    if (!CHECK(took < 3 * 300 + 500 + 1500)) fprintf(stderr, "  took %" PRIu64 " ms\n", took);
    close(fd);
}

/* ---------------------------------------------------------------------------------------- */

#define THREADS 4
#define SINGLES 1500
#define BATCHES 3
#define BATCH 1000
#define PER_THREAD (SINGLES + BATCHES * BATCH)

struct worker {
    idmint_segment_allocator *s;
    const char *key;
    uint64_t *ids;
    int bad;
};

static void *segment_worker(void *arg) {
    struct worker *w = arg;
    for (size_t i = 0; i < SINGLES; i++)
        if (idmint_segment_allocator_next_id(w->s, w->key, &w->ids[i]) != IDMINT_OK) w->bad++;
    for (size_t b = 0; b < BATCHES; b++)
        if (idmint_segment_allocator_next_ids(w->s, w->key, w->ids + SINGLES + b * BATCH, BATCH) != IDMINT_OK)
            w->bad++;
    return NULL;
}

/* 4 threads on one key, half of them through a second allocator on the same store: no value
 * twice. */
static void test_segments_threads(const char *kind, const char *url, const char *key) {
    CTX("segments on %s from %d threads", kind, THREADS);
    idmint_segment_allocator_options so = {0};
    so.step = 100;
    idmint_segment_allocator *s[2] = {NULL, NULL};
    if (!OK(idmint_segment_allocator_new(url, &so, &s[0])) || !OK(idmint_segment_allocator_new(url, &so, &s[1])))
        goto out;
    static uint64_t ids[THREADS * PER_THREAD];
    struct worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){s[i % 2], key, ids + (size_t)i * PER_THREAD, 0};
        CHECK(pthread_create(&t[i], NULL, segment_worker, &w[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(w[i].bad == 0);
        /* Each thread's own IDs increase. */
        bool up = true;
        for (size_t k = 1; k < PER_THREAD; k++) up &= w[i].ids[k] > w[i].ids[k - 1];
        CHECK(up);
    }
    CHECK(all_distinct(ids, THREADS * PER_THREAD));
    OK(idmint_segment_allocator_close(s[0]));
    OK(idmint_segment_allocator_close(s[1]));
out:
    idmint_segment_allocator_free(s[0]);
    idmint_segment_allocator_free(s[1]);
}

/* The journal records what a closed allocator took and did not serve; the next one on the same
 * store serves it first. */
static void test_segments_journal(void) {
    CTX("segments: the journal across a close and a reopen");
    char url[128], journal[128];
    snprintf(url, sizeof url, "sqlite:%s/journal.db", dir);
    snprintf(journal, sizeof journal, "%s/segments.journal", dir);
    idmint_segment_allocator_options so = {0};
    so.step = 100;
    so.journal = journal;
    idmint_segment_allocator *s = NULL;
    uint64_t id = 0, three[3] = {0};
    if (!OK(idmint_segment_allocator_new(url, &so, &s))) return;
    OK(idmint_segment_allocator_next_id(s, "orders", &id));
    CHECK(id == 1);
    OK(idmint_segment_allocator_next_ids(s, "orders", three, 3));
    CHECK(three[0] == 2 && three[2] == 4);
    OK(idmint_segment_allocator_close(s));
    OK(idmint_segment_allocator_close(s)); /* again: nothing to do */
    EXPECT(idmint_segment_allocator_next_id(s, "orders", &id), IDMINT_CLOSED);
    CHECK(last_has("closed"));
    EXPECT(idmint_segment_allocator_next_ids(s, "orders", three, 3), IDMINT_CLOSED);
    idmint_segment_allocator_free(s);

    s = NULL;
    if (!OK(idmint_segment_allocator_new(url, &so, &s))) return;
    OK(idmint_segment_allocator_next_id(s, "orders", &id));
    CHECK(id == 5);
    idmint_segment_allocator_free(s); /* closes, recording the rest again */

    /* Without the journal a new allocator skips what was taken: never a repeat. */
    so.journal = NULL;
    s = NULL;
    if (!OK(idmint_segment_allocator_new(url, &so, &s))) return;
    OK(idmint_segment_allocator_next_id(s, "orders", &id));
    CHECK(id > 100);
    idmint_segment_allocator_free(s);
}

static void test_segments_bad_input(void) {
    CTX("segments: bad input");
    char url[128];
    snprintf(url, sizeof url, "sqlite:%s/bad.db", dir);
    idmint_segment_allocator *s = (idmint_segment_allocator *)&ctx; /* must become NULL */
    EXPECT(idmint_segment_allocator_new(NULL, NULL, &s), IDMINT_NULL_POINTER);
    CHECK(s == NULL);
    EXPECT(idmint_segment_allocator_new(url, NULL, NULL), IDMINT_NULL_POINTER);
    s = (idmint_segment_allocator *)&ctx;
    EXPECT(idmint_segment_allocator_new("nope://x", NULL, &s), IDMINT_INVALID_CONFIG);
    CHECK(s == NULL);
    EXPECT(idmint_segment_allocator_new("", NULL, &s), IDMINT_BAD_C_ARGUMENT);
    EXPECT(idmint_segment_allocator_new("sqlite:\xff", NULL, &s), IDMINT_BAD_C_ARGUMENT);
    EXPECT(idmint_segment_allocator_new("postgres://h/db?shards=99999", NULL, &s), IDMINT_LIMIT_EXCEEDED);
    idmint_segment_allocator_options so = {0};
    so.journal = "";
    EXPECT(idmint_segment_allocator_new(url, &so, &s), IDMINT_BAD_C_ARGUMENT);
    so.journal = "/dev/null/x.journal";
    idmint_status st = idmint_segment_allocator_new(url, &so, &s);
    CHECK(st == IDMINT_STORE_UNAVAILABLE);
    if (st == IDMINT_OK) idmint_segment_allocator_free(s);

    if (!OK(idmint_segment_allocator_new(url, NULL, &s))) return;
    uint64_t id = 7, ids[2] = {0};
    EXPECT(idmint_segment_allocator_next_id(s, NULL, &id), IDMINT_NULL_POINTER);
    EXPECT(idmint_segment_allocator_next_id(s, "orders", NULL), IDMINT_NULL_POINTER);
    EXPECT(idmint_segment_allocator_next_id(NULL, "orders", &id), IDMINT_NULL_POINTER);
    EXPECT(idmint_segment_allocator_next_id(s, "", &id), IDMINT_INVALID_CONFIG);
    CHECK(last_has("segment key"));
    char long_key[256];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = '\0';
    EXPECT(idmint_segment_allocator_next_id(s, long_key, &id), IDMINT_INVALID_CONFIG);
    EXPECT(idmint_segment_allocator_next_id(s, "\xc3", &id), IDMINT_BAD_C_ARGUMENT);
    EXPECT(idmint_segment_allocator_next_ids(s, NULL, ids, 2), IDMINT_NULL_POINTER);
    EXPECT(idmint_segment_allocator_next_ids(s, "orders", NULL, 2), IDMINT_NULL_POINTER);
    OK(idmint_segment_allocator_next_ids(s, "orders", NULL, 0));
    EXPECT(idmint_segment_allocator_next_ids(s, "orders", ids, SIZE_MAX), IDMINT_LIMIT_EXCEEDED);
    EXPECT(idmint_segment_allocator_next_ids(s, "", ids, 2), IDMINT_INVALID_CONFIG);
    OK(idmint_segment_allocator_next_id(s, "orders", &id));
    CHECK(id == 1);
    EXPECT(idmint_segment_allocator_close(NULL), IDMINT_NULL_POINTER);
    idmint_segment_allocator_free(s);
    idmint_segment_allocator_free(NULL);
}

static void test_leased_bad_input(void) {
    CTX("leased: store URL arguments");
    idmint_config cfg = {0};
    idmint_lease_options opts = {0};
    idmint_leased_snowflake *g = (idmint_leased_snowflake *)&opts;
    opts.url = "memcached://127.0.0.1/";
    EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &g), IDMINT_INVALID_CONFIG);
    CHECK(g == NULL);
    opts.url = "";
    EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &g), IDMINT_BAD_C_ARGUMENT);
    opts.url = "file:\xff";
    EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &g), IDMINT_BAD_C_ARGUMENT);
    opts.url = "redis://127.0.0.1:1/?timeout_ms=0";
    EXPECT(idmint_leased_snowflake_new(NULL, &cfg, &opts, &g), IDMINT_INVALID_CONFIG);
    /* A directory and a URL: one or the other. */
    opts.url = "local";
    EXPECT(idmint_leased_snowflake_new(dir, &cfg, &opts, &g), IDMINT_BAD_C_ARGUMENT);
    CHECK(last_has("not both"));
    /* A file: URL is the same store as the directory argument. */
    char url[128];
    snprintf(url, sizeof url, "file:%s/leases", dir);
    opts.url = url;
    opts.namespace_name = "c-file";
    opts.nodes = 1;
    idmint_leased_snowflake *a = NULL;
    if (OK(idmint_leased_snowflake_new(NULL, &cfg, &opts, &a))) {
        char leases[128];
        snprintf(leases, sizeof leases, "%s/leases", dir);
        opts.url = NULL;
        EXPECT(idmint_leased_snowflake_new(leases, &cfg, &opts, &g), IDMINT_NO_FREE_NODE);
        idmint_leased_snowflake_free(a);
    }
}

/* ---------------------------------------------------------------------------------------- */

/* Named generators of the store-backed types: built by name, minting distinct IDs. */
static void test_named_store_types(void) {
    CTX("named: type=segment and a leased snowflake");
    char seg[256], leased[256], text[512];
    snprintf(seg, sizeof seg, "type=segment,store=sqlite:%s/named.db,key=orders", dir);
    snprintf(leased, sizeof leased,
             "type=snowflake,layout=twitter,lease=file:%s/named-leases,namespace=named", dir);
    idmint_named_generator *s = NULL, *a = NULL, *b = NULL;
    if (!OK(idmint_named_generator_new(seg, &s))) return;
    if (!OK(idmint_named_generator_new(leased, &a)) || !OK(idmint_named_generator_new(leased, &b)))
        goto out;
    idmint_named_type kind = IDMINT_NAMED_UUID4;
    OK(idmint_named_generator_kind(s, &kind));
    CHECK(kind == IDMINT_NAMED_SEGMENT);
    OK(idmint_named_generator_kind(a, &kind));
    CHECK(kind == IDMINT_NAMED_SNOWFLAKE);
    if (OK(idmint_named_generator_config(s, text, sizeof text, NULL))) CHECK(strcmp(text, seg) == 0);
    if (OK(idmint_named_generator_config(a, text, sizeof text, NULL)))
        CHECK(strstr(text, "lease=file:") != NULL && strstr(text, "node=") == NULL);

    idmint_generated_id one = {true, 0, {{0}}}, many[300];
    OK(idmint_named_generator_next_id(s, &one));
    CHECK(!one.is_uuid && one.id == 1);
    if (OK(idmint_named_generator_next_ids(s, many, 300)))
        CHECK(!many[0].is_uuid && many[0].id == 2 && many[299].id == 301);
    /* Two leased generators: two nodes, no ID twice. */
    uint64_t ids[400];
    bool ok = true;
    for (size_t i = 0; i < 200; i++) {
        ok &= idmint_named_generator_next_id(a, &one) == IDMINT_OK;
        ids[i] = one.id;
    }
    if (OK(idmint_named_generator_next_ids(b, many, 200)))
        for (size_t i = 0; i < 200; i++) ids[200 + i] = many[i].id;
    CHECK(ok && tw_node(ids[0]) != tw_node(ids[399]));
    CHECK(all_distinct(ids, 400));
    /* No sans-IO call for a store-backed type. */
    EXPECT(idmint_named_generator_next_at(s, 1700000000000, NULL, 0, &one, NULL, NULL),
           IDMINT_INVALID_CONFIG);
    OK(idmint_named_generator_close(a));
    OK(idmint_named_generator_close(a));
    EXPECT(idmint_named_generator_next_id(a, &one), IDMINT_CLOSED);
    EXPECT(idmint_named_generator_kind(a, &kind), IDMINT_CLOSED);
    OK(idmint_named_generator_close(s));
out:
    idmint_named_generator_free(s);
    idmint_named_generator_free(a);
    idmint_named_generator_free(b);

    CTX("named: the naive generators, type=counter and type=autoinc");
    char counter[256], autoinc[512];
    snprintf(counter, sizeof counter, "type=counter,store=sqlite:%s/counter.db,key=orders", dir);
    snprintf(autoinc, sizeof autoinc,
             "type=autoinc,stores=(sqlite:%s/ai-a.db|sqlite:%s/ai-b.db|sqlite:%s/ai-c.db),key=k",
             dir, dir, dir);
    idmint_named_generator *c1 = NULL, *c2 = NULL, *ai = NULL;
    if (OK(idmint_named_generator_new(counter, &c1)) && OK(idmint_named_generator_new(counter, &c2))) {
        OK(idmint_named_generator_kind(c1, &kind));
        CHECK(kind == IDMINT_NAMED_COUNTER);
        OK(idmint_named_generator_next_id(c1, &one));
        CHECK(one.id == 1);
        OK(idmint_named_generator_next_id(c2, &one));
        CHECK(one.id == 2); /* one store value per ID: nothing held, nothing skipped */
    }
    if (OK(idmint_named_generator_new(autoinc, &ai))) {
        OK(idmint_named_generator_kind(ai, &kind));
        CHECK(kind == IDMINT_NAMED_AUTOINC);
        uint64_t seen = 0;
        if (OK(idmint_named_generator_next_ids(ai, many, 9)))
            for (size_t i = 0; i < 9; i++)
                if (many[i].id >= 1 && many[i].id <= 9) seen |= 1u << many[i].id;
        CHECK(seen == 0x3fe); /* 1..9, each once */
    }
    idmint_named_generator_free(c1);
    idmint_named_generator_free(c2);
    idmint_named_generator_free(ai);

    CTX("named: errors of the store-backed types");
    idmint_named_generator *g = (idmint_named_generator *)&ctx;
    EXPECT(idmint_named_generator_new("type=segment,key=orders", &g), IDMINT_INVALID_LAYOUT);
    CHECK(g == NULL && last_has("at byte 23") && last_has("store=URL"));
    EXPECT(idmint_named_generator_new("type=segment,store=sqlite:/x,key=a,color=red", &g),
           IDMINT_INVALID_LAYOUT);
    CHECK(last_has("at byte 35"));
    EXPECT(idmint_named_generator_new("type=segment,store=nope:x,key=a", &g),
           IDMINT_INVALID_CONFIG);
    EXPECT(idmint_named_generator_new("type=snowflake,layout=twitter,lease=local,node=1", &g),
           IDMINT_INVALID_LAYOUT);
    CHECK(last_has("at byte 42"));
    EXPECT(idmint_named_generator_new("type=snowflake,layout=twitter,node=1,ttl_ms=5", &g),
           IDMINT_INVALID_LAYOUT);
    /* The core's types mint on the clock too, and close like the others. */
    if (OK(idmint_named_generator_new("type=uuid7", &g))) {
        OK(idmint_named_generator_next_id(g, &one));
        CHECK(one.is_uuid && one.uuid.bytes[6] >> 4 == 7);
        OK(idmint_named_generator_next_ids(g, many, 2));
        CHECK(memcmp(many[0].uuid.bytes, one.uuid.bytes, 16) > 0);
        OK(idmint_named_generator_close(g));
        idmint_named_generator_free(g);
    }
    EXPECT(idmint_named_generator_next_id(NULL, &one), IDMINT_NULL_POINTER);
    EXPECT(idmint_named_generator_next_ids(NULL, many, 1), IDMINT_NULL_POINTER);
    EXPECT(idmint_named_generator_close(NULL), IDMINT_NULL_POINTER);
}

static void test_named_on_redis(void) {
    if (redis_url == NULL) return;
    CTX("named: type=segment and a leased snowflake on Redis");
    char seg[512], leased[512];
    snprintf(seg, sizeof seg, "type=segment,store=(%s),key=c-named-%ld,step=50", redis_url,
             (long)getpid());
    snprintf(leased, sizeof leased,
             "{\"type\":\"snowflake\",\"layout\":\"twitter\",\"lease\":\"%s\","
             "\"namespace\":\"c-named-%ld\",\"ttl_ms\":\"600\"}",
             redis_url, (long)getpid());
    idmint_named_generator *s = NULL, *a = NULL;
    idmint_generated_id one = {0}, two = {0};
    if (OK(idmint_named_generator_new(seg, &s))) {
        OK(idmint_named_generator_next_id(s, &one));
        OK(idmint_named_generator_next_id(s, &two));
        CHECK(two.id > one.id);
        OK(idmint_named_generator_close(s));
        idmint_named_generator_free(s);
    }
    if (OK(idmint_named_generator_new(leased, &a))) {
        OK(idmint_named_generator_next_id(a, &one));
        OK(idmint_named_generator_next_id(a, &two));
        CHECK(two.id > one.id && tw_node(one.id) == tw_node(two.id));
        OK(idmint_named_generator_close(a));
        idmint_named_generator_free(a);
    }
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/idmint-c-stores-XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL)) return 1;
    static char redis_buf[512], postgres_buf[512];
    redis_url = server("IDMINT_TEST_REDIS_URL", redis_buf, sizeof redis_buf);
    postgres_url = server("IDMINT_TEST_POSTGRES_URL", postgres_buf, sizeof postgres_buf);

    if (redis_url) test_leased_on("redis", redis_url);
    if (postgres_url) test_leased_on("postgres", postgres_url);
    test_unreachable_stores();
    test_leased_bad_input();

    char url[512], key[64];
    snprintf(url, sizeof url, "sqlite:%s/threads.db", dir);
    test_segments_threads("sqlite", url, "orders");
    if (redis_url) {
        snprintf(key, sizeof key, "c-threads-%ld", (long)getpid());
        test_segments_threads("redis", redis_url, key);
    }
    test_segments_journal();
    test_segments_bad_input();
    test_named_store_types();
    test_named_on_redis();

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("C store tests: %u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
