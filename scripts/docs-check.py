#!/usr/bin/env python3
"""Documentation that runs: every fenced block of every Markdown file is run, or skipped by a
visible mark with a reason, or it fails the test command.

How a block is accounted for, by its info string (the word after the opening fence) — the rules
for anyone writing a README:

  ```console   A CLI/HTTP transcript: `$ command` lines, each followed by its output. Run by
               trycmd (cli/tests/docs.rs, in the Rust tests step) with `idmint` (the debug
               build) and `curl`, without a shell, in a scratch directory. Output matches with
               wildcards: `[..]` is any text within a line, `...` alone on a line any lines.
               `127.0.0.1:7600` means the private `idmint serve` the test starts (with
               examples/server/idmint.toml) and `127.0.0.1:6379` a private Redis: the test
               rewrites both to the ports it got. stderr is shown merged into stdout.
  ```rust      Run by rustdoc (`cargo test --doc`, the Rust tests step): each Markdown file with
               Rust blocks is included in a crate's docs under #[cfg(doctest)]
               (RUST_INCLUDES below). `rust no_run` compiles only, and needs a reason (below).
  ```python    Run by pytest-markdown-docs in the Python package's venv (the installed wheel),
               in a scratch directory. `python continuation` continues the previous block;
               `python notest` needs a reason (below).
  ```js        Run by node against the built packages: `idmint` is bindings-node, `idmint-web`
               bindings-wasm's Node build. A block with an `import`/`export` statement runs as
               ESM, any other as CommonJS. `http://127.0.0.1:7600` means a private `idmint serve`
               (the debug build, or $IDMINT_BIN) on examples/browser/idmint.toml, started here
               on a free port the block is rewritten to.
  ```c         Compiled with cc (-Wall -Werror) against include/idmint.h and the release
               libidmint.a, and run. A block without `main(` is a fragment: its `#include`
               lines stay on top and the rest becomes the body of `int main(void)`.
  ```toml      Must parse (tomllib).
  ```text      Not code: diagrams, file trees, formats, command synopses. Never run. A
               command's output is not a block of its own: it goes under the command in its
               console block (or, for code, into a comment), where it is compared.

The example configs are not blocks but files, and run too: examples/server/idmint.toml is the
config of the service the console transcripts talk to, examples/browser/idmint.toml of the one
the js blocks lease from.

Any other block — or one of the above that cannot run here (another host, a production URL, a
benchmark that takes minutes, the test command itself) — needs the line right before its
opening fence to be an HTML comment saying why:

  <!-- not run: needs a Redis at 10.0.0.5 (another host) -->

This script walks every *.md outside target/, node_modules/, dist/ and pkg/, lists every block
as file:line with how it was accounted for, runs the python, js, c and toml blocks itself, and
fails when a block is neither run nor skipped with a reason. The console and rust blocks ran in
the Rust tests step; here it checks they are wired (the trycmd test exists, each file with Rust
blocks is included for rustdoc) unless --rust runs them again.

It also checks that every test a "guarantees" table or a "the test behind it" claim names
(`tests/…rs` paths and `fn`-style test names in backticks next to them) exists.

  python3 scripts/docs-check.py              # after scripts/test.sh built everything
  python3 scripts/docs-check.py --list       # the inventory only, nothing run
  python3 scripts/docs-check.py --only c,js  # run some kinds only (the others are listed)
  python3 scripts/docs-check.py --rust       # also re-run the trycmd test and the doc tests
  python3 scripts/docs-check.py --self-test  # the accounting rules on a made-up file

Environment: IDMINT_PY_VENV (default target/py-venv), CARGO_TARGET_DIR (default target).
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import time
import urllib.request
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {"target", "node_modules", "dist", "pkg", ".git"}
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(\S.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")

# Markdown files whose Rust blocks rustdoc runs, and the source file that includes each.
RUST_INCLUDES = {
    "README.md": "coord/src/lib.rs",
    "coord/README.md": "coord/src/lib.rs",
}
TRYCMD_TEST = "cli/tests/docs.rs"


@dataclass
class Block:
    file: str
    line: int  # of the opening fence, 1-based
    info: str
    body: str
    skip_reason: str | None
    status: str = ""
    detail: str = ""
    words: list[str] = field(default_factory=list)

    @property
    def lang(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def markdown_files() -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        out += [Path(dirpath) / f for f in sorted(filenames) if f.endswith(".md")]
    return out


def blocks_of(path: Path, root: Path = ROOT) -> list[Block]:
    rel = str(path.relative_to(root))
    lines = path.read_text().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.groups()
        j = i + 1
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = "\n".join(l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j])
        prev = lines[i - 1] if i > 0 else ""
        skip = NOT_RUN.match(prev)
        b = Block(rel, i + 1, info.strip(), body, skip.group(1) if skip else None)
        b.words = b.info.replace(",", " ").split()
        out.append(b)
        i = j + 1
    return out


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def host_triple() -> str:
    out = run(["rustc", "-vV"]).stdout
    return next(l.split(": ", 1)[1] for l in out.splitlines() if l.startswith("host: "))


# --- python: pytest-markdown-docs -------------------------------------------------------------


def run_python(blocks: list[Block], scratch: Path) -> None:
    venv = Path(os.environ.get("IDMINT_PY_VENV", ROOT / "target" / "py-venv"))
    py = venv / "bin" / "python"
    files = sorted({b.file for b in blocks})
    report = scratch / "pytest.xml"
    cwd = scratch / "python"
    cwd.mkdir()
    r = run(
        [str(py), "-m", "pytest", "--markdown-docs", "-p", "no:cacheprovider", "-q",
         f"--rootdir={ROOT}", "-c", os.devnull, f"--junitxml={report}",
         *[str(ROOT / f) for f in files]],
        cwd=cwd,
    )
    results: dict[tuple[str, int], tuple[str, str]] = {}
    if report.exists():
        for case in ET.parse(report).iter("testcase"):
            # classname "bindings-python.README.md", name "[CodeFence#2][line:114]".
            m = re.search(r"\[line:(\d+)\]", case.get("name", ""))
            f = next((f for f in files if f.replace("/", ".") == case.get("classname")), None)
            # (An Element without children is falsy: compare with None.)
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            skipped = case.find("skipped")
            state = "failed" if failure is not None else "skipped" if skipped is not None else "passed"
            msg = (failure.get("message", "") + "\n" + (failure.text or "")) if failure is not None else ""
            if f and m:
                results[(f, int(m.group(1)))] = (state, msg)
    for b in blocks:
        state, msg = results.get((b.file, b.line), ("", ""))
        if state == "passed":
            b.status, b.detail = "ran", "pytest-markdown-docs"
        elif state == "skipped":
            b.status, b.detail = "unaccounted", "pytest skipped it without a not-run reason"
        elif state:
            b.status, b.detail = "failed", "pytest-markdown-docs:\n" + msg.strip()
        else:
            b.status = "failed"
            b.detail = "pytest-markdown-docs did not report it:\n" + (r.stdout + r.stderr)[-3000:]


# --- js: node -----------------------------------------------------------------------------------


def js_packages(scratch: Path) -> Path:
    """A directory whose node_modules holds the repository's two packages, as installed."""
    d = scratch / "js"
    (d / "node_modules").mkdir(parents=True)
    (d / "node_modules" / "idmint").symlink_to(ROOT / "bindings-node")
    (d / "node_modules" / "idmint-web").symlink_to(ROOT / "bindings-wasm")
    return d


