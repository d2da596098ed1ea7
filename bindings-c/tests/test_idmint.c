/*
 * Tests of the idmint C API: every function with good and bad arguments, every case of the
 * shared JSON test vectors (through the tables gen_vectors.py makes, which fails on a vector
 * file or section it does not know), 4 threads minting 1,000,000 IDs with no
 * duplicate, fork() detection, file-leased generators in two processes, no default node, flag
 * bytes other than 0 and 1, and the batch limit.
 *
 * Build and run: bash bindings-c/test.sh (plain, under valgrind, and with ASan/UBSan).
 * The last line is "C tests: N passed, M failed"; the exit code is 0 only if M is 0.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "idmint.h"
#include "vectors_gen.h"

/* The core's error kinds keep their numbers on every surface. */
_Static_assert(IDMINT_OK == 0, "OK is 0");
_Static_assert(IDMINT_INVALID_LAYOUT == 1, "kind numbers");
_Static_assert(IDMINT_WOULD_BLOCK == 7, "kind numbers");
_Static_assert(IDMINT_FORKED == 8, "kind numbers");
_Static_assert(IDMINT_RANDOM_SOURCE == 12, "kind numbers");
_Static_assert(IDMINT_STORE_UNAVAILABLE == 13, "kind numbers");
_Static_assert(IDMINT_LEASE_LOST == 14, "kind numbers");
_Static_assert(IDMINT_NO_FREE_NODE == 15, "kind numbers");
_Static_assert(IDMINT_NODE_REQUIRED == 16, "kind numbers");
_Static_assert(IDMINT_STORE_MISMATCH == 17, "kind numbers");
_Static_assert(IDMINT_LIMIT_EXCEEDED == 18, "kind numbers");
_Static_assert(IDMINT_INVALID_ARGUMENT == 19, "kind numbers");
_Static_assert(IDMINT_CLOSED == 20, "kind numbers");
_Static_assert(IDMINT_CORE_STATUS_MAX == IDMINT_CLOSED, "the last core kind");
_Static_assert(IDMINT_NULL_POINTER >= 100 && IDMINT_BAD_C_ARGUMENT >= 100 && IDMINT_PANIC >= 100,
               "binding statuses are above the core range");

#define EXPECT(call, want, msg) expect_impl((call), (want), (msg), #call, __LINE__)
#define OK(call) EXPECT(call, IDMINT_OK, NULL)

static bool last_is(const char *msg) { return strcmp(idmint_last_error_message(), msg) == 0; }

static uint64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool uuid_is(const idmint_uuid *u, const char *text) {
    char buf[IDMINT_UUID_STR_SIZE];
    if (idmint_uuid_format(u, buf, sizeof buf) != IDMINT_OK) return false;
    return strcmp(buf, text) == 0;
}

static void check_inspect(const idmint_uuid *u, const v_inspect *want) {
    idmint_uuid_info info;
    if (!OK(idmint_uuid_inspect(u, &info))) return;
    CHECK(info.version == want->version);
    CHECK(strcmp(info.variant_name, want->variant) == 0);
    CHECK(info.has_unix_ms == want->has_unix_ms);
    CHECK(info.unix_ms == want->unix_ms);
}

/* ---------------------------------------------------------------------------------------- */

static void test_version(void) {
    CTX("version");
    char v[64];
    snprintf(v, sizeof v, "%d.%d.%d", IDMINT_VERSION_MAJOR, IDMINT_VERSION_MINOR,
             IDMINT_VERSION_PATCH);
    CHECK(strcmp(v, IDMINT_VERSION) == 0);
    CHECK(strcmp(idmint_version(), IDMINT_VERSION) == 0);
}

static void *fresh_thread_last_error(void *arg) {
    (void)arg;
    bool empty = last_is("");
    idmint_layout *l = NULL;
    idmint_status s = idmint_layout_new("nope", &l);
    bool set = s == IDMINT_INVALID_LAYOUT && last_is("invalid spec at byte 0: unknown preset; presets are twitter, discord, instagram, sonyflake, baidu, shardingsphere, leaf, js53, or give a spec such as time=41@1ms,worker=10,seq=12,epoch=2020-01-01");
    return (void *)(uintptr_t)(empty && set);
}

static void test_status(void) {
    /* OK, every core kind (1 to IDMINT_CORE_STATUS_MAX, the core's ErrorKind::ALL), then the
       binding's own statuses: each has a message and a code, never the unknown ones (a core kind
       the enum lacked would fail the library's build). */
    static const idmint_status binding[] = {IDMINT_NULL_POINTER, IDMINT_BAD_C_ARGUMENT,
                                            IDMINT_PANIC, IDMINT_UNKNOWN_ERROR};
    CTX("status texts");
    for (int i = 0; i <= IDMINT_CORE_STATUS_MAX + 4; i++) {
        int s = i <= IDMINT_CORE_STATUS_MAX ? i : (int)binding[i - IDMINT_CORE_STATUS_MAX - 1];
        const char *m = idmint_status_message(s);
        CHECK(m != NULL && m[0] != '\0' && strcmp(m, "unknown status") != 0);
        const char *c = idmint_status_code(s);
        CHECK(c != NULL && (s == IDMINT_OK ? strcmp(c, "OK") == 0 : strncmp(c, "ERR_", 4) == 0));
        CHECK(s == IDMINT_UNKNOWN_ERROR || strcmp(c, "ERR_UNKNOWN") != 0);
    }
    CHECK(strcmp(idmint_status_code(IDMINT_INVALID_ARGUMENT), "ERR_INVALID_ARGUMENT") == 0);
    CHECK(strcmp(idmint_status_code(IDMINT_CLOSED), "ERR_CLOSED") == 0);
    CHECK(strcmp(idmint_status_message(IDMINT_CORE_STATUS_MAX + 1), "unknown status") == 0);
    CHECK(strcmp(idmint_status_code(IDMINT_CLOCK_BACKWARDS), "ERR_CLOCK_BACKWARDS") == 0);
    CHECK(strcmp(idmint_status_code(IDMINT_NULL_POINTER), "ERR_NULL_POINTER") == 0);
    CHECK(strcmp(idmint_status_code(IDMINT_STORE_UNAVAILABLE), "ERR_STORE_UNAVAILABLE") == 0);
    CHECK(strcmp(idmint_status_code(IDMINT_LEASE_LOST), "ERR_LEASE_LOST") == 0);
    CHECK(strcmp(idmint_status_code(IDMINT_NO_FREE_NODE), "ERR_NO_FREE_NODE") == 0);
    CHECK(strcmp(idmint_status_message(-1), "unknown status") == 0);
    CHECK(strcmp(idmint_status_message(99), "unknown status") == 0);
    CHECK(strcmp(idmint_status_code(99999), "ERR_UNKNOWN") == 0);

    CTX("last error is per thread");
    idmint_layout *l = NULL;
    EXPECT(idmint_layout_new("twitter,", &l), IDMINT_INVALID_LAYOUT, NULL);
    char mine[256];
    snprintf(mine, sizeof mine, "%s", idmint_last_error_message());
    pthread_t t;
    void *res = NULL;
    CHECK(pthread_create(&t, NULL, fresh_thread_last_error, NULL) == 0);
    CHECK(pthread_join(t, &res) == 0);
    CHECK(res == (void *)(uintptr_t)1);
    CHECK(last_is(mine));
    /* Success leaves the message alone. */
    OK(idmint_layout_new("twitter", &l));
    CHECK(last_is(mine));
    idmint_layout_free(l);
}

/* ---------------------------------------------------------------------------------------- */

static void test_layout_vectors(void) {
    for (size_t i = 0; i < V_N_LAYOUTS; i++) {
        const v_layout *v = &V_LAYOUTS[i];
        CTX("layout '%s'", v->spec);
        idmint_layout *l = NULL;
        if (!OK(idmint_layout_new(v->spec, &l))) continue;

        char buf[256];
        size_t len = 0;
        OK(idmint_layout_spec(l, buf, sizeof buf, &len));
        CHECK(strcmp(buf, v->canonical) == 0 && len == strlen(v->canonical));
        OK(idmint_layout_preset_name(l, buf, sizeof buf, &len));
        CHECK(strcmp(buf, v->preset) == 0 && len == strlen(v->preset));

        idmint_layout_info info;
        OK(idmint_layout_get_info(l, &info));
        CHECK(info.width == v->width);
        CHECK(info.is_js_safe == v->is_js_safe);
        CHECK(info.epoch_ms == v->epoch_ms);
        CHECK(info.tick_ms == v->tick_ms);
        CHECK(info.lifetime_end_ms == v->lifetime_end_ms);
        CHECK(info.capacity_per_second == v->capacity_per_second);
        CHECK(info.max_id == v->max_id);
        CHECK(info.max_node == v->max_node);
        CHECK(info.max_sequence == v->max_sequence);
        CHECK(info.max_time == v->max_time);
        CHECK(info.field_count == v->n_fields);

        uint32_t width = 0;
        bool js = !v->is_js_safe;
        uint64_t end = 0, cap = 0;
        OK(idmint_layout_width(l, &width));
        OK(idmint_layout_is_js_safe(l, &js));
        OK(idmint_layout_lifetime_end_ms(l, &end));
        OK(idmint_layout_capacity_per_second(l, &cap));
        CHECK(width == v->width && js == v->is_js_safe && end == v->lifetime_end_ms &&
              cap == v->capacity_per_second);

        /* Fields, and the node sub-field names in order (for the compose cases). */
        const char *node_names[8];
        size_t n_node = 0;
        uint32_t node_bits = 0;
        for (size_t f = 0; f < v->n_fields; f++) {
            idmint_field fld;
            if (!OK(idmint_layout_field(l, f, &fld))) continue;
            CHECK(strcmp(fld.name, v->fields[f].name) == 0);
            CHECK(fld.kind == v->fields[f].kind);
            CHECK(fld.bits == v->fields[f].bits);
            CHECK(fld.shift == v->fields[f].shift);
            CHECK(fld.max == (fld.bits >= 64 ? UINT64_MAX : (UINT64_C(1) << fld.bits) - 1));
            if (fld.kind == IDMINT_FIELD_NODE && n_node < 8) {
                node_names[n_node++] = v->fields[f].name;
                node_bits += fld.bits;
            }
        }
        CHECK(info.node_bits == node_bits);

        for (size_t c = 0; c < v->n_compose; c++) {
            const v_compose *vc = &v->compose[c];
            CTX("layout '%s' compose #%zu", v->spec, c);
            idmint_parts p = {vc->time, vc->node, vc->sequence, vc->rollback};
            uint64_t id = 0;
            if (!EXPECT(idmint_layout_compose(l, &p, &id), vc->status, vc->message)) continue;
            if (vc->status != IDMINT_OK) continue;
            CHECK(id == vc->id);
            uint64_t ts = 0;
            OK(idmint_layout_timestamp_ms(l, id, &ts));
            CHECK(ts == vc->timestamp_ms);
            uint64_t vals[8] = {0};
            size_t count = 99;
            OK(idmint_layout_split_node(l, vc->node, vals, 8, &count));
            CHECK(count == vc->n_node_fields && count == n_node);
            for (size_t k = 0; k < vc->n_node_fields && k < 8; k++) {
                CHECK(vals[k] == vc->nf_values[k]);
                CHECK(k < n_node && strcmp(node_names[k], vc->nf_names[k]) == 0);
            }
            uint64_t node = ~UINT64_C(0);
            OK(idmint_layout_join_node(l, vc->nf_values, vc->n_node_fields, &node));
            CHECK(node == vc->node);
        }
        for (size_t c = 0; c < v->n_decompose; c++) {
            const v_decompose *vd = &v->decompose[c];
            CTX("layout '%s' decompose #%zu", v->spec, c);
            idmint_parts p;
            if (!EXPECT(idmint_layout_decompose(l, vd->id, &p), vd->status, vd->message)) continue;
            if (vd->status != IDMINT_OK) continue;
            CHECK(p.time == vd->time && p.node == vd->node && p.sequence == vd->sequence &&
                  p.rollback == vd->rollback);
        }
        for (size_t c = 0; c < v->n_tick_at; c++) {
            const v_tick *vt = &v->tick_at[c];
            CTX("layout '%s' tick_at #%zu", v->spec, c);
            uint64_t tick = 0;
            if (EXPECT(idmint_layout_tick_at(l, vt->now_ms, &tick), vt->status, vt->message) &&
                vt->status == IDMINT_OK)
                CHECK(tick == vt->tick);
        }

        /* The canonical spec parses back to the same layout. */
        CTX("layout '%s' canonical round trip", v->spec);
        idmint_layout *again = NULL;
        if (OK(idmint_layout_new(v->canonical, &again))) {
            OK(idmint_layout_spec(again, buf, sizeof buf, NULL));
            CHECK(strcmp(buf, v->canonical) == 0);
        }
        idmint_layout_free(again);
        idmint_layout_free(l);
    }
    for (size_t i = 0; i < V_N_INVALID_LAYOUTS; i++) {
        const v_invalid *v = &V_INVALID_LAYOUTS[i];
        CTX("invalid layout '%s'", v->spec);
        idmint_layout *l = (idmint_layout *)&ctx; /* any non-NULL value: must become NULL */
        EXPECT(idmint_layout_new(v->spec, &l), v->status, v->message);
        CHECK(l == NULL);
    }
}

/* ---------------------------------------------------------------------------------------- */

static idmint_config case_config(const v_gen_case *v) {
    idmint_config cfg = {0};
    cfg.layout = v->layout;
    cfg.has_node = 1;
    cfg.node = v->node;
    cfg.on_backwards = v->on_backwards;
    cfg.on_exhausted = v->on_exhausted;
    cfg.sequence_start = v->sequence_start;
    cfg.seed = v->seed;
    cfg.has_fence = v->has_fence;
    cfg.fence_ms = v->fence_ms;
    return cfg;
}

static void check_stats(const idmint_stats *s, const v_gen_case *v) {
    CHECK(s->rollbacks == v->rollbacks);
    CHECK(s->wait_ms == v->wait_ms);
    CHECK(s->max_ahead_ms == v->max_ahead_ms);
    CHECK(s->exhaustions == v->exhaustions);
}

