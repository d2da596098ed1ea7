/*
 * idmint's UUIDs against an implementation we did not write: util-linux's libuuid (uuid-dev),
 * the UUID library of most Linux C programs. In one process, both ways:
 *
 * - what idmint mints (v1, v3, v4, v5, v6, v7, Nil, Max), libuuid parses to the same 16 bytes
 *   and reads the same version and variant from; libuuid's clock reading of a v1 is idmint's;
 * - what libuuid mints (time-based v1, random v4, MD5 v3 and SHA-1 v5 in its namespaces, in
 *   either letter case), idmint parses to the same bytes and inspects alike, turns a v1 into a
 *   v6 holding the same time and back; name-based UUIDs of the same namespace and name are the
 *   same bytes from both.
 *
 * Build and run: bash bindings-c/test.sh. The last line is "C libuuid tests: N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <uuid/uuid.h>

#include "check.h"
#include "idmint.h"

/* libuuid's clock reading of a v1 UUID, in ms since the Unix epoch (rounded down). */
static uint64_t libuuid_ms(const uuid_t u) {
    struct timeval tv;
    uuid_time(u, &tv);
    return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

/* idmint's UUID `u` of `version`, read by libuuid: same bytes, version, variant; for v1, the
 * same time. */
static void idmint_to_libuuid(const idmint_uuid *u, int version) {
    char text[IDMINT_UUID_STR_SIZE];
    uuid_t lu;
    if (!CHECK(idmint_uuid_format(u, text, sizeof text) == IDMINT_OK)) return;
    if (!CHECK(uuid_parse(text, lu) == 0)) return;
    CHECK(memcmp(lu, u->bytes, 16) == 0);
    if (version == 0) {
        CHECK(uuid_is_null(lu));
        return;
    }
    CHECK(uuid_type(lu) == version);
    CHECK(uuid_variant(lu) == UUID_VARIANT_DCE);
    idmint_uuid_info info;
    if (!CHECK(idmint_uuid_inspect(u, &info) == IDMINT_OK)) return;
    if (version == 1) CHECK(info.has_unix_ms && libuuid_ms(lu) == info.unix_ms);
}

/* libuuid's UUID `lu` of `version`, read by idmint (lower- and upper-case text). */
static void libuuid_to_idmint(const uuid_t lu, int version) {
    char lower[37], upper[37];
    uuid_unparse_lower(lu, lower);
    uuid_unparse_upper(lu, upper);
    idmint_uuid u, v;
    if (!CHECK(idmint_uuid_parse(lower, &u) == IDMINT_OK)) return;
    if (!CHECK(idmint_uuid_parse(upper, &v) == IDMINT_OK)) return;
    CHECK(memcmp(u.bytes, lu, 16) == 0 && memcmp(v.bytes, lu, 16) == 0);
    char back[IDMINT_UUID_STR_SIZE];
    CHECK(idmint_uuid_format(&u, back, sizeof back) == IDMINT_OK && strcmp(back, lower) == 0);
    idmint_uuid_info info;
    if (!CHECK(idmint_uuid_inspect(&u, &info) == IDMINT_OK)) return;
    CHECK(info.version == (uint32_t)version);
    CHECK(info.variant == IDMINT_UUID_VARIANT_RFC9562);
    if (version != 1) return;
    CHECK(info.has_unix_ms && info.unix_ms == libuuid_ms(lu));
    /* v1 -> v6 keeps the time, clock sequence and node; v6 -> v1 gives libuuid's bytes back. */
    idmint_uuid six, one;
    idmint_uuid_info six_info;
    if (CHECK(idmint_uuid1_to_uuid6(&u, &six) == IDMINT_OK) &&
        CHECK(idmint_uuid_inspect(&six, &six_info) == IDMINT_OK)) {
        CHECK(six_info.version == 6 && six_info.unix_ms == info.unix_ms);
        CHECK(memcmp(six.bytes + 8, lu + 8, 8) == 0);
        CHECK(idmint_uuid6_to_uuid1(&six, &one) == IDMINT_OK && memcmp(one.bytes, lu, 16) == 0);
    }
}

static void test_idmint_read_by_libuuid(void) {
    idmint_uuid u, ns;
    for (int i = 0; i < 100; i++) {
        CTX("idmint v1 #%d", i);
        if (CHECK(idmint_uuid1(&u) == IDMINT_OK)) idmint_to_libuuid(&u, 1);
        CTX("idmint v4 #%d", i);
        if (CHECK(idmint_uuid4(&u) == IDMINT_OK)) idmint_to_libuuid(&u, 4);
        CTX("idmint v6 #%d", i);
        if (CHECK(idmint_uuid6(&u) == IDMINT_OK)) idmint_to_libuuid(&u, 6);
        CTX("idmint v7 #%d", i);
        if (CHECK(idmint_uuid7(&u) == IDMINT_OK)) idmint_to_libuuid(&u, 7);
    }
    CTX("idmint v3/v5");
    const char *name = "www.example.com";
    if (CHECK(idmint_uuid_namespace("dns", &ns) == IDMINT_OK)) {
        if (CHECK(idmint_uuid3(&ns, (const uint8_t *)name, strlen(name), &u) == IDMINT_OK))
            idmint_to_libuuid(&u, 3);
        if (CHECK(idmint_uuid5(&ns, (const uint8_t *)name, strlen(name), &u) == IDMINT_OK))
            idmint_to_libuuid(&u, 5);
    }
    CTX("idmint nil/max");
    idmint_uuid nil = idmint_uuid_nil(), max = idmint_uuid_max();
    idmint_to_libuuid(&nil, 0);
    char text[IDMINT_UUID_STR_SIZE];
    uuid_t lu;
    CHECK(idmint_uuid_format(&max, text, sizeof text) == IDMINT_OK && uuid_parse(text, lu) == 0 &&
          memcmp(lu, max.bytes, 16) == 0);
}

static void test_libuuid_read_by_idmint(void) {
    uuid_t lu;
    for (int i = 0; i < 100; i++) {
        CTX("libuuid v1 #%d", i);
        uuid_generate_time(lu);
        libuuid_to_idmint(lu, 1);
        CTX("libuuid v4 #%d", i);
        uuid_generate_random(lu);
        libuuid_to_idmint(lu, 4);
    }
    /* Name-based: the same namespace and name make the same UUID in both libraries. */
    const char *aliases[] = {"dns", "url", "oid", "x500"};
    const char *names[] = {"www.example.com", "https://example.com/a?b=c", "1.3.6.1", "", "ü"};
    for (size_t a = 0; a < sizeof aliases / sizeof *aliases; a++) {
        for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
            CTX("name-based %s \"%s\"", aliases[a], names[n]);
            const uuid_t *lns = uuid_get_template(aliases[a]);
            idmint_uuid ns, mine;
            if (!CHECK(lns != NULL) || !CHECK(idmint_uuid_namespace(aliases[a], &ns) == IDMINT_OK))
                continue;
            CHECK(memcmp(ns.bytes, *lns, 16) == 0);
            const uint8_t *bytes = (const uint8_t *)names[n];
            size_t len = strlen(names[n]);
            uuid_generate_md5(lu, *lns, names[n], len);
            libuuid_to_idmint(lu, 3);
            CHECK(idmint_uuid3(&ns, bytes, len, &mine) == IDMINT_OK &&
                  memcmp(mine.bytes, lu, 16) == 0);
            uuid_generate_sha1(lu, *lns, names[n], len);
            libuuid_to_idmint(lu, 5);
            CHECK(idmint_uuid5(&ns, bytes, len, &mine) == IDMINT_OK &&
                  memcmp(mine.bytes, lu, 16) == 0);
        }
    }
    CTX("libuuid nil");
    uuid_clear(lu);
    char text[37];
    uuid_unparse(lu, text);
    idmint_uuid u, nil = idmint_uuid_nil();
    CHECK(idmint_uuid_parse(text, &u) == IDMINT_OK && memcmp(u.bytes, nil.bytes, 16) == 0);
}

int main(void) {
    test_idmint_read_by_libuuid();
    test_libuuid_read_by_idmint();
    printf("C libuuid tests: %u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