ESM = re.compile(r"^\s*(import\s|export\s)", re.M)


SERVICE = "127.0.0.1:7600"


@contextlib.contextmanager
def idmint_service(config: Path, scratch: Path):
    """A private `idmint serve` on `config` and a free loopback port; yields the port."""
    exe = os.environ.get("IDMINT_BIN") or str(target_dir() / "debug" / "idmint")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = open(scratch / "service.log", "w")
    p = subprocess.Popen([exe, "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}",
                          "--data-dir", str(scratch / "service"), "--log", "warn"],
                         stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if p.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"idmint serve did not start: {(scratch / 'service.log').read_text()}")
            time.sleep(0.05)
        yield port
    finally:
        p.terminate()
        p.wait()
        log.close()


def run_js(blocks: list[Block], scratch: Path) -> None:
    d = js_packages(scratch)
    with contextlib.ExitStack() as stack:
        port = None
        if any(SERVICE in b.body for b in blocks):
            port = stack.enter_context(idmint_service(ROOT / "examples/browser/idmint.toml", scratch))
        run_js_blocks(blocks, d, port)


def run_js_blocks(blocks: list[Block], d: Path, port: int | None) -> None:
    for n, b in enumerate(blocks):
        ext = "mjs" if ESM.search(b.body) else "cjs"
        work = d / f"block{n}"
        work.mkdir()
        src = d / f"block{n}.{ext}"
        body = b.body.replace(SERVICE, f"127.0.0.1:{port}") if port else b.body
        src.write_text(body + "\n")
        r = run(["node", str(src)], cwd=work, timeout=120)
        if r.returncode == 0:
            b.status, b.detail = "ran", f"node ({'ESM' if ext == 'mjs' else 'CommonJS'})"
        else:
            b.status, b.detail = "failed", f"node exited {r.returncode}:\n{r.stdout}{r.stderr}"


