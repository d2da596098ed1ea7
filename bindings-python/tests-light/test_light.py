"""The light wheel `idmint` installed alone (no `idmint-stores`): what it mints, the file lease
store, and the error a store URL it lacks gives. bindings-python/test.sh and
scripts/dist-smoke.sh run this file with only the light wheel installed; tests/ runs with the
add-on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import idmint

INSTALL = "pip install 'idmint[stores]'"


def test_the_light_module_is_loaded() -> None:
    native = sys.modules["idmint._native"]
    assert Path(native.__file__).parent == Path(idmint.__file__).parent
    with pytest.raises(ModuleNotFoundError):
        import idmint_stores  # noqa: F401


def test_snowflake_uuids_codecs_and_obfuscation() -> None:
    gen = idmint.Snowflake("twitter", node=42)
    ids = list(gen.next_ids(100))
    assert ids == sorted(set(ids))
    assert gen.decode(ids[0]).node == 42
    assert idmint.parse_id(idmint.encode(ids[0], "base62"), "base62") == ids[0]
    assert str(idmint.parse_uuid(str(idmint.uuid7()))).count("-") == 4
    assert len(str(idmint.ulid())) == 26 and str(idmint.typeid("user")).startswith("user_")
    ob = idmint.Obfuscator.for_layout(12345, "twitter")
    assert ob.decode(ob.encode(ids[0])) == ids[0]


def test_file_lease_and_memory_segments(tmp_path: Path) -> None:
    with idmint.LeasedSnowflake(f"file:{tmp_path}") as a, idmint.LeasedSnowflake(f"file:{tmp_path}") as b:
        assert a.node != b.node
        assert a.next_id() != b.next_id()
    seg = idmint.SegmentAllocator("memory:")
    assert [seg.next_id("k") for _ in range(3)] == [1, 2, 3]


@pytest.mark.parametrize(
    "url", ["redis://127.0.0.1:1/", "postgres://u@127.0.0.1:1/db", "mysql://u@127.0.0.1:1/db",
            "etcd://127.0.0.1:1/p", "zk://127.0.0.1:1/p"]
)
def test_a_lease_store_url_names_the_addon(url: str) -> None:
    with pytest.raises(idmint.InvalidConfig, match=r"install the stores add-on: pip install 'idmint\[stores\]'"):
        idmint.LeasedSnowflake(url)


@pytest.mark.parametrize("url", ["sqlite:/tmp/x.db", "idmint+http://127.0.0.1:1/", "redis://127.0.0.1:1/"])
def test_a_segment_store_url_names_the_addon(url: str) -> None:
    with pytest.raises(idmint.InvalidConfig) as err:
        idmint.SegmentAllocator(url)
    assert INSTALL in str(err.value)


def test_an_addon_of_another_release_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "idmint_stores"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "_native.py").write_text('__version__ = "0.0.0-other"\n')
    run = subprocess.run(
        [sys.executable, "-c", "import idmint"],
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0
    assert "ImportError" in run.stderr and "idmint-stores 0.0.0-other" in run.stderr, run.stderr
