#!/usr/bin/env bash
# npm run services [-- start [postgresql|redis|kafka|ferretdb ...]|stop [postgresql|redis|kafka|ferretdb ...]|status|install [postgresql|redis|kafka|ferretdb|prometheus ...]|prometheus]
#
# Installs what is missing, starts what is not running and waits until each answers: PostgreSQL and Redis from
# Debian's packages, Apache Kafka 4 (KRaft, one combined broker+controller) from its Maven Central jars, and
# FerretDB 1.x (MongoDB wire protocol, on the PostgreSQL above) built from the Go module proxy. Idempotent: a
# second run finds everything cached and running. Every wait has a timeout; every failure is one line saying what
# and how to fix it, and a non-zero exit.
#
# Downloads and builds are cached under $DOB_SERVICES_DIR (default ~/.cache/dob-services): the Maven repository,
# Kafka's runtime jars, the Go module and build caches, the FerretDB binary. Runtime state (Kafka's log dir,
# FerretDB's state dir, logs, pid files) lives under its run/ folder.
set -euo pipefail

ACTION=${1:-start}
CACHE=${DOB_SERVICES_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dob-services}
RUN=$CACHE/run
LOG=$CACHE/log
KAFKA_VERSION=${KAFKA_VERSION:-4.1.1}
LOG4J_VERSION=2.25.3
FERRETDB_VERSION=v1.24.2

PG_PORT=${DOB_PG_PORT:-5432} REDIS_PORT=${DOB_REDIS_PORT:-6379} FERRETDB_PORT=${DOB_FERRETDB_PORT:-27017}
# The marker that says this script started the cluster on PG_PORT (so `stop` stops only what it started).
PG_OURS=postgresql.ours
[[ $PG_PORT != 5432 ]] && PG_OURS=postgresql-$PG_PORT.ours
# FerretDB on another port (a Jest worker's own, on that worker's cluster) keeps its pid, log and state apart.
FERRETDB=ferretdb
[[ $FERRETDB_PORT != 27017 ]] && FERRETDB=ferretdb-$FERRETDB_PORT
KAFKA_PORT=${DOB_KAFKA_PORT:-9092} KAFKA_CONTROLLER_PORT=${DOB_KAFKA_CONTROLLER_PORT:-9093}

fail() { echo "services: $*" >&2; exit 1; }
note() { echo "services: $*" >&2; }

# One line naming whoever listens on a port, for "port taken" errors.
port_owner() { ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\("[^"]*",pid=[0-9]*\).*/\1/p' | head -n1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# wait_for SECONDS WHAT CHECK...: polls CHECK once a second; never hangs past SECONDS.
wait_for() {
  local seconds=$1 what=$2; shift 2
  for ((i = 0; i < seconds; i++)); do "$@" && return 0; sleep 1; done
  return 1
}
pid_alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
# True when the process in pid file $1 is the one listening on port $2 (not merely alive, nor a stranger on the port).
owns_port() { pid_alive "$1" && ss -ltnpH "sport = :$2" 2>/dev/null | grep -q "pid=$(cat "$1"),"; }

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || fail "$1 is missing and apt-get is not available: install it by hand"
  if [[ $APT_UPDATED == 0 ]]; then
    note "apt-get update"
    timeout 300 apt-get update -qq >"$LOG/apt.log" 2>&1 || fail "apt-get update failed (see $LOG/apt.log): is the Debian mirror reachable?"
    APT_UPDATED=1
  fi
  note "installing $* from Debian"
  # A policy-rc.d that answers 101 keeps the packages' own init scripts from starting a second, persistent server.
  local made_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends "$@" >>"$LOG/apt.log" 2>&1 \
    || { [[ $made_policy == 1 ]] && rm -f /usr/sbin/policy-rc.d; fail "apt-get install $* failed (see $LOG/apt.log)"; }
  [[ $made_policy == 1 ]] && rm -f /usr/sbin/policy-rc.d
  return 0
}

# ---------------------------------------------------------------- PostgreSQL
pg_ready() { pg_isready -h 127.0.0.1 -p $PG_PORT -q 2>/dev/null; }
pg_trusts() { psql -h 127.0.0.1 -p $PG_PORT -U postgres -d postgres -w -tAc 'select 1' >/dev/null 2>&1; }
pg_cluster() { pg_lsclusters -h 2>/dev/null | awk -v p=$PG_PORT '$3 == p { print $1, $2; exit }'; }