# --- c: cc against the header and the release library ------------------------------------------


def c_library() -> Path:
    for d in (target_dir() / host_triple() / "release", target_dir() / "release"):
        if (d / "libidmint.a").exists():
            return d / "libidmint.a"
    raise SystemExit("libidmint.a not found: run bash bindings-c/test.sh first")


def c_program(body: str) -> str:
    if "main(" in body:
        return body + "\n"
    includes = [l for l in body.splitlines() if l.startswith("#include")]
    rest = [l for l in body.splitlines() if not l.startswith("#include")]
    head = ["#include <inttypes.h>", "#include <stdint.h>", "#include <stdio.h>",
            "#include <stdlib.h>", '#include "idmint.h"']
    return "\n".join(head + includes + ["", "int main(void) {"] + ["    " + l for l in rest]
                     + ["    return 0;", "}", ""])


def run_c(blocks: list[Block], scratch: Path) -> None:
    lib = c_library()
    d = scratch / "c"
    d.mkdir()
    for n, b in enumerate(blocks):
        src, exe = d / f"block{n}.c", d / f"block{n}"
        src.write_text(c_program(b.body))
        r = run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-variable",
                 "-Wno-unused-but-set-variable", f"-I{ROOT / 'include'}", str(src), str(lib),
                 "-lpthread", "-ldl", "-lm", "-o", str(exe)])
        if r.returncode != 0:
            b.status, b.detail = "failed", "cc:\n" + r.stderr
            continue
        r = run([str(exe)], cwd=d, timeout=60)
        if r.returncode == 0:
            b.status, b.detail = "ran", "cc + run"
        else:
            b.status, b.detail = "failed", f"exit {r.returncode}:\n{r.stdout}{r.stderr}"


# --- toml ---------------------------------------------------------------------------------------


def run_toml(blocks: list[Block]) -> None:
    for b in blocks:
        try:
            tomllib.loads(b.body)
            b.status, b.detail = "ran", "tomllib parse"
        except tomllib.TOMLDecodeError as e:
            b.status, b.detail = "failed", f"tomllib: {e}"


# --- console and rust: wired into the Rust tests ------------------------------------------------


def check_console(blocks: list[Block], rerun: bool) -> None:
    test = ROOT / TRYCMD_TEST
    if not test.exists():
        for b in blocks:
            b.status, b.detail = "unaccounted", f"{TRYCMD_TEST} is missing"
        return
    if rerun:
        r = run(["cargo", "nextest", "run", "--locked", "-p", "idmint-cli", "--test", "docs"], cwd=ROOT)
        if r.returncode != 0:
            for b in blocks:
                b.status, b.detail = "failed", "trycmd:\n" + (r.stdout + r.stderr)[-4000:]
            return
    for b in blocks:
        b.status, b.detail = "ran", "trycmd (" + TRYCMD_TEST + ")" + ("" if rerun else ", Rust tests step")


