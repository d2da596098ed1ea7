#!/usr/bin/env python3
"""Turns the shared JSON test vectors (vectors/*.json) into C tables for test_idmint.c.

    python3 bindings-c/tests/gen_vectors.py OUT.h [VECTORS_DIR]

The output is a build artefact (bindings-c/test.sh writes it under target/), never committed:
the JSON files are the single source of truth. Every string becomes a C literal with each byte
outside printable ASCII octal-escaped, so names with NULs or UTF-8 pass through unchanged; u64
values (decimal strings in JSON) become `UINT64_C(...)`. An expected error becomes its status
constant (`ERR_WOULD_BLOCK` -> `IDMINT_WOULD_BLOCK`) plus the exact message. It fails when the
directory holds a vector file, or a file a section, that the C tests do not replay (REPLAYED).
"""

import json
import os
import sys


def cstr(s):
    """A C string literal for `s` (str or bytes), or NULL for None."""
    if s is None:
        return "NULL"
    b = s.encode("utf-8") if isinstance(s, str) else s
    out = []
    for c in b:
        if c in (0x22, 0x5C):  # " and backslash
            out.append("\\" + chr(c))
        elif 0x20 <= c < 0x7F and c != 0x3F:  # printable, but not '?' (trigraphs)
            out.append(chr(c))
        else:
            out.append("\\%03o" % c)
    return '"' + "".join(out) + '"'


def blen(s):
    return len(s.encode("utf-8")) if isinstance(s, str) else len(s)


def u64(v):
    return "UINT64_C(%d)" % int(v)


def status(expect):
    """(status constant, message literal) of an expect object."""
    if "error" in expect:
        code = expect["error"]
        assert code.startswith("ERR_"), code
        return "IDMINT_" + code[4:], cstr(expect["message"])
    return "IDMINT_OK", "NULL"


class Out:
    def __init__(self):
        self.lines = []
        self.n = 0

    def emit(self, s=""):
        self.lines.append(s)

    def name(self, prefix):
        self.n += 1
        return "%s_%d" % (prefix, self.n)

    def array(self, ctype, prefix, items):
        """Emits a static array and returns (name, count); NULL for an empty one."""
        if not items:
            return "NULL", 0
        name = self.name(prefix)
        self.emit("static const %s %s[] = {" % (ctype, name))
        for it in items:
            self.emit("    %s," % it)
        self.emit("};")
        return name, len(items)


def hexbytes(h):
    return bytes.fromhex(h)


def layouts(o, d):
    kinds = {"time": "IDMINT_FIELD_TIME", "node": "IDMINT_FIELD_NODE",
             "sequence": "IDMINT_FIELD_SEQUENCE", "rollback": "IDMINT_FIELD_ROLLBACK"}
    rows = []
    for l in d["layouts"]:
        fields, nf = o.array("v_field", "lf", [
            "{%s, %s, %d, %d}" % (cstr(f["name"]), kinds[f["kind"]], f["bits"], f["shift"])
            for f in l["fields"]])
        comps = []
        for c in l["compose"]:
            st, msg = status(c["expect"])
            p = c["parts"]
            e = c["expect"]
            names, nn = o.array("char *const", "nfn",
                                [cstr(x["name"]) for x in e.get("node_fields", [])])
            vals, _ = o.array("uint64_t", "nfv",
                              [u64(x["value"]) for x in e.get("node_fields", [])])
            comps.append("{%s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s}" % (
                u64(p["time"]), u64(p["node"]), u64(p["sequence"]), u64(p["rollback"]),
                st, msg, u64(e.get("id", 0)), u64(e.get("timestamp_ms", 0)), nn,
                names, vals))
        comp, ncomp = o.array("v_compose", "lc", comps)
        decs = []
        for c in l["decompose"]:
            st, msg = status(c["expect"])
            e = c["expect"]
            decs.append("{%s, %s, %s, %s, %s, %s, %s}" % (
                u64(c["id"]), st, msg, u64(e.get("time", 0)), u64(e.get("node", 0)),
                u64(e.get("sequence", 0)), u64(e.get("rollback", 0))))
        dec, ndec = o.array("v_decompose", "ld", decs)
        ticks = []
        for c in l["tick_at"]:
            st, msg = status(c["expect"])
            ticks.append("{%s, %s, %s, %s}" % (u64(c["now_ms"]), st, msg,
                                               u64(c["expect"].get("tick", 0))))
        tick, ntick = o.array("v_tick", "lt", ticks)
        rows.append(
            "{%s, %s, %s, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %d, %s, %d, %s, %d, %s}"
            % (cstr(l["spec"]), cstr(l["canonical"]), cstr(l["preset"] or ""), l["width"],
               "true" if l["is_js_safe"] else "false", u64(l["epoch_ms"]), u64(l["tick_ms"]),
               u64(l["lifetime_end_ms"]), u64(l["capacity_per_second"]), u64(l["max_id"]),
               u64(l["max_node"]), u64(l["max_sequence"]), u64(l["max_time"]),
               nf, fields, ncomp, comp, ndec, dec, ntick, tick))
    o.array("v_layout", "layouts", rows)
    o.emit("#define V_LAYOUTS layouts_%d" % o.n)
    o.emit("#define V_N_LAYOUTS %d" % len(rows))
    inv = []
    for c in d["invalid"]:
        st, msg = status(c["expect"])
        inv.append("{%s, %s, %s}" % (cstr(c["spec"]), st, msg))
    o.array("v_invalid", "invalid_layouts", inv)
    o.emit("#define V_INVALID_LAYOUTS invalid_layouts_%d" % o.n)
    o.emit("#define V_N_INVALID_LAYOUTS %d" % len(inv))


