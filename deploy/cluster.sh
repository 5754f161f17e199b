#!/usr/bin/env bash
# A loopback deployment of examples/everything: Redis, three replicas sharing it, and nginx
# in front (round-robin, no stickiness, SSE unbuffered).
#
#   deploy/cluster.sh [--redis standalone|cluster|sentinel] COMMAND
#
# `--redis cluster` makes Redis a Redis Cluster of three primaries and a replica of each
# (six nodes from the fourth port after MCP_CLUSTER_PORT; each node's cluster bus on its
# port + 10000; a primary is failed over 2 s after it stops answering), given to the
# replicas as one `redis+cluster://` URL of the three first nodes; `--redis sentinel` a
# primary (fourth port), two replicas of it (fifth, sixth) and three sentinels (the next
# three) watching it as `mymaster`, given as one `redis+sentinel://` URL; `standalone` (the
# default, or MCP_CLUSTER_REDIS) is one Redis. `start` remembers the choice in
# MCP_CLUSTER_DIR for the later commands.
#
# Losing any one Redis node loses nothing acknowledged and keeps the service up: under
# Sentinel and Cluster every write a client is told of waits until one replica holds it
# (`WAIT 1`; under Cluster the replicas get `--redis-replicas 1`), and there is a replica
# more than waited for under Sentinel (after the primary's loss, the sentinels point the
# other replica at the promoted one). While fewer replicas answer than waited for (a
# Cluster primary just promoted has none), writes are acknowledged with a warning and
# counted (the default); MCP_CLUSTER_ARGS='--redis-fewer-replicas refuse' makes them 503
# instead. Commands:
#
#   deploy/cluster.sh start         build, start every part, wait until each answers; the
#                                   last line printed is `url=http://127.0.0.1:PORT/mcp`
#   deploy/cluster.sh stop          stop everything this script started
#   deploy/cluster.sh kill N        SIGKILL replica N (1..3)
#   deploy/cluster.sh restart N     stop replica N (SIGTERM, then SIGKILL) and start it again
#   deploy/cluster.sh restart-all   restart every replica, one after another
#   deploy/cluster.sh redis-stop    stop Redis, every node (append-only files keep the data)
#   deploy/cluster.sh redis-start   start Redis again on the same ports and data (sentinel:
#                                   a data node that is not the primary the sentinels name
#                                   starts as its replica, so the old primary rejoins)
#   deploy/cluster.sh redis-failover  (sentinel, cluster) SIGKILL the primary the sentinels
#                                   name (cluster: the primary of the first slots), and
#                                   wait up to 30 s until another is named (cluster: until
#                                   its replica serves its slots); `redis-start` brings the
#                                   old one back as a replica
#   deploy/cluster.sh redis-kill NAME  SIGKILL one Redis process (a name `status` lists)
#   deploy/cluster.sh status        which parts are running
#
# Ports come from MCP_CLUSTER_PORT (default 8300): nginx on it, the replicas on the next
# three, Redis on the fourth. State (pids, logs, the nginx configuration, Redis's data) lives
# in MCP_CLUSTER_DIR (default /tmp/mcp-cluster-PORT). Nothing runs unbounded: a watchdog
# stops the whole cluster after MCP_CLUSTER_TTL seconds (default 3600).
#
# The replicas share one `requestState` sealing key (MCP_REQUEST_STATE_KEYS, base64, comma
# separated): taken from the environment when set, else generated once into
# MCP_CLUSTER_DIR/request-state.key, so a replica restarted later opens what the others
# sealed. `start` builds the example with MCP_CLUSTER_FEATURES (default `http,redis`; it
# must include both) into CARGO_TARGET_DIR (default ROOT/target). MCP_CLUSTER_ARGS adds
# arguments to every replica's command line (split on spaces), for example
# `--rate-limit add=10`.
#
# redis-server and nginx come from Debian's packages; `start` installs them when missing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${MCP_CLUSTER_PORT:-8300}"
DIR="${MCP_CLUSTER_DIR:-/tmp/mcp-cluster-$PORT}"
TTL="${MCP_CLUSTER_TTL:-3600}"
REPLICAS=3
REDIS_PORT=$((PORT + REPLICAS + 1))