static void test_generator_vectors(void) {
    size_t on_snowflake = 0, snowflake_refused = 0;
    for (size_t i = 0; i < V_N_GEN_CASES; i++) {
        const v_gen_case *v = &V_GEN_CASES[i];
        idmint_config cfg = case_config(v);
        bool only_next = true;

        /* The sans-IO generator replays every step. */
        CTX("generator '%s' (atomic)", v->name);
        idmint_atomic_snowflake *g = NULL;
        if (!OK(idmint_atomic_snowflake_new(&cfg, &g))) continue;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_step *s = &v->steps[k];
            CTX("generator '%s' (atomic) step %zu", v->name, k);
            uint64_t until = 12345;
            if (s->kind == V_NEXT) {
                uint64_t id = 0;
                if (!EXPECT(idmint_atomic_snowflake_next_id_at(g, s->now_ms, &id, &until), s->status,
                            s->message))
                    continue;
                if (s->status == IDMINT_OK) CHECK(id == s->id);
                CHECK(until == s->until_ms);
            } else if (s->kind == V_RESERVE) {
                only_next = false;
                idmint_run run = {0, 0, 0};
                if (!EXPECT(idmint_atomic_snowflake_reserve_at(g, s->now_ms, s->n, &run, &until),
                            s->status, s->message))
                    continue;
                if (s->status == IDMINT_OK)
                    CHECK(run.first == s->first && run.count == s->count && run.stride == s->stride);
                CHECK(until == s->until_ms);
            } else {
                only_next = false;
                uint64_t *ids = malloc((size_t)s->n * sizeof *ids);
                size_t written = 99;
                if (EXPECT(idmint_atomic_snowflake_next_ids_at(g, s->now_ms, ids, (size_t)s->n,
                                                             &written, &until),
                           s->status, s->message)) {
                    CHECK(written == s->n_ids);
                    for (size_t j = 0; j < s->n_ids && j < written; j++) CHECK(ids[j] == s->ids[j]);
                    CHECK(until == s->until_ms);
                }
                free(ids);
            }
        }
        CTX("generator '%s' (atomic) stats", v->name);
        idmint_stats st;
        if (OK(idmint_atomic_snowflake_stats(g, &st))) check_stats(&st, v);
        uint64_t node = 0;
        OK(idmint_atomic_snowflake_node(g, &node));
        CHECK(node == v->node);
        idmint_atomic_snowflake_free(g);

        /* The case's named config is canonical and builds the same generator; the named
         * generator mints one ID per call, so it replays the scripts of single-ID steps. */
        CTX("generator '%s' (named)", v->name);
        idmint_named_generator *ng = NULL;
        if (OK(idmint_named_generator_new(v->named_config, &ng))) {
            char text[512];
            idmint_named_type kind = (idmint_named_type)99;
            if (OK(idmint_named_generator_config(ng, text, sizeof text, NULL)))
                CHECK(strcmp(text, v->named_config) == 0);
            OK(idmint_named_generator_kind(ng, &kind));
            CHECK(kind == IDMINT_NAMED_SNOWFLAKE);
            for (size_t k = 0; only_next && k < v->n_steps; k++) {
                const v_step *s = &v->steps[k];
                CTX("generator '%s' (named) step %zu", v->name, k);
                idmint_generated_id id = {true, 0, {{0}}};
                uint64_t until = 12345;
                if (!EXPECT(idmint_named_generator_next_at(ng, s->now_ms, NULL, 0, &id, NULL, &until),
                            s->status, s->message))
                    continue;
                if (s->status == IDMINT_OK) CHECK(!id.is_uuid && id.id == s->id);
                CHECK(until == s->until_ms);
            }
            idmint_named_generator_free(ng);
        }

        /* The clocked generator's sans-IO call gives the same results (its layout must be able
         * to represent the current time, which an expired test layout cannot). */
        if (!only_next) continue;
        CTX("generator '%s' (snowflake)", v->name);
        idmint_snowflake *sf = NULL;
        idmint_status s0 = idmint_snowflake_new(&cfg, &sf);
        if (s0 == IDMINT_LAYOUT_EXPIRED) {
            snowflake_refused++;
            CHECK(sf == NULL);
            continue;
        }
        if (!OK(s0)) continue;
        on_snowflake++;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_step *s = &v->steps[k];
            CTX("generator '%s' (snowflake) step %zu", v->name, k);
            uint64_t id = 0, until = 12345;
            if (!EXPECT(idmint_snowflake_next_id_at(sf, s->now_ms, &id, &until), s->status, s->message))
                continue;
            if (s->status == IDMINT_OK) CHECK(id == s->id);
            CHECK(until == s->until_ms);
        }
        CTX("generator '%s' (snowflake) stats", v->name);
        if (OK(idmint_snowflake_stats(sf, &st))) check_stats(&st, v);
        idmint_snowflake_free(sf);
    }
    CTX("generator vectors on the clocked generator");
    CHECK(on_snowflake >= V_N_GEN_CASES / 2);
    CHECK(snowflake_refused <= 1);

    for (size_t i = 0; i < V_N_INVALID_CONFIGS; i++) {
        const v_invalid_config *v = &V_INVALID_CONFIGS[i];
        CTX("invalid config #%zu (%s, %s, %s, %s)", i, v->layout, v->on_backwards, v->on_exhausted,
            v->sequence_start);
        idmint_config cfg = {0};
        cfg.layout = v->layout;
        cfg.has_node = 1;
        cfg.node = v->node;
        cfg.on_backwards = v->on_backwards;
        cfg.on_exhausted = v->on_exhausted;
        cfg.sequence_start = v->sequence_start;
        idmint_atomic_snowflake *g = (idmint_atomic_snowflake *)&ctx;
        EXPECT(idmint_atomic_snowflake_new(&cfg, &g), v->status, v->message);
        CHECK(g == NULL);
        idmint_snowflake *sf = (idmint_snowflake *)&ctx;
        EXPECT(idmint_snowflake_new(&cfg, &sf), v->status, v->message);
        CHECK(sf == NULL);
    }
    for (size_t i = 0; i < V_N_POLICY_TEXTS; i++) {
        const v_policy_text *v = &V_POLICY_TEXTS[i];
        CTX("policy %s '%s'", v->policy, v->text);
        char buf[64];
        if (EXPECT(idmint_policy_normalize(v->policy, v->text, buf, sizeof buf, NULL), v->status,
                   v->message) &&
            v->status == IDMINT_OK)
            CHECK(strcmp(buf, v->canonical) == 0);
    }
}

/* ---------------------------------------------------------------------------------------- */

static void test_codec_vectors(void) {
    static const idmint_codec codecs[4] = {IDMINT_CODEC_DECIMAL, IDMINT_CODEC_HEX,
                                           IDMINT_CODEC_BASE32, IDMINT_CODEC_BASE62};
    for (size_t i = 0; i < V_N_ENCODES; i++) {
        const v_encode *v = &V_ENCODES[i];
        const char *want[4] = {v->decimal, v->hex, v->base32, v->base62};
        CTX("encode %" PRIu64, v->id);
        for (int c = 0; c < 4; c++) {
            char buf[IDMINT_ENCODE_BUF_SIZE];
            size_t len = 0;
            if (!OK(idmint_encode(v->id, codecs[c], buf, sizeof buf, &len))) continue;
            CHECK(strcmp(buf, want[c]) == 0 && len == strlen(want[c]));
            uint64_t back = 0;
            OK(idmint_parse_id(want[c], codecs[c], &back));
            CHECK(back == v->id);
        }
    }
    for (size_t i = 0; i < V_N_DECODES; i++) {
        const v_decode *v = &V_DECODES[i];
        CTX("decode %s '%s'", v->decoder, v->text);
        idmint_codec c = 99;
        if (!OK(idmint_codec_from_name(v->decoder, &c))) continue;
        uint64_t id = 0;
        if (EXPECT(idmint_parse_id_n(v->text, v->text_len, c, &id), v->status, v->message) &&
            v->status == IDMINT_OK)
            CHECK(id == v->id);
        if (strlen(v->text) == v->text_len) {
            id = 0;
            if (EXPECT(idmint_parse_id(v->text, c, &id), v->status, v->message) &&
                v->status == IDMINT_OK)
                CHECK(id == v->id);
        }
    }
}

/* ---------------------------------------------------------------------------------------- */

static void test_uuid_vectors(void) {
    for (size_t i = 0; i < V_N_NAME_BASED; i++) {
        const v_name_based *v = &V_NAME_BASED[i];
        CTX("uuid v%u '%s'", v->version, v->name);
        idmint_uuid ns, u;
        if (!OK(idmint_uuid_parse(v->ns, &ns))) continue;
        const uint8_t *name = (const uint8_t *)v->name;
        if (!OK(v->version == 3 ? idmint_uuid3(&ns, name, v->name_len, &u)
                                : idmint_uuid5(&ns, name, v->name_len, &u)))
            continue;
        CHECK(uuid_is(&u, v->uuid));
        check_inspect(&u, &v->inspect);
    }
    for (size_t i = 0; i < V_N_V4; i++) {
        const v_v4 *v = &V_V4[i];
        CTX("uuid v4 #%zu", i);
        idmint_uuid u;
        if (!OK(idmint_uuid4_from_bytes((const uint8_t *)v->random, v->random_len, &u))) continue;
        CHECK(uuid_is(&u, v->uuid));
        check_inspect(&u, &v->inspect);
    }
    for (size_t i = 0; i < V_N_V7; i++) {
        const v_v7 *v = &V_V7[i];
        CTX("uuid v7 #%zu", i);
        idmint_uuid u;
        if (!OK(idmint_uuid7_at(v->unix_ms, (const uint8_t *)v->random, v->random_len, &u)))
            continue;
        CHECK(uuid_is(&u, v->uuid));
        check_inspect(&u, &v->inspect);
    }
    for (size_t i = 0; i < V_N_V1; i++) {
        const v_v1 *v = &V_V1[i];
        CTX("uuid v1 #%zu", i);
        idmint_uuid u;
        const uint8_t *node = (const uint8_t *)v->node;
        if (!OK(v->has_unix_ms ? idmint_uuid1_random_node(v->unix_ms, v->extra, v->clock_seq, node,
                                                            v->node_len, &u)
                               : idmint_uuid1_at(v->ticks, v->clock_seq, node, v->node_len, &u)))
            continue;
        CHECK(uuid_is(&u, v->uuid));
        check_inspect(&u, &v->inspect);
    }
    for (size_t i = 0; i < V_N_V7_GENS; i++) {
        const v_v7_gen *v = &V_V7_GENS[i];
        idmint_uuid7_generator *g = NULL;
        CTX("uuid v7 generator '%s'", v->name);
        if (!OK(idmint_uuid7_generator_new(&g))) continue;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_v7 *s = &v->steps[k];
            CTX("uuid v7 generator '%s' step %zu", v->name, k);
            idmint_uuid u;
            if (!OK(idmint_uuid7_generator_next_at(g, s->unix_ms, (const uint8_t *)s->random,
                                                      s->random_len, &u)))
                continue;
            CHECK(uuid_is(&u, s->uuid));
            check_inspect(&u, &s->inspect);
        }
        idmint_uuid7_generator_free(g);
    }
    for (size_t i = 0; i < V_N_UUID_PARSES; i++) {
        const v_uuid_parse *v = &V_UUID_PARSES[i];
        CTX("uuid parse '%s'", v->text);
        idmint_uuid u;
        if (EXPECT(idmint_uuid_parse(v->text, &u), v->status, v->message) && v->status == IDMINT_OK)
            CHECK(uuid_is(&u, v->uuid));
    }
    for (size_t i = 0; i < V_N_UUID_INSPECTS; i++) {
        const v_uuid_inspect *v = &V_UUID_INSPECTS[i];
        CTX("uuid inspect '%s'", v->uuid);
        idmint_uuid u;
        if (OK(idmint_uuid_parse(v->uuid, &u))) check_inspect(&u, &v->inspect);
    }
}

/* formats.json: RFC 9562 appendix A and B, Nil/Max, v1<->v6, v8 fields, the v6 generator, the
 * three v7 methods, the TypeID spec's valid/invalid cases, and the ULID reference cases. */
static bool ulid_is(const idmint_ulid *u, const char *text) {
    char buf[IDMINT_ULID_STR_SIZE];
    if (idmint_ulid_format(u, buf, sizeof buf) != IDMINT_OK) return false;
    return strcmp(buf, text) == 0;
}

static bool typeid_of(const char *prefix, const char *uuid_text, const char *want) {
    idmint_uuid u;
    char buf[IDMINT_TYPEID_STR_SIZE];
    size_t len = 0;
    if (!OK(idmint_uuid_parse(uuid_text, &u))) return false;
    if (!OK(idmint_typeid_format(prefix, &u, buf, sizeof buf, &len))) return false;
    return CHECK(strcmp(buf, want) == 0 && len == strlen(want));
}

static void test_rfc9562_vectors(void) {
    for (size_t i = 0; i < V_N_RFC9562; i++) {
        const v_rfc9562 *v = &V_RFC9562[i];
        CTX("rfc9562 %s (%s)", v->appendix, v->method);
        const uint8_t *node = (const uint8_t *)v->node, *bytes = (const uint8_t *)v->bytes;
        idmint_uuid u, ns, from;
        idmint_status st;
        const char *m = v->method;
        if (strcmp(m, "v1") == 0) {
            st = idmint_uuid1_at(v->ticks, v->clock_seq, node, v->node_len, &u);
        } else if (strcmp(m, "v6") == 0) {
            st = idmint_uuid6_at(v->ticks, v->clock_seq, node, v->node_len, &u);
        } else if (strcmp(m, "v3") == 0 || strcmp(m, "v5") == 0) {
            if (!OK(idmint_uuid_parse(v->ns, &ns))) continue;
            const uint8_t *name = (const uint8_t *)v->name;
            st = m[1] == '3' ? idmint_uuid3(&ns, name, v->name_len, &u)
                             : idmint_uuid5(&ns, name, v->name_len, &u);
        } else if (strcmp(m, "v8_sha256") == 0) {
            if (!OK(idmint_uuid_parse(v->ns, &ns))) continue;
            st = idmint_uuid8_sha256(&ns, (const uint8_t *)v->name, v->name_len, &u);
        } else if (strcmp(m, "v4") == 0) {
            st = idmint_uuid4_from_bytes(bytes, v->bytes_len, &u);
        } else if (strcmp(m, "v7") == 0) {
            st = idmint_uuid7_at(v->unix_ms, bytes, v->bytes_len, &u);
        } else if (strcmp(m, "v8") == 0) {
            st = idmint_uuid8(bytes, v->bytes_len, &u);
        } else if (strcmp(m, "v8_fields") == 0) {
            st = idmint_uuid8_from_fields(v->custom_a, (uint16_t)v->custom_b, v->custom_c, &u);
            idmint_uuid8_custom f;
            if (st == IDMINT_OK && OK(idmint_uuid8_fields(&u, &f)))
                CHECK(f.custom_a == v->custom_a && f.custom_b == v->custom_b &&
                      f.custom_c == v->custom_c);
        } else if (strcmp(m, "v1_to_v6") == 0 || strcmp(m, "v6_to_v1") == 0) {
            if (!OK(idmint_uuid_parse(v->from, &from))) continue;
            st = m[1] == '1' ? idmint_uuid1_to_uuid6(&from, &u) : idmint_uuid6_to_uuid1(&from, &u);
        } else {
            CHECK(!"unknown rfc9562 method");
            continue;
        }
        if (!OK(st)) continue;
        CHECK(uuid_is(&u, v->uuid));
        idmint_uuid_info info;
        if (OK(idmint_uuid_inspect(&u, &info))) CHECK(info.version == v->version);
    }
    CTX("nil and max");
    idmint_uuid nil = idmint_uuid_nil(), max = idmint_uuid_max();
    CHECK(uuid_is(&nil, V_UUID_NIL));
    CHECK(uuid_is(&max, V_UUID_MAX));
    for (size_t i = 0; i < V_N_CONVERT_ERRORS; i++) {
        const v_convert_error *v = &V_CONVERT_ERRORS[i];
        CTX("convert error %s %s", v->method, v->uuid);
        idmint_uuid in, u;
        if (!OK(idmint_uuid_parse(v->uuid, &in))) continue;
        EXPECT(strcmp(v->method, "v1_to_v6") == 0 ? idmint_uuid1_to_uuid6(&in, &u)
                                                  : idmint_uuid6_to_uuid1(&in, &u),
               v->status, v->message);
    }
    for (size_t i = 0; i < V_N_V8_FIELD_ERRORS; i++) {
        const v_v8_field_error *v = &V_V8_FIELD_ERRORS[i];
        CTX("v8 field error #%zu", i);
        idmint_uuid u;
        CHECK(v->custom_b <= UINT16_MAX);
        EXPECT(idmint_uuid8_from_fields(v->custom_a, (uint16_t)v->custom_b, v->custom_c, &u),
               v->status, v->message);
    }
    for (size_t i = 0; i < V_N_V6_GENS; i++) {
        const v_v6_gen *v = &V_V6_GENS[i];
        idmint_named_generator *g = NULL;
        CTX("v6 generator #%zu", i);
        if (!OK(idmint_named_generator_new("type=uuid6", &g))) continue;
        idmint_named_type kind;
        if (OK(idmint_named_generator_kind(g, &kind))) CHECK(kind == IDMINT_NAMED_UUID6);
        const uint8_t *rnd = (const uint8_t *)v->random;
        size_t left = v->random_len;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_v6_step *s = &v->steps[k];
            CTX("v6 generator #%zu step %zu", i, k);
            idmint_generated_id id;
            size_t used = 99;
            if (!OK(idmint_named_generator_next_at(g, s->unix_ms, rnd, left, &id, &used, NULL)))
                continue;
            rnd += used;
            left -= used;
            CHECK(id.is_uuid && uuid_is(&id.uuid, s->uuid));
        }
        CHECK(left == 0);
        idmint_named_generator_free(g);
    }
    for (size_t i = 0; i < V_N_V7_METHODS; i++) {
        const v_v7_method *v = &V_V7_METHODS[i];
        idmint_uuid7_generator *g = NULL;
        idmint_uuid7_method m = 99, got = 99;
        CTX("v7 method %s", v->method);
        if (!OK(idmint_uuid7_method_from_name(v->method, &m))) continue;
        if (!OK(idmint_uuid7_generator_new_with_method(m, &g))) continue;
        if (OK(idmint_uuid7_generator_method(g, &got))) CHECK(got == m);
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_v7m_step *s = &v->steps[k];
            CTX("v7 method %s step %zu", v->method, k);
            idmint_uuid u;
            if (OK(idmint_uuid7_generator_next_at_precise(g, s->unix_ms, s->sub_ms_nanos,
                                                             (const uint8_t *)s->random,
                                                             s->random_len, &u)))
                CHECK(uuid_is(&u, s->uuid));
        }
        idmint_uuid7_generator_free(g);
        /* The default method is the counter: the core's clocked generator replays it too. */
        if (m == IDMINT_UUID7_COUNTER && OK(idmint_uuid7_generator_new(&g))) {
            if (OK(idmint_uuid7_generator_method(g, &got))) CHECK(got == IDMINT_UUID7_COUNTER);
            for (size_t k = 0; k < v->n_steps; k++) {
                const v_v7m_step *s = &v->steps[k];
                CTX("v7 clocked counter step %zu", k);
                idmint_uuid u;
                if (OK(idmint_uuid7_generator_next_at_precise(g, s->unix_ms, s->sub_ms_nanos,
                                                                 (const uint8_t *)s->random,
                                                                 s->random_len, &u)))
                    CHECK(uuid_is(&u, s->uuid));
            }
            idmint_uuid7_generator_free(g);
        }
    }
}