def generators(o, d):
    cases = []
    for c in d["cases"]:
        steps = []
        for s in c["steps"]:
            e = s["expect"]
            st, msg = status(e)
            if "reserve" in s:
                kind, n = "V_RESERVE", s["reserve"]
            elif "next_ids" in s:
                kind, n = "V_NEXT_IDS", s["next_ids"]
            else:
                kind, n = "V_NEXT", 0
            ids, nids = o.array("uint64_t", "ids", [u64(x) for x in e.get("ids", [])])
            steps.append("{%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s}" % (
                kind, u64(s["now_ms"]), u64(n), st, msg, u64(e.get("until_ms", 0)),
                u64(e.get("id", 0)), u64(e.get("first", 0)), u64(e.get("count", 0)),
                u64(e.get("stride", 0)), nids, ids))
        arr, nsteps = o.array("v_step", "steps", steps)
        st = c["stats"]
        fence = c["fence_ms"]
        cases.append("{%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s, %s, %s}" % (
            cstr(c["name"]), cstr(c["named_config"]), cstr(c["layout"]), u64(c["node"]),
            cstr(c["on_backwards"]),
            cstr(c["on_exhausted"]), cstr(c["sequence_start"]), u64(c["seed"]),
            "false" if fence is None else "true", u64(fence or 0), nsteps, arr,
            u64(st["rollbacks"]), u64(st["wait_ms"]), u64(st["max_ahead_ms"]),
            u64(st["exhaustions"])))
    o.array("v_gen_case", "gen_cases", cases)
    o.emit("#define V_GEN_CASES gen_cases_%d" % o.n)
    o.emit("#define V_N_GEN_CASES %d" % len(cases))
    inv = []
    for c in d["invalid_configs"]:
        st, msg = status(c["expect"])
        inv.append("{%s, %s, %s, %s, %s, %s, %s}" % (
            cstr(c["layout"]), u64(c["node"]), cstr(c["on_backwards"]), cstr(c["on_exhausted"]),
            cstr(c["sequence_start"]), st, msg))
    o.array("v_invalid_config", "invalid_configs", inv)
    o.emit("#define V_INVALID_CONFIGS invalid_configs_%d" % o.n)
    o.emit("#define V_N_INVALID_CONFIGS %d" % len(inv))
    pts = []
    for p in d["policy_texts"]:
        st, msg = status(p["expect"])
        pts.append("{%s, %s, %s, %s, %s}" % (cstr(p["policy"]), cstr(p["text"]),
                                             cstr(p["expect"].get("canonical")), st, msg))
    o.array("v_policy_text", "policy_texts", pts)
    o.emit("#define V_POLICY_TEXTS policy_texts_%d" % o.n)
    o.emit("#define V_N_POLICY_TEXTS %d" % len(pts))


def codecs(o, d):
    enc = ["{%s, %s, %s, %s, %s}" % (u64(e["id"]), cstr(e["decimal"]), cstr(e["hex"]),
                                      cstr(e["base32"]), cstr(e["base62"])) for e in d["encode"]]
    o.array("v_encode", "encodes", enc)
    o.emit("#define V_ENCODES encodes_%d" % o.n)
    o.emit("#define V_N_ENCODES %d" % len(enc))
    dec = []
    for c in d["decode"]:
        st, msg = status(c["expect"])
        dec.append("{%s, %s, %d, %s, %s, %s}" % (cstr(c["decoder"]), cstr(c["text"]),
                                                  blen(c["text"]), st, msg,
                                                  u64(c["expect"].get("id", 0))))
    o.array("v_decode", "decodes", dec)
    o.emit("#define V_DECODES decodes_%d" % o.n)
    o.emit("#define V_N_DECODES %d" % len(dec))