REDIS_MODE=""
if [ "${1:-}" = "--redis" ]; then
    REDIS_MODE="${2:-}"
    shift 2 || true
fi
if [ -z "$REDIS_MODE" ]; then
    REDIS_MODE="$(cat "$DIR/redis-mode" 2>/dev/null || echo "${MCP_CLUSTER_REDIS:-standalone}")"
fi
case "$REDIS_MODE" in
standalone) REDIS_NODES=(redis) ;;
cluster) REDIS_NODES=(redis1 redis2 redis3 redis4 redis5 redis6) ;;
sentinel) REDIS_NODES=(redis redis-replica redis-replica2 sentinel1 sentinel2 sentinel3) ;;
*)
    echo "cluster: --redis standalone|cluster|sentinel expected, got '$REDIS_MODE'" >&2
    exit 2
    ;;
esac
redis_node_port() { echo $((REDIS_PORT + $1)); } # 0-based
# Sentinel: the data nodes, then the sentinels.
DATA_NODES=3
SENTINEL_PORT=$((REDIS_PORT + DATA_NODES))
if [ "$REDIS_MODE" = sentinel ]; then
    REDIS_URL="redis+sentinel://127.0.0.1:$SENTINEL_PORT,127.0.0.1:$((SENTINEL_PORT + 1)),127.0.0.1:$((SENTINEL_PORT + 2))/mymaster"
elif [ "$REDIS_MODE" = cluster ]; then
    REDIS_URL="redis+cluster://127.0.0.1:$REDIS_PORT,127.0.0.1:$((REDIS_PORT + 1)),127.0.0.1:$((REDIS_PORT + 2))"
else
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="$TARGET/debug/examples/everything"
FEATURES="${MCP_CLUSTER_FEATURES:-http,redis}"

replica_port() { echo $((PORT + $1)); }
pidfile() { echo "$DIR/$1.pid"; }

# Alive: it exists and is no zombie (an exited child that its new parent, perhaps a
# container's init, has not reaped yet).
alive() { # pid
    kill -0 "$1" 2>/dev/null || return 1
    [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]
}

running() { # name
    local f
    f="$(pidfile "$1")"
    [ -f "$f" ] && alive "$(cat "$f")"
}

# Waits until 127.0.0.1:PORT accepts, up to 15 s; fails early when the process is gone.
wait_port() { # name port
    local name="$1" port="$2"
    for _ in $(seq 1 150); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        running "$name" || break
        sleep 0.1
    done
    echo "cluster: $name did not listen on 127.0.0.1:$port; the end of $DIR/$name.log:" >&2
    tail -n 30 "$DIR/$name.log" >&2 || true
    return 1
}