pg_trust_loopback() {
  local ver=$1 name=$2 hba
  hba=$(pg_conftool "$ver" "$name" show -s hba_file 2>/dev/null || echo "/etc/postgresql/$ver/$name/pg_hba.conf")
  if ! grep -q '# dob-services: trust on loopback' "$hba"; then
    # First matching line wins in pg_hba.conf, so the trust lines go on top.
    { echo '# dob-services: trust on loopback (tests connect as postgres without a password)'
      echo 'host all all 127.0.0.1/32 trust'
      echo 'host all all ::1/128 trust'
      cat "$hba"; } >"$hba.new"
    chown --reference="$hba" "$hba.new"; chmod --reference="$hba" "$hba.new"; mv "$hba.new" "$hba"
    return 0
  fi
  return 1
}

install_postgres() { command -v pg_ctlcluster >/dev/null || apt_install postgresql; }

start_postgres() {
  install_postgres
  local cluster ver name
  cluster=$(pg_cluster)
  if [[ -z $cluster ]]; then
    port_open $PG_PORT && fail "port $PG_PORT is taken by $(port_owner $PG_PORT) (not a PostgreSQL cluster of this machine): stop it and run again"
    ver=$(ls /usr/lib/postgresql | sort -V | tail -n1)
    # 'main' on the default port; a cluster on another port (npm test's second Jest worker) gets its own name.
    name=main
    [[ $PG_PORT != 5432 ]] && name=port$PG_PORT
    note "creating PostgreSQL $ver cluster '$name' on port $PG_PORT"
    pg_createcluster "$ver" "$name" -p $PG_PORT >"$LOG/postgresql-create.log" 2>&1 || fail "pg_createcluster failed (see $LOG/postgresql-create.log)"
    cluster="$ver $name"
  fi
  read -r ver name <<<"$cluster"
  local changed=0
  pg_trust_loopback "$ver" "$name" && changed=1
  if ! pg_ready; then
    port_open $PG_PORT && fail "port $PG_PORT is taken by $(port_owner $PG_PORT), which is not PostgreSQL: stop it and run again"
    pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start >"$LOG/postgresql-start.log" 2>&1 \
      || fail "PostgreSQL $ver/$name did not start (see $LOG/postgresql-start.log and /var/log/postgresql/)"
    touch "$RUN/$PG_OURS"
    wait_for 30 postgresql pg_ready || fail "PostgreSQL did not answer on 127.0.0.1:$PG_PORT within 30 s (see /var/log/postgresql/)"
  elif [[ $changed == 1 ]]; then
    pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" reload >/dev/null 2>&1 || true
  fi
  wait_for 10 postgresql pg_trusts || fail "PostgreSQL on $PG_PORT refuses user postgres without a password: add 'host all all 127.0.0.1/32 trust' to its pg_hba.conf"
  for db in test ferretdb; do
    [[ $(psql -h 127.0.0.1 -p $PG_PORT -U postgres -w -tAc "select 1 from pg_database where datname = '$db'") == 1 ]] \
      || psql -h 127.0.0.1 -p $PG_PORT -U postgres -w -qc "create database $db" >/dev/null
  done
  echo "postgresql  postgres://postgres@127.0.0.1:$PG_PORT/test"
}

# ---------------------------------------------------------------- Redis
redis_ready() { [[ $(redis-cli -h 127.0.0.1 -p $REDIS_PORT ping 2>/dev/null) == PONG ]]; }

install_redis() { command -v redis-server >/dev/null || apt_install redis-server redis-tools; }

start_redis() {
  install_redis
  if ! redis_ready; then
    port_open $REDIS_PORT && fail "port $REDIS_PORT is taken by $(port_owner $REDIS_PORT), which is not Redis: stop it and run again"
    mkdir -p "$RUN/redis"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port $REDIS_PORT --save '' --appendonly no \
      --dir "$RUN/redis" --pidfile "$RUN/redis.pid" --logfile "$LOG/redis.log" >/dev/null \
      || fail "redis-server did not start (see $LOG/redis.log)"
    wait_for 15 redis redis_ready || fail "Redis did not answer PING on 127.0.0.1:$REDIS_PORT within 15 s (see $LOG/redis.log)"
  fi
  echo "redis       redis://127.0.0.1:$REDIS_PORT"
}