static void test_typeid_ulid_vectors(void) {
    for (size_t i = 0; i < V_N_TYPEID_PARSES; i++) {
        const v_typeid_parse *v = &V_TYPEID_PARSES[i];
        CTX("typeid parse '%s' (%s)", v->text, v->name);
        char prefix[IDMINT_TYPEID_PREFIX_SIZE];
        size_t plen = 999;
        idmint_uuid u;
        if (!EXPECT(idmint_typeid_parse(v->text, prefix, sizeof prefix, &plen, &u), v->status,
                    v->message) ||
            v->status != IDMINT_OK)
            continue;
        CHECK(strcmp(prefix, v->prefix) == 0 && plen == strlen(v->prefix));
        CHECK(uuid_is(&u, v->uuid));
        /* Back to the same text. */
        typeid_of(v->prefix, v->uuid, v->text);
    }
    for (size_t i = 0; i < V_N_TYPEID_ENCODES; i++) {
        const v_typeid_encode *v = &V_TYPEID_ENCODES[i];
        CTX("typeid encode '%s' %s", v->prefix, v->uuid);
        if (v->status == IDMINT_OK) {
            typeid_of(v->prefix, v->uuid, v->typeid);
            continue;
        }
        idmint_uuid u;
        char buf[IDMINT_TYPEID_STR_SIZE] = "x";
        if (!OK(idmint_uuid_parse(v->uuid, &u))) continue;
        EXPECT(idmint_typeid_format(v->prefix, &u, buf, sizeof buf, NULL), v->status, v->message);
        char ignored[IDMINT_TYPEID_STR_SIZE];
        EXPECT(idmint_typeid(v->prefix, ignored, sizeof ignored, NULL), v->status, v->message);
    }
    for (size_t i = 0; i < V_N_TYPEID_GENS; i++) {
        /* TypeIdGenerator(prefix) is the prefix over a counter-method v7 generator. */
        const v_typeid_gen *v = &V_TYPEID_GENS[i];
        idmint_uuid7_generator *g = NULL;
        CTX("typeid generator '%s'", v->prefix);
        if (!OK(idmint_uuid7_generator_new(&g))) continue;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_typeid_step *s = &v->steps[k];
            CTX("typeid generator '%s' step %zu", v->prefix, k);
            idmint_uuid u;
            char buf[IDMINT_TYPEID_STR_SIZE];
            if (OK(idmint_uuid7_generator_next_at(g, s->unix_ms, (const uint8_t *)s->random,
                                                     s->random_len, &u)) &&
                OK(idmint_typeid_format(v->prefix, &u, buf, sizeof buf, NULL)))
                CHECK(strcmp(buf, s->typeid) == 0);
        }
        idmint_uuid7_generator_free(g);
    }
    for (size_t i = 0; i < V_N_ULID_DECODES; i++) {
        const v_ulid_decode *v = &V_ULID_DECODES[i];
        CTX("ulid parse '%s'", v->text);
        idmint_ulid u;
        uint64_t ms = 1;
        if (!EXPECT(idmint_ulid_parse(v->text, &u, &ms), v->status, v->message) ||
            v->status != IDMINT_OK)
            continue;
        CHECK(ulid_is(&u, v->ulid));
        CHECK(ms == v->timestamp_ms);
        CHECK(memcmp(u.bytes + 6, v->random, 10) == 0);
        idmint_uuid as_uuid;
        memcpy(as_uuid.bytes, u.bytes, 16);
        CHECK(uuid_is(&as_uuid, v->uuid));
        uint64_t ts = 0;
        if (OK(idmint_ulid_timestamp_ms(&u, &ts))) CHECK(ts == v->timestamp_ms);
        if (OK(idmint_ulid_parse(v->text, &u, NULL))) CHECK(ulid_is(&u, v->ulid));
    }
    for (size_t i = 0; i < V_N_ULID_ENCODES; i++) {
        const v_ulid_encode *v = &V_ULID_ENCODES[i];
        CTX("ulid encode %s", v->ulid);
        idmint_ulid u;
        if (OK(idmint_ulid_at(v->timestamp_ms, (const uint8_t *)v->random, v->random_len, &u)))
            CHECK(ulid_is(&u, v->ulid));
    }
    for (size_t i = 0; i < V_N_ULID_GENS; i++) {
        const v_ulid_gen *v = &V_ULID_GENS[i];
        idmint_ulid_generator *g = NULL;
        CTX("ulid generator #%zu", i);
        if (!OK(idmint_ulid_generator_new(&g))) continue;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_ulid_step *s = &v->steps[k];
            CTX("ulid generator #%zu step %zu", i, k);
            idmint_ulid u;
            uint64_t until = 1;
            if (EXPECT(idmint_ulid_generator_next_at(g, s->unix_ms, (const uint8_t *)s->random,
                                                     s->random_len, &u, &until),
                       s->status, s->message)) {
                CHECK(until == s->until_ms);
                if (s->status == IDMINT_OK) CHECK(ulid_is(&u, s->ulid));
            }
        }
        idmint_ulid_generator_free(g);
    }
}

/* formats.json's KSUID cases: segmentio/ksuid's examples, encodes, generator scripts, and the
 * texts the CLI and the service read as a KSUID. */
static bool ksuid_is(const idmint_ksuid *k, const char *text) {
    char buf[IDMINT_KSUID_STR_SIZE];
    if (idmint_ksuid_format(k, buf, sizeof buf) != IDMINT_OK) return false;
    return strcmp(buf, text) == 0;
}

static void test_any_id_vectors(void) {
    for (size_t i = 0; i < V_N_ANY_IDS; i++) {
        const v_any_id *v = &V_ANY_IDS[i];
        CTX("parse_any '%s' codec %u", v->text, (unsigned)v->codec);
        idmint_any_id a;
        memset(&a, 0xa5, sizeof a);
        if (!EXPECT(idmint_parse_any(v->text, v->codec, &a), v->status, v->message) ||
            v->status != IDMINT_OK)
            continue;
        CHECK(a.kind == v->kind);
        CHECK(a.id == v->id);
        static const uint8_t zero[20];
        const uint8_t *u = a.kind == IDMINT_ANY_ID_KSUID ? zero : a.uuid.bytes;
        const uint8_t *k = a.kind == IDMINT_ANY_ID_KSUID ? a.ksuid.bytes : zero;
        if (v->bytes_len == 20) CHECK(memcmp(k, v->bytes, 20) == 0);
        else CHECK(memcmp(k, zero, 20) == 0);
        if (v->bytes_len == 16) CHECK(memcmp(u, v->bytes, 16) == 0);
        else CHECK(memcmp(u, zero, 16) == 0);
        CHECK(strcmp(a.prefix, v->prefix) == 0);
        CHECK(a.has_unix_ms == v->has_unix_ms);
        CHECK(a.unix_ms == v->unix_ms);
    }
    idmint_any_id a;
    EXPECT(idmint_parse_any(NULL, IDMINT_CODEC_AUTO, &a), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_parse_any("42", IDMINT_CODEC_AUTO, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_parse_any("42", 99, &a), IDMINT_BAD_C_ARGUMENT, NULL);
    EXPECT(idmint_parse_any("\xff\xfe", IDMINT_CODEC_AUTO, &a), IDMINT_BAD_C_ARGUMENT, NULL);
}

static void test_ksuid_vectors(void) {
    for (size_t i = 0; i < V_N_KSUID_DECODES; i++) {
        const v_ksuid_decode *v = &V_KSUID_DECODES[i];
        CTX("ksuid parse '%s'", v->text);
        idmint_ksuid k;
        uint64_t ms = 1;
        if (!EXPECT(idmint_ksuid_parse(v->text, &k, &ms), v->status, v->message) ||
            v->status != IDMINT_OK)
            continue;
        CHECK(ksuid_is(&k, v->ksuid));
        if (v->bytes == NULL) continue;
        CHECK(ms == v->unix_ms);
        CHECK(memcmp(k.bytes, v->bytes, 20) == 0);
        uint64_t ts = 0;
        if (OK(idmint_ksuid_unix_ms(&k, &ts))) CHECK(ts == v->unix_ms);
    }
    for (size_t i = 0; i < V_N_KSUID_ENCODES; i++) {
        const v_ksuid_encode *v = &V_KSUID_ENCODES[i];
        CTX("ksuid encode %s", v->ksuid);
        idmint_ksuid k;
        if (OK(idmint_ksuid_at(v->unix_ms, (const uint8_t *)v->payload, v->payload_len, &k)))
            CHECK(ksuid_is(&k, v->ksuid));
    }
    for (size_t i = 0; i < V_N_KSUID_GENS; i++) {
        const v_ksuid_gen *v = &V_KSUID_GENS[i];
        idmint_ksuid_generator *g = NULL;
        CTX("ksuid generator #%zu", i);
        if (!OK(idmint_ksuid_generator_new(&g))) continue;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_ksuid_step *s = &v->steps[k];
            CTX("ksuid generator #%zu step %zu", i, k);
            idmint_ksuid out;
            uint64_t until = 1;
            if (EXPECT(idmint_ksuid_generator_next_at(g, s->unix_ms, (const uint8_t *)s->random,
                                                      s->random_len, &out, &until),
                       s->status, s->message)) {
                CHECK(until == s->until_ms);
                if (s->status == IDMINT_OK) CHECK(ksuid_is(&out, s->ksuid));
            }
        }
        idmint_ksuid_generator_free(g);
    }
    /* The clocked one increases. */
    CTX("idmint_ksuid_generate");
    idmint_ksuid a, b;
    if (OK(idmint_ksuid_generate(&a)) && OK(idmint_ksuid_generate(&b)))
        CHECK(memcmp(a.bytes, b.bytes, 20) < 0);
}

/* The clocked formats, and bad arguments: NULL pointers, short buffers (with the size needed),
 * wrong lengths, unknown constants and a prefix that is not UTF-8. */