# SIGTERM, up to 5 s, then SIGKILL.
stop_pid() { # name
    local f pid
    f="$(pidfile "$1")"
    [ -f "$f" ] || return 0
    pid="$(cat "$f")"
    # The watchdog, once its time is up, is this very script running `stop`.
    if [ "$pid" = "$$" ]; then
        rm -f "$f"
        return 0
    fi
    if alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            alive "$pid" || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

spawn() { # name cmd...
    local name="$1"
    shift
    nohup "$@" >>"$DIR/$name.log" 2>&1 </dev/null &
    echo $! >"$(pidfile "$name")"
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing() {
    local missing=()
    command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
    command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
    [ "${#missing[@]}" -eq 0 ] && return 0
    echo "cluster: installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

redis_start() {
    local i name port extra primary
    for i in "${!REDIS_NODES[@]}"; do
        name="${REDIS_NODES[$i]}"
        port="$(redis_node_port "$i")"
        running "$name" && continue
        mkdir -p "$DIR/$name"
        extra=()
        case "$REDIS_MODE:$name" in
        cluster:*)
            # A primary that stops answering is failed over after 2 s; meanwhile the other
            # primaries serve their slots.
            extra=(--cluster-enabled yes --cluster-config-file "$DIR/$name/nodes.conf"
                --cluster-node-timeout 2000 --cluster-require-full-coverage no
                --repl-diskless-sync-delay 0)
            ;;
        sentinel:redis | sentinel:redis-replica*)
            # A node coming back after a failover rejoins as a replica of the primary the
            # sentinels name now (at the first start: the replica of the first node).
            # No wait before a replica's full sync: it is what writes wait for (WAIT).
            extra=(--repl-diskless-sync-delay 0)
            primary="$(sentinel_primary_port)"
            if [ -z "$primary" ] && [ "$name" != redis ]; then primary="$REDIS_PORT"; fi
            if [ -n "$primary" ] && [ "$primary" != "$port" ]; then
                extra+=(--replicaof 127.0.0.1 "$primary")
            fi
            ;;
        sentinel:sentinel*)
            # Sentinel rewrites its file: written once, kept through restarts.
            [ -f "$DIR/$name/sentinel.conf" ] || printf '%s\n' "port $port" "bind 127.0.0.1" \
                "sentinel monitor mymaster 127.0.0.1 $REDIS_PORT 2" \
                "sentinel down-after-milliseconds mymaster 1000" \
                "sentinel failover-timeout mymaster 10000" >"$DIR/$name/sentinel.conf"
            spawn "$name" redis-server "$DIR/$name/sentinel.conf" --sentinel --daemonize no
            wait_port "$name" "$port"
            continue
            ;;
        esac
        # The append-only file lets redis-stop/redis-start keep every session.
        spawn "$name" redis-server --bind 127.0.0.1 --port "$port" --dir "$DIR/$name" \
            --appendonly yes --appendfsync everysec --save '' --daemonize no "${extra[@]}"
        wait_port "$name" "$port"
    done
    if [ "$REDIS_MODE" = cluster ]; then redis_cluster_form; fi
    if [ "$REDIS_MODE" = sentinel ]; then redis_sentinels_ready; fi
}

# The port of the primary the first running sentinel names; empty when none answers.
sentinel_primary_port() {
    local i
    for i in 0 1 2; do
        if running "sentinel$((i + 1))"; then
            redis-cli -p "$((SENTINEL_PORT + i))" sentinel get-master-addr-by-name mymaster 2>/dev/null | sed -n 2p
            return 0
        fi
    done
}

# Waits up to 30 s until the first running sentinel knows both replicas and the two other
# sentinels (before that, a failover cannot happen).
redis_sentinels_ready() {
    local s1=$SENTINEL_PORT i
    for i in 0 1 2; do
        if running "sentinel$((i + 1))"; then
            s1=$((SENTINEL_PORT + i))
            break
        fi
    done
    for _ in $(seq 1 300); do
        if [ "$(redis-cli -p "$s1" sentinel replicas mymaster | grep -c '^name$')" -ge 2 ] &&
            [ "$(redis-cli -p "$s1" sentinel sentinels mymaster | grep -c '^name$')" -ge 2 ]; then
            return 0
        fi
        sleep 0.1
    done
    echo "cluster: the sentinels did not meet the replicas and each other; see $DIR/sentinel1.log" >&2
    return 1
}

# Makes the six nodes one cluster, three primaries and a replica of each (once; restarted
# nodes find each other again from their nodes.conf), then waits up to 30 s until every
# running node sees every slot served and every primary has its replica.
redis_cluster_form() {
    local i nodes=() ok p
    for i in "${!REDIS_NODES[@]}"; do nodes+=("127.0.0.1:$(redis_node_port "$i")"); done
    if ! cluster_any_node cluster info | grep -q 'cluster_slots_assigned:16384'; then
        redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes \
            >>"$DIR/redis1.log" 2>&1
    fi
    for _ in $(seq 1 300); do
        ok=1
        for i in "${!REDIS_NODES[@]}"; do
            running "${REDIS_NODES[$i]}" || continue
            p="$(redis_node_port "$i")"
            redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || ok=0
            redis-cli -p "$p" cluster info | grep -q 'cluster_slots_ok:16384' || ok=0
        done
        # Flags such as `myself,slave`: field 3.
        [ "$(cluster_any_node cluster nodes | awk '$3 ~ /slave/ && $3 !~ /fail/' | wc -l)" -ge 3 ] || ok=0
        [ "$ok" = 1 ] && return 0
        sleep 0.1
    done
    echo "cluster: the Redis Cluster did not form; see $DIR/redis1.log" >&2
    return 1
}

