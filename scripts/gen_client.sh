#!/usr/bin/env bash
# Regenerate the Python client from the app's OpenAPI document.
#   bash scripts/gen_client.sh [OUT_DIR]     (default: clients/python; tests pass a temp dir)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${1:-clients/python}"
PY=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"   # the post hooks call ruff
SPEC="$(dirname "$OUT")/openapi.json"   # clients/openapi.json for the checked-in client
mkdir -p "$(dirname "$OUT")"
"$PY" scripts/dump_openapi.py "$SPEC"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
.venv/bin/openapi-python-client generate --path "$SPEC" --config clients/config.yaml \
  --meta setup --output-path "$tmp/client" --overwrite >/dev/null
# openapi-python-client 0.29 annotates a body with several content types as `... | Unset`
# without importing Unset (create_dataset); add the import where it is missing.
grep -rlE '\| Unset' "$tmp/client" --include='*.py' | while read -r f; do
  grep -qE '^from \.\.\.types import .*\bUnset\b' "$f" \
    || sed -i -E 's/^(from \.\.\.types import .*)$/\1, Unset/' "$f"
done
# The hand-written layer over the generated code (typed errors, wait, iter_events) and the
# client's README live beside it in clients/python and are carried into every generation.
for f in README.md sal_client/easy.py; do
  cp "clients/python/$f" "$tmp/client/$f"
done
rm -rf "$OUT"
cp -r "$tmp/client" "$OUT"
rm -rf "$OUT/.ruff_cache"