# ---------------------------------------------------------------- Kafka
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

fetch_kafka() {
  local libs=$CACHE/kafka-$KAFKA_VERSION/libs
  [[ -f $libs/.complete ]] && return 0
  command -v java >/dev/null && [[ $(java_major) -ge 17 ]] || apt_install openjdk-17-jre-headless
  command -v mvn >/dev/null || apt_install maven
  note "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central (once)"
  local pom=$CACHE/kafka-$KAFKA_VERSION/pom.xml
  mkdir -p "$libs"
  # A throwaway project whose only purpose is to resolve the broker's runtime classpath; log4j2 is Kafka 4's
  # logging backend (without an SLF4J binding the broker logs nothing). Kafka 4.1 is built on slf4j-api 1.7, so the
  # binding is log4j-slf4j-impl (the 1.x one), as in Apache's own distribution.
  cat >"$pom" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.dob</groupId><artifactId>kafka-runtime</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
POM
  timeout 900 mvn -B -q -f "$pom" -Dmaven.repo.local="$CACHE/m2" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$libs" >"$LOG/kafka-fetch.log" 2>&1 \
    || fail "fetching Kafka $KAFKA_VERSION from Maven Central failed (see $LOG/kafka-fetch.log): is the registry reachable, does the version exist?"
  [[ $(unzip -l "$libs/kafka_2.13-$KAFKA_VERSION.jar" 2>/dev/null | grep -c ' kafka/Kafka.class$') == 1 ]] \
    || fail "kafka_2.13-$KAFKA_VERSION.jar has no kafka.Kafka class: pick another KAFKA_VERSION"
  touch "$libs/.complete"
}

kafka_ready() { port_open $KAFKA_PORT && grep -q 'Kafka Server started' "$LOG/kafka.log" 2>/dev/null; }

start_kafka() {
  fetch_kafka
  local dir=$CACHE/kafka-$KAFKA_VERSION libs=$CACHE/kafka-$KAFKA_VERSION/libs data=$RUN/kafka-data
  if owns_port "$RUN/kafka.pid" $KAFKA_PORT; then
    echo "kafka       127.0.0.1:$KAFKA_PORT (Apache Kafka $KAFKA_VERSION, KRaft)"; return 0
  fi
  for p in $KAFKA_PORT $KAFKA_CONTROLLER_PORT; do
    port_open "$p" && fail "port $p is taken by $(port_owner "$p"), not by the Kafka this script starts: stop it and run again"
  done
  mkdir -p "$data"
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPS
  cat >"$dir/log4j2.properties" <<'L4J'
rootLogger.level=INFO
rootLogger.appenderRef.stdout.ref=STDOUT
appender.stdout.type=Console
appender.stdout.name=STDOUT
appender.stdout.layout.type=PatternLayout
appender.stdout.layout.pattern=[%d] %p %m (%c)%n
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.org.name=org.apache.kafka
logger.org.level=WARN
L4J
  [[ -f $RUN/kafka-cluster-id ]] || java -cp "$libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1 >"$RUN/kafka-cluster-id"
  java -cp "$libs/*" -Dlog4j2.configurationFile="$dir/log4j2.properties" kafka.tools.StorageTool format \
    -t "$(cat "$RUN/kafka-cluster-id")" -c "$dir/server.properties" --ignore-formatted >"$LOG/kafka-format.log" 2>&1 \
    || fail "formatting Kafka's log dir $data failed (see $LOG/kafka-format.log)"
  : >"$LOG/kafka.log"
  nohup java -Xms256m -Xmx512m -cp "$libs/*" -Dlog4j2.configurationFile="$dir/log4j2.properties" \
    kafka.Kafka "$dir/server.properties" >>"$LOG/kafka.log" 2>&1 </dev/null &
  echo $! >"$RUN/kafka.pid"
  wait_for 90 kafka kafka_ready || fail "Kafka did not start within 90 s (see $LOG/kafka.log)"
  echo "kafka       127.0.0.1:$KAFKA_PORT (Apache Kafka $KAFKA_VERSION, KRaft)"
}