def inspect(i):
    ms = i["unix_ms"]
    return "{%d, %s, %s, %s}" % (i["version"], cstr(i["variant"]),
                                 "false" if ms is None else "true", u64(ms or 0))


def uuids(o, d):
    nb = []
    for c in d["name_based"]:
        e = c["expect"]
        nb.append("{%d, %s, %s, %d, %s, %s}" % (c["version"], cstr(c["namespace"]),
                                                cstr(c["name"]), blen(c["name"]),
                                                cstr(e["uuid"]), inspect(e["inspect"])))
    o.array("v_name_based", "name_based", nb)
    o.emit("#define V_NAME_BASED name_based_%d" % o.n)
    o.emit("#define V_N_NAME_BASED %d" % len(nb))
    v4 = ["{%s, %d, %s, %s}" % (cstr(hexbytes(c["random"])), len(hexbytes(c["random"])),
                                cstr(c["expect"]["uuid"]), inspect(c["expect"]["inspect"]))
          for c in d["v4"]]
    o.array("v_v4", "v4s", v4)
    o.emit("#define V_V4 v4s_%d" % o.n)
    o.emit("#define V_N_V4 %d" % len(v4))
    v7 = ["{%s, %s, %d, %s, %s}" % (u64(c["unix_ms"]), cstr(hexbytes(c["random"])),
                                    len(hexbytes(c["random"])), cstr(c["expect"]["uuid"]),
                                    inspect(c["expect"]["inspect"])) for c in d["v7"]]
    o.array("v_v7", "v7s", v7)
    o.emit("#define V_V7 v7s_%d" % o.n)
    o.emit("#define V_N_V7 %d" % len(v7))
    v1 = []
    for c in d["v1"]:
        e = c["expect"]
        node = hexbytes(c["node"])
        v1.append("{%s, %s, %s, %d, %d, %s, %d, %s, %s}" % (
            "true" if "unix_ms" in c else "false", u64(c.get("ticks", 0)),
            u64(c.get("unix_ms", 0)), c.get("ticks_100ns_extra", 0), c["clock_seq"], cstr(node),
            len(node), cstr(e["uuid"]), inspect(e["inspect"])))
    o.array("v_v1", "v1s", v1)
    o.emit("#define V_V1 v1s_%d" % o.n)
    o.emit("#define V_N_V1 %d" % len(v1))
    gens = []
    for g in d["v7_generator"]:
        steps, n = o.array("v_v7", "v7g", [
            "{%s, %s, %d, %s, %s}" % (u64(s["unix_ms"]), cstr(hexbytes(s["random"])),
                                      len(hexbytes(s["random"])), cstr(s["expect"]["uuid"]),
                                      inspect(s["expect"]["inspect"])) for s in g["steps"]])
        gens.append("{%s, %d, %s}" % (cstr(g["name"]), n, steps))
    o.array("v_v7_gen", "v7gens", gens)
    o.emit("#define V_V7_GENS v7gens_%d" % o.n)
    o.emit("#define V_N_V7_GENS %d" % len(gens))
    ps = []
    for c in d["parse"]:
        st, msg = status(c["expect"])
        ps.append("{%s, %s, %s, %s}" % (cstr(c["text"]), st, msg, cstr(c["expect"].get("uuid"))))
    o.array("v_uuid_parse", "uuid_parses", ps)
    o.emit("#define V_UUID_PARSES uuid_parses_%d" % o.n)
    o.emit("#define V_N_UUID_PARSES %d" % len(ps))
    ins = ["{%s, %s}" % (cstr(c["uuid"]), inspect(c["inspect"])) for c in d["inspect"]]
    o.array("v_uuid_inspect", "uuid_inspects", ins)
    o.emit("#define V_UUID_INSPECTS uuid_inspects_%d" % o.n)
    o.emit("#define V_N_UUID_INSPECTS %d" % len(ins))


