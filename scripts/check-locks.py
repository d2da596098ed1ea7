#!/usr/bin/env python3
"""Checks that the lock files of the crates outside the workspace (bindings-python,
bindings-node) pin, for every crate they share with the workspace, a version the
workspace's Cargo.lock also pins. The C library, the Python and Node packages and the CLI then
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


def main():
    workspace = versions(os.path.join(ROOT, "Cargo.lock"))
    bad = []
    for crate in ("bindings-python", "bindings-node"):
        for name, vs in sorted(versions(os.path.join(ROOT, crate, "Cargo.lock")).items()):
            extra = vs - workspace.get(name, vs)
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