static void test_formats_clocked_and_bad_arguments(void) {
    CTX("formats clocked");
    idmint_uuid a, b, many[300];
    idmint_uuid_info info;
    if (OK(idmint_uuid6(&a)) && OK(idmint_uuid6(&b))) {
        CHECK(memcmp(b.bytes, a.bytes, 16) > 0);
        if (OK(idmint_uuid_inspect(&a, &info)))
            CHECK(info.version == 6 && info.has_unix_ms && info.unix_ms + 60000 > wall_ms());
    }
    if (OK(idmint_uuid1(&a)) && OK(idmint_uuid1(&b))) {
        CHECK(memcmp(b.bytes, a.bytes, 16) != 0);
        CHECK((a.bytes[10] & 1) == 1); /* a random multicast node, not a MAC address */
        if (OK(idmint_uuid_inspect(&a, &info)))
            CHECK(info.version == 1 && info.has_unix_ms && info.unix_ms + 60000 > wall_ms());
    }
    if (OK(idmint_uuid7s(many, 300))) {
        bool up = true;
        for (int i = 1; i < 300; i++) up = up && memcmp(many[i].bytes, many[i - 1].bytes, 16) > 0;
        CHECK(up);
        if (OK(idmint_uuid7(&a))) CHECK(memcmp(a.bytes, many[299].bytes, 16) > 0);
    }
    OK(idmint_uuid7s(NULL, 0));
    EXPECT(idmint_uuid7s(NULL, 1), IDMINT_NULL_POINTER,
           "null pointer: `out_uuids` must not be NULL");
    EXPECT(idmint_uuid7s(many, (size_t)IDMINT_MAX_BATCH + 1), IDMINT_LIMIT_EXCEEDED, NULL);
    for (idmint_uuid7_method m = 0; m < 3; m++) {
        idmint_uuid7_generator *g = NULL;
        CTX("v7 method %u clocked", m);
        if (!OK(idmint_uuid7_generator_new_with_method(m, &g))) continue;
        bool up = true;
        OK(idmint_uuid7_generator_next(g, &a));
        for (int i = 0; i < 2000; i++) {
            up = up && idmint_uuid7_generator_next(g, &b) == IDMINT_OK &&
                 memcmp(b.bytes, a.bytes, 16) > 0;
            a = b;
        }
        CHECK(up);
        if (OK(idmint_uuid_inspect(&a, &info)))
            CHECK(info.version == 7 && info.unix_ms + 60000 > wall_ms());
        idmint_uuid7_generator_free(g);
    }

    char buf[IDMINT_TYPEID_STR_SIZE];
    size_t len = 0;
    CTX("typeid clocked");
    if (OK(idmint_typeid("user", buf, sizeof buf, &len))) {
        CHECK(len == 31 && strncmp(buf, "user_", 5) == 0);
        char prefix[IDMINT_TYPEID_PREFIX_SIZE];
        if (OK(idmint_typeid_parse(buf, prefix, sizeof prefix, NULL, &a))) {
            CHECK(strcmp(prefix, "user") == 0);
            if (OK(idmint_uuid_inspect(&a, &info))) CHECK(info.version == 7);
        }
    }
    if (OK(idmint_typeid("", buf, sizeof buf, &len))) CHECK(len == 26 && strlen(buf) == 26);
    CTX("typeid bad arguments");
    EXPECT(idmint_typeid(NULL, buf, sizeof buf, NULL), IDMINT_NULL_POINTER,
           "null pointer: `prefix` must not be NULL");
    EXPECT(idmint_typeid("pr\xe9", buf, sizeof buf, NULL), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `prefix` is not valid UTF-8 (at byte 2)");
    EXPECT(idmint_typeid_format("pr\xff", &a, buf, sizeof buf, NULL), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `prefix` is not valid UTF-8 (at byte 2)");
    EXPECT(idmint_typeid_format("user", NULL, buf, sizeof buf, NULL), IDMINT_NULL_POINTER,
           "null pointer: `uuid` must not be NULL");
    /* A short buffer: IDMINT_BUFFER_TOO_SMALL with the size needed; "" in the buffer. */
    len = 0;
    strcpy(buf, "junk");
    EXPECT(idmint_typeid("user", buf, 31, &len), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 32 bytes");
    CHECK(len == 31 && buf[0] == '\0');
    len = 0;
    EXPECT(idmint_typeid_format("user", &a, NULL, 0, &len), IDMINT_BUFFER_TOO_SMALL, NULL);
    CHECK(len == 31);
    EXPECT(idmint_typeid_format("user", &a, NULL, 5, NULL), IDMINT_NULL_POINTER, NULL);
    idmint_uuid keep = idmint_uuid_max(), u = keep;
    char small[4] = "abc";
    len = 0;
    EXPECT(idmint_typeid_parse("user_01h455vb4pex5vsknk084sn02q", small, sizeof small, &len, &u),
           IDMINT_BUFFER_TOO_SMALL, "buffer too small: need 5 bytes");
    CHECK(len == 4 && small[0] == '\0' && memcmp(u.bytes, keep.bytes, 16) == 0);
    char prefix[IDMINT_TYPEID_PREFIX_SIZE];
    EXPECT(idmint_typeid_parse(NULL, prefix, sizeof prefix, NULL, &u), IDMINT_NULL_POINTER,
           "null pointer: `text` must not be NULL");
    EXPECT(idmint_typeid_parse("user_01h455vb4pex5vsknk084sn02q", prefix, sizeof prefix, NULL,
                               NULL),
           IDMINT_NULL_POINTER, "null pointer: `out_uuid` must not be NULL");
    EXPECT(idmint_typeid_parse("us\xc3r_01h455vb4pex5vsknk084sn02q", prefix, sizeof prefix, NULL,
                               &u),
           IDMINT_BAD_C_ARGUMENT, "invalid argument: `text` is not valid UTF-8 (at byte 2)");
    /* A 63-character prefix fills IDMINT_TYPEID_MAX_LEN exactly. */
    char longest[64];
    memset(longest, 'a', 63);
    longest[63] = '\0';
    if (OK(idmint_typeid_format(longest, &keep, buf, sizeof buf, &len)))
        CHECK(len == IDMINT_TYPEID_MAX_LEN && strlen(buf) == IDMINT_TYPEID_MAX_LEN);
    if (OK(idmint_typeid_parse(buf, prefix, sizeof prefix, &len, &u)))
        CHECK(len == 63 && strcmp(prefix, longest) == 0 && memcmp(u.bytes, keep.bytes, 16) == 0);

    CTX("ulid clocked");
    idmint_ulid x, y;
    char text[IDMINT_ULID_STR_SIZE];
    if (OK(idmint_ulid_generate(&x)) && OK(idmint_ulid_generate(&y))) {
        CHECK(memcmp(y.bytes, x.bytes, 16) > 0);
        uint64_t ms = 0;
        if (OK(idmint_ulid_timestamp_ms(&x, &ms))) CHECK(ms <= wall_ms() && ms + 60000 > wall_ms());
        if (OK(idmint_ulid_format(&x, text, sizeof text))) {
            CHECK(strlen(text) == IDMINT_ULID_LEN);
            idmint_ulid back;
            if (OK(idmint_ulid_parse(text, &back, NULL))) CHECK(memcmp(back.bytes, x.bytes, 16) == 0);
        }
    }
    CTX("ulid bad arguments");
    EXPECT(idmint_ulid_generate(NULL), IDMINT_NULL_POINTER, "null pointer: `out_ulid` must not be NULL");
    strcpy(text, "junk");
    EXPECT(idmint_ulid_format(&x, text, IDMINT_ULID_LEN), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 27 bytes");
    CHECK(text[0] == '\0');
    EXPECT(idmint_ulid_format(NULL, text, sizeof text), IDMINT_NULL_POINTER,
           "null pointer: `ulid` must not be NULL");
    EXPECT(idmint_ulid_parse(NULL, &x, NULL), IDMINT_NULL_POINTER,
           "null pointer: `text` must not be NULL");
    EXPECT(idmint_ulid_parse("01ARYZ6S41YYYYYYYYYYYYYYYY", NULL, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_ulid` must not be NULL");
    EXPECT(idmint_ulid_parse("\xff", &x, NULL), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `text` is not valid UTF-8 (at byte 0)");
    const uint8_t r[10] = {0};
    EXPECT(idmint_ulid_at(0, r, 9, &x), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: a ULID takes exactly 10 random bytes");
    EXPECT(idmint_ulid_at(0, NULL, 10, &x), IDMINT_NULL_POINTER,
           "null pointer: `random` must not be NULL");
    if (OK(idmint_ulid_at(UINT64_MAX, r, 10, &x))) CHECK(ulid_is(&x, "7ZZZZZZZZZ0000000000000000"));
    idmint_ulid_generator *ug = NULL;
    EXPECT(idmint_ulid_generator_new(NULL), IDMINT_NULL_POINTER, NULL);
    if (OK(idmint_ulid_generator_new(&ug))) {
        EXPECT(idmint_ulid_generator_next_at(NULL, 1, r, 10, &x, NULL), IDMINT_NULL_POINTER,
               "null pointer: `gen` must not be NULL");
        EXPECT(idmint_ulid_generator_next_at(ug, 1, r, 10, NULL, NULL), IDMINT_NULL_POINTER,
               "null pointer: `out_ulid` must not be NULL");
        EXPECT(idmint_ulid_generator_next_at(ug, 1, r, 11, &x, NULL), IDMINT_BAD_C_ARGUMENT,
               "invalid argument: a ULID takes exactly 10 random bytes");
        OK(idmint_ulid_generator_next_at(ug, 1, r, 10, &x, NULL));
        idmint_ulid_generator_free(ug);
    }
    idmint_ulid_generator_free(NULL);

    CTX("uuid format bad arguments");
    const uint8_t node[6] = {1, 2, 3, 4, 5, 6}, sixteen[16] = {0};
    EXPECT(idmint_uuid6(NULL), IDMINT_NULL_POINTER, "null pointer: `out_uuid` must not be NULL");
    EXPECT(idmint_uuid1(NULL), IDMINT_NULL_POINTER, "null pointer: `out_uuid` must not be NULL");
    EXPECT(idmint_uuid6_at(1, 2, node, 5, &a), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: v6 takes a node of exactly 6 bytes");
    EXPECT(idmint_uuid6_at(1, 2, NULL, 6, &a), IDMINT_NULL_POINTER,
           "null pointer: `node` must not be NULL");
    EXPECT(idmint_uuid8(sixteen, 15, &a), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: v8 takes exactly 16 bytes");
    EXPECT(idmint_uuid8(sixteen, 16, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_uuid` must not be NULL");
    EXPECT(idmint_uuid1_to_uuid6(NULL, &a), IDMINT_NULL_POINTER,
           "null pointer: `uuid` must not be NULL");
    EXPECT(idmint_uuid6_to_uuid1(&a, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_uuid` must not be NULL");
    idmint_uuid8_custom f;
    idmint_uuid nil = idmint_uuid_nil();
    EXPECT(idmint_uuid8_fields(&nil, &f), IDMINT_INVALID_ARGUMENT,
           "invalid argument `uuid`: not a version 8 UUID");
    EXPECT(idmint_uuid8_fields(&nil, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_fields` must not be NULL");
    idmint_uuid7_generator *g = (idmint_uuid7_generator *)&g;
    EXPECT(idmint_uuid7_generator_new_with_method(3, &g), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: unknown v7 method constant (use IDMINT_UUID7_*)");
    CHECK(g == NULL);
    EXPECT(idmint_uuid7_generator_new_with_method(0, NULL), IDMINT_NULL_POINTER, NULL);
    idmint_uuid7_method m;
    EXPECT(idmint_uuid7_method_from_name("fast", &m), IDMINT_INVALID_CONFIG,
           "invalid config: unknown UUID v7 method (counter, random_increment, sub_millisecond)");
    EXPECT(idmint_uuid7_method_from_name(NULL, &m), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid7_generator_method(NULL, &m), IDMINT_NULL_POINTER,
           "null pointer: `gen` must not be NULL");
    if (OK(idmint_uuid7_generator_new_with_method(IDMINT_UUID7_SUB_MILLISECOND, &g))) {
        EXPECT(idmint_uuid7_generator_next_at_precise(g, 1, 0, r, 9, &a),
               IDMINT_BAD_C_ARGUMENT, "invalid argument: v7 takes exactly 10 random bytes");
        EXPECT(idmint_uuid7_generator_next_at_precise(g, 1, 0, r, 10, NULL),
               IDMINT_NULL_POINTER, "null pointer: `out_uuid` must not be NULL");
        EXPECT(idmint_uuid7_generator_next_at(g, 1, r, 9, &a), IDMINT_BAD_C_ARGUMENT, NULL);
        /* Past 999999 ns the fraction is clamped: the last step of the millisecond. */
        if (OK(idmint_uuid7_generator_next_at_precise(g, 5, 5000000, r, 10, &a)))
            CHECK(a.bytes[6] == 0x7f && a.bytes[7] == 0xff);
        idmint_uuid7_generator_free(g);
    }
}

/* named.json: each config builds a generator whose steps draw their random bytes from one
 * stream, front to back; invalid configs fail with the exact status and message. */
static void test_named_vectors(void) {
    for (size_t i = 0; i < V_N_NAMED; i++) {
        const v_named *v = &V_NAMED[i];
        CTX("named '%s'", v->config);
        idmint_named_generator *g = NULL;
        if (!OK(idmint_named_generator_new(v->config, &g))) continue;
        idmint_named_type kind = (idmint_named_type)99;
        OK(idmint_named_generator_kind(g, &kind));
        CHECK(kind == v->kind);
        char text[512];
        size_t len = 0;
        if (OK(idmint_named_generator_config(g, text, sizeof text, &len)))
            CHECK(strcmp(text, v->canonical) == 0 && len == strlen(v->canonical));
        /* The canonical form parses back to the same config. */
        idmint_named_generator *again = NULL;
        if (OK(idmint_named_generator_new(v->canonical, &again)) &&
            OK(idmint_named_generator_config(again, text, sizeof text, NULL)))
            CHECK(strcmp(text, v->canonical) == 0);
        idmint_named_generator_free(again);

        size_t used = 0;
        for (size_t k = 0; k < v->n_steps; k++) {
            const v_named_step *s = &v->steps[k];
            CTX("named '%s' step %zu", v->config, k);
            idmint_generated_id id = {false, 12345, {{0}}};
            size_t step_used = 99;
            uint64_t until = 12345;
            if (!EXPECT(idmint_named_generator_next_at(g, s->now_ms, (const uint8_t *)v->random + used,
                                                       v->random_len - used, &id, &step_used,
                                                       &until),
                        s->status, s->message))
                continue;
            CHECK(until == s->until_ms);
            CHECK(step_used <= v->random_len - used);
            used += step_used;
            if (s->status != IDMINT_OK)
                CHECK(step_used == 0);
            else if (s->uuid)
                CHECK(id.is_uuid && id.id == 0 && uuid_is(&id.uuid, s->uuid));
            else
                CHECK(!id.is_uuid && id.id == s->id);
        }
        CTX("named '%s'", v->config);
        CHECK(used == v->random_used);
        idmint_named_generator_free(g);
    }
    for (size_t i = 0; i < V_N_NAMED_INVALID; i++) {
        const v_named_invalid *v = &V_NAMED_INVALID[i];
        CTX("named invalid '%s'", v->config);
        idmint_named_generator *g = (idmint_named_generator *)&ctx; /* must become NULL */
        /* An ERR_NODE_REQUIRED message is the core's text and then how to choose a node in C. */
        bool prefix = v->status == IDMINT_NODE_REQUIRED;
        if (EXPECT(idmint_named_generator_new(v->config, &g), v->status, prefix ? NULL : v->message) &&
            prefix)
            CHECK(strncmp(idmint_last_error_message(), v->message, strlen(v->message)) == 0);
        CHECK(g == NULL);
    }
}

static void test_obfuscation_vectors(void) {
    for (size_t i = 0; i < V_N_OBFS; i++) {
        const v_obf *v = &V_OBFS[i];
        CTX("obfuscator #%zu (%s)", i, v->layout ? v->layout : "full");
        idmint_obfuscator *o = NULL;
        idmint_layout *l = NULL;
        if (v->layout) {
            if (!OK(idmint_layout_new(v->layout, &l))) continue;
            OK(idmint_obfuscator_new_sortable((const uint8_t *)v->key, 16, l, &o));
        } else {
            OK(idmint_obfuscator_new((const uint8_t *)v->key, 16, v->bits, &o));
        }
        for (size_t k = 0; o && k < v->n_cases; k++) {
            const v_obf_case *c = &v->cases[k];
            CTX("obfuscator #%zu case %" PRIu64, i, c->input);
            uint64_t out = 0, back = 0;
            if (!EXPECT(idmint_obfuscator_encode(o, c->input, &out), c->status, c->message))
                continue;
            if (c->status == IDMINT_OK) {
                CHECK(out == c->output);
                OK(idmint_obfuscator_decode(o, out, &back));
                CHECK(back == c->input);
            } else {
                EXPECT(idmint_obfuscator_decode(o, c->input, &back), c->status, c->message);
            }
        }
        idmint_obfuscator_free(o);
        idmint_layout_free(l);
    }
    for (size_t i = 0; i < V_N_OBF_INVALID; i++) {
        const v_obf_invalid *v = &V_OBF_INVALID[i];
        CTX("invalid obfuscator #%zu", i);
        idmint_obfuscator *o = (idmint_obfuscator *)&ctx;
        if (v->layout) {
            idmint_layout *l = NULL;
            if (OK(idmint_layout_new(v->layout, &l)))
                EXPECT(idmint_obfuscator_new_sortable((const uint8_t *)v->key, 16, l, &o), v->status,
                       v->message);
            idmint_layout_free(l);
        } else {
            EXPECT(idmint_obfuscator_new((const uint8_t *)v->key, 16, v->bits, &o), v->status,
                   v->message);
        }
        CHECK(o == NULL);
    }
}

/* ---------------------------------------------------------------------------------------- */

/* Every function with NULLs, bad UTF-8, short buffers, bad constants and misaligned pointers. */
static void test_bad_arguments(void) {
    static const char bad_utf8[] = {'t', 'w', (char)0xff, 'x', 0};
    const char *null_msg_layout = "null pointer: `layout` must not be NULL";
    idmint_layout *l = NULL;
    uint64_t u = 0;
    uint64_t arr[4] = {0};
    size_t n = 0;
    char buf[64];

    CTX("layout arguments");
    EXPECT(idmint_layout_new(NULL, &l), IDMINT_NULL_POINTER,
           "null pointer: `preset_or_spec` must not be NULL");
    CHECK(l == NULL);
    EXPECT(idmint_layout_new("twitter", NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_layout` must not be NULL");
    EXPECT(idmint_layout_new(bad_utf8, &l), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `preset_or_spec` is not valid UTF-8 (at byte 2)");
    EXPECT(idmint_layout_new("martian", &l), IDMINT_INVALID_LAYOUT, NULL);
    EXPECT(idmint_layout_new("time=41@1ms,worker=10,seq=x", &l), IDMINT_INVALID_LAYOUT,
           "invalid spec at byte 26: expected a number of bits");
    idmint_layout_free(NULL);
    if (!OK(idmint_layout_new("twitter", &l))) return;

    idmint_layout_info info;
    idmint_parts parts = {1, 2, 3, 0};
    idmint_field fld;
    EXPECT(idmint_layout_get_info(NULL, &info), IDMINT_NULL_POINTER, null_msg_layout);
    EXPECT(idmint_layout_get_info(l, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_width(NULL, (uint32_t *)&u), IDMINT_NULL_POINTER, null_msg_layout);
    EXPECT(idmint_layout_width(l, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_is_js_safe(NULL, (bool *)buf), IDMINT_NULL_POINTER, null_msg_layout);
    EXPECT(idmint_layout_is_js_safe(l, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_lifetime_end_ms(NULL, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_lifetime_end_ms(l, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_capacity_per_second(NULL, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_capacity_per_second(l, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_compose(NULL, &parts, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_compose(l, NULL, &u), IDMINT_NULL_POINTER,
           "null pointer: `parts` must not be NULL");
    EXPECT(idmint_layout_compose(l, &parts, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_id` must not be NULL");
    parts.node = 1024;
    EXPECT(idmint_layout_compose(l, &parts, &u), IDMINT_OUT_OF_RANGE,
           "value 1024 does not fit field `node` (max 1023)");
    EXPECT(idmint_layout_decompose(NULL, 1, &parts), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_decompose(l, 1, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_decompose(l, UINT64_MAX, &parts), IDMINT_OUT_OF_RANGE, NULL);
    EXPECT(idmint_layout_timestamp_ms(NULL, 1, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_timestamp_ms(l, 1, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_tick_at(NULL, 1, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_tick_at(l, 1, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_field(NULL, 0, &fld), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_field(l, 0, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_field(l, 4, &fld), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: field index is not below the layout's field count");
    EXPECT(idmint_layout_field(l, SIZE_MAX, &fld), IDMINT_BAD_C_ARGUMENT, NULL);
    /* Text output: NULL layout, size query, short buffer, exact fit. */
    EXPECT(idmint_layout_spec(NULL, buf, sizeof buf, &n), IDMINT_NULL_POINTER, null_msg_layout);
    n = 0;
    EXPECT(idmint_layout_spec(l, NULL, 0, &n), IDMINT_BUFFER_TOO_SMALL, NULL);
    size_t need = n;
    CHECK(need == strlen("time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2010-11-04T01:42:54.657Z"));
    char want_msg[64];
    snprintf(want_msg, sizeof want_msg, "buffer too small: need %zu bytes", need + 1);
    CHECK(last_is(want_msg));
    EXPECT(idmint_layout_spec(l, NULL, 10, &n), IDMINT_NULL_POINTER,
           "null pointer: `buf` must not be NULL");
    memset(buf, 'x', sizeof buf);
    EXPECT(idmint_layout_spec(l, buf, need, &n), IDMINT_BUFFER_TOO_SMALL, want_msg);
    CHECK(buf[0] == '\0' && buf[1] == 'x' && n == need);
    char *exact = malloc(need + 1);
    OK(idmint_layout_spec(l, exact, need + 1, NULL));
    CHECK(strlen(exact) == need);
    free(exact);
    EXPECT(idmint_layout_preset_name(NULL, buf, sizeof buf, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_preset_name(l, buf, 7, NULL), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 8 bytes");
    OK(idmint_layout_preset_name(l, buf, 8, NULL));
    CHECK(strcmp(buf, "twitter") == 0);
    /* Node helpers. */
    EXPECT(idmint_layout_split_node(NULL, 0, arr, 4, &n), IDMINT_NULL_POINTER, NULL);
    n = 0;
    EXPECT(idmint_layout_split_node(l, 33, arr, 1, &n), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 16 bytes");
    CHECK(n == 2);
    EXPECT(idmint_layout_split_node(l, 33, NULL, 2, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_values` must not be NULL");
    EXPECT(idmint_layout_split_node(l, 1024, arr, 4, NULL), IDMINT_OUT_OF_RANGE,
           "value 1024 does not fit field `node` (max 1023)");
    EXPECT(idmint_layout_split_node(l, UINT64_MAX, arr, 4, NULL), IDMINT_OUT_OF_RANGE,
           "value 18446744073709551615 does not fit field `node` (max 1023)");
    OK(idmint_layout_split_node(l, 1023, arr, 2, NULL));
    CHECK(arr[0] == 31 && arr[1] == 31);
    OK(idmint_layout_split_node(l, 33, arr, 2, NULL));
    CHECK(arr[0] == 1 && arr[1] == 1);
    EXPECT(idmint_layout_split_node(l, 33, (uint64_t *)((char *)arr + 1), 2, NULL),
           IDMINT_BAD_C_ARGUMENT, "invalid argument: `out_values` is not aligned for its type");
    uint64_t dcw[2] = {3, 7};
    EXPECT(idmint_layout_join_node(NULL, dcw, 2, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_join_node(l, NULL, 2, &u), IDMINT_NULL_POINTER,
           "null pointer: `values` must not be NULL");
    EXPECT(idmint_layout_join_node(l, dcw, 2, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_layout_join_node(l, dcw, 1, &u), IDMINT_INVALID_CONFIG,
           "invalid config: give one value per node sub-field");
    EXPECT(idmint_layout_join_node(l, NULL, 0, &u), IDMINT_INVALID_CONFIG, NULL);
    dcw[1] = 32;
    EXPECT(idmint_layout_join_node(l, dcw, 2, &u), IDMINT_OUT_OF_RANGE,
           "value 32 does not fit field `worker` (max 31)");
    dcw[1] = 7;
    OK(idmint_layout_join_node(l, dcw, 2, &u));
    CHECK(u == (3u << 5 | 7u));

    CTX("generator arguments");
    idmint_config cfg = {0};
    idmint_snowflake *g = NULL;
    idmint_atomic_snowflake *a = NULL;
    idmint_stats st;
    idmint_run run;
    const char *null_gen = "null pointer: `gen` must not be NULL";
    EXPECT(idmint_snowflake_new(NULL, &g), IDMINT_NULL_POINTER,
           "null pointer: `config` must not be NULL");
    EXPECT(idmint_snowflake_new(&cfg, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_gen` must not be NULL");
    cfg.has_node = 1;
    cfg.layout = bad_utf8;
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `config->layout` is not valid UTF-8 (at byte 2)");
    cfg.layout = "martian";
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_INVALID_LAYOUT, NULL);
    cfg.layout = NULL;
    cfg.on_backwards = bad_utf8;
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `config->on_backwards` is not valid UTF-8 (at byte 2)");
    cfg.on_backwards = "sometimes";
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_INVALID_CONFIG,
           "invalid config: on_backwards is fail, wait[:MS], logical[:MS], rollback_counter or "
           "ring[:TICKS]");
    cfg.on_backwards = NULL;
    cfg.on_exhausted = "never";
    EXPECT(idmint_atomic_snowflake_new(&cfg, &a), IDMINT_INVALID_CONFIG, NULL);
    cfg.on_exhausted = NULL;
    cfg.sequence_start = "one";
    EXPECT(idmint_atomic_snowflake_new(&cfg, &a), IDMINT_INVALID_CONFIG, NULL);
    cfg.sequence_start = NULL;
    cfg.node = 1024;
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_OUT_OF_RANGE,
           "value 1024 does not fit field `node` (max 1023)");
    cfg.node = 0;
    cfg.layout = "baidu"; /* its 28-bit seconds ran out on 2024-11-20 */
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_LAYOUT_EXPIRED, NULL);
    CHECK(strstr(idmint_last_error_message(), "2024-11-20") != NULL);
    cfg.layout = "time=41@1ms,worker=10,seq=12,epoch=2999-01-01";
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_BEFORE_EPOCH, NULL);
    cfg.layout = NULL;
    EXPECT(idmint_atomic_snowflake_new(NULL, &a), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_new(&cfg, NULL), IDMINT_NULL_POINTER, NULL);
    idmint_snowflake_free(NULL);
    idmint_atomic_snowflake_free(NULL);
    if (!OK(idmint_snowflake_new(&cfg, &g)) || !OK(idmint_atomic_snowflake_new(&cfg, &a))) return;

    EXPECT(idmint_snowflake_next_id(NULL, &u), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_next_id(g, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_id` must not be NULL");
    EXPECT(idmint_snowflake_next_id(g, (uint64_t *)((char *)arr + 4)), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `out_id` is not aligned for its type");
    EXPECT(idmint_snowflake_try_next_id(NULL, &u, NULL), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_try_next_id(g, NULL, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_snowflake_next_ids(NULL, arr, 4), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_next_ids(g, NULL, 4), IDMINT_NULL_POINTER,
           "null pointer: `out_ids` must not be NULL");
    EXPECT(idmint_snowflake_next_ids(g, arr, SIZE_MAX), IDMINT_LIMIT_EXCEEDED,
           "IDs in one call exceeds the limit of 16777216");
    OK(idmint_snowflake_next_ids(g, NULL, 0));
    EXPECT(idmint_snowflake_reserve(NULL, 1, &run), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_reserve(g, 1, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_snowflake_reserve(g, 0, &run), IDMINT_INVALID_CONFIG,
           "invalid config: reserve at least one ID");
    EXPECT(idmint_snowflake_next_id_at(NULL, 1, &u, NULL), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_next_id_at(g, 1, NULL, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_snowflake_next_id_at(g, 1, &u, NULL), IDMINT_BEFORE_EPOCH,
           "time 1 ms is before the layout epoch 1288834974657 ms (2010-11-04T01:42:54.657Z)");
    EXPECT(idmint_snowflake_set_node(NULL, 1), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_set_node(g, 5000), IDMINT_OUT_OF_RANGE,
           "value 5000 does not fit field `node` (max 1023)");
    EXPECT(idmint_snowflake_node(NULL, &u), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_node(g, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_snowflake_stats(NULL, &st), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_snowflake_stats(g, NULL), IDMINT_NULL_POINTER, NULL);
    idmint_layout *l2 = l;
    EXPECT(idmint_snowflake_layout(NULL, &l2), IDMINT_NULL_POINTER, null_gen);
    CHECK(l2 == NULL); /* out-handles are set to NULL on failure */
    EXPECT(idmint_snowflake_layout(g, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_snowflake_resync_clock(NULL), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_atomic_snowflake_next_id_at(NULL, 1, &u, NULL), IDMINT_NULL_POINTER, null_gen);
    EXPECT(idmint_atomic_snowflake_next_id_at(a, 1, NULL, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_reserve_at(NULL, 1, 1, &run, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_reserve_at(a, 1, 1, NULL, NULL), IDMINT_NULL_POINTER, NULL);
    n = 99;
    EXPECT(idmint_atomic_snowflake_next_ids_at(NULL, 1, arr, 4, &n, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_next_ids_at(a, 1, arr, 4, NULL, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_written` must not be NULL");
    EXPECT(idmint_atomic_snowflake_next_ids_at(a, 1, NULL, 4, &n, NULL), IDMINT_NULL_POINTER, NULL);
    CHECK(n == 0);
    OK(idmint_atomic_snowflake_next_ids_at(a, 1, NULL, 0, &n, NULL));
    CHECK(n == 0);
    EXPECT(idmint_atomic_snowflake_set_node(NULL, 1), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_set_node(a, 1024), IDMINT_OUT_OF_RANGE, NULL);
    EXPECT(idmint_atomic_snowflake_node(NULL, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_node(a, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_stats(NULL, &st), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_atomic_snowflake_stats(a, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_policy_normalize(NULL, "fail", buf, sizeof buf, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_policy_normalize("on_backwards", NULL, buf, sizeof buf, NULL),
           IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_policy_normalize("on_sundays", "fail", buf, sizeof buf, NULL),
           IDMINT_BAD_C_ARGUMENT,
           "invalid argument: policy is on_backwards, on_exhausted or sequence_start");
    EXPECT(idmint_policy_normalize("on_backwards", bad_utf8, buf, sizeof buf, NULL),
           IDMINT_BAD_C_ARGUMENT, NULL);
    EXPECT(idmint_policy_normalize("on_backwards", "wait", buf, 9, &n), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 10 bytes");
    CHECK(n == 9);
    idmint_snowflake_free(g);
    idmint_atomic_snowflake_free(a);

    CTX("codec arguments");
    idmint_codec c = 0;
    EXPECT(idmint_codec_from_name(NULL, &c), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_codec_from_name("hex", NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_codec_from_name("base64", &c), IDMINT_INVALID_CONFIG,
           "invalid config: unknown codec (decimal, hex, base32, base62)");
    EXPECT(idmint_codec_from_name(bad_utf8, &c), IDMINT_BAD_C_ARGUMENT, NULL);
    CHECK(OK(idmint_codec_from_name("AUTO", &c)) && c == IDMINT_CODEC_AUTO);
    CHECK(OK(idmint_codec_from_name("Hex", &c)) && c == IDMINT_CODEC_HEX);
    OK(idmint_codec_from_name("DEC", &c));
    CHECK(c == IDMINT_CODEC_DECIMAL);
    OK(idmint_codec_from_name("Auto", &c));
    CHECK(c == IDMINT_CODEC_AUTO);
    EXPECT(idmint_encode(1, 99, buf, sizeof buf, NULL), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: unknown codec constant (use IDMINT_CODEC_*)");
    EXPECT(idmint_encode(1, IDMINT_CODEC_AUTO, buf, sizeof buf, NULL), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: IDMINT_CODEC_AUTO only decodes");
    n = 0;
    EXPECT(idmint_encode(UINT64_MAX, IDMINT_CODEC_DECIMAL, NULL, 0, &n), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 21 bytes");
    CHECK(n == 20);
    EXPECT(idmint_encode(UINT64_MAX, IDMINT_CODEC_DECIMAL, buf, 20, NULL), IDMINT_BUFFER_TOO_SMALL,
           NULL);
    CHECK(buf[0] == '\0');
    EXPECT(idmint_encode(1, IDMINT_CODEC_HEX, NULL, 5, NULL), IDMINT_NULL_POINTER, NULL);
    OK(idmint_encode(UINT64_MAX, IDMINT_CODEC_DECIMAL, buf, 21, NULL));
    CHECK(strcmp(buf, "18446744073709551615") == 0);
    EXPECT(idmint_parse_id(NULL, IDMINT_CODEC_HEX, &u), IDMINT_NULL_POINTER,
           "null pointer: `text` must not be NULL");
    EXPECT(idmint_parse_id("ff", IDMINT_CODEC_HEX, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_parse_id("ff", 7, &u), IDMINT_BAD_C_ARGUMENT, NULL);
    EXPECT(idmint_parse_id(bad_utf8, IDMINT_CODEC_HEX, &u), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `text` is not valid UTF-8 (at byte 2)");
    EXPECT(idmint_parse_id("0x", IDMINT_CODEC_HEX, &u), IDMINT_INVALID_ENCODING,
           "cannot decode hex string at character 2: no digits after the 0x prefix");
    EXPECT(idmint_parse_id_n(NULL, 2, IDMINT_CODEC_HEX, &u), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_parse_id_n("ffzz", 2, IDMINT_CODEC_HEX, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_parse_id_n("\xff", 1, IDMINT_CODEC_HEX, &u), IDMINT_BAD_C_ARGUMENT, NULL);
    EXPECT(idmint_parse_id_n(NULL, 0, IDMINT_CODEC_DECIMAL, &u), IDMINT_INVALID_ENCODING,
           "cannot decode decimal string at character 0: empty input");
    OK(idmint_parse_id_n("ffzz", 2, IDMINT_CODEC_HEX, &u));
    CHECK(u == 255);

    CTX("uuid arguments");
    idmint_uuid uu, ns;
    idmint_uuid_info ui;
    idmint_uuid7_generator *vg = NULL;
    static const uint8_t rnd[16] = {0};
    OK(idmint_uuid_namespace("dns", &ns));
    CHECK(uuid_is(&ns, "6ba7b810-9dad-11d1-80b4-00c04fd430c8"));
    OK(idmint_uuid_namespace("url", &ns));
    CHECK(uuid_is(&ns, "6ba7b811-9dad-11d1-80b4-00c04fd430c8"));
    OK(idmint_uuid_namespace("oid", &ns));
    OK(idmint_uuid_namespace("x500", &ns));
    CHECK(uuid_is(&ns, "6ba7b814-9dad-11d1-80b4-00c04fd430c8"));
    EXPECT(idmint_uuid_namespace("DNS", &ns), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: namespace is dns, url, oid or x500");
    EXPECT(idmint_uuid_namespace(NULL, &ns), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid_namespace("dns", NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid4(NULL), IDMINT_NULL_POINTER, "null pointer: `out_uuid` must not be NULL");
    EXPECT(idmint_uuid7(NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid4_from_bytes(rnd, 15, &uu), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: v4 takes exactly 16 random bytes");
    EXPECT(idmint_uuid4_from_bytes(NULL, 16, &uu), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid4_from_bytes(rnd, 16, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid7_at(1, rnd, 16, &uu), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: v7 takes exactly 10 random bytes");
    EXPECT(idmint_uuid7_at(1, NULL, 10, &uu), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid7_at(1, rnd, 10, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid3(NULL, rnd, 1, &uu), IDMINT_NULL_POINTER,
           "null pointer: `ns` must not be NULL");
    EXPECT(idmint_uuid5(&ns, NULL, 1, &uu), IDMINT_NULL_POINTER,
           "null pointer: `name` must not be NULL");
    EXPECT(idmint_uuid5(&ns, rnd, 1, NULL), IDMINT_NULL_POINTER, NULL);
    OK(idmint_uuid5(&ns, NULL, 0, &uu)); /* empty name */
    EXPECT(idmint_uuid_parse(NULL, &uu), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid_parse("886313e1-3b8a-5372-9b90-0c9aee199e5d", NULL), IDMINT_NULL_POINTER,
           NULL);
    EXPECT(idmint_uuid_parse(bad_utf8, &uu), IDMINT_BAD_C_ARGUMENT, NULL);
    EXPECT(idmint_uuid_parse("886313e1-3b8a-5372-9b90-0c9aee199e5x", &uu), IDMINT_INVALID_ENCODING,
           "cannot decode uuid string at character 35: not a hexadecimal digit");
    EXPECT(idmint_uuid_format(NULL, buf, sizeof buf), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid_format(&uu, NULL, 37), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid_format(&uu, buf, 36), IDMINT_BUFFER_TOO_SMALL,
           "buffer too small: need 37 bytes");
    CHECK(buf[0] == '\0');
    EXPECT(idmint_uuid_inspect(NULL, &ui), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid_inspect(&uu, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid7_generator_new(NULL), IDMINT_NULL_POINTER, NULL);
    idmint_uuid7_generator_free(NULL);
    if (OK(idmint_uuid7_generator_new(&vg))) {
        EXPECT(idmint_uuid7_generator_next(NULL, &uu), IDMINT_NULL_POINTER, null_gen);
        EXPECT(idmint_uuid7_generator_next(vg, NULL), IDMINT_NULL_POINTER, NULL);
        EXPECT(idmint_uuid7_generator_next_at(NULL, 1, rnd, 10, &uu), IDMINT_NULL_POINTER, NULL);
        EXPECT(idmint_uuid7_generator_next_at(vg, 1, rnd, 9, &uu), IDMINT_BAD_C_ARGUMENT, NULL);
        EXPECT(idmint_uuid7_generator_next_at(vg, 1, rnd, 10, NULL), IDMINT_NULL_POINTER, NULL);
        idmint_uuid7_generator_free(vg);
    }
    EXPECT(idmint_uuid1_at(0, 0, rnd, 5, &uu), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: v1 takes a node of exactly 6 bytes");
    EXPECT(idmint_uuid1_at(0, 0, NULL, 6, &uu), IDMINT_NULL_POINTER,
           "null pointer: `node` must not be NULL");
    EXPECT(idmint_uuid1_at(0, 0, rnd, 6, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid1_random_node(0, 0, 0, rnd, 7, &uu), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: v1 takes a node of exactly 6 bytes");
    EXPECT(idmint_uuid1_random_node(0, 0, 0, NULL, 6, &uu), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_uuid1_random_node(0, 0, 0, rnd, 6, NULL), IDMINT_NULL_POINTER, NULL);
    /* Extra ticks are clamped to the millisecond: 9999 and 65535 give the same UUID. */
    idmint_uuid v1a, v1b;
    OK(idmint_uuid1_random_node(1700000000000u, 9999, 0, rnd, 6, &v1a));
    OK(idmint_uuid1_random_node(1700000000000u, UINT16_MAX, 0, rnd, 6, &v1b));
    CHECK(memcmp(&v1a, &v1b, sizeof v1a) == 0);

    CTX("named generator arguments");
    idmint_named_generator *ng = (idmint_named_generator *)&ctx;
    idmint_generated_id gid, gid2;
    idmint_named_type nt = (idmint_named_type)99;
    EXPECT(idmint_named_generator_new(NULL, &ng), IDMINT_NULL_POINTER,
           "null pointer: `config` must not be NULL");
    CHECK(ng == NULL);
    EXPECT(idmint_named_generator_new("type=uuid4", NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_gen` must not be NULL");
    EXPECT(idmint_named_generator_new(bad_utf8, &ng), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `config` is not valid UTF-8 (at byte 2)");
    EXPECT(idmint_named_generator_new("type=snowflake,layout=twitter", &ng), IDMINT_NODE_REQUIRED,
           NULL);
    idmint_named_generator_free(NULL);
    if (OK(idmint_named_generator_new("type=uuid1", &ng))) {
        EXPECT(idmint_named_generator_kind(NULL, &nt), IDMINT_NULL_POINTER, null_gen);
        EXPECT(idmint_named_generator_kind(ng, NULL), IDMINT_NULL_POINTER,
               "null pointer: `out_kind` must not be NULL");
        OK(idmint_named_generator_kind(ng, &nt));
        CHECK(nt == IDMINT_NAMED_UUID1);
        EXPECT(idmint_named_generator_config(NULL, buf, sizeof buf, NULL), IDMINT_NULL_POINTER,
               null_gen);
        n = 0;
        EXPECT(idmint_named_generator_config(ng, buf, 10, &n), IDMINT_BUFFER_TOO_SMALL,
               "buffer too small: need 11 bytes");
        CHECK(n == 10 && buf[0] == '\0');
        EXPECT(idmint_named_generator_config(ng, NULL, 0, &n), IDMINT_BUFFER_TOO_SMALL, NULL);
        EXPECT(idmint_named_generator_next_at(NULL, 1, rnd, 16, &gid, NULL, NULL),
               IDMINT_NULL_POINTER, null_gen);
        EXPECT(idmint_named_generator_next_at(ng, 1, rnd, 16, NULL, NULL, NULL), IDMINT_NULL_POINTER,
               "null pointer: `out_id` must not be NULL");
        EXPECT(idmint_named_generator_next_at(ng, 1, rnd, 16, (idmint_generated_id *)((char *)arr + 4),
                                              NULL, NULL),
               IDMINT_BAD_C_ARGUMENT, "invalid argument: `out_id` is not aligned for its type");
        EXPECT(idmint_named_generator_next_at(ng, 1, rnd, 16, &gid, (size_t *)((char *)arr + 1), NULL),
               IDMINT_BAD_C_ARGUMENT,
               "invalid argument: `out_random_used` is not aligned for its type");
        /* Too few random bytes: refused, and nothing drawn (the next call is still the first). */
        n = 99;
        u = 99;
        EXPECT(idmint_named_generator_next_at(ng, 1700000000000u, rnd, 7, &gid, &n, &u),
               IDMINT_BAD_C_ARGUMENT,
               "invalid argument: `random` holds fewer bytes than this call draws (uuid4: 16, "
               "uuid7: 10, uuid1 and uuid6: 8 on their first call)");
        CHECK(n == 0 && u == 0);
        OK(idmint_named_generator_next_at(ng, 1700000000000u, rnd, 16, &gid, &n, &u));
        CHECK(n == 8 && u == 0 && gid.is_uuid && gid.id == 0);
        /* Later v1 calls draw nothing: a zero-length buffer will do. */
        OK(idmint_named_generator_next_at(ng, 1700000000000u, rnd, 0, &gid2, &n, NULL));
        CHECK(n == 0 && memcmp(&gid.uuid, &gid2.uuid, sizeof gid.uuid) < 0);
        OK(idmint_uuid_inspect(&gid2.uuid, &ui));
        CHECK(ui.version == 1 && ui.unix_ms == 1700000000000u);
        idmint_named_generator_free(ng);
    }
    /* NULL random: bytes from the OS random source, none from the caller. */
    if (OK(idmint_named_generator_new("{\"type\":\"uuid4\"}", &ng))) {
        n = 99;
        OK(idmint_named_generator_next_at(ng, 0, NULL, 5, &gid, &n, NULL));
        CHECK(n == 0);
        OK(idmint_named_generator_next_at(ng, 0, NULL, 0, &gid2, NULL, NULL));
        CHECK(gid.is_uuid && memcmp(&gid.uuid, &gid2.uuid, sizeof gid.uuid) != 0);
        OK(idmint_uuid_inspect(&gid.uuid, &ui));
        CHECK(ui.version == 4);
        idmint_named_generator_free(ng);
    }

    CTX("obfuscator arguments");
    idmint_obfuscator *o = NULL;
    static const uint8_t key[16] = {1};
    EXPECT(idmint_obfuscator_new(NULL, 16, 53, &o), IDMINT_NULL_POINTER,
           "null pointer: `key` must not be NULL");
    EXPECT(idmint_obfuscator_new(key, 15, 53, &o), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: an obfuscation key is exactly 16 bytes");
    EXPECT(idmint_obfuscator_new(key, 16, 53, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_obfuscator_new(key, 16, 4096, &o), IDMINT_INVALID_CONFIG,
           "invalid config: obfuscation needs a width of 2..=64 bits");
    EXPECT(idmint_obfuscator_new_sortable(key, 16, NULL, &o), IDMINT_NULL_POINTER,
           null_msg_layout);
    EXPECT(idmint_obfuscator_new_sortable(key, 16, l, NULL), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_obfuscator_new_sortable(key, 0, l, &o), IDMINT_BAD_C_ARGUMENT, NULL);
    idmint_obfuscator_free(NULL);
    if (OK(idmint_obfuscator_new_sortable(key, 16, l, &o))) {
        EXPECT(idmint_obfuscator_encode(NULL, 1, &u), IDMINT_NULL_POINTER,
               "null pointer: `obfuscator` must not be NULL");
        EXPECT(idmint_obfuscator_encode(o, 1, NULL), IDMINT_NULL_POINTER, NULL);
        EXPECT(idmint_obfuscator_decode(NULL, 1, &u), IDMINT_NULL_POINTER, NULL);
        EXPECT(idmint_obfuscator_decode(o, 1, NULL), IDMINT_NULL_POINTER, NULL);
        idmint_obfuscator_free(o);
    }
    idmint_layout_free(l);
}

/* ---------------------------------------------------------------------------------------- */

/* The clocked generator and the OS-backed UUIDs against the real clock. */
static void test_clocked(void) {
    CTX("snowflake on the system clock");
    idmint_config cfg = {0};
    cfg.has_node = 1;
    cfg.node = 1;
    idmint_snowflake *g = NULL;
    idmint_layout *l = NULL;
    if (!OK(idmint_snowflake_new(&cfg, &g)) || !OK(idmint_snowflake_layout(g, &l))) return;
    char buf[64];
    OK(idmint_layout_preset_name(l, buf, sizeof buf, NULL));
    CHECK(strcmp(buf, "twitter") == 0); /* the default layout */

    uint64_t before = wall_ms(), id = 0, ts = 0;
    OK(idmint_snowflake_next_id(g, &id));
    uint64_t after = wall_ms();
    OK(idmint_layout_timestamp_ms(l, id, &ts));
    /* The hot path reads a coarse clock: at most a few ms early, never late. */
    CHECK(ts + 20 >= before && ts <= after + 1);
    idmint_parts p;
    OK(idmint_layout_decompose(l, id, &p));
    CHECK(p.node == 1);

    enum { N = 10000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    OK(idmint_snowflake_next_ids(g, ids, N));
    bool increasing = ids[0] > id;
    for (size_t i = 1; i < N; i++) increasing = increasing && ids[i] > ids[i - 1];
    CHECK(increasing);
    idmint_run run;
    OK(idmint_snowflake_reserve(g, 100, &run));
    CHECK(run.count >= 1 && run.count <= 100 && run.stride == 1 && run.first > ids[N - 1]);
    free(ids);
    uint64_t until = 1;
    idmint_status s = idmint_snowflake_try_next_id(g, &id, &until);
    CHECK(s == IDMINT_OK ? until == 0 : (s == IDMINT_WOULD_BLOCK && until > 0));
    OK(idmint_snowflake_set_node(g, 1023));
    uint64_t node = 0;
    OK(idmint_snowflake_node(g, &node));
    CHECK(node == 1023);
    OK(idmint_snowflake_next_id(g, &id));
    OK(idmint_layout_decompose(l, id, &p));
    CHECK(p.node == 1023);
    OK(idmint_snowflake_resync_clock(g));
    OK(idmint_snowflake_next_id(g, &id));
    idmint_stats st;
    OK(idmint_snowflake_stats(g, &st));
    idmint_snowflake_free(g);
    idmint_layout_free(l);

    CTX("snowflake with random sequence starts seeded by the OS");
    cfg.sequence_start = "random";
    cfg.on_exhausted = "fail";
    if (OK(idmint_snowflake_new(&cfg, &g))) {
        OK(idmint_snowflake_next_id(g, &id));
        idmint_snowflake_free(g);
    }

    CTX("uuids from the OS");
    idmint_uuid a, b;
    idmint_uuid_info info;
    OK(idmint_uuid4(&a));
    OK(idmint_uuid4(&b));
    CHECK(memcmp(&a, &b, sizeof a) != 0);
    OK(idmint_uuid_inspect(&a, &info));
    CHECK(info.version == 4 && info.variant == IDMINT_UUID_VARIANT_RFC9562 && !info.has_unix_ms);
    before = wall_ms();
    OK(idmint_uuid7(&a));
    after = wall_ms();
    OK(idmint_uuid_inspect(&a, &info));
    /* The process-wide v7 reads the coarse clock: up to a kernel tick or two behind. */
    CHECK(info.version == 7 && info.has_unix_ms && info.unix_ms + 20 >= before &&
          info.unix_ms <= after + 5);
    {
        /* One process-wide monotonic generator: strictly increasing, even within a ms. */
        bool inc = true;
        for (int i = 0; i < 1000; i++) {
            if (idmint_uuid7(&b) != IDMINT_OK) inc = false;
            inc = inc && memcmp(b.bytes, a.bytes, 16) > 0;
            a = b;
        }
        CHECK(inc);
    }
    idmint_uuid7_generator *vg = NULL;
    if (OK(idmint_uuid7_generator_new(&vg))) {
        bool inc = true;
        OK(idmint_uuid7_generator_next(vg, &a));
        for (int i = 0; i < 1000; i++) {
            if (idmint_uuid7_generator_next(vg, &b) != IDMINT_OK) inc = false;
            inc = inc && memcmp(b.bytes, a.bytes, 16) > 0;
            a = b;
        }
        CHECK(inc);
        idmint_uuid7_generator_free(vg);
    }
}

/* ---------------------------------------------------------------------------------------- */

enum { THREADS = 4, PER_THREAD = 250000 };

typedef struct {
    const idmint_snowflake *gen;
    uint64_t *out;
    int ok;
} mint_job;

static void *mint(void *arg) {
    mint_job *job = arg;
    job->ok = 1;
    for (size_t i = 0; i < PER_THREAD; i++) {
        if (idmint_snowflake_next_id(job->gen, &job->out[i]) != IDMINT_OK) {
            job->ok = 0;
            return NULL;
        }
        if (i > 0 && job->out[i] <= job->out[i - 1]) job->ok = 0;
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_threads(void) {
    CTX("%d threads x %d IDs", THREADS, PER_THREAD);
    idmint_config cfg = {0};
    cfg.has_node = 1;
    cfg.node = 3;
    idmint_snowflake *g = NULL;
    if (!OK(idmint_snowflake_new(&cfg, &g))) return;
    uint64_t *all = malloc((size_t)THREADS * PER_THREAD * sizeof *all);
    pthread_t t[THREADS];
    mint_job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (mint_job){g, all + (size_t)i * PER_THREAD, 0};
        CHECK(pthread_create(&t[i], NULL, mint, &jobs[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        CHECK(jobs[i].ok == 1); /* every call succeeded; each thread's IDs increase */
    }
    qsort(all, (size_t)THREADS * PER_THREAD, sizeof *all, cmp_u64);
    size_t dups = 0;
    for (size_t i = 1; i < (size_t)THREADS * PER_THREAD; i++) dups += all[i] == all[i - 1];
    CHECK(dups == 0);
    free(all);
    idmint_snowflake_free(g);
}

/* ---------------------------------------------------------------------------------------- */

static void test_fork(void) {
    CTX("fork");
    idmint_config cfg = {0};
    cfg.has_node = 1;
    cfg.node = 1;
    idmint_snowflake *g = NULL;
    uint64_t id = 0, until = 0;
    if (!OK(idmint_snowflake_new(&cfg, &g)) || !OK(idmint_snowflake_next_id(g, &id))) return;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* Child: every minting call refuses until the child has a node of its own. */
        int bad = 0;
        uint64_t ids[4];
        idmint_run run;
        bad |= (idmint_snowflake_next_id(g, &id) != IDMINT_FORKED) << 0;
        bad |= (!last_is("generator was inherited across fork(); give the child its own node "
                         "before minting"))
               << 1;
        bad |= (idmint_snowflake_next_ids(g, ids, 4) != IDMINT_FORKED) << 2;
        bad |= (idmint_snowflake_reserve(g, 4, &run) != IDMINT_FORKED) << 3;
        bad |= (idmint_snowflake_try_next_id(g, &id, &until) != IDMINT_FORKED) << 4;
        bad |= (idmint_snowflake_next_id_at(g, wall_ms(), &id, &until) != IDMINT_FORKED) << 5;
        bad |= (idmint_snowflake_set_node(g, 7) != IDMINT_OK) << 6;
        bad |= (idmint_snowflake_next_id(g, &id) != IDMINT_OK) << 7;
        bad |= ((id >> 12 & 1023) != 7) << 8;
        idmint_snowflake_free(g);
        _exit(bad);
    }
    if (!CHECK(pid > 0)) {
        idmint_snowflake_free(g);
        return;
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    if (!CHECK(WEXITSTATUS(status) == 0))
        fprintf(stderr, "  child's failed checks (bit mask): %#x\n", WEXITSTATUS(status));
    /* The parent carries on unaffected. */
    uint64_t next = 0;
    OK(idmint_snowflake_next_id(g, &next));
    CHECK(next > id);
    idmint_snowflake_free(g);
}

/* A forked child draws fresh random bytes and restarts the UUID generators: none of its UUIDs
 * equals the parent's next one (a child continuing the parent's random stream would
 * repeat them exactly). */
static void test_fork_uuids(void) {
    CTX("fork: UUIDs");
    idmint_uuid warm, mine[5], child[5];
    idmint_uuid7_generator *vg = NULL, *mg = NULL;
    idmint_named_generator *ng = NULL;
    idmint_generated_id gid;
    if (!OK(idmint_uuid7_generator_new(&vg))) return;
    if (!OK(idmint_uuid7_generator_new_with_method(IDMINT_UUID7_SUB_MILLISECOND, &mg))) {
        idmint_uuid7_generator_free(vg);
        return;
    }
    /* A named generator of a core type holds its parent's state: it refuses in the child. */
    if (!OK(idmint_named_generator_new("type=uuid1", &ng))) {
        idmint_uuid7_generator_free(vg);
        idmint_uuid7_generator_free(mg);
        return;
    }
    OK(idmint_named_generator_next_id(ng, &gid));
    OK(idmint_uuid4(&warm));
    OK(idmint_uuid7(&warm));
    OK(idmint_uuid7_generator_next(mg, &warm));
    OK(idmint_uuid7_generator_next(vg, &warm));
    OK(idmint_uuid1(&mine[4])); /* the process-wide v1 generator, with its random node */
    int fds[2];
    if (!CHECK(pipe(fds) == 0)) {
        idmint_uuid7_generator_free(vg);
        idmint_uuid7_generator_free(mg);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int bad = idmint_uuid4(&child[0]) != IDMINT_OK;
        bad |= (idmint_uuid7(&child[1]) != IDMINT_OK) << 1;
        bad |= (idmint_uuid7_generator_next(vg, &child[2]) != IDMINT_OK) << 2;
        bad |= (idmint_uuid7_generator_next(mg, &child[3]) != IDMINT_OK) << 3;
        bad |= (idmint_named_generator_next_id(ng, &gid) != IDMINT_FORKED) << 4;
        bad |= (idmint_uuid1(&child[4]) != IDMINT_OK) << 5;
        bad |= (write(fds[1], child, sizeof child) != (ssize_t)sizeof child) << 6;
        close(fds[1]);
        _exit(bad);
    }
    close(fds[1]);
    if (!CHECK(pid > 0)) {
        close(fds[0]);
        idmint_uuid7_generator_free(vg);
        idmint_uuid7_generator_free(mg);
        idmint_named_generator_free(ng);
        return;
    }
    size_t got = 0;
    while (got < sizeof child) {
        ssize_t n = read(fds[0], (char *)child + got, sizeof child - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    if (!CHECK(WEXITSTATUS(status) == 0))
        fprintf(stderr, "  child's failed checks (bit mask): %#x\n", WEXITSTATUS(status));
    OK(idmint_named_generator_next_id(ng, &gid)); /* the parent's carries on */
    idmint_named_generator_free(ng);
    if (!CHECK(got == sizeof child)) {
        idmint_uuid7_generator_free(vg);
        idmint_uuid7_generator_free(mg);
        return;
    }
    OK(idmint_uuid4(&mine[0]));
    OK(idmint_uuid7(&mine[1]));
    OK(idmint_uuid7_generator_next(vg, &mine[2]));
    OK(idmint_uuid7_generator_next(mg, &mine[3]));
    CHECK(memcmp(&child[0], &mine[0], sizeof mine[0]) != 0); /* v4: the random stream */
    CHECK(memcmp(&child[1], &mine[1], sizeof mine[1]) != 0); /* process-wide v7 */
    CHECK(memcmp(&child[2], &mine[2], sizeof mine[2]) != 0); /* a v7 generator handle */
    CHECK(memcmp(&child[3], &mine[3], sizeof mine[3]) != 0); /* one of a chosen method */
    CHECK(memcmp(child[4].bytes + 10, mine[4].bytes + 10, 6) != 0); /* v1: a node of its own */
    /* The parent's generator carries on with its own state (warm is its last UUID). */
    CHECK(memcmp(mine[2].bytes, warm.bytes, 16) > 0);
    idmint_uuid7_generator_free(vg);
    idmint_uuid7_generator_free(mg);
}

/* ---------------------------------------------------------------------------------------- */

/* Twitter layout: 41 time bits above 10 node bits above 12 sequence bits, epoch 1288834974657. */
#define TW_EPOCH_MS UINT64_C(1288834974657)
static uint64_t tw_node(uint64_t id) { return id >> 12 & 1023; }
static uint64_t tw_ms(uint64_t id) { return (id >> 22) + TW_EPOCH_MS; }

static char lease_dir[64];
static const char *self_path;

/* The child half of test_leased, in a process of its own (run as
 * `test_idmint --lease-child DIR FD`): leases a node in DIR with the same options, mints on it,
 * writes the node to FD and releases it. Exit status 0 when every step worked. */
static int lease_child(const char *dir, int fd) {
    idmint_config cfg = {0};
    idmint_lease_options opts = {0};
    opts.namespace_name = "c-test";
    opts.nodes = 3;
    opts.ttl_ms = 3000;
    opts.holder = "test_idmint child";
    idmint_leased_snowflake *g = NULL;
    uint64_t node = 99, id = 0;
    int bad = 0;
    if (idmint_leased_snowflake_new(dir, &cfg, &opts, &g) != IDMINT_OK) {
        fprintf(stderr, "lease child: %s\n", idmint_last_error_message());
        return 1;
    }
    bad |= (idmint_leased_snowflake_node(g, &node) != IDMINT_OK) << 1;
    bad |= (idmint_leased_snowflake_next_id(g, &id) != IDMINT_OK || tw_node(id) != node) << 2;
    bad |= (write(fd, &node, sizeof node) != (ssize_t)sizeof node) << 3;
    idmint_leased_snowflake_free(g);
    return bad;
}

static void remove_lease_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", lease_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", lease_dir);
}

static void test_leased_arguments(void) {
    CTX("leased: bad arguments");
    idmint_config cfg = {0};
    idmint_lease_options opts = {0};
    idmint_leased_snowflake *g = (idmint_leased_snowflake *)&opts; /* must become NULL */
    EXPECT(idmint_leased_snowflake_new(lease_dir, NULL, NULL, &g), IDMINT_NULL_POINTER,
           "null pointer: `config` must not be NULL");
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, NULL, NULL), IDMINT_NULL_POINTER,
           "null pointer: `out_gen` must not be NULL");
    EXPECT(idmint_leased_snowflake_new("\xff/x", &cfg, NULL, &g), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `dir` is not valid UTF-8 (at byte 0)");
    EXPECT(idmint_leased_snowflake_new("", &cfg, NULL, &g), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: dir must not be empty");
    /* A directory that cannot be created: below a regular file. */
    EXPECT(idmint_leased_snowflake_new("/dev/null/leases", &cfg, NULL, &g),
           IDMINT_STORE_UNAVAILABLE, "file store unavailable during open: not a directory");
    CHECK(g == NULL);
    cfg.layout = "nope";
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, NULL, &g), IDMINT_INVALID_LAYOUT, NULL);
    cfg.layout = NULL;
    opts.namespace_name = "two words";
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &g), IDMINT_INVALID_CONFIG, NULL);
    opts.namespace_name = "\xc3";
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &g), IDMINT_BAD_C_ARGUMENT,
           "invalid argument: `options->namespace_name` is not valid UTF-8 (at byte 0)");
    opts.namespace_name = "args";
    opts.nodes = 1025; /* twitter has 1024 nodes */
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &g), IDMINT_INVALID_CONFIG, NULL);
    opts.nodes = 0;
    opts.ttl_ms = 1; /* no room for renewals */
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &g), IDMINT_INVALID_CONFIG, NULL);
    opts.ttl_ms = 0;
    opts.has_swap_after = 1; /* swap_after_ms 0 */
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &g), IDMINT_INVALID_CONFIG, NULL);
    CHECK(g == NULL);

    uint64_t id = 0;
    idmint_lease_info info;
    EXPECT(idmint_leased_snowflake_next_id(NULL, &id), IDMINT_NULL_POINTER,
           "null pointer: `gen` must not be NULL");
    EXPECT(idmint_leased_snowflake_next_ids(NULL, &id, 1), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_leased_snowflake_node(NULL, &id), IDMINT_NULL_POINTER, NULL);
    EXPECT(idmint_leased_snowflake_lease(NULL, &info), IDMINT_NULL_POINTER, NULL);
    idmint_leased_snowflake_free(NULL);
}

/* A zero-initialised config has no node: both constructors refuse with IDMINT_NODE_REQUIRED and
 * a message that says how to choose one; a node given on purpose (even 0) works. */
static void test_node_required(void) {
    CTX("no default node");
    static const char *want =
        "no node chosen: give an explicit node that no other process uses, lease one with the "
        "leased generator from a store URL (`local` for this host's lock directory, `redis://...` "
        "or `postgres://...` across hosts), or take a random node knowing that k random nodes out "
        "of N collide with odds of about k*k/(2N) (even odds near 1.2*sqrt(N)) (in C: set "
        "config.has_node = 1 and config.node; idmint_leased_snowflake_new(NULL, ...) leases a "
        "node from this host's lock directory)";
    idmint_config cfg = {0};
    idmint_snowflake *g = (idmint_snowflake *)&cfg; /* must become NULL */
    idmint_atomic_snowflake *a = (idmint_atomic_snowflake *)&cfg;
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_NODE_REQUIRED, want);
    CHECK(g == NULL);
    EXPECT(idmint_atomic_snowflake_new(&cfg, &a), IDMINT_NODE_REQUIRED, want);
    CHECK(a == NULL);
    CHECK(strcmp(idmint_status_code(IDMINT_NODE_REQUIRED), "ERR_NODE_REQUIRED") == 0);
    CHECK(strstr(idmint_status_message(IDMINT_NODE_REQUIRED), "has_node") != NULL);
    /* A node value without has_node is still no node. */
    cfg.node = 5;
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_NODE_REQUIRED, want);
    /* Other mistakes are reported first: fixing the node alone would not do. */
    cfg.layout = "martian";
    EXPECT(idmint_snowflake_new(&cfg, &g), IDMINT_INVALID_LAYOUT, NULL);
    cfg.layout = NULL;
    /* Node 0 chosen on purpose. */
    cfg.has_node = 1;
    cfg.node = 0;
    uint64_t id = 0;
    idmint_parts p;
    idmint_layout *l = NULL;
    if (!OK(idmint_snowflake_new(&cfg, &g))) return;
    if (OK(idmint_snowflake_next_id(g, &id)) && OK(idmint_snowflake_layout(g, &l))) {
        OK(idmint_layout_decompose(l, id, &p));
        CHECK(p.node == 0);
    }
    idmint_layout_free(l);
    idmint_snowflake_free(g);
}

/* The has_* flags of input structs are bytes, not C bools: any nonzero value is true, so a caller
 * that stores 2 or 255 (a bit field, a memset, a char from elsewhere) gets "true" rather than
 * undefined behaviour. Run under valgrind and ASan/UBSan by test.sh. */
_Static_assert(_Generic(((idmint_config *)0)->has_node, uint8_t: 1, default: 0), "has_node is uint8_t");
_Static_assert(_Generic(((idmint_config *)0)->has_fence, uint8_t: 1, default: 0), "has_fence is uint8_t");
_Static_assert(_Generic(((idmint_lease_options *)0)->has_swap_after, uint8_t: 1, default: 0),
               "has_swap_after is uint8_t");

static void test_flag_bytes_other_than_one(void) {
    static const uint8_t truthy[] = {1, 2, 0x80, 255};
    const uint64_t t = 1700000000000u;
    for (size_t i = 0; i < sizeof truthy; i++) {
        CTX("flag byte %u", (unsigned)truthy[i]);
        idmint_config cfg = {0};
        cfg.has_node = truthy[i];
        cfg.node = 9;
        cfg.on_backwards = "fail";
        cfg.has_fence = truthy[i];
        cfg.fence_ms = t;
        idmint_atomic_snowflake *a = NULL;
        if (!OK(idmint_atomic_snowflake_new(&cfg, &a))) continue;
        uint64_t id = 0, node = 0;
        OK(idmint_atomic_snowflake_node(a, &node));
        CHECK(node == 9);
        /* The fence applies: nothing at or before its tick (without it, t itself is fine). */
        EXPECT(idmint_atomic_snowflake_next_id_at(a, t, &id, NULL), IDMINT_WOULD_BLOCK,
               "would block until 1700000000001 ms");
        if (OK(idmint_atomic_snowflake_next_id_at(a, t + 1, &id, NULL))) {
            CHECK(tw_ms(id) == t + 1 && tw_node(id) == 9);
        }
        idmint_atomic_snowflake_free(a);
        cfg.has_fence = 0;
        if (OK(idmint_atomic_snowflake_new(&cfg, &a))) {
            OK(idmint_atomic_snowflake_next_id_at(a, t, &id, NULL));
            CHECK(tw_ms(id) == t);
            idmint_atomic_snowflake_free(a);
        }

        /* has_swap_after: nonzero applies swap_after_ms (0 is refused, 1000 accepted). */
        idmint_config lcfg = {0};
        idmint_lease_options opts = {0};
        opts.namespace_name = "flags";
        opts.has_swap_after = truthy[i];
        idmint_leased_snowflake *g = (idmint_leased_snowflake *)&opts;
        EXPECT(idmint_leased_snowflake_new(lease_dir, &lcfg, &opts, &g), IDMINT_INVALID_CONFIG,
               NULL);
        CHECK(g == NULL);
        opts.swap_after_ms = 1000;
        if (OK(idmint_leased_snowflake_new(lease_dir, &lcfg, &opts, &g))) {
            OK(idmint_leased_snowflake_next_id(g, &id));
            idmint_leased_snowflake_free(g);
        }
    }
}

/* Every batch call refuses more than IDMINT_MAX_BATCH IDs before writing anything. */
static void test_batch_limit(void) {
    CTX("batch limit");
    const char *want = "IDs in one call exceeds the limit of 16777216";
    CHECK(IDMINT_MAX_BATCH == 16777216u);
    idmint_config cfg = {0};
    cfg.has_node = 1;
    cfg.node = 2;
    idmint_snowflake *g = NULL;
    idmint_atomic_snowflake *a = NULL;
    idmint_leased_snowflake *s = NULL;
    uint64_t one[1] = {0};
    size_t written = 99;
    if (!OK(idmint_snowflake_new(&cfg, &g)) || !OK(idmint_atomic_snowflake_new(&cfg, &a)) ||
        !OK(idmint_leased_snowflake_new(lease_dir, &cfg, NULL, &s)))
        goto out;
    /* The array is not even looked at: a 1-slot array with a larger n is never written. */
    EXPECT(idmint_snowflake_next_ids(g, one, (size_t)IDMINT_MAX_BATCH + 1), IDMINT_LIMIT_EXCEEDED,
           want);
    EXPECT(idmint_atomic_snowflake_next_ids_at(a, 1700000000000u, one, (size_t)IDMINT_MAX_BATCH + 1,
                                             &written, NULL),
           IDMINT_LIMIT_EXCEEDED, want);
    CHECK(written == 0);
    EXPECT(idmint_leased_snowflake_next_ids(s, one, SIZE_MAX), IDMINT_LIMIT_EXCEEDED, want);
    CHECK(one[0] == 0);
    OK(idmint_snowflake_next_ids(g, one, 1));
    CHECK(one[0] != 0);
out:
    idmint_snowflake_free(g);
    idmint_atomic_snowflake_free(a);
    idmint_leased_snowflake_free(s);
}

/* The child half of test_leased_local (`test_idmint --local-lease-child FD`): leases a node
 * from the local directory (NULL dir, all defaults) and writes it to FD, holding it meanwhile. */
static int local_lease_child(int fd) {
    idmint_config cfg = {0};
    idmint_leased_snowflake *c = NULL;
    if (idmint_leased_snowflake_new(NULL, &cfg, NULL, &c) != IDMINT_OK) {
        fprintf(stderr, "local lease child: %s\n", idmint_last_error_message());
        return 1;
    }
    uint64_t node = 99;
    int bad = (idmint_leased_snowflake_node(c, &node) != IDMINT_OK) << 1;
    bad |= (write(fd, &node, sizeof node) != (ssize_t)sizeof node) << 2;
    idmint_leased_snowflake_free(c);
    return bad;
}

/* A NULL dir leases from the per-user local directory ($IDMINT_LEASE_DIR here): two holders get
 * distinct nodes there, and another process leasing the same way while they hold theirs gets a
 * third. */
static void test_leased_local(void) {
    CTX("leased: local directory");
    char local[sizeof lease_dir + 16];
    snprintf(local, sizeof local, "%s/local", lease_dir);
    if (!CHECK(setenv("IDMINT_LEASE_DIR", local, 1) == 0)) return;
    idmint_config cfg = {0};
    idmint_leased_snowflake *a = NULL, *b = NULL;
    uint64_t na = 99, nb = 99, nc = 99, id = 0;
    if (!OK(idmint_leased_snowflake_new(NULL, &cfg, NULL, &a))) goto out;
    if (!OK(idmint_leased_snowflake_new(NULL, &cfg, NULL, &b))) goto out;
    OK(idmint_leased_snowflake_node(a, &na));
    OK(idmint_leased_snowflake_node(b, &nb));
    CHECK(na != nb);
    OK(idmint_leased_snowflake_next_id(a, &id));
    CHECK(tw_node(id) == na);
    int fds[2];
    if (!CHECK(pipe(fds) == 0)) goto out;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* A process of its own (exec), as a separately started program would be. */
        close(fds[0]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        execl(self_path, self_path, "--local-lease-child", fd, (char *)NULL);
        _exit(66);
    }
    close(fds[1]);
    CHECK(read(fds[0], &nc, sizeof nc) == (ssize_t)sizeof nc);
    close(fds[0]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(nc != na && nc != nb && nc < 1024);
out:
    idmint_leased_snowflake_free(a);
    idmint_leased_snowflake_free(b);
    unsetenv("IDMINT_LEASE_DIR");
}

/* Two holders in this process and one in another process get three distinct nodes; a fourth
 * finds none free; a forked child's inherited copy refuses to mint; a released node's next
 * holder starts after its last ID. */
static void test_leased(void) {
    CTX("leased");
    idmint_config cfg = {0};
    idmint_lease_options opts = {0};
    opts.namespace_name = "c-test";
    opts.nodes = 3;
    opts.ttl_ms = 3000;
    opts.holder = "test_idmint";
    idmint_leased_snowflake *a = NULL, *b = NULL, *c = NULL;
    if (!OK(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &a))) return;
    if (!OK(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &b))) {
        idmint_leased_snowflake_free(a);
        return;
    }
    uint64_t na = 99, nb = 99, id = 0, ids[1000];
    OK(idmint_leased_snowflake_node(a, &na));
    OK(idmint_leased_snowflake_node(b, &nb));
    CHECK(na < 3 && nb < 3 && na != nb);
    uint64_t before = wall_ms();
    OK(idmint_leased_snowflake_next_id(a, &id));
    CHECK(tw_node(id) == na);
    CHECK(tw_ms(id) + 50 >= before && tw_ms(id) <= wall_ms()); /* the hot path reads a coarse clock */
    OK(idmint_leased_snowflake_next_ids(a, ids, 1000));
    bool increasing = ids[0] > id;
    for (int i = 1; i < 1000; i++) increasing &= ids[i] > ids[i - 1] && tw_node(ids[i]) == na;
    CHECK(increasing);
    EXPECT(idmint_leased_snowflake_next_ids(a, NULL, 1), IDMINT_NULL_POINTER, NULL);
    OK(idmint_leased_snowflake_next_ids(a, NULL, 0));
    EXPECT(idmint_leased_snowflake_next_id(a, NULL), IDMINT_NULL_POINTER, NULL);
    idmint_lease_info info;
    memset(&info, 0xff, sizeof info);
    OK(idmint_leased_snowflake_lease(a, &info));
    CHECK(info.node == na);
    CHECK(info.token >= 1);
    CHECK(info.ttl_ms == 3000);
    CHECK(info.bound_ms >= tw_ms(ids[999]));
    EXPECT(idmint_leased_snowflake_lease(a, NULL), IDMINT_NULL_POINTER, NULL);
    uint64_t last_a = ids[999];

    /* Another process: its own holder gets the third node. The child checks that the copy of
     * `a` it inherited refuses to mint, then runs this program again (exec, so that no thread
     * or lease of this process lives on in it) as the second lease holder. */
    int fds[2];
    if (!CHECK(pipe(fds) == 0)) goto out;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        uint64_t x = 0;
        if (idmint_leased_snowflake_next_id(a, &x) != IDMINT_FORKED) _exit(64);
        if (idmint_leased_snowflake_next_ids(a, &x, 1) != IDMINT_FORKED) _exit(65);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        execl(self_path, self_path, "--lease-child", lease_dir, fd, (char *)NULL);
        _exit(66);
    }
    close(fds[1]);
    if (!CHECK(pid > 0)) {
        close(fds[0]);
        goto out;
    }
    uint64_t nchild = 99;
    CHECK(read(fds[0], &nchild, sizeof nchild) == (ssize_t)sizeof nchild);
    close(fds[0]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    if (!CHECK(WEXITSTATUS(status) == 0))
        fprintf(stderr, "  lease child's exit status: %d\n", WEXITSTATUS(status));
    CHECK(nchild < 3 && nchild != na && nchild != nb);

    /* The child released its node on free; nodes a and b are still ours. */
    if (!OK(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &c))) goto out;
    uint64_t nc = 99;
    OK(idmint_leased_snowflake_node(c, &nc));
    CHECK(nc == nchild);
    idmint_leased_snowflake *d = (idmint_leased_snowflake *)&opts;
    EXPECT(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &d), IDMINT_NO_FREE_NODE,
           "no free node: all 3 nodes are leased");
    CHECK(d == NULL);

    /* Releasing a records its last ID's time: the node's next holder is fenced after it. */
    idmint_leased_snowflake_free(a);
    a = NULL;
    if (!OK(idmint_leased_snowflake_new(lease_dir, &cfg, &opts, &a))) goto out;
    OK(idmint_leased_snowflake_node(a, &na));
    OK(idmint_leased_snowflake_lease(a, &info));
    CHECK(info.has_fence && info.fence_ms >= tw_ms(last_a));
    OK(idmint_leased_snowflake_next_id(a, &id));
    CHECK(tw_node(id) == na);
    CHECK(tw_ms(id) > info.fence_ms);
out:
    idmint_leased_snowflake_free(a);
    idmint_leased_snowflake_free(b);
    idmint_leased_snowflake_free(c);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--lease-child") == 0)
        return lease_child(argv[2], atoi(argv[3]));
    if (argc == 3 && strcmp(argv[1], "--local-lease-child") == 0)
        return local_lease_child(atoi(argv[2]));
    self_path = argv[0];
    test_version();
    test_status();
    test_layout_vectors();
    test_generator_vectors();
    test_codec_vectors();
    test_uuid_vectors();
    test_rfc9562_vectors();
    test_typeid_ulid_vectors();
    test_ksuid_vectors();
    test_any_id_vectors();
    test_formats_clocked_and_bad_arguments();
    test_named_vectors();
    test_obfuscation_vectors();
    test_bad_arguments();
    test_clocked();
    test_threads();
    test_fork();
    test_fork_uuids();
    snprintf(lease_dir, sizeof lease_dir, "/tmp/idmint-c-test-XXXXXX");
    if (CHECK(mkdtemp(lease_dir) != NULL)) {
        test_node_required();
        test_flag_bytes_other_than_one();
        test_batch_limit();
        test_leased_arguments();
        test_leased_local();
        test_leased();
        remove_lease_dir();
    }
    printf("C tests: %u passed, %u failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