def obfuscation(o, d):
    def cases(cs):
        rows = []
        for c in cs:
            st, msg = status(c["expect"])
            rows.append("{%s, %s, %s, %s}" % (u64(c["input"]), st, msg,
                                              u64(c["expect"].get("output", 0))))
        return o.array("v_obf_case", "obc", rows)

    rows = []
    for f in d["full"]:
        arr, n = cases(f["cases"])
        rows.append("{%s, %d, NULL, %d, %s}" % (cstr(hexbytes(f["key_hex"])), f["bits"], n, arr))
    for s in d["sortable"]:
        arr, n = cases(s["cases"])
        rows.append("{%s, %d, %s, %d, %s}" % (cstr(hexbytes(s["key_hex"])), s["low_bits"],
                                              cstr(s["layout"]), n, arr))
    o.array("v_obf", "obfs", rows)
    o.emit("#define V_OBFS obfs_%d" % o.n)
    o.emit("#define V_N_OBFS %d" % len(rows))
    inv = []
    for c in d["invalid"]:
        st, msg = status(c["expect"])
        inv.append("{%s, %d, %s, %s, %s}" % (cstr(hexbytes(c["key_hex"])), c.get("bits", 0),
                                             cstr(c.get("layout")), st, msg))
    o.array("v_obf_invalid", "obf_invalid", inv)
    o.emit("#define V_OBF_INVALID obf_invalid_%d" % o.n)
    o.emit("#define V_N_OBF_INVALID %d" % len(inv))


def named(o, d):
    kinds = {"snowflake": "IDMINT_NAMED_SNOWFLAKE", "uuid4": "IDMINT_NAMED_UUID4",
             "uuid7": "IDMINT_NAMED_UUID7", "uuid1": "IDMINT_NAMED_UUID1",
             "uuid6": "IDMINT_NAMED_UUID6"}
    rows = []
    for c in d["configs"]:
        is_uuid = c["type"] != "snowflake"
        steps = []
        for s in c["steps"]:
            e = s["expect"]
            st, msg = status(e)
            got = e.get("id")
            steps.append("{%s, %s, %s, %s, %s, %s}" % (
                u64(s["now_ms"]), st, msg, u64(e.get("until_ms", 0)),
                u64(0 if is_uuid or got is None else got), cstr(got if is_uuid else None)))
        arr, n = o.array("v_named_step", "nsteps", steps)
        rnd = hexbytes(c["random_hex"])
        rows.append("{%s, %s, %s, %s, %d, %d, %d, %s}" % (
            cstr(c["config"]), cstr(c["canonical"]), kinds[c["type"]], cstr(rnd), len(rnd),
            c["random_used"], n, arr))
    o.array("v_named", "named", rows)
    o.emit("#define V_NAMED named_%d" % o.n)
    o.emit("#define V_N_NAMED %d" % len(rows))
    inv = []
    for c in d["invalid"]:
        st, msg = status(c["expect"])
        inv.append("{%s, %s, %s}" % (cstr(c["config"]), st, msg))
    o.array("v_named_invalid", "named_invalid", inv)
    o.emit("#define V_NAMED_INVALID named_invalid_%d" % o.n)
    o.emit("#define V_N_NAMED_INVALID %d" % len(inv))


