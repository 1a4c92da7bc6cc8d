#!/usr/bin/env bash
# make up: a local Prefect server, the work pools, `prefect deploy --all`, and a worker.
#
# State (database, logs, pids, an env file to source) lives under ./.rlvr/prefect/.
# The server's database is PostgreSQL: a cluster of this machine's PostgreSQL binaries in
# .rlvr/prefect/postgres/ (deployments/postgres.py; Debian's package is installed when missing and we
# are root), created on first use and migrated by `prefect server database upgrade` at every start.
# Settings (environment variables):
#   RLVR_PREFECT_HOST   bind address of the server (default 127.0.0.1). Anything else exposes the
#                       API to other nodes and then requires RLVR_PREFECT_AUTH=user:password
#                       (turns on PREFECT_SERVER_API_AUTH_STRING / PREFECT_API_AUTH_STRING).
#   RLVR_PREFECT_PORT   server port (default 4200).
#   PREFECT_API_DATABASE_CONNECTION_URL  another PostgreSQL database instead of the local cluster, e.g.
#                       postgresql+asyncpg://prefect:secret@db-host:5432/prefect
#   RLVR_PREFECT_DATABASE  `postgres` (default) or `sqlite` (a single-user fallback for a machine without
#                       PostgreSQL: under load it stalls for up to a minute, "database is locked").
#   RLVR_PREFECT_STATE  state folder (default .rlvr/prefect).
#   RLVR_WORKER_POOLS   pools this node's worker(s) serve (default: rlvr-gpu with a GPU, else rlvr-cpu).
#   RLVR_EVAL_POOL      pool of the triggered/nightly evaluation deployments (same default).
#   RLVR_RAY_ADDRESS    Ray cluster for evaluation placement (see deployments/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
STATE=${RLVR_PREFECT_STATE:-$REPO/.rlvr/prefect}
HOST=${RLVR_PREFECT_HOST:-127.0.0.1}
PORT=${RLVR_PREFECT_PORT:-4200}
CLIENT_HOST=$([ "$HOST" = "0.0.0.0" ] && hostname -f || echo "$HOST")
mkdir -p "$STATE/home" "$STATE/logs" "$STATE/pids"

if nvidia-smi -L >/dev/null 2>&1; then DEFAULT_POOL=rlvr-gpu; else DEFAULT_POOL=rlvr-cpu; fi
export RLVR_EVAL_POOL=${RLVR_EVAL_POOL:-$DEFAULT_POOL}
POOLS=${RLVR_WORKER_POOLS:-$DEFAULT_POOL}

export PREFECT_HOME=$STATE/home
export PREFECT_API_URL="http://$CLIENT_HOST:$PORT/api"
export PREFECT_SERVER_ANALYTICS_ENABLED=false
export PREFECT_LOGGING_EXTRA_LOGGERS=rlvr_core
export PREFECT_WORKER_QUERY_SECONDS=${PREFECT_WORKER_QUERY_SECONDS:-1}
# Flow runs started by the workers send a heartbeat every 30 s; deployments/zombies.py crashes those that stop.
export PREFECT_FLOWS_HEARTBEAT_FREQUENCY=${PREFECT_FLOWS_HEARTBEAT_FREQUENCY:-30}
export PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS=${PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS:-10}
if [ "$HOST" != "127.0.0.1" ] && [ "$HOST" != "localhost" ]; then
  if [ -z "${RLVR_PREFECT_AUTH:-}" ]; then
    echo "up.sh: RLVR_PREFECT_HOST=$HOST exposes the Prefect API to the network; set RLVR_PREFECT_AUTH=user:password" >&2
    echo "       to turn on basic auth (or bind 127.0.0.1)." >&2
    exit 2
  fi
  export PREFECT_SERVER_API_AUTH_STRING=$RLVR_PREFECT_AUTH PREFECT_API_AUTH_STRING=$RLVR_PREFECT_AUTH
fi

# What a shell needs to talk to this server (`source .rlvr/prefect/env`).
{
  echo "export PREFECT_HOME=$PREFECT_HOME"
  echo "export PREFECT_API_URL=$PREFECT_API_URL"
  echo "export PREFECT_SERVER_ANALYTICS_ENABLED=false"
  echo "export PREFECT_LOGGING_EXTRA_LOGGERS=rlvr_core"
  echo "export RLVR_EVAL_POOL=$RLVR_EVAL_POOL"
  [ -n "${PREFECT_API_AUTH_STRING:-}" ] && echo "export PREFECT_API_AUTH_STRING='$PREFECT_API_AUTH_STRING'"
} > "$STATE/env"
chmod 600 "$STATE/env"

