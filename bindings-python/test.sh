#!/usr/bin/env bash
# Python binding: builds the abi3 wheels (idmint, and the store add-on idmint-stores), runs
# tests-light/ with the light wheel alone, then installs the add-on next to it and runs pytest (vectors,
# stdlib parity, threads, fork, bad inputs, versions), mypy --strict on the example,
# mypy.stubtest of the stubs against the built module, and the example itself.
# Installs what it needs (idempotently): a venv with pinned maturin, pytest and mypy, and the
# pinned ecosystem packages the cross-checks read and write (uuid6, uuid-utils, typeid-python,
# python-ulid).
# The coordination tests (tests/test_coord.py) run against Redis and PostgreSQL: the servers
# named by IDMINT_TEST_REDIS_URL / IDMINT_TEST_POSTGRES_URL, or else private ones started here
# with scripts/services.sh (installed by scripts/setup.sh) and stopped on exit.
#
#   bash bindings-python/test.sh            # from the repository root or anywhere
#   IDMINT_PY_VENV=/path/to/venv bash ...   # another venv (default: target/py-venv)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
venv="${IDMINT_PY_VENV:-$root/target/py-venv}"
wheels="$root/target/python-wheels"
python="${PYTHON:-python3}"

MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0
MYPY_VERSION=2.4.1
# Runs the READMEs' Python blocks against the installed wheel (scripts/docs-check.py).
MARKDOWN_DOCS_VERSION=0.9.2
# The ecosystem's own packages, cross-checked in tests/test_ecosystem.py (and benchmarked).
ECOSYSTEM=(uuid6==2025.0.1 uuid-utils==1.2.0 typeid-python==0.3.11 python-ulid==4.1.0
  svix-ksuid==0.7.0 python-baseconv==1.2.2)

step() { printf '\n==> python: %s\n' "$*"; }

step "venv ($venv) with maturin $MATURIN_VERSION, pytest $PYTEST_VERSION, mypy $MYPY_VERSION, pytest-markdown-docs $MARKDOWN_DOCS_VERSION, ${ECOSYSTEM[*]}"
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check \
  "maturin==$MATURIN_VERSION" "pytest==$PYTEST_VERSION" "mypy==$MYPY_VERSION" \
  "pytest-markdown-docs==$MARKDOWN_DOCS_VERSION" "${ECOSYSTEM[@]}"

step "build the abi3 wheels: idmint (light) and the add-on idmint-stores (release, Cargo.lock must be up to date)"
# A module left in the source tree by `maturin develop` must not shadow or enter the wheel.
rm -f "$here"/python/idmint/_native*.so "$here"/stores/python/idmint_stores/_native*.so
rm -rf "$wheels"
# The host's triple named explicitly, as napi-rs does for the Node addon and bindings-c for the C
# library: in one target directory (scripts/test.sh) they share one release build of their
# dependencies. The light wheel builds with the `light` profile (release, its own directory), the
# add-on (stores/pyproject.toml: the same crate with its `stores` feature) with `release`.
host=$(rustc -vV | sed -n 's/^host: //p')
"$venv/bin/maturin" build --profile light --locked --target "$host" --manifest-path "$here/Cargo.toml" \
  --interpreter "$py" --out "$wheels"
(cd "$here/stores" && "$venv/bin/maturin" build --release --locked --target "$host" \
  --interpreter "$py" --out "$wheels")
wheel=$(ls "$wheels"/idmint-*-abi3-*.whl)
addon=$(ls "$wheels"/idmint_stores-*-abi3-*.whl)
ls -l "$wheel" "$addon"

step "the light wheel alone: tests-light (what it mints, the file lease store, the add-on named for a store URL) and the vectors"
"$py" -m pip uninstall -q -y idmint-stores 2>/dev/null || true
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
(cd "$here" && "$py" -m pytest -q -p no:cacheprovider tests-light tests/test_vectors.py)

step "the add-on installed next to it (every test below runs on it)"
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$addon"
"$py" -c 'import idmint, sys; assert sys.modules["idmint._native"].__name__.startswith("idmint_stores"), sys.modules["idmint._native"]'

step "cargo fmt and clippy of this crate (outside the workspace; warnings are errors)"
(cd "$here" && cargo fmt -- --check && PYO3_PYTHON="$py" cargo clippy --release --locked -- -D warnings \
  && PYO3_PYTHON="$py" cargo clippy --release --locked --features stores -- -D warnings)

step "Redis and PostgreSQL for the coordination tests"
services="$root/scripts/services.sh"
svc_dir=$(mktemp -d)
started=()
cleanup() {
  local kind
  for kind in "${started[@]}"; do bash "$services" stop "$kind" "$svc_dir/$kind" || true; done
  rm -rf "$svc_dir"
}
trap cleanup EXIT
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
if [ -z "${IDMINT_TEST_REDIS_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start redis "$svc_dir/redis" "$port"
  started+=(redis)
  export IDMINT_TEST_REDIS_URL="redis://127.0.0.1:$port/"
fi
if [ -z "${IDMINT_TEST_POSTGRES_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start postgres "$svc_dir/postgres" "$port"
  started+=(postgres)
  export IDMINT_TEST_POSTGRES_URL="postgres://idmint@127.0.0.1:$port/postgres"
fi
if [ -z "${IDMINT_TEST_SERVICE_URL:-}" ]; then
  port=$(free_port)
  bash "$services" start idmint "$svc_dir/idmint" "$port"
  started+=(idmint)
  export IDMINT_TEST_SERVICE_URL="idmint+http://127.0.0.1:$port/"
fi
# The tests must not quietly leave the servers out.
export IDMINT_TEST_REQUIRE_SERVERS=1
echo "redis $IDMINT_TEST_REDIS_URL, postgres $IDMINT_TEST_POSTGRES_URL, service $IDMINT_TEST_SERVICE_URL"

step "pytest"
cd "$here"
set +e
"$py" -m pytest -p no:cacheprovider tests
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
elif [ "$rc" -ne 0 ]; then
  exit "$rc"
fi

step "mypy --strict on examples/python/example.py (against the installed stubs)"
export MYPY_CACHE_DIR="$root/target/mypy-cache"  # keep caches out of the source tree
"$py" -m mypy --strict "$root/examples/python/example.py"

step "stubtest: python/idmint/_native.pyi against the built module"
# (run from target/ so that its mypy cache stays out of the source tree)
mkdir -p "$root/target/stubtest"
(cd "$root/target/stubtest" && "$py" -m mypy.stubtest idmint --allowlist "$here/stubtest-allowlist.txt")

step "examples/python/example.py"
"$py" "$root/examples/python/example.py"

echo
echo "python: all tests passed"