def formats(o, d):
    def define(name, arr, n):
        o.emit("#define V_%s %s" % (name, arr))
        o.emit("#define V_N_%s %d" % (name, n))

    def rnd(h):
        b = hexbytes(h)
        return "%s, %d" % (cstr(b), len(b))

    rows = []
    for c in d["rfc9562"]:
        m = c["method"]
        node = hexbytes(c.get("node", ""))
        raw = c.get("random", c.get("bytes", ""))
        rows.append("{%s, %s, %s, %d, %s, %d, %s, %s, %d, %s, %s, %s, %s, %s, %s, %s, %d}" % (
            cstr(c["appendix"]), cstr(m), u64(c.get("ticks", 0)), c.get("clock_seq", 0),
            cstr(node), len(node), cstr(c.get("namespace")), cstr(c.get("name")),
            blen(c.get("name", "")), rnd(raw), u64(c.get("unix_ms", 0)),
            u64(c.get("custom_a", 0)), u64(c.get("custom_b", 0)), u64(c.get("custom_c", 0)),
            cstr(c.get("uuid")), cstr(c["expect"]["uuid"]), c["expect"]["version"]))
    define("RFC9562", *o.array("v_rfc9562", "rfc9562", rows))
    o.emit("#define V_UUID_NIL %s" % cstr(d["special"]["nil"]))
    o.emit("#define V_UUID_MAX %s" % cstr(d["special"]["max"]))
    rows = []
    for c in d["convert_errors"]:
        st, msg = status(c["expect"])
        rows.append("{%s, %s, %s, %s}" % (cstr(c["method"]), cstr(c["uuid"]), st, msg))
    define("CONVERT_ERRORS", *o.array("v_convert_error", "convert_errors", rows))
    rows = []
    for c in d["v8_field_errors"]:
        st, msg = status(c["expect"])
        rows.append("{%s, %s, %s, %s, %s}" % (u64(c["custom_a"]), u64(c["custom_b"]),
                                              u64(c["custom_c"]), st, msg))
    define("V8_FIELD_ERRORS", *o.array("v_v8_field_error", "v8_field_errors", rows))
    gens = []
    for g in d["v6_generator"]:
        steps, n = o.array("v_v6_step", "v6steps", [
            "{%s, %s}" % (u64(s["unix_ms"]), cstr(s["expect"]["uuid"])) for s in g["steps"]])
        gens.append("{%s, %d, %s}" % (rnd(g["random"]), n, steps))
    define("V6_GENS", *o.array("v_v6_gen", "v6gens", gens))
    gens = []
    for g in d["v7_methods"]:
        steps, n = o.array("v_v7m_step", "v7msteps", [
            "{%s, %d, %s, %s}" % (u64(s["unix_ms"]), s["sub_ms_nanos"], rnd(s["random"]),
                                  cstr(s["expect"]["uuid"])) for s in g["steps"]])
        gens.append("{%s, %d, %s}" % (cstr(g["method"]), n, steps))
    define("V7_METHODS", *o.array("v_v7_method", "v7methods", gens))
    rows = []
    for c in d["typeid_valid"] + d["typeid_invalid"]:
        e = c["expect"]
        st, msg = status(e)
        rows.append("{%s, %s, %s, %s, %s, %s}" % (cstr(c["name"]), cstr(c["typeid"]), st, msg,
                                                  cstr(e.get("prefix")), cstr(e.get("uuid"))))
    define("TYPEID_PARSES", *o.array("v_typeid_parse", "typeid_parses", rows))
    rows = []
    for c in d["typeid_encode"]:
        st, msg = status(c["expect"])
        rows.append("{%s, %s, %s, %s, %s}" % (cstr(c["prefix"]), cstr(c["uuid"]), st, msg,
                                              cstr(c["expect"].get("typeid"))))
    define("TYPEID_ENCODES", *o.array("v_typeid_encode", "typeid_encodes", rows))
    gens = []
    for g in d["typeid_generator"]:
        steps, n = o.array("v_typeid_step", "tidsteps", [
            "{%s, %s, %s}" % (u64(s["unix_ms"]), rnd(s["random"]), cstr(s["expect"]["typeid"]))
            for s in g["steps"]])
        gens.append("{%s, %d, %s}" % (cstr(g["prefix"]), n, steps))
    define("TYPEID_GENS", *o.array("v_typeid_gen", "tidgens", gens))
    rows = []
    for c in d["ulid_decode"]:
        e = c["expect"]
        st, msg = status(e)
        rows.append("{%s, %s, %s, %s, %s, %s, %s}" % (
            cstr(c["text"]), st, msg, cstr(e.get("ulid")), u64(e.get("timestamp_ms", 0)),
            cstr(hexbytes(e["random_hex"]) if "random_hex" in e else None), cstr(e.get("uuid"))))
    define("ULID_DECODES", *o.array("v_ulid_decode", "ulid_decodes", rows))
    rows = ["{%s, %s, %s}" % (u64(c["timestamp_ms"]), rnd(c["random"]), cstr(c["expect"]["ulid"]))
            for c in d["ulid_encode"]]
    define("ULID_ENCODES", *o.array("v_ulid_encode", "ulid_encodes", rows))
    gens = []
    for g in d["ulid_generator"]:
        steps = []
        for s in g["steps"]:
            e = s["expect"]
            st, msg = status(e)
            steps.append("{%s, %s, %s, %s, %s, %s}" % (u64(s["unix_ms"]), rnd(s["random"]), st, msg,
                                                       u64(e.get("until_ms", 0)),
                                                       cstr(e.get("ulid"))))
        arr, n = o.array("v_ulid_step", "ulidsteps", steps)
        gens.append("{%d, %s}" % (n, arr))
    define("ULID_GENS", *o.array("v_ulid_gen", "ulidgens", gens))
    rows = []
    for c in d["ksuid_decode"]:
        e = c["expect"]
        st, msg = status(e)
        rows.append("{%s, %s, %s, %s, %s, %s}" % (
            cstr(c["text"]), st, msg, cstr(e.get("ksuid")), u64(e.get("unix_ms", 0)),
            cstr(hexbytes(e["bytes_hex"]) if "bytes_hex" in e else None)))
    # any_id_kind: what the CLI and the service read as a KSUID (or refuse as one) reads the
    # same way through idmint_ksuid_parse; the other rows are no KSUID.
    for c in d["any_id_kind"]:
        e = c["expect"]
        if e.get("kind") == "ksuid":
            rows.append("{%s, IDMINT_OK, NULL, %s, UINT64_C(0), NULL}" % (cstr(c["text"]), cstr(c["text"])))
        elif e.get("codec") == "ksuid":
            st, msg = status(e)
            rows.append("{%s, %s, %s, NULL, UINT64_C(0), NULL}" % (cstr(c["text"]), st, msg))
        else:
            rows.append("{%s, IDMINT_INVALID_ENCODING, NULL, NULL, UINT64_C(0), NULL}" % cstr(c["text"]))
    define("KSUID_DECODES", *o.array("v_ksuid_decode", "ksuid_decodes", rows))
    rows = ["{%s, %s, %s}" % (u64((1400000000 + int(c["timestamp"])) * 1000), rnd(c["payload"]),
                              cstr(c["expect"]["ksuid"]))
            for c in d["ksuid_encode"]]
    define("KSUID_ENCODES", *o.array("v_ksuid_encode", "ksuid_encodes", rows))
    gens = []
    for g in d["ksuid_generator"]:
        steps = []
        for s in g["steps"]:
            e = s["expect"]
            st, msg = status(e)
            steps.append("{%s, %s, %s, %s, %s, %s}" % (u64(s["unix_ms"]), rnd(s["random"]), st, msg,
                                                       u64(e.get("until_ms", 0)),
                                                       cstr(e.get("ksuid"))))
        arr, n = o.array("v_ksuid_step", "ksuidsteps", steps)
        gens.append("{%d, %s}" % (n, arr))
    define("KSUID_GENS", *o.array("v_ksuid_gen", "ksuidgens", gens))
    # any_id_kind through idmint_parse_any: the kind, the value's bytes (or the 64-bit ID), the
    # TypeID prefix and the time, or the error.
    rows = []
    for c in d["any_id_kind"]:
        e = c["expect"]
        st, msg = status(e)
        codec = "IDMINT_CODEC_" + {"decimal": "DECIMAL", "hex": "HEX", "base32": "BASE32",
                                   "base62": "BASE62"}[c["codec"]] if "codec" in c else "IDMINT_CODEC_AUTO"
        kind = "IDMINT_ANY_ID_" + e["kind"].upper() if "kind" in e else "IDMINT_ANY_ID_SNOWFLAKE"
        b = e.get("bytes_hex")
        rows.append("{%s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s}" % (
            cstr(c["text"]), codec, st, msg, kind,
            u64(e["value"] if e.get("kind") == "snowflake" else 0),
            cstr(hexbytes(b) if b else None), len(hexbytes(b)) if b else 0, cstr(e.get("prefix", "")),
            "true" if e.get("unix_ms") is not None else "false", u64(e.get("unix_ms") or 0)))
    define("ANY_IDS", *o.array("v_any_id", "anyids", rows))


