"""idmint from Python: mint IDs, decode them, and bulk-insert rows keyed by them into SQLite.

Run with the package installed (`pip install ./bindings-python`):

    python examples/python/example.py

Type-checked with `mypy --strict` against the package's stubs (bindings-python/test.sh).
"""

from __future__ import annotations

import os
import sqlite3
import uuid

import idmint


def main() -> None:
    # One generator per process, shared by every thread. The node must be unique among the
    # processes minting at the same time (here: datacenter 1, worker 7).
    gen = idmint.Snowflake("twitter", node={"datacenter": 1, "worker": 7})

    # Mint and decode.
    first = gen.next_id()
    parts = gen.decode(first)
    print(f"id {first}")
    print(f"  minted at {parts.datetime.isoformat()} (ms {parts.timestamp_ms})")
    print(f"  node {parts.node} = {parts.node_fields}, sequence {parts.sequence}")
    print(f"  base32 {idmint.encode(first, 'base32')}  base62 {idmint.encode(first, 'base62')}")
    assert idmint.parse_id(idmint.encode(first, "base62")) == first

    # Bulk: 100,000 IDs as one array.array('Q'), made in Rust without the GIL.
    ids = gen.next_ids(100_000)
    assert all(a < b for a, b in zip(ids, ids[1:]))

    # Insert them with executemany; SQLite's INTEGER is a signed 64-bit value, and twitter's
    # 63-bit IDs always fit.
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, public_id TEXT NOT NULL, item TEXT)")
    public = idmint.SortableObfuscator(int.from_bytes(os.urandom(16), "big"), gen.layout)
    rows = ((i, idmint.encode(public.encode(i), "base62"), f"item {n}") for n, i in enumerate(ids))
    db.executemany("INSERT INTO orders (id, public_id, item) VALUES (?, ?, ?)", rows)
    (count,) = db.execute("SELECT count(*) FROM orders").fetchone()
    (newest,) = db.execute("SELECT id FROM orders ORDER BY id DESC LIMIT 1").fetchone()
    print(f"inserted {count} rows; newest id {newest} decodes to node {gen.decode(newest).node}")
    # The public IDs hide node and sequence but keep time order, so they still index well.
    (pid,) = db.execute("SELECT public_id FROM orders WHERE id = ?", (ids[0],)).fetchone()
    assert public.decode(idmint.parse_id(pid, "base62")) == ids[0]

    # UUIDs are standard uuid.UUID objects.
    u7 = idmint.uuid7()
    assert isinstance(u7, uuid.UUID) and u7.version == 7
    print(f"uuid7 {u7} at ms {idmint.uuid_info(u7).unix_ms}")
    print(f"uuid5 {idmint.uuid5(uuid.NAMESPACE_DNS, 'python.org')}")

    # A generator named by configuration (for example from an environment variable).
    named = idmint.from_config(os.environ.get("IDMINT_GENERATOR", "type=snowflake,layout=leaf,node=3"))
    print(f"{named.config} -> {next(named)}")

    # Sans-IO replay: the same inputs give the same IDs on every surface.
    replay = idmint.AtomicSnowflake("leaf", node=5)
    t = 1_700_000_000_000
    print(f"leaf node 5 at {t}: {replay.next_id_at(t)}")

    # Errors are typed and carry the core's stable code.
    try:
        idmint.Layout("time=41@1ms,worker=10,seq=x")
    except idmint.InvalidLayout as e:
        print(f"{e.code} at byte {e.at}: {e.reason}")


if __name__ == "__main__":
    main()
