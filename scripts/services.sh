#!/usr/bin/env bash
# Starts and stops throwaway Redis and PostgreSQL servers on loopback, each in its own directory.
#
#   scripts/services.sh start redis DIR PORT [MODE]  # redis-server; MODE is how it persists:
#       always (default: append-only file fsynced per write), everysec (fsynced once a second, a
#       crash loses up to a second of writes) or none (no persistence: a restart loses everything)
#   scripts/services.sh start redis-tls DIR PORT CERTDIR  # TLS only (no plain port), with
#       CERTDIR/server.crt, CERTDIR/server.key and CERTDIR/ca.crt (coord/tests/support/tls.rs)
#   scripts/services.sh start postgres DIR PORT   # initdb (trust auth, user idmint) + pg_ctl start
#   scripts/services.sh start postgres-tls DIR PORT CERTDIR
#                                                 # the same with ssl=on (CERTDIR/server.crt and
#                                                 # server.key) and TCP only through TLS (hostssl)
#   scripts/services.sh start mariadb DIR PORT    # mariadb-install-db into DIR/data on first start,
#                                                 # then mariadbd on 127.0.0.1:PORT (socket in DIR),
#                                                 # user idmint (no password) owning database idmint
#   scripts/services.sh start zookeeper DIR PORT  # a standalone ZooKeeper (Debian's package, on the
#                                                 # JRE): DIR/zoo.cfg, data in DIR/data, tickTime
#                                                 # 200 ms (sessions of 400 ms to 120 s), admin
#                                                 # server off, four-letter `ruok`, `srvr`, `stat`
#                                                 # and `mntr` allowed; waits until it serves
#   scripts/services.sh start idmint DIR PORT [FLAGS...]
#                                                 # the idmint service (`idmint serve`, the binary
#                                                 # $IDMINT_BIN, else target/debug/idmint, built if
#                                                 # missing) with its data in DIR, extra flags after
#   scripts/services.sh start etcd DIR PORT [MEMBER]
#                                                 # a 3-member etcd cluster on loopback: member I
#                                                 # (0, 1, 2) serves clients on PORT+I and its peers
#                                                 # on PORT+3+I, with its data in DIR/mI; the members
#                                                 # start in parallel and the command returns once
#                                                 # all are healthy. With MEMBER only that member
#                                                 # starts (again), on its own data.
#   scripts/services.sh start etcd-tls DIR PORT CERTDIR [MEMBER]
#                                                 # the same, clients through TLS only (https, with
#                                                 # CERTDIR/server.crt and server.key)
#   scripts/services.sh stop redis|postgres|mariadb|zookeeper|etcd|idmint DIR [MEMBER]
#                                                 # stops it (the directory stays, for a restart);
#                                                 # etcd: every member, or only MEMBER
#   scripts/services.sh kill redis|postgres|mariadb|zookeeper|etcd DIR [MEMBER]   # SIGKILL, as a crash would
#   scripts/services.sh signal redis|postgres|mariadb|zookeeper|etcd DIR SIG [MEMBER]
#                                                 # sends SIG (STOP, CONT) to the server; for
#                                                 # PostgreSQL to the postmaster and
#                                                 # every process it started (each has its own
#                                                 # process group, so one group signal is not enough)
#   scripts/services.sh leader etcd DIR           # prints the index (0, 1, 2) of the etcd
#                                                 # cluster's current leader, waiting for one
#   scripts/services.sh etcdctl etcd DIR ARGS...  # runs etcdctl against the cluster's members
#
# URLs: idmint+http://127.0.0.1:PORT/ (idmint), redis://127.0.0.1:PORT/, rediss://127.0.0.1:PORT/ (redis-tls),
# postgres://idmint@127.0.0.1:PORT/postgres, mysql://idmint@127.0.0.1:PORT/idmint (mariadb) and
# etcd://127.0.0.1:PORT,127.0.0.1:PORT+1,127.0.0.1:PORT+2/PREFIX (etcds://... with etcd-tls),
# zk://127.0.0.1:PORT/PATH (zookeeper).
# Tests use it to run private servers they can stop mid-run; scripts/test.sh uses it for the
# servers the bindings' tests share. The servers are installed by scripts/setup.sh.
set -euo pipefail

# The address servers listen on (redis, postgres, mariadb, zookeeper, idmint): loopback unless
# IDMINT_SERVICES_HOST names another (the chaos harness runs them inside network namespaces).
host=${IDMINT_SERVICES_HOST:-127.0.0.1}