healthy() { python - "$PREFECT_API_URL" <<'PY'
import sys, httpx
try:
    sys.exit(0 if httpx.get(sys.argv[1] + "/health", timeout=2).status_code == 200 else 1)
except httpx.HTTPError:
    sys.exit(1)
PY
}

start_bg() {  # name, command...: start in its own session, remember its pid, log to logs/<name>.log
  local name=$1; shift
  setsid "$@" >"$STATE/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$STATE/pids/$name.pid"
}

if healthy; then
  echo "Prefect server already answering at $PREFECT_API_URL"
else
  case ${RLVR_PREFECT_DATABASE:-postgres} in
    postgres)
      if [ -n "${PREFECT_API_DATABASE_CONNECTION_URL:-}" ]; then
        where="PostgreSQL at ${PREFECT_API_DATABASE_CONNECTION_URL##*@}"
      else
        python "$REPO/deployments/postgres.py" install >/dev/null
        PREFECT_API_DATABASE_CONNECTION_URL=$(python "$REPO/deployments/postgres.py" start "$STATE/postgres")
        where="PostgreSQL in $STATE/postgres (log $STATE/postgres/server.log)"
      fi
      # The server's environment only: the URL holds the database password.
      DATABASE_ENV=(env "PREFECT_API_DATABASE_CONNECTION_URL=$PREFECT_API_DATABASE_CONNECTION_URL"
                    PREFECT_API_DATABASE_MIGRATE_ON_START=false)
      "${DATABASE_ENV[@]}" prefect --no-prompt server database upgrade -y >"$STATE/logs/migrations.log" 2>&1 \
        || { echo "database migrations failed; see $STATE/logs/migrations.log" >&2; tail -20 "$STATE/logs/migrations.log" >&2; exit 1; }
      ;;
    sqlite) where="SQLite in $PREFECT_HOME (single user: expect \"database is locked\" stalls under load)"; DATABASE_ENV=(env) ;;
    *) echo "up.sh: RLVR_PREFECT_DATABASE must be postgres or sqlite, not ${RLVR_PREFECT_DATABASE}" >&2; exit 2 ;;
  esac
  echo "starting Prefect server on $HOST:$PORT (database: $where)"
  # nice 10: on a node that also trains, the server takes the CPU training leaves (local_prefect.py does the same).
  start_bg server "${DATABASE_ENV[@]}" nice -n 10 prefect server start --host "$HOST" --port "$PORT"
  for _ in $(seq 1 90); do healthy && break; sleep 1; done
  healthy || { echo "server did not become healthy; see $STATE/logs/server.log" >&2; tail -20 "$STATE/logs/server.log" >&2; exit 1; }
fi

for pool in rlvr-gpu rlvr-cpu; do
  prefect --no-prompt work-pool create "$pool" --type process --overwrite >/dev/null
done
echo "work pools: rlvr-gpu, rlvr-cpu (evaluations on $RLVR_EVAL_POOL)"

prefect --no-prompt deploy --all

python "$REPO/deployments/check_schedules.py" baseline-eval/nightly --timeout 90
python "$REPO/deployments/zombies.py" install --within $((3 * PREFECT_FLOWS_HEARTBEAT_FREQUENCY))

for pool in $POOLS; do
  pidfile="$STATE/pids/worker-$pool.pid"
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "worker for $pool already running (pid $(cat "$pidfile"))"
  else
    # Under a supervisor that marks the runs a dying worker takes with it Crashed, saying why.
    start_bg "worker-$pool" python "$REPO/deployments/worker.py" --pool "$pool" --name "$(hostname)-$pool"
    echo "worker for $pool started (log $STATE/logs/worker-$pool.log)"
  fi
done

UI=${PREFECT_API_URL%/api}
echo
echo "Prefect UI: $UI"
echo "In your shell:  source ${STATE#"$REPO"/}/env"
echo "Then e.g.:      prefect deployment run train-and-eval/arith"
