"""Which native module ``idmint`` runs on: its own (``idmint._native``: Snowflake, UUIDs, TypeID,
ULID, KSUID, codecs, obfuscation, the file lease store), or, when the add-on wheel
``idmint-stores`` is installed, the add-on's ``idmint_stores._native``: the same classes built
with every store client (Redis, PostgreSQL, MySQL, SQLite, etcd, ZooKeeper, the idmint service).

The wheels stay small this way: the store clients weigh four times the rest. A store URL used
without the add-on fails with ``InvalidConfig`` naming ``pip install 'idmint[stores]'``.
"""

from __future__ import annotations

import importlib
import sys

# The version of this package; the add-on must be the same release (`pip install
# 'idmint[stores]'` pins it). tests/test_version.py checks it equals the Cargo.toml version.
VERSION = "0.1.0"


def use_addon_if_installed() -> None:
    """Makes ``idmint._native`` the add-on's module when the add-on is installed."""
    try:
        addon = importlib.import_module("idmint_stores._native")
    except ModuleNotFoundError as err:
        if err.name in ("idmint_stores", "idmint_stores._native"):
            return
        raise
    if addon.__version__ != VERSION:
        raise ImportError(
            f"idmint {VERSION} found the add-on idmint-stores {addon.__version__}: install the "
            f"same release of both (pip install 'idmint[stores]=={VERSION}')"
        )
    sys.modules[__name__.rpartition(".")[0] + "._native"] = addon