action=${1:?action}; kind=${2:?kind}; dir=${3:?dir}; port=${4:-}; extra=${5:-}
# The TLS variant is the same server once started.
[ "$action" != start ] && [ "$kind" = postgres-tls ] && kind=postgres
[ "$action" != start ] && [ "$kind" = etcd-tls ] && kind=etcd

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/pg_ctl" ] && { echo "$d"; return; }; done
  echo "services: PostgreSQL server binaries not found (run scripts/setup.sh)" >&2; exit 1
}

# PostgreSQL refuses to run as root: run its tools as the `postgres` user then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Whether process $1 still runs: a zombie does not (nothing may reap a server whose starting
# shell has exited, and a zombie still answers `kill -0`).
running() {
  kill -0 "$1" 2>/dev/null || return 1
  [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

maria_bin() {
  local b
  for b in mariadbd mysqld /usr/sbin/mariadbd /usr/sbin/mysqld; do
    command -v "$b" >/dev/null 2>&1 && { command -v "$b"; return; }
  done
  echo "services: mariadbd not found (run scripts/setup.sh)" >&2; exit 1
}

# The server's settings, the same at initialisation and at every start (DIR/tmp for its temporary
# files). A transaction's log
# reaches the OS at its commit (flushed to disk once a second): a killed server process loses
# nothing it acknowledged; only a crash of the whole machine could.
maria_opts() {
  echo --no-defaults --datadir="$1/data" --tmpdir="$1/tmp" --innodb-log-file-size=8M \
    --innodb-buffer-pool-size=32M --innodb-flush-log-at-trx-commit=2
}

# etcd: the members' client and peer URLs, from the base port and the scheme of client URLs.
etcd_members=3
etcd_client() { echo "$1://127.0.0.1:$(( $2 + $3 ))"; }
etcd_peer() { echo "http://127.0.0.1:$(( $1 + etcd_members + $2 ))"; }
etcd_endpoints() {
  local i eps=""
  for i in $(seq 0 $(( etcd_members - 1 ))); do eps+="${eps:+,}$(etcd_client "$1" "$2" "$i")"; done
  echo "$eps"
}
# etcdctl against the cluster in DIR (its port and TLS settings are recorded at start).
etcd_ctl() {
  local d=$1; shift
  local base scheme=http tls=()
  base=$(cat "$d/port")
  if [ -f "$d/certdir" ]; then scheme=https; tls=(--cacert "$(cat "$d/certdir")/ca.crt"); fi
  etcdctl --endpoints "$(etcd_endpoints "$scheme" "$base")" "${tls[@]}" \
    --dial-timeout 1s --command-timeout 3s "$@"
}
# etcdctl against one member of the cluster in DIR.
etcd_ctl_member() {
  local d=$1 i=$2; shift 2
  local base scheme=http tls=()
  base=$(cat "$d/port")
  if [ -f "$d/certdir" ]; then scheme=https; tls=(--cacert "$(cat "$d/certdir")/ca.crt"); fi
  etcdctl --endpoints "$(etcd_client "$scheme" "$base" "$i")" "${tls[@]}" \
    --dial-timeout 500ms --command-timeout 1s "$@"
}
# Which members a command is for: MEMBER, or all of them.
etcd_which() {
  if [ -n "${1:-}" ]; then echo "$1"; else seq 0 $(( etcd_members - 1 )); fi
}
etcd_start_member() {
  local d=$1 base=$2 i=$3 scheme=$4 certs=$5 m="$1/m$3" cluster="" j tls=()
  for j in $(seq 0 $(( etcd_members - 1 ))); do
    cluster+="${cluster:+,}m$j=$(etcd_peer "$base" "$j")"
  done
  [ -n "$certs" ] && tls=(--cert-file "$certs/server.crt" --key-file "$certs/server.key")
  mkdir -p "$m"
  if [ -f "$m/etcd.pid" ] && kill -0 "$(cat "$m/etcd.pid")" 2>/dev/null; then return 0; fi
  # A member that has data ignores the --initial-* flags and rejoins with what it has.
  setsid etcd --name "m$i" --data-dir "$m/data" \
    --listen-client-urls "$(etcd_client "$scheme" "$base" "$i")" \
    --advertise-client-urls "$(etcd_client "$scheme" "$base" "$i")" \
    --listen-peer-urls "$(etcd_peer "$base" "$i")" \
    --initial-advertise-peer-urls "$(etcd_peer "$base" "$i")" \
    --initial-cluster "$cluster" --initial-cluster-token "idmint-$base" \
    --initial-cluster-state new "${tls[@]}" \
    --logger zap --log-outputs stderr --log-level warn \
    </dev/null >>"$m/etcd.log" 2>&1 &
  echo $! >"$m/etcd.pid"
}
# Waits until the given members (by index) answer a health check, which needs a quorum.
etcd_wait_healthy() {
  local d=$1; shift
  local base scheme=http tls=() i eps=""
  base=$(cat "$d/port")
  if [ -f "$d/certdir" ]; then scheme=https; tls=(--cacert "$(cat "$d/certdir")/ca.crt"); fi
  for i in "$@"; do eps+="${eps:+,}$(etcd_client "$scheme" "$base" "$i")"; done
  for _ in $(seq 1 600); do
    etcdctl --endpoints "$eps" "${tls[@]}" --dial-timeout 1s --command-timeout 2s \
      endpoint health >/dev/null 2>&1 && return 0
    for i in "$@"; do
      kill -0 "$(cat "$d/m$i/etcd.pid" 2>/dev/null || echo 0)" 2>/dev/null \
        || { echo "services: etcd member $i died" >&2; tail -20 "$d/m$i/etcd.log" >&2; return 1; }
    done
    sleep 0.1
  done
  echo "services: etcd members $* not healthy" >&2; return 1
}

wait_port() {
  local i
  for i in $(seq 1 200); do
    (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "services: nothing listens on $host:$1" >&2; return 1
}

# Whether the ZooKeeper on port $1 serves requests: it answers the four-letter `ruok` as soon
# as it listens, but `srvr` names its mode only once its data is loaded.
zk_ready() {
  local answer
  answer=$( (exec 3<>"/dev/tcp/$host/$1" && printf srvr >&3 && timeout 2 cat <&3) 2>/dev/null) || true
  [[ $answer == *"Mode: "* ]]
}

case "$action/$kind" in
  start/zookeeper)
    : "${port:?port}"
    jar=/usr/share/java/zookeeper.jar
    [ -f "$jar" ] || { echo "services: ZooKeeper not found at $jar (run scripts/setup.sh)" >&2; exit 1; }
    command -v java >/dev/null || { echo "services: java not found (run scripts/setup.sh)" >&2; exit 1; }
    mkdir -p "$dir/data"
    if [ -f "$dir/zookeeper.pid" ] && kill -0 "$(cat "$dir/zookeeper.pid")" 2>/dev/null \
      && zk_ready "$port"; then
      exit 0
    fi
    # tickTime 200 ms: sessions may be as short as 400 ms and expire within a tick of their
    # timeout, so session-expiry tests take seconds. forceSync=no: a write is in the page cache,
    # not on the disk, when acknowledged; that survives a killed server (not a power cut).
    # maxClientCnxns=0: tests open more than the default 60 connections from 127.0.0.1.
    printf '%s\n' "tickTime=200" "minSessionTimeout=400" "maxSessionTimeout=120000" \
      "dataDir=$dir/data" "clientPort=$port" "clientPortAddress=$host" "maxClientCnxns=0" \
      "forceSync=no" "admin.enableServer=false" "4lw.commands.whitelist=ruok,srvr,stat,mntr" \
      >"$dir/zoo.cfg"
    # The jar's manifest names its dependencies; slf4j-simple writes the log to stderr.
    cp=$jar
    [ -f /usr/share/java/slf4j-simple.jar ] && cp=$cp:/usr/share/java/slf4j-simple.jar
    setsid java -Xmx192m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
      -Dorg.slf4j.simpleLogger.defaultLogLevel="${IDMINT_ZK_LOG_LEVEL:-warn}" -Dorg.slf4j.simpleLogger.showDateTime=true \
      -cp "$cp" org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" \
      </dev/null >>"$dir/zookeeper.log" 2>&1 &
    echo $! >"$dir/zookeeper.pid"
    for _ in $(seq 1 600); do
      zk_ready "$port" && exit 0
      kill -0 "$(cat "$dir/zookeeper.pid")" 2>/dev/null || { cat "$dir/zookeeper.log" >&2; exit 1; }
      sleep 0.05
    done
    echo "services: ZooKeeper did not answer on $port" >&2; cat "$dir/zookeeper.log" >&2; exit 1
    ;;
  stop/zookeeper|kill/zookeeper)
    [ -f "$dir/zookeeper.pid" ] || exit 0
    pid=$(cat "$dir/zookeeper.pid")
    sig=TERM; [ "$action" = kill ] && sig=KILL
    kill -s "$sig" "$pid" 2>/dev/null || true
    # A server a test paused (SIGSTOP) acts on the signal only once it runs again.
    kill -s CONT "$pid" 2>/dev/null || true
    # Dead once gone or a zombie (nobody of ours reaps it: it was started by another shell).
    zk_running() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; }
    for _ in $(seq 1 400); do zk_running "$pid" || break; sleep 0.02; done
    kill -s KILL "$pid" 2>/dev/null || true
    rm -f "$dir/zookeeper.pid"
    ;;
  signal/zookeeper)
    sig=${4:?signal}
    [ -f "$dir/zookeeper.pid" ] || { echo "services: no server in $dir" >&2; exit 1; }
    kill -s "$sig" "$(cat "$dir/zookeeper.pid")"
    ;;
  start/redis|start/redis-tls)
    : "${port:?port}"
    mkdir -p "$dir"
    command -v redis-server >/dev/null || { echo "services: redis-server not found (run scripts/setup.sh)" >&2; exit 1; }
    ping=(redis-cli -h "$host" -p "$port")
    if [ "$kind" = redis-tls ]; then
      certs=${extra:?certificate directory}
      listen=(--port 0 --tls-port "$port" --tls-cert-file "$certs/server.crt"
        --tls-key-file "$certs/server.key" --tls-ca-cert-file "$certs/ca.crt" --tls-auth-clients no)
      ping+=(--tls --cacert "$certs/ca.crt")
      persist=(--appendonly yes --appendfsync always)
    else
      listen=(--port "$port")
      # Durable like a production store for IDs must be (the default): every acknowledged write
      # is in the append-only file before the reply, so a killed server comes back with its
      # counters. The other modes are for tests of what a less durable server loses.
      case "${extra:-always}" in
        always) persist=(--appendonly yes --appendfsync always) ;;
        everysec) persist=(--appendonly yes --appendfsync everysec) ;;
        none) persist=(--appendonly no) ;;
        *) echo "services: redis persistence is always, everysec or none" >&2; exit 2 ;;
      esac
    fi
    # Protected mode refuses clients from other addresses when no password is set.
    [ "$host" != 127.0.0.1 ] && listen+=(--protected-mode no)
    redis-server --bind "$host" "${listen[@]}" --dir "$dir" --save "" "${persist[@]}" \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
    wait_port "$port"
    # A restarted server answers LOADING while it replays its append-only file: wait for PONG.
    for _ in $(seq 1 200); do
      [ "$("${ping[@]}" ping 2>/dev/null)" = PONG ] && break
      sleep 0.05
    done
    ;;
  start/postgres|start/postgres-tls)
    : "${port:?port}"
    bin=$(pg_bin)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres "$dir"; chmod 700 "$dir"
      # The postgres user must be able to reach DIR (mktemp -d makes 0700 directories).
      up=$(dirname "$(realpath "$dir")")
      while [ "$up" != / ]; do
        [ $(( 0$(stat -c %a "$up") & 1 )) = 1 ] || chmod o+x "$up"
        up=$(dirname "$up")
      done
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_pg "$bin/initdb" -D "$dir/data" -A trust -U idmint --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    # Another listen address than loopback: clients come from that network (initdb's rules
    # trust loopback only).
    if [ "$host" != 127.0.0.1 ] && ! grep -q '^host all all 0.0.0.0/0 trust' "$dir/data/pg_hba.conf"; then
      echo "host all all 0.0.0.0/0 trust" >>"$dir/data/pg_hba.conf"
    fi
    extra=""
    if [ "$kind" = postgres-tls ]; then
      certs=${5:?certificate directory}
      # The server reads its key only if the postgres user owns it and nobody else can read it.
      install -m 0644 "$certs/server.crt" "$dir/data/server.crt"
      install -m 0600 "$certs/server.key" "$dir/data/server.key"
      [ "$(id -u)" = 0 ] && chown postgres "$dir/data/server.crt" "$dir/data/server.key"
      printf '%s\n' "local all all trust" "hostssl all all 127.0.0.1/32 trust" \
        "hostssl all all ::1/128 trust" >"$dir/data/pg_hba.conf"
      extra="-c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key"
    fi
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=$host -c fsync=off -c max_connections=300 $extra" \
      start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
    ;;
  start/mariadb)
    : "${port:?port}"
    bin=$(maria_bin)
    # A private tmpdir: servers initialised side by side collide on temporary file names in /tmp.
    mkdir -p "$dir/tmp"
    if [ -f "$dir/mariadbd.pid" ] && running "$(cat "$dir/mariadbd.pid")"; then exit 0; fi
    user=(); [ "$(id -u)" = 0 ] && user=(--user=root)
    fresh=no
    if [ ! -d "$dir/data/mysql" ]; then
      rm -rf "$dir/data"
      # shellcheck disable=SC2046
      mariadb-install-db $(maria_opts "$dir") "${user[@]}" --auth-root-authentication-method=normal \
        --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
      fresh=yes
    fi
    # shellcheck disable=SC2046
    setsid "$bin" $(maria_opts "$dir") "${user[@]}" --socket="$dir/mysqld.sock" --port="$port" \
      --bind-address="$host" --skip-name-resolve --pid-file="$dir/mariadbd.pid" \
      --log-error="$dir/mariadb.log" --max-connections=300 </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/mariadbd.pid"
    admin=(mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot)
    up=no
    for _ in $(seq 1 600); do
      if "${admin[@]}" ping >/dev/null 2>&1; then up=yes; break; fi
      running "$(cat "$dir/mariadbd.pid")" || break
      sleep 0.05
    done
    [ $up = yes ] || { echo "services: mariadbd did not start" >&2; tail -20 "$dir/mariadb.log" >&2; exit 1; }
    if [ $fresh = yes ]; then
      mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot -e "
        CREATE DATABASE IF NOT EXISTS idmint;
        CREATE USER IF NOT EXISTS 'idmint'@'%';
        GRANT ALL ON idmint.* TO 'idmint'@'%';" || exit 1
    fi
    wait_port "$port"
    ;;
  stop/mariadb|kill/mariadb)
    [ -f "$dir/mariadbd.pid" ] || exit 0
    pid=$(cat "$dir/mariadbd.pid")
    sig=TERM; [ "$action" = kill ] && sig=KILL
    kill -s "$sig" "$pid" 2>/dev/null || true
    # A server a test paused (SIGSTOP) acts on the signal only once it runs again.
    kill -s CONT "$pid" 2>/dev/null || true
    for _ in $(seq 1 600); do running "$pid" || break; sleep 0.05; done
    rm -f "$dir/mariadbd.pid"
    ;;
  signal/mariadb)
    sig=${4:?signal}
    [ -f "$dir/mariadbd.pid" ] || { echo "services: no server in $dir" >&2; exit 1; }
    kill -s "$sig" "$(cat "$dir/mariadbd.pid")"
    ;;
  start/idmint)
    : "${port:?port}"
    root=$(cd "$(dirname "$0")/.." && pwd)
    bin=${IDMINT_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/idmint}
    if [ ! -x "$bin" ]; then
      (cd "$root" && cargo build --locked -q -p idmint-cli)
    fi
    mkdir -p "$dir"
    shift 4
    "$bin" serve --listen "127.0.0.1:$port" --data-dir "$dir/data" --log warn "$@" \
      >"$dir/idmint.log" 2>&1 &
    echo $! >"$dir/idmint.pid"
    for _ in $(seq 1 400); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then exit 0; fi
      kill -0 "$(cat "$dir/idmint.pid")" 2>/dev/null || { cat "$dir/idmint.log" >&2; exit 1; }
      sleep 0.05
    done
    echo "services: idmint serve did not listen on $port" >&2; cat "$dir/idmint.log" >&2; exit 1
    ;;
  start/etcd|start/etcd-tls)
    : "${port:?port}"
    command -v etcd >/dev/null && command -v etcdctl >/dev/null \
      || { echo "services: etcd or etcdctl not found (run scripts/setup.sh)" >&2; exit 1; }
    mkdir -p "$dir"
    scheme=http certs="" member=$extra
    if [ "$kind" = etcd-tls ]; then
      scheme=https certs=${5:?certificate directory} member=${6:-}
      echo "$certs" >"$dir/certdir"
    else
      rm -f "$dir/certdir"
    fi
    echo "$port" >"$dir/port"
    members=$(etcd_which "$member")
    # shellcheck disable=SC2086
    for i in $members; do etcd_start_member "$dir" "$port" "$i" "$scheme" "$certs"; done
    # shellcheck disable=SC2086
    etcd_wait_healthy "$dir" $members
    ;;
  stop/etcd|kill/etcd|stop/etcd-tls|kill/etcd-tls)
    sig=TERM; [ "$action" = kill ] && sig=KILL
    pids=()
    for i in $(etcd_which "$port"); do
      f="$dir/m$i/etcd.pid"
      [ -f "$f" ] || continue
      pid=$(cat "$f")
      kill -s "$sig" "$pid" 2>/dev/null || true
      kill -s CONT "$pid" 2>/dev/null || true
      pids+=("$pid")
      rm -f "$f"
    done
    for pid in "${pids[@]}"; do
      for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    done
    ;;
  signal/etcd|signal/etcd-tls)
    sig=${4:?signal}
    for i in $(etcd_which "$extra"); do
      f="$dir/m$i/etcd.pid"
      [ -f "$f" ] || { echo "services: no etcd member $i in $dir" >&2; exit 1; }
      kill -s "$sig" "$(cat "$f")"
    done
    ;;
  leader/etcd|leader/etcd-tls)
    for _ in $(seq 1 300); do
      # Ask each running member whether it is the leader (a killed one would only time out).
      for i in $(etcd_which ""); do
        [ -f "$dir/m$i/etcd.pid" ] || continue
        # ENDPOINT, ID, VERSION, DB SIZE, IS LEADER, ...
        is=$( (etcd_ctl_member "$dir" "$i" endpoint status -w simple 2>/dev/null || true) \
          | awk -F', ' '{ print $5 }')
        [ "$is" = true ] && { echo "$i"; exit 0; }
      done
      sleep 0.1
    done
    echo "services: the etcd cluster in $dir has no leader" >&2; exit 1
    ;;
  etcdctl/etcd|etcdctl/etcd-tls)
    shift 3
    etcd_ctl "$dir" "$@"
    ;;
  stop/idmint|kill/idmint)
    [ -f "$dir/idmint.pid" ] || exit 0
    pid=$(cat "$dir/idmint.pid")
    sig=TERM; [ "$action" = kill ] && sig=KILL
    kill -s "$sig" "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$dir/idmint.pid"
    ;;
  stop/redis|kill/redis|stop/redis-tls|kill/redis-tls)
    [ -f "$dir/redis.pid" ] || exit 0
    pid=$(cat "$dir/redis.pid")
    sig=TERM; [ "$action" = kill ] && sig=KILL
    kill -s "$sig" "$pid" 2>/dev/null || true
    # A server a test paused (SIGSTOP) acts on the signal only once it runs again.
    kill -s CONT "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$dir/redis.pid"
    ;;
  stop/postgres)
    [ -f "$dir/data/postmaster.pid" ] || exit 0
    as_pg "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  kill/postgres)
    [ -f "$dir/data/postmaster.pid" ] || exit 0
    pid=$(head -1 "$dir/data/postmaster.pid")
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    # Backends die with the postmaster; give them a moment so the next start finds the port free.
    pkill -KILL -f "postgres: .*-k $dir" 2>/dev/null || true
    sleep 0.2
    rm -f "$dir/data/postmaster.pid"
    ;;
  signal/redis|signal/redis-tls)
    sig=${4:?signal}
    [ -f "$dir/redis.pid" ] || { echo "services: no server in $dir" >&2; exit 1; }
    kill -s "$sig" "$(cat "$dir/redis.pid")"
    ;;
  signal/postgres)
    sig=${4:?signal}
    [ -f "$dir/data/postmaster.pid" ] || { echo "services: no server in $dir" >&2; exit 1; }
    pid=$(head -1 "$dir/data/postmaster.pid")
    # The postmaster first: stopped, it starts no new backend while the rest are signalled.
    kill -s "$sig" "$pid"
    for child in $(pgrep -P "$pid"); do kill -s "$sig" "$child" 2>/dev/null || true; done
    ;;
  *)
    echo "usage: $0 start|stop|kill|signal|leader|etcdctl redis|redis-tls|postgres|postgres-tls|mariadb|zookeeper|etcd|etcd-tls|idmint DIR [PORT [MODE|CERTDIR|MEMBER]|SIG [MEMBER]]" >&2; exit 2 ;;
esac