# Every vector file and every section of it that the C tests replay. main() fails when
# vectors/ holds a file or a section not listed here, so nothing new is skipped silently.
REPLAYED = {
    "layouts.json": (layouts, {"layouts", "invalid"}),
    "generators.json": (generators, {"cases", "invalid_configs", "policy_texts"}),
    "codecs.json": (codecs, {"encode", "decode"}),
    "uuids.json": (uuids, {"name_based", "v4", "v7", "v1", "v7_generator", "parse", "inspect"}),
    "obfuscation.json": (obfuscation, {"full", "sortable", "invalid"}),
    "named.json": (named, {"configs", "invalid"}),
    "formats.json": (formats, {"rfc9562", "special", "convert_errors", "v8_field_errors",
                               "v6_generator", "v7_methods", "typeid_valid", "typeid_invalid",
                               "typeid_encode", "typeid_generator", "ulid_decode", "ulid_encode",
                               "ulid_generator", "ksuid_decode", "ksuid_encode",
                               "ksuid_generator", "any_id_kind"}),
}

TYPES = r"""
typedef struct { const char *name; idmint_field_kind kind; uint32_t bits, shift; } v_field;
typedef struct {
    uint64_t time, node, sequence, rollback;
    idmint_status status; const char *message;
    uint64_t id, timestamp_ms;
    size_t n_node_fields; const char *const *nf_names; const uint64_t *nf_values;
} v_compose;
typedef struct {
    uint64_t id; idmint_status status; const char *message;
    uint64_t time, node, sequence, rollback;
} v_decompose;
typedef struct { uint64_t now_ms; idmint_status status; const char *message; uint64_t tick; } v_tick;
typedef struct {
    const char *spec, *canonical, *preset;
    uint32_t width; bool is_js_safe;
    uint64_t epoch_ms, tick_ms, lifetime_end_ms, capacity_per_second;
    uint64_t max_id, max_node, max_sequence, max_time;
    size_t n_fields; const v_field *fields;
    size_t n_compose; const v_compose *compose;
    size_t n_decompose; const v_decompose *decompose;
    size_t n_tick_at; const v_tick *tick_at;
} v_layout;
typedef struct { const char *spec; idmint_status status; const char *message; } v_invalid;

enum { V_NEXT, V_RESERVE, V_NEXT_IDS };
typedef struct {
    int kind; uint64_t now_ms, n;
    idmint_status status; const char *message; uint64_t until_ms;
    uint64_t id, first, count, stride;
    size_t n_ids; const uint64_t *ids;
} v_step;
typedef struct {
    const char *name, *named_config, *layout; uint64_t node;
    const char *on_backwards, *on_exhausted, *sequence_start;
    uint64_t seed; bool has_fence; uint64_t fence_ms;
    size_t n_steps; const v_step *steps;
    uint64_t rollbacks, wait_ms, max_ahead_ms, exhaustions;
} v_gen_case;
typedef struct {
    const char *layout; uint64_t node;
    const char *on_backwards, *on_exhausted, *sequence_start;
    idmint_status status; const char *message;
} v_invalid_config;
typedef struct {
    const char *policy, *text, *canonical; idmint_status status; const char *message;
} v_policy_text;

typedef struct { uint64_t id; const char *decimal, *hex, *base32, *base62; } v_encode;
typedef struct {
    const char *decoder, *text; size_t text_len;
    idmint_status status; const char *message; uint64_t id;
} v_decode;

typedef struct { uint32_t version; const char *variant; bool has_unix_ms; uint64_t unix_ms; } v_inspect;
typedef struct {
    uint32_t version; const char *ns, *name; size_t name_len; const char *uuid; v_inspect inspect;
} v_name_based;
typedef struct { const char *random; size_t random_len; const char *uuid; v_inspect inspect; } v_v4;
typedef struct {
    uint64_t unix_ms; const char *random; size_t random_len; const char *uuid; v_inspect inspect;
} v_v7;
typedef struct {
    bool has_unix_ms; /* true: v1_random_node(unix_ms, extra, ...); false: v1(ticks, ...) */
    uint64_t ticks, unix_ms; uint16_t extra, clock_seq;
    const char *node; size_t node_len; const char *uuid; v_inspect inspect;
} v_v1;
typedef struct { const char *name; size_t n_steps; const v_v7 *steps; } v_v7_gen;
typedef struct { const char *text; idmint_status status; const char *message; const char *uuid; } v_uuid_parse;
typedef struct { const char *uuid; v_inspect inspect; } v_uuid_inspect;

typedef struct {
    uint64_t now_ms; idmint_status status; const char *message; uint64_t until_ms;
    uint64_t id; const char *uuid; /* uuid: NULL for snowflake IDs */
} v_named_step;
typedef struct {
    const char *config, *canonical; idmint_named_type kind;
    const char *random; size_t random_len, random_used; /* one stream for all the steps */
    size_t n_steps; const v_named_step *steps;
} v_named;
typedef struct { const char *config; idmint_status status; const char *message; } v_named_invalid;

typedef struct { uint64_t input; idmint_status status; const char *message; uint64_t output; } v_obf_case;
typedef struct {
    const char *key; uint32_t bits; const char *layout; /* layout: sortable; bits = low_bits */
    size_t n_cases; const v_obf_case *cases;
} v_obf;
typedef struct {
    const char *key; uint32_t bits; const char *layout; idmint_status status; const char *message;
} v_obf_invalid;
typedef struct {
    const char *appendix, *method;
    uint64_t ticks; uint16_t clock_seq; const char *node; size_t node_len; /* v1, v6 */
    const char *ns, *name; size_t name_len;                                /* v3, v5 */
    const char *bytes; size_t bytes_len;          /* v4 and v7 random, v8 bytes */
    uint64_t unix_ms;                             /* v7 */
    uint64_t custom_a, custom_b, custom_c;        /* v8_fields */
    const char *from;                             /* v1_to_v6, v6_to_v1 */
    const char *uuid; uint32_t version;
} v_rfc9562;
typedef struct { const char *method, *uuid; idmint_status status; const char *message; } v_convert_error;
typedef struct {
    uint64_t custom_a, custom_b, custom_c; idmint_status status; const char *message;
} v_v8_field_error;
typedef struct { uint64_t unix_ms; const char *uuid; } v_v6_step;
typedef struct { const char *random; size_t random_len; size_t n_steps; const v_v6_step *steps; } v_v6_gen;
typedef struct {
    uint64_t unix_ms; uint32_t sub_ms_nanos; const char *random; size_t random_len; const char *uuid;
} v_v7m_step;
typedef struct { const char *method; size_t n_steps; const v_v7m_step *steps; } v_v7_method;
typedef struct {
    const char *name, *text; idmint_status status; const char *message; const char *prefix, *uuid;
} v_typeid_parse;
typedef struct {
    const char *prefix, *uuid; idmint_status status; const char *message; const char *typeid;
} v_typeid_encode;
typedef struct { uint64_t unix_ms; const char *random; size_t random_len; const char *typeid; } v_typeid_step;
typedef struct { const char *prefix; size_t n_steps; const v_typeid_step *steps; } v_typeid_gen;
typedef struct {
    const char *text; idmint_status status; const char *message;
    const char *ulid; uint64_t timestamp_ms; const char *random; /* 10 bytes */ const char *uuid;
} v_ulid_decode;
typedef struct { uint64_t timestamp_ms; const char *random; size_t random_len; const char *ulid; } v_ulid_encode;
typedef struct {
    uint64_t unix_ms; const char *random; size_t random_len;
    idmint_status status; const char *message; uint64_t until_ms; const char *ulid;
} v_ulid_step;
typedef struct { size_t n_steps; const v_ulid_step *steps; } v_ulid_gen;
typedef struct {
    const char *text; idmint_status status; const char *message;
    const char *ksuid; uint64_t unix_ms; const char *bytes; /* 20 bytes, NULL: not checked */
} v_ksuid_decode;
typedef struct { uint64_t unix_ms; const char *payload; size_t payload_len; const char *ksuid; } v_ksuid_encode;
typedef struct {
    uint64_t unix_ms; const char *random; size_t random_len;
    idmint_status status; const char *message; uint64_t until_ms; const char *ksuid;
} v_ksuid_step;
typedef struct { size_t n_steps; const v_ksuid_step *steps; } v_ksuid_gen;
typedef struct {
    const char *text; idmint_codec codec; idmint_status status; const char *message;
    idmint_any_id_kind kind; uint64_t id; const char *bytes; size_t bytes_len; const char *prefix;
    bool has_unix_ms; uint64_t unix_ms;
} v_any_id;
"""


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out_path = sys.argv[1]
    vdir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "vectors")
    load = lambda n: json.load(open(os.path.join(vdir, n), encoding="utf-8"))
    o = Out()
    o.emit("/* Generated by bindings-c/tests/gen_vectors.py from the JSON files in vectors/; do not edit. */")
    o.emit("#ifndef IDMINT_VECTORS_GEN_H")
    o.emit("#define IDMINT_VECTORS_GEN_H")
    o.emit("#include <stdbool.h>")
    o.emit("#include <stddef.h>")
    o.emit("#include <stdint.h>")
    o.emit('#include "idmint.h"')
    o.emit(TYPES)
    files = sorted(n for n in os.listdir(vdir) if n.endswith(".json"))
    if files != sorted(REPLAYED):
        sys.exit("gen_vectors.py: vector files %s, replayed %s: replay every file" %
                 (files, sorted(REPLAYED)))
    for name, (emit, sections) in REPLAYED.items():
        d = load(name)
        found = set(d) - {"_comment", "_sources"}
        if found != sections:
            sys.exit("gen_vectors.py: %s has sections %s, replayed %s: replay every section" %
                     (name, sorted(found), sorted(sections)))
        emit(o, d)
    o.emit("#endif")
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write("\n".join(o.lines) + "\n")
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main()