def check_rust(blocks: list[Block], rerun: bool) -> None:
    for b in blocks:
        src = RUST_INCLUDES.get(b.file)
        rel = os.path.relpath(ROOT / b.file, (ROOT / src).parent) if src else ""
        if not src or f'include_str!("{rel}")' not in (ROOT / src).read_text():
            b.status, b.detail = "unaccounted", f"no #[doc = include_str!] of {b.file} for rustdoc"
        elif "no_run" in b.words and not b.skip_reason:
            b.status, b.detail = "unaccounted", "rust no_run without a <!-- not run: reason -->"
        elif "no_run" in b.words:
            b.status, b.detail = "compiled", f"rustdoc (no_run: {b.skip_reason})"
        else:
            b.status, b.detail = "ran", "rustdoc" + ("" if rerun else " (cargo test --doc, Rust tests step)")
    if rerun and blocks:
        r = run(["cargo", "test", "--locked", "-p", "idmint-coord", "--doc", "readme_doctests"], cwd=ROOT)
        if r.returncode != 0:
            for b in blocks:
                b.status, b.detail = "failed", "rustdoc:\n" + (r.stdout + r.stderr)[-4000:]


# --- named tests --------------------------------------------------------------------------------

TEST_PATH = re.compile(r"\(?((?:[\w.-]+/)*tests/[\w/.-]+\.(?:rs|py|mjs|c))\)?")
TEST_NAME = re.compile(r"`((?:test_)?[a-z][a-z0-9]*(?:_[a-z0-9]+){2,})`")


def check_named_tests(files: list[Path]) -> list[str]:
    """Each test file a README links to exists, and each test-like name (snake_case, three words
    or more) in backticks on a table row about tests (one that says "test", or any row of a table
    whose last column is `test` or `backed by`) is defined in the repository's sources."""
    problems = []
    tracked = run(["git", "ls-files"], cwd=ROOT).stdout.split()
    for path in files:
        rel = path.relative_to(ROOT)
        in_table = False  # a table whose last column is `test` or `backed by`
        for n, line in enumerate(path.read_text().split("\n"), 1):
            if not line.startswith("|"):
                in_table = False
            elif line.strip().strip("|").split("|")[-1].strip().lower() in ("test", "tests", "backed by"):
                in_table = True
            for m in TEST_PATH.finditer(line):
                t = m.group(1)
                # As linked, or named within its package ("Python `tests/test_coord.py`").
                if not ((path.parent / t).exists() or (ROOT / t).exists()
                        or any(f.endswith("/" + t) for f in tracked)):
                    problems.append(f"{rel}:{n}: names {t}, which does not exist")
            if not (line.lstrip().startswith("|") and ("test" in line or in_table)):
                continue
            for name in TEST_NAME.findall(line):
                if name.startswith("idmint_") or name.startswith("err_"):
                    continue  # C functions, error codes: not test names
                r = run(["git", "grep", "-q", "-w", "-E", rf"(fn|def|void|test\(.?) *{name}",
                         "--", "*.rs", "*.py", "*.c", "*.mjs", "*.js"], cwd=ROOT)
                if r.returncode != 0:
                    problems.append(f"{rel}:{n}: names the test `{name}`, defined nowhere")
    return problems + check_test_columns(files)


def check_test_columns(files: list[Path]) -> list[str]:
    """In a table whose last column is `test` or `backed by` (a guarantees table), every row's
    last cell names a test: a test file or a test function in backticks."""
    problems = []
    names_test = re.compile(r"[\w/.-]+\.(?:rs|py|mjs|c)\b|`(?:test_)?[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}`")
    for path in files:
        rel = path.relative_to(ROOT)
        in_table = False
        for n, line in enumerate(path.read_text().split("\n"), 1):
            if not line.startswith("|"):
                in_table = False
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not in_table and cells[-1].lower() in ("test", "tests", "backed by"):
                in_table = True
                continue
            # Or it points to another such table, which this check reads too.
            refers = re.search(r"\]\([\w/.-]*\.md#[\w-]+\)", cells[-1])
            if in_table and not set(line) <= set("|-: ") and not (names_test.search(cells[-1]) or refers):
                problems.append(f"{rel}:{n}: a guarantee whose test column names no test")
    return problems


# --- main ---------------------------------------------------------------------------------------


