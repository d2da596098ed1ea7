/*
 * idmint from C: mint Snowflake IDs, decode them, write them in base32, make UUIDs, and read
 * errors. Build and run: make run (see Makefile; the library comes from cargo).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "idmint.h"

/* Every fallible call returns an idmint_status; the message of the last failure on this
 * thread is idmint_last_error_message(). */
#define TRY(call)                                                                          \
    do {                                                                                   \
        idmint_status s_ = (call);                                                         \
        if (s_ != IDMINT_OK) {                                                             \
            fprintf(stderr, "%s: %s (%s)\n", #call, idmint_last_error_message(),           \
                    idmint_status_code(s_));                                               \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(void) {
    printf("idmint %s (header %s)\n", idmint_version(), IDMINT_VERSION);

    /* A thread-safe generator: Twitter's layout, datacenter 1 / worker 10, default policies. */
    idmint_layout *layout = NULL;
    TRY(idmint_layout_new("twitter", &layout));
    uint64_t dc_worker[2] = {1, 10};
    idmint_config cfg = {0}; /* NULL/0 fields mean the defaults; the node has none */
    cfg.layout = "twitter";
    cfg.has_node = 1;
    TRY(idmint_layout_join_node(layout, dc_worker, 2, &cfg.node));
    cfg.on_backwards = "wait:1000";
    idmint_snowflake *gen = NULL;
    TRY(idmint_snowflake_new(&cfg, &gen));

    /* Mint. */
    uint64_t id = 0;
    TRY(idmint_snowflake_next_id(gen, &id));
    printf("mint     %" PRIu64 "\n", id);
    uint64_t batch[1000];
    TRY(idmint_snowflake_next_ids(gen, batch, 1000));
    printf("batch    %" PRIu64 " .. %" PRIu64 " (1000 IDs, increasing)\n", batch[0], batch[999]);

    /* Decode. */
    idmint_parts parts;
    uint64_t ms = 0, fields[2];
    TRY(idmint_layout_decompose(layout, id, &parts));
    TRY(idmint_layout_timestamp_ms(layout, id, &ms));
    TRY(idmint_layout_split_node(layout, parts.node, fields, 2, NULL));
    printf("decode   time=%" PRIu64 " ticks (unix ms %" PRIu64 "), datacenter=%" PRIu64
           " worker=%" PRIu64 " sequence=%" PRIu64 "\n",
           parts.time, ms, fields[0], fields[1], parts.sequence);

    /* Sortable base32 text, and back (IDMINT_CODEC_AUTO guesses the codec). */
    char text[IDMINT_ENCODE_BUF_SIZE];
    uint64_t back = 0;
    TRY(idmint_encode(id, IDMINT_CODEC_BASE32, text, sizeof text, NULL));
    TRY(idmint_parse_id(text, IDMINT_CODEC_AUTO, &back));
    printf("base32   %s (decodes back: %s)\n", text, back == id ? "yes" : "NO");

    /* UUIDs: v7 from the clock and the OS, v5 from a name. */
    idmint_uuid u, ns;
    idmint_uuid_info info;
    char us[IDMINT_UUID_STR_SIZE];
    TRY(idmint_uuid7(&u));
    TRY(idmint_uuid_format(&u, us, sizeof us));
    TRY(idmint_uuid_inspect(&u, &info));
    printf("uuid v7  %s (version %u, unix ms %" PRIu64 ")\n", us, info.version, info.unix_ms);
    TRY(idmint_uuid_namespace("dns", &ns));
    TRY(idmint_uuid5(&ns, (const uint8_t *)"python.org", strlen("python.org"), &u));
    TRY(idmint_uuid_format(&u, us, sizeof us));
    printf("uuid v5  %s (dns, \"python.org\")\n", us);

    /* TypeIDs (a type prefix on a v7 UUID) and ULIDs. */
    char tid[IDMINT_TYPEID_STR_SIZE], prefix[IDMINT_TYPEID_PREFIX_SIZE];
    TRY(idmint_typeid("user", tid, sizeof tid, NULL));
    TRY(idmint_typeid_parse(tid, prefix, sizeof prefix, NULL, &u));
    TRY(idmint_uuid_format(&u, us, sizeof us));
    printf("typeid   %s (prefix \"%s\", uuid %s)\n", tid, prefix, us);
    idmint_ulid ulid;
    char ulid_text[IDMINT_ULID_STR_SIZE];
    uint64_t ulid_ms = 0;
    TRY(idmint_ulid_generate(&ulid));
    TRY(idmint_ulid_format(&ulid, ulid_text, sizeof ulid_text));
    TRY(idmint_ulid_timestamp_ms(&ulid, &ulid_ms));
    printf("ulid     %s (unix ms %" PRIu64 ")\n", ulid_text, ulid_ms);

    /* Errors: a status to branch on, a message to show. */
    idmint_layout *bad = NULL;
    idmint_status s = idmint_layout_new("time=41@1ms,worker=10,seq=x", &bad);
    printf("error    %s: %s\n", idmint_status_code(s), idmint_last_error_message());

    idmint_snowflake_free(gen);
    idmint_layout_free(layout);
    return s == IDMINT_INVALID_LAYOUT ? 0 : 1;
}
