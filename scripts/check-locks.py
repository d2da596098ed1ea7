#!/usr/bin/env python3
"""Checks that the lock files of the crates outside the workspace (bindings-python,
bindings-node, bindings-postgres) pin, for every crate they share with the workspace, a version
the workspace's Cargo.lock also pins. Shared means the same semver-compatible series (0.15.x and
0.16.x of a crate are two crates to cargo: pgrx's hashbrown 0.15 is not the workspace's 0.16). The C library, the Python and Node packages and the CLI then
share one release build of their dependencies (scripts/test.sh); one differing version (a
hashbrown deep in the graph) makes every crate above it compile again, minutes of the test run.

    python3 scripts/check-locks.py            # exit 1 and name the crates when they differ
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = re.compile(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"')


def versions(path):
    pinned = {}
    with open(path, encoding="utf-8") as f:
        for name, version in PACKAGE.findall(f.read()):
            pinned.setdefault(name, set()).add(version)
    return pinned


def series(version):
    """The semver-compatible series of a version: 1.2.3 -> 1, 0.15.5 -> 0.15, 0.0.7 -> 0.0.7."""
    parts = version.split("+")[0].split("-")[0].split(".")
    for i, p in enumerate(parts):
        if p != "0" or i == len(parts) - 1:
            return ".".join(parts[: i + 1])
    return version


def main():
    workspace = versions(os.path.join(ROOT, "Cargo.lock"))
    bad = []
    for crate in ("bindings-python", "bindings-node", "bindings-postgres"):
        for name, vs in sorted(versions(os.path.join(ROOT, crate, "Cargo.lock")).items()):
            pinned = workspace.get(name, set())
            shared = {series(v) for v in pinned}
            extra = {v for v in vs if series(v) in shared and v not in pinned}
            if extra:
                bad.append(f"{crate}/Cargo.lock: {name} {', '.join(sorted(extra))} "
                           f"(workspace: {', '.join(sorted(workspace[name]))})")
    if bad:
        print("lock files pin versions the workspace does not; align them with "
              "`cargo update --offline -p NAME --precise VERSION` in the crate's folder:",
              *bad, sep="\n  ", file=sys.stderr)
        return 1
    print("the bindings' lock files agree with the workspace's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
