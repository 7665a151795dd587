# Sourced by scripts that test a started system (schemathesis.sh, python-client.sh): free ports, a fresh data
# folder, `npm start` in its own process group, and its stop. The caller sets a trap that calls stop_system.
NODE=node_modules/.bin/node
[ -x "$NODE" ] || { echo "$0: run npm ci first ($NODE missing)" >&2; exit 1; }

free_port() { "$NODE" -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
PORT="$(free_port)"
DEVNET_PORT="$(free_port)"
DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/dob-${SYSTEM_NAME:-system}.XXXXXX")"
API="http://127.0.0.1:$PORT/api/agent"
SYSTEM_PGID=""

start_system() {
  # Its own process group, so stopping it stops npm, node and nothing else.
  # The per-IP limit (60 rpm by default) is raised too: negative cases without a valid key would otherwise all be 429.
  PORT="$PORT" DEVNET_PORT="$DEVNET_PORT" DATA_DIR="$DATA_DIR" LOG_LEVEL="${SYSTEM_LOG_LEVEL:-warn}" API_IP_RATE_LIMIT_RPM=100000 \
    setsid npm start >>"$DATA_DIR/system.log" 2>&1 &
  SYSTEM_PGID="$!"
  for _ in $(seq 1 180); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && return 0
    kill -0 "$SYSTEM_PGID" 2>/dev/null || break
    sleep 1
  done
  echo "$0: the system did not become ready; its log:" >&2
  tail -n 50 "$DATA_DIR/system.log" >&2
  return 1
}

stop_system() {
  [ -n "$SYSTEM_PGID" ] || return 0
  kill -TERM -- "-$SYSTEM_PGID" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 -- "-$SYSTEM_PGID" 2>/dev/null || break; sleep 1; done
  kill -KILL -- "-$SYSTEM_PGID" 2>/dev/null || true
  SYSTEM_PGID=""
}
