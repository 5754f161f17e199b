# Shared helpers of the interop scripts. Source it (`. "$(dirname "$0")/../lib.sh"`); it
# defines functions only and changes no shell option.
#
#   interop_abs PATH                       PATH made absolute (against $PWD)
#   interop_free_port                      a free loopback TCP port (asks the kernel for port 0)
#   interop_start NAME LOG CMD...          runs CMD in the background, stdout+stderr to LOG;
#                                          sets INTEROP_PID; every started server is stopped
#                                          when the script exits (an EXIT trap set here)
#   interop_wait_port PORT PID [TENTHS]    waits until 127.0.0.1:PORT accepts (default 10 s);
#                                          fails early when PID has exited
#   interop_start_listening NAME LOG PORT CMD...
#                                          interop_start + interop_wait_port; on failure prints
#                                          the log and "0 passed, 1 failed" and returns 1
#   interop_start_per_revision LOGDIR BINARY REV...
#                                          one `BINARY --http 127.0.0.1:PORT --protocol-versions
#                                          REV` per REV (ports: free ones, or $INTEROP_PORT,
#                                          +1, ... when set), each listening before the next;
#                                          sets INTEROP_SERVERS (REV=http://127.0.0.1:PORT each)
#                                          and INTEROP_LOGS (LOGDIR/<name>-REV.log each)
#   interop_stop PID                       SIGTERM, up to 5 s, then SIGKILL; reaps it
#   interop_stop_all                       stops every server started here (the EXIT trap)
#   interop_npm_install DIR PACKAGE VERSION
#                                          PACKAGE@VERSION into DIR/node_modules (never the
#                                          repo), unless that exact version is there already
#   interop_venv VENV PYTHON REQUIREMENT   a venv at VENV holding REQUIREMENT (`name==x.y.z`),
#                                          rebuilt when the stamp of that requirement is missing
#   interop_tail_log LOG                   the last 50 lines of a server log, with a header

interop_abs() {
    case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}

# The kernel's choice for port 0, through whichever interpreter the script has anyway.
interop_free_port() {
    if command -v python3 >/dev/null 2>&1; then
        timeout 10 python3 -c \
            'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
    else
        timeout 10 node -e \
            "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
    fi
}

INTEROP_PIDS=()

interop_start() { # name log cmd...
    local name="$1" log="$2"
    shift 2
    mkdir -p "$(dirname "$log")"
    "$@" >"$log" 2>&1 &
    INTEROP_PID=$!
    INTEROP_PIDS+=("$INTEROP_PID")
    if [ "${#INTEROP_PIDS[@]}" -eq 1 ]; then trap interop_stop_all EXIT; fi
    [ -z "${INTEROP_VERBOSE:-}" ] || echo "started $name (pid $INTEROP_PID, log $log)"
}

interop_wait_port() { # port pid [tenths of a second]
    local port="$1" pid="$2" tries="${3:-100}"
    for _ in $(seq 1 "$tries"); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

interop_start_listening() { # name log port cmd...
    local name="$1" log="$2" port="$3"
    shift 3
    interop_start "$name" "$log" "$@"
    if ! interop_wait_port "$port" "$INTEROP_PID"; then
        echo "FAIL: $name did not listen on 127.0.0.1:$port"
        cat "$log"
        echo "0 passed, 1 failed"
        return 1
    fi
}

interop_start_per_revision() { # logdir binary rev...
    local dir="$1" bin="$2" n=0 rev port log
    shift 2
    INTEROP_SERVERS=()
    INTEROP_LOGS=()
    for rev in "$@"; do
        if [ -n "${INTEROP_PORT:-}" ]; then port=$((INTEROP_PORT + n)); else port="$(interop_free_port)"; fi
        log="$dir/$(basename "$bin")-$rev.log"
        interop_start_listening "$(basename "$bin") ($rev)" "$log" "$port" \
            "$bin" --http "127.0.0.1:$port" --protocol-versions "$rev" || return 1
        INTEROP_SERVERS+=("$rev=http://127.0.0.1:$port")
        INTEROP_LOGS+=("$log")
        n=$((n + 1))
    done
}

interop_stop() { # pid
    local pid="$1"
    kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

interop_stop_all() {
    local pid
    for pid in "${INTEROP_PIDS[@]}"; do interop_stop "$pid"; done
    INTEROP_PIDS=()
}

interop_npm_install() { # dir package version
    local dir="$1" pkg="$2" version="$3" have
    have="$(node -p "try{require('$dir/node_modules/$pkg/package.json').version}catch{''}" 2>/dev/null || true)"
    if [ "$have" != "$version" ]; then
        mkdir -p "$dir"
        [ -f "$dir/package.json" ] || echo '{"name":"interop","private":true}' >"$dir/package.json"
        timeout 600 npm install --prefix "$dir" --no-audit --no-fund --silent "$pkg@$version" >&2
    fi
}

interop_venv() { # venv python requirement
    local venv="$1" python="$2" req="$3"
    local stamp="$venv/.${req//==/-}"
    if [ ! -f "$stamp" ]; then
        rm -rf "$venv"
        timeout 120 "$python" -m venv "$venv"
        timeout 600 "$venv/bin/python" -m pip install --disable-pip-version-check --no-input \
            --quiet --timeout 60 --retries 3 "$req"
        touch "$stamp"
    fi
}

interop_tail_log() { # log
    echo "--- server log $1:"
    tail -50 "$1"
}