# `redis-cli ARGS` against the first running cluster node.
cluster_any_node() {
    local i
    for i in "${!REDIS_NODES[@]}"; do
        if running "${REDIS_NODES[$i]}"; then
            redis-cli -p "$(redis_node_port "$i")" "$@"
            return
        fi
    done
}

redis_stop() {
    local name
    for name in "${REDIS_NODES[@]}"; do stop_pid "$name"; done
}

# The sealing key every replica shares (made once per MCP_CLUSTER_DIR).
request_state_keys() {
    if [ -n "${MCP_REQUEST_STATE_KEYS:-}" ]; then
        echo "$MCP_REQUEST_STATE_KEYS"
        return 0
    fi
    local f="$DIR/request-state.key"
    if [ ! -s "$f" ]; then
        (umask 077 && head -c 32 /dev/urandom | base64 >"$f.tmp" && mv "$f.tmp" "$f")
    fi
    cat "$f"
}

replica_start() { # n
    local n="$1" keys
    running "replica$n" && return 0
    keys="$(request_state_keys)"
    local extra=()
    read -r -a extra <<<"${MCP_CLUSTER_ARGS:-}"
    # A Redis Cluster may have no replicas, so writes wait for one only when asked.
    [ "$REDIS_MODE" = cluster ] && extra=(--redis-replicas 1 "${extra[@]}")
    spawn "replica$n" env MCP_REQUEST_STATE_KEYS="$keys" "$BIN" --http "127.0.0.1:$(replica_port "$n")" --redis "$REDIS_URL" "${extra[@]}"
    wait_port "replica$n" "$(replica_port "$n")"
}

nginx_conf() {
    local upstreams="" n
    for n in $(seq 1 "$REPLICAS"); do
        upstreams+="        server 127.0.0.1:$(replica_port "$n") max_fails=1 fail_timeout=2s;"$'\n'
    done
    mkdir -p "$DIR/nginx/tmp"
    sed -e "s|@DIR@|$DIR/nginx|g" -e "s|@PORT@|$PORT|g" \
        "$ROOT/deploy/nginx.conf" | awk -v up="$upstreams" '{ if ($0 ~ /^[ \t]*@UPSTREAMS@[ \t]*$/) printf "%s", up; else print }' \
        >"$DIR/nginx/nginx.conf"
}

nginx_start() {
    running nginx && return 0
    nginx_conf
    local nginx_bin
    nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
    spawn nginx "$nginx_bin" -p "$DIR/nginx" -c "$DIR/nginx/nginx.conf" -g 'daemon off;'
    wait_port nginx "$PORT"
}

# After TTL seconds, `stop`. Stopping the watchdog itself (SIGTERM) ends its sleep too.
watchdog_start() {
    stop_pid watchdog
    spawn watchdog bash -c "trap 'kill \$s 2>/dev/null; exit 0' TERM; sleep $TTL & s=\$!; wait \$s && exec '$0' stop"
}

need_replica() { # n
    case "${1:-}" in
    [1-9]) [ "$1" -le "$REPLICAS" ] && return 0 ;;
    esac
    echo "cluster: replica number 1..$REPLICAS expected, got '${1:-}'" >&2
    exit 2
}

# SIGKILLs the process named $1.
kill_node() {
    local f
    f="$(pidfile "$1")"
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
}