def account(blocks: list[Block], only: set[str] | None, rerun_rust: bool, listing: bool) -> None:
    by_kind: dict[str, list[Block]] = {}
    for b in blocks:
        if b.skip_reason and not (b.lang == "rust" and "no_run" in b.words):
            b.status, b.detail = "skipped", b.skip_reason
        elif not b.lang:
            b.status, b.detail = "unaccounted", "no info string: say ```text (not code) or the language"
        elif b.lang == "text":
            b.status, b.detail = "text", "not code"
        elif b.lang == "console" and "ignore" in b.words:
            b.status, b.detail = "unaccounted", "console,ignore without a <!-- not run: reason -->"
        elif b.lang == "python" and "notest" in b.words:
            b.status, b.detail = "unaccounted", "python notest without a <!-- not run: reason -->"
        elif b.lang in ("console", "rust", "python", "js", "c", "toml"):
            by_kind.setdefault(b.lang, []).append(b)
        else:
            b.status, b.detail = "unaccounted", f"```{b.lang} is run by nothing: mark it <!-- not run: reason -->"
    check_console(by_kind.get("console", []), rerun_rust)
    check_rust(by_kind.get("rust", []), rerun_rust)
    runners = {"python": run_python, "js": run_js, "c": run_c}
    with tempfile.TemporaryDirectory(prefix="idmint-docs-") as tmp:
        for kind, fn in runners.items():
            todo = by_kind.get(kind, [])
            if listing or (only and kind not in only):
                for b in todo:
                    b.status, b.detail = "not checked", f"{kind} (this run left it out)"
            elif todo:
                fn(todo, Path(tmp))
        if "toml" in by_kind:
            run_toml(by_kind["toml"])


SELF_TEST = """\
```text
a diagram
```

```
untagged
```

```sh
rm -rf /
```

<!-- not run: a benchmark -->
```sh
cargo bench
```

<!-- not run: -->
```sh
an empty reason is no reason
```

```python notest
print("skipped without a reason")
```

```yaml
a: 1
```

  ```toml
  indented = "toml that parses"
  ```

````toml
not = toml at all
````
"""


def self_test() -> int:
    """The accounting rules on a made-up file: what must fail fails."""
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "x.md"
        f.write_text(SELF_TEST)
        blocks = blocks_of(f, Path(tmp))
        account(blocks, {"none"}, False, False)
    got = [(b.line, b.status) for b in blocks]
    want = [(1, "text"), (5, "unaccounted"), (9, "unaccounted"), (14, "skipped"),
            (19, "unaccounted"), (23, "unaccounted"), (27, "unaccounted"), (31, "ran"),
            (35, "failed")]
    print("self-test:", "ok" if got == want else f"got {got}, want {want}")
    return 0 if got == want else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="list the blocks; run nothing")
    ap.add_argument("--only", help="comma-separated kinds to run: python,js,c")
    ap.add_argument("--rust", action="store_true", help="re-run the trycmd test and the doc tests")
    ap.add_argument("--self-test", action="store_true", help="check the accounting rules only")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    files = markdown_files()
    blocks = [b for f in files for b in blocks_of(f)]
    account(blocks, set(args.only.split(",")) if args.only else None, args.rust, args.list)

    counts: dict[str, int] = {}
    per_file: dict[str, dict[str, int]] = {}
    for b in blocks:
        print(f"{b.where:<40} {b.info or '(none)':<16} {b.status:<11} {b.detail.splitlines()[0] if b.detail else ''}")
        counts[b.status] = counts.get(b.status, 0) + 1
        per_file.setdefault(b.file, {}).setdefault(b.status, 0)
        per_file[b.file][b.status] += 1
    print()
    for f, c in per_file.items():
        print(f"{f:<40} " + ", ".join(f"{v} {k}" for k, v in sorted(c.items())))
    bad = [b for b in blocks if b.status in ("failed", "unaccounted")]
    for b in bad:
        print(f"\n{b.where}: {b.status}: {b.detail}", file=sys.stderr)
    problems = check_named_tests(files)
    for p in problems:
        print(p, file=sys.stderr)
    print("\ndocs: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f" ({len(blocks)} blocks in {len(files)} files)")
    # The plain closing line the CI reads.
    ok = sum(counts.get(k, 0) for k in ("ran", "compiled", "text"))
    print(f"{ok} passed, {len(bad) + len(problems)} failed, {counts.get('skipped', 0)} skipped")
    return 1 if bad or problems else 0


if __name__ == "__main__":
    sys.exit(main())