# ---------------------------------------------------------------- FerretDB
build_ferretdb() {
  local bin=$CACHE/bin/ferretdb-$FERRETDB_VERSION
  [[ -x $bin ]] && return 0
  command -v go >/dev/null || fail "Go is missing: FerretDB is built from the Go module proxy; install Go >= 1.22"
  note "building FerretDB $FERRETDB_VERSION from the Go module proxy (once)"
  mkdir -p "$CACHE/bin" "$CACHE/go"
  local env=(GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOFLAGS=-mod=mod GOTOOLCHAIN=local)
  local mod=github.com/FerretDB/FerretDB@$FERRETDB_VERSION src
  src=$(env "${env[@]}" timeout 600 go mod download -json "$mod" 2>"$LOG/ferretdb-build.log" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p') \
    && [[ -n $src ]] || fail "downloading $mod from the Go module proxy failed (see $LOG/ferretdb-build.log)"
  # FerretDB embeds build/version/version.txt, which its release tooling writes and the module zip leaves out (a
  # plain `go install` panics at start: "Invalid build/version/version.txt"). Build from a writable copy with it.
  local tmp; tmp=$(mktemp -d)
  cp -r "$src/." "$tmp/" && chmod -R u+w "$tmp" && echo "$FERRETDB_VERSION" >"$tmp/build/version/version.txt"
  (cd "$tmp" && env "${env[@]}" timeout 900 go build -trimpath -o "$bin.tmp" ./cmd/ferretdb) >>"$LOG/ferretdb-build.log" 2>&1 \
    || { rm -rf "$tmp"; fail "building FerretDB $FERRETDB_VERSION failed (see $LOG/ferretdb-build.log)"; }
  rm -rf "$tmp"; mv "$bin.tmp" "$bin"
}

ferretdb_ready() { port_open $FERRETDB_PORT; }

start_ferretdb() {
  build_ferretdb
  if owns_port "$RUN/$FERRETDB.pid" $FERRETDB_PORT; then
    echo "ferretdb    mongodb://127.0.0.1:$FERRETDB_PORT/ (FerretDB $FERRETDB_VERSION on postgresql)"; return 0
  fi
  port_open $FERRETDB_PORT && fail "port $FERRETDB_PORT is taken by $(port_owner $FERRETDB_PORT), not by the FerretDB this script starts: stop it and run again"
  mkdir -p "$RUN/$FERRETDB"
  # --debug-addr=-: its debug HTTP listener (127.0.0.1:8088 by default) would stop a second FerretDB from starting.
  nohup "$CACHE/bin/ferretdb-$FERRETDB_VERSION" --handler=postgresql \
    --postgresql-url="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb" \
    --listen-addr="127.0.0.1:$FERRETDB_PORT" --debug-addr=- --state-dir="$RUN/$FERRETDB" --telemetry=disable \
    --log-level=warn >"$LOG/$FERRETDB.log" 2>&1 </dev/null &
  echo $! >"$RUN/$FERRETDB.pid"
  wait_for 30 ferretdb ferretdb_ready || fail "FerretDB did not listen on 127.0.0.1:$FERRETDB_PORT within 30 s (see $LOG/$FERRETDB.log)"
  echo "ferretdb    mongodb://127.0.0.1:$FERRETDB_PORT/ (FerretDB $FERRETDB_VERSION on postgresql)"
}

# ---------------------------------------------------------------- Prometheus (tools only, no server)
# promtool and the prometheus binary for the alert-rule tests (ops/prometheus); the tests start their own
# Prometheus on a free loopback port. The policy-rc.d in apt_install keeps the package's own service from starting.
install_prometheus() {
  command -v promtool >/dev/null && command -v prometheus >/dev/null || apt_install prometheus
  echo "prometheus  $(command -v prometheus), $(command -v promtool) ($(promtool --version 2>&1 | sed -n 's/^promtool, version \([^ ]*\).*/\1/p'))"
}

# ---------------------------------------------------------------- stop / status
stop_pidfile() {
  local name=$1 file=$RUN/$1.pid
  pid_alive "$file" || { rm -f "$file"; return 0; }
  local pid; pid=$(cat "$file")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  rm -f "$file"; echo "$name stopped"
}

stop_postgres() {
  if [[ -f $RUN/$PG_OURS ]]; then
    local cluster; cluster=$(pg_cluster)
    [[ -n $cluster ]] && pg_ctlcluster --skip-systemctl-redirect $cluster stop >/dev/null 2>&1 && echo "postgresql stopped (port $PG_PORT)"
    rm -f "$RUN/$PG_OURS"
  fi
}

# npm test's Jest workers' own FerretDBs and clusters (ports after the defaults, test/worker-databases.js): stopped by a
# plain `stop` too, so one command leaves nothing of this script's running. Only on the default ports: a `stop` for
# one worker (DOB_PG_PORT / DOB_FERRETDB_PORT set) stops that worker's alone.
stop_workers() {
  [[ $PG_PORT == 5432 && $FERRETDB_PORT == 27017 ]] || return 0
  local file
  for file in "$RUN"/ferretdb-*.pid; do [[ -e $file ]] && stop_pidfile "$(basename "$file" .pid)"; done
  for file in "$RUN"/postgresql-*.ours; do
    [[ -e $file ]] || continue
    (PG_PORT=${file##*/postgresql-}; PG_PORT=${PG_PORT%.ours}; PG_OURS=${file##*/}; stop_postgres)
  done
}

stop_all() {
  # FerretDB first: it holds connections to PostgreSQL.
  stop_pidfile $FERRETDB
  stop_workers
  stop_pidfile kafka
  stop_pidfile redis
  stop_postgres
}

status_all() {
  local rc=0
  pg_ready && echo "postgresql  up    postgres://postgres@127.0.0.1:$PG_PORT/test" || { echo "postgresql  down"; rc=1; }
  redis_ready && echo "redis       up    redis://127.0.0.1:$REDIS_PORT" || { echo "redis       down"; rc=1; }
  port_open $KAFKA_PORT && echo "kafka       up    127.0.0.1:$KAFKA_PORT" || { echo "kafka       down"; rc=1; }
  ferretdb_ready && echo "ferretdb    up    mongodb://127.0.0.1:$FERRETDB_PORT/" || { echo "ferretdb    down"; rc=1; }
  return $rc
}

mkdir -p "$CACHE" "$RUN" "$LOG"
case $ACTION in
  start)
    # `start redis kafka` starts only those (npm test's pre-step, test/ensure-services.ts, asks for the ones down).
    shift || true
    started=$SECONDS
    for server in "${@:-postgresql redis kafka ferretdb}"; do
      for name in $server; do
        case $name in
          postgresql) start_postgres ;;
          redis) start_redis ;;
          kafka) start_kafka ;;
          ferretdb) start_ferretdb ;;
          *) fail "unknown server '$name': use postgresql, redis, kafka or ferretdb" ;;
        esac
      done
    done
    note "up in $((SECONDS - started)) s (cache: $CACHE)"
    ;;
  install)
    # Downloads and builds only (what a first run spends its time on); starts nothing. `install ferretdb` only that
    # one (.ci/run builds FerretDB beside the other servers' downloads).
    shift || true
    started=$SECONDS
    for name in ${@:-postgresql redis kafka ferretdb prometheus}; do
      case $name in
        postgresql) install_postgres ;;
        redis) install_redis ;;
        kafka) fetch_kafka ;;
        ferretdb) build_ferretdb ;;
        prometheus) install_prometheus ;;
        *) fail "unknown server '$name': use postgresql, redis, kafka, ferretdb or prometheus" ;;
      esac
    done
    note "installed in $((SECONDS - started)) s (cache: $CACHE)"
    ;;
  prometheus) install_prometheus ;;
  stop)
    # `stop ferretdb postgresql` stops only those (with DOB_PG_PORT / DOB_FERRETDB_PORT: that worker's), in that order.
    shift || true
    if (($# == 0)); then stop_all; fi
    for name in "$@"; do
      case $name in
        postgresql) stop_postgres ;;
        redis) stop_pidfile redis ;;
        kafka) stop_pidfile kafka ;;
        ferretdb) stop_pidfile $FERRETDB ;;
        *) fail "unknown server '$name': use postgresql, redis, kafka or ferretdb" ;;
      esac
    done
    ;;
  status) status_all ;;
  *) fail "unknown action '$ACTION': use start, stop, status, install or prometheus" ;;
esac
