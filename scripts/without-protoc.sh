#!/usr/bin/env bash
# Runs a command where no protoc can be found: PROTOC names a file that does not exist, and each
# PATH directory holding a protoc is replaced by a directory of links to everything else in it.
# scripts/test.sh builds and runs the CLI so, to show that the README's first command needs no
# protoc (the etcd store speaks etcd's JSON gateway, not gRPC).
#
#   bash scripts/without-protoc.sh CMD [ARGS...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }

shadow=$(mktemp -d)
trap 'rm -rf "$shadow"' EXIT
path=
IFS=: read -ra dirs <<<"$PATH"
for i in "${!dirs[@]}"; do
  d=${dirs[$i]}
  if [ -n "$d" ] && [ -e "$d/protoc" ]; then
    mkdir "$shadow/$i"
    for f in "$d"/* "$d"/.[!.]*; do
      [ -e "$f" ] || [ -L "$f" ] || continue
      [ "${f##*/}" = protoc ] || ln -s "$f" "$shadow/$i/"
    done
    d=$shadow/$i
  fi
  path+="${path:+:}$d"
done

export PATH=$path PROTOC=/nonexistent/protoc
if command -v protoc >/dev/null; then
  echo "without-protoc: protoc is still on PATH at $(command -v protoc)" >&2
  exit 1
fi
"$@"
