#!/usr/bin/env bash
# The image and the compose stack, built and run on a real engine (issue 23; tests/image/stack.py):
#   bash scripts/image_test.sh [stack.py options]
# Starts the engine first. On these machines (no registry) that is ../shared/container/local-engine.sh,
# which also builds local base images and a torch index on loopback, and prints the build args;
# elsewhere an engine that already runs is used with the Dockerfile's and compose file's defaults.
# Exit status: 0 passed, 1 failed, 0 with "SKIPPED" on its last line when no engine can be started.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
skip() { echo "image test SKIPPED: $*"; exit 0; }

ENGINE_SCRIPT=${SAL_ENGINE_SCRIPT:-$(cd .. && pwd)/shared/container/local-engine.sh}
[ -f "$ENGINE_SCRIPT" ] || ENGINE_SCRIPT=/work/shared/container/local-engine.sh
args=()
if [ -f "$ENGINE_SCRIPT" ]; then
  out=$(bash "$ENGINE_SCRIPT" 2>&1) || skip "$ENGINE_SCRIPT could not start an engine: $(echo "$out" | tail -3)"
  echo "$out" | grep -E '^(engine ready|images|build args)' || true
  # "build args: --network host --build-arg K=V ..." -> stack.py's --build-arg K=V
  for kv in $(echo "$out" | sed -n 's/^build args: //p' | grep -oE -- '--build-arg [^ ]+' | cut -d' ' -f2); do
    args+=(--build-arg "$kv")
  done
  args+=(--postgres-image local/postgres:15 --redis-image local/redis:7)
elif ! docker info >/dev/null 2>&1; then
  skip "no container engine answers (docker info) and no local-engine.sh at $ENGINE_SCRIPT"
fi
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 \
  || skip "neither docker-compose nor the compose plugin is installed"

exec .venv/bin/python -m tests.image.stack "${args[@]}" "$@"