# The name of the data node on port $1.
node_on_port() {
    local i
    for i in "${!REDIS_NODES[@]}"; do
        [ "$(redis_node_port "$i")" = "$1" ] && echo "${REDIS_NODES[$i]}" && return 0
    done
}

sentinel_failover() {
    local old now
    old="$(sentinel_primary_port)"
    kill_node "$(node_on_port "$old")"
    for _ in $(seq 1 300); do
        now="$(sentinel_primary_port)"
        if [ -n "$now" ] && [ "$now" != "$old" ]; then
            echo "primary=127.0.0.1:$now (was $old)"
            return 0
        fi
        sleep 0.1
    done
    echo "cluster: no failover from $old within 30 s" >&2
    return 1
}

# The port of the primary that serves slot 0, as the first running node sees it.
slot0_primary() {
    cluster_any_node cluster nodes | awk '$3 ~ /master/ && $3 !~ /fail/ && $9 ~ /^0-/ {
        split($2, a, "[:@]"); print a[2] }'
}

# Kills the primary of slot 0 and waits until another node serves it.
cluster_failover() {
    local old now
    old="$(slot0_primary)"
    if [ -z "$old" ]; then
        echo "cluster: no primary serves slot 0" >&2
        return 1
    fi
    kill_node "$(node_on_port "$old")"
    for _ in $(seq 1 300); do
        now="$(slot0_primary)"
        if [ -n "$now" ] && [ "$now" != "$old" ] &&
            redis-cli -p "$now" role | head -1 | grep -q master; then
            echo "primary=127.0.0.1:$now (was $old)"
            return 0
        fi
        sleep 0.1
    done
    echo "cluster: no failover from $old within 30 s" >&2
    return 1
}

cmd="${1:-}"
mkdir -p "$DIR"
case "$cmd" in
start)
    echo "$REDIS_MODE" >"$DIR/redis-mode"
    install_missing
    (cd "$ROOT" && timeout 3600 "${CARGO:-cargo}" build -q --example everything --features "$FEATURES" --target-dir "$TARGET")
    redis_start
    for n in $(seq 1 "$REPLICAS"); do replica_start "$n"; done
    nginx_start
    watchdog_start
    echo "redis=$REDIS_URL"
    for n in $(seq 1 "$REPLICAS"); do echo "replica$n=http://127.0.0.1:$(replica_port "$n")/mcp"; done
    echo "url=http://127.0.0.1:$PORT/mcp"
    ;;
stop)
    stop_pid nginx
    for n in $(seq 1 "$REPLICAS"); do stop_pid "replica$n"; done
    redis_stop
    # Last: when the watchdog itself runs `stop`, this ends it.
    stop_pid watchdog
    ;;
kill)
    need_replica "${2:-}"
    f="$(pidfile "replica$2")"
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
    ;;
restart)
    need_replica "${2:-}"
    stop_pid "replica$2"
    replica_start "$2"
    ;;
restart-all)
    for n in $(seq 1 "$REPLICAS"); do
        stop_pid "replica$n"
        replica_start "$n"
    done
    ;;
redis-stop) redis_stop ;;
redis-failover)
    case "$REDIS_MODE" in
    sentinel) sentinel_failover ;;
    cluster) cluster_failover ;;
    *)
        echo "cluster: redis-failover needs --redis sentinel or cluster (this one is $REDIS_MODE)" >&2
        exit 2
        ;;
    esac
    ;;
redis-kill)
    name="${2:-}"
    if [[ " ${REDIS_NODES[*]} " != *" $name "* ]]; then
        echo "cluster: one of ${REDIS_NODES[*]} expected, got '$name'" >&2
        exit 2
    fi
    f="$(pidfile "$name")"
    [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
    ;;
redis-start) redis_start ;;
status)
    for name in "${REDIS_NODES[@]}" replica1 replica2 replica3 nginx watchdog; do
        if running "$name"; then echo "$name running (pid $(cat "$(pidfile "$name")"))"; else echo "$name stopped"; fi
    done
    ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
