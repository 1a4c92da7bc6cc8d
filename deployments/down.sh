#!/usr/bin/env bash
# make down: stop the worker(s), the server and the PostgreSQL cluster that `make up` started.
set -euo pipefail
cd "$(dirname "$0")/.."
STATE=${RLVR_PREFECT_STATE:-$PWD/.rlvr/prefect}
PIDS=$STATE/pids
[ -d "$PIDS" ] || { echo "nothing to stop (no $PIDS)"; exit 0; }

stop() {  # pidfile: SIGTERM the process group started by up.sh, SIGKILL after 15 s
  local file=$1 pid
  pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null || true
    echo "stopped $(basename "$file" .pid) (pid $pid)"
  fi
  rm -f "$file"
}

# Runs the workers are executing would stay Running with nothing behind them: cancel them first, and say so.
if [ -f "$STATE/env" ] && ls "$PIDS"/worker-*.pid >/dev/null 2>&1; then
  # shellcheck disable=SC1091
  source "$STATE/env"
  pools=$(for file in "$PIDS"/worker-*.pid; do basename "$file" .pid | sed 's/^worker-//'; done)
  # shellcheck disable=SC2086
  python deployments/zombies.py cancel-active $pools || echo "could not cancel active runs (server down?)" >&2
fi
for file in "$PIDS"/worker-*.pid; do [ -e "$file" ] && stop "$file"; done
[ -e "$PIDS/server.pid" ] && stop "$PIDS/server.pid"
if [ -f "$STATE/postgres/connection.json" ]; then
  python deployments/postgres.py stop "$STATE/postgres" && echo "stopped PostgreSQL ($STATE/postgres)"
fi
echo "down. State (database, logs) kept in $STATE/; \`make clean\` removes it."
