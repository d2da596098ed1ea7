"""One version number: the workspace's, copied into the binding's Cargo.toml, read by maturin."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import idmint

ROOT = Path(__file__).resolve().parents[2]


def _version(path: Path, table: str) -> str:
    text = path.read_text(encoding="utf-8")
    section = text.split(f"[{table}]", 1)[1].split("\n[", 1)[0]
    m = re.search(r'^version\s*=\s*"([^"]+)"', section, re.M)
    assert m, f"no version in [{table}] of {path}"
    return m.group(1)


def test_versions_agree() -> None:
    workspace = _version(ROOT / "Cargo.toml", "workspace.package")
    crate = _version(ROOT / "bindings-python" / "Cargo.toml", "package")
    assert crate == workspace
    assert idmint.__version__ == workspace
    assert importlib.metadata.version("idmint") == workspace


def test_the_addon_is_pinned_to_this_release() -> None:
    """`pip install 'idmint[stores]'` installs the add-on of the same release, and the loader
    (`idmint/_stores.py`) expects that release."""
    workspace = _version(ROOT / "Cargo.toml", "workspace.package")
    pyproject = (ROOT / "bindings-python" / "pyproject.toml").read_text(encoding="utf-8")
    assert f'stores = ["idmint-stores=={workspace}"]' in pyproject
    loader = (ROOT / "bindings-python" / "python" / "idmint" / "_stores.py").read_text(encoding="utf-8")
    assert f'VERSION = "{workspace}"' in loader


def test_binding_stays_out_of_the_workspace() -> None:
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    exclude = re.search(r"^exclude\s*=\s*\[([^\]]*)\]", text, re.M)
    assert exclude and '"bindings-python"' in exclude.group(1)
