# shellcheck shell=bash
# scripts/lib/weaviate.sh — a throwaway single-node Weaviate for the test suite,
# embedding text offline through the project's embed server
# (internal/cmd/embedserver, local.HashEmbedder behind the
# text2vec-transformers contract).
#
# Source it, then:
#   weaviate_install  use the cached weaviate-server v1.35.2 at
#                     ${AGENTMEM_CACHE:-$HOME/.cache/agentmem}/weaviate-v1.35.2/weaviate-server,
#                     building it with `go install` when missing (~3 min cold)
#   weaviate_start    build and start the embed server, then Weaviate (anonymous
#                     access, no telemetry, loopback cluster, text2vec-transformers
#                     pointing at the embed server, data in a temp dir), wait
#                     until ready, and export:
#                       AGENTMEM_WEAVIATE_HOST       127.0.0.1:PORT (REST/GraphQL)
#                       AGENTMEM_WEAVIATE_GRPC       127.0.0.1:GRPCPORT
#                       AGENTMEM_WEAVIATE_PID        the server's PID
#                       AGENTMEM_WEAVIATE_EMBED_URL  http://127.0.0.1:EMBEDPORT
#                       AGENTMEM_WEAVIATE_EMBED_PID  the embed server's PID
#                       AGENTMEM_WEAVIATE_DIR        the temp dir (data, logs, PID files)
#                       AGENTMEM_WEAVIATE_START      a script that (re)starts the server on
#                                                    the same ports and data, waits until
#                                                    ready and prints the new PID; the PID
#                                                    is also in $AGENTMEM_WEAVIATE_DIR/weaviate.pid
#   weaviate_start_server  the same restart as a function (updates AGENTMEM_WEAVIATE_PID);
#                     from a test: bash -c 'source scripts/lib/weaviate.sh; weaviate_start_server'
#   weaviate_stop     stop both processes and remove the temp dir
#   weaviate_cluster_start [N], weaviate_cluster_kill I, weaviate_cluster_restart I,
#   weaviate_cluster_stop   the same for a cluster of N nodes (see below)
#
# Settings: AGENTMEM_WEAVIATE_PORT (first REST port to try, default 28080; the
# other ports are searched upwards from fixed offsets, all below the kernel's
# ephemeral range, 32768-60999 by default: a free port found there could be
# taken by an outgoing connection before Weaviate binds it), WEAVIATE_READY_TIMEOUT
# (seconds, default 90), AGENTMEM_EMBEDSERVER_BIN (a prebuilt embed server to
# use instead of building internal/cmd/embedserver). Weaviate 1.35.2 always binds gRPC and its cluster data
# port on all interfaces; everything else listens on 127.0.0.1 only. The server
# runs with USE_INVERTED_SEARCHABLE=false: 1.35.2's BlockMax WAND BM25 drops
# recently written objects from limited BM25/hybrid results (upstream #11780);
# the price is slower keyword search over common terms, which hybrid recall leaves out.

WEAVIATE_VERSION=${WEAVIATE_VERSION:-v1.35.2}

_wv_log() { echo "weaviate.sh: $*" >&2; }

# _wv_bin prints the path of the cached server binary.
_wv_bin() {
	printf '%s/weaviate-%s/weaviate-server\n' "${AGENTMEM_CACHE:-$HOME/.cache/agentmem}" "$WEAVIATE_VERSION"
}

# _wv_port_free reports whether nothing listens on port $1.
_wv_port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# _wv_pick_port prints the first free port >= $1 not listed in $2 (space-separated).
_wv_pick_port() {
	local p=$1 taken=" ${2:-} " i
	for i in $(seq 0 300); do
		if [[ $taken != *" $p "* ]] && _wv_port_free "$p"; then
			printf '%s\n' "$p"
			return 0
		fi
		p=$((p + 1))
	done
	return 1
}

# _wv_http_code prints the HTTP status of a GET of http://127.0.0.1:PORT/PATH
# ("000" when nothing answers), with curl or else bash's /dev/tcp.
_wv_http_code() {
	if command -v curl >/dev/null 2>&1; then
		curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" 2>/dev/null || true
		return 0
	fi
	local hostport=${1#http://} path
	path=/${hostport#*/}
	hostport=${hostport%%/*}
	(exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}" &&
		printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$path" "$hostport" >&3 &&
		timeout 2 head -n 1 <&3 | awk '{print $2}') 2>/dev/null || echo 000
}

# weaviate_install makes sure the pinned server binary exists.
weaviate_install() {
	local bin dir tmp t0=$SECONDS
	bin=$(_wv_bin)
	if [ -x "$bin" ]; then
		export AGENTMEM_WEAVIATE_BIN=$bin
		return 0
	fi
	dir=$(dirname "$bin")
	mkdir -p "$dir" || return 1
	_wv_log "building weaviate-server@$WEAVIATE_VERSION into $dir (~3 min cold) ..."
	tmp=$(mktemp -d) || return 1
	# Outside any module/workspace, and without -mod=vendor (which breaks pkg@version).
	if ! (cd "$tmp" && GOWORK=off GOFLAGS=-buildvcs=false GOBIN="$dir" \
		go install "github.com/weaviate/weaviate/cmd/weaviate-server@$WEAVIATE_VERSION"); then
		rm -rf "$tmp"
		_wv_log "build failed"
		return 1
	fi
	rm -rf "$tmp"
	_wv_log "built in $((SECONDS - t0)) s"
	export AGENTMEM_WEAVIATE_BIN=$bin
}

# _wv_write_start writes $dir/start.sh, the (re)start script of the server.
# Arguments 10-14, for a cluster node: its name (default node1), the gossip
# addresses to join (CLUSTER_JOIN), the Raft voters (RAFT_JOIN, name:raftport,...),
# their number (RAFT_BOOTSTRAP_EXPECT, default 1) and more environment
# (space-separated NAME=VALUE).
_wv_write_start() {
	local dir=$1 bin=$2 port=$3 grpc=$4 gossip=$5 data=$6 raft=$7 raftrpc=$8 embed=$9
	local name=${10:-node1} join=${11:-} raftjoin=${12:-} expect=${13:-1} cluster="" kv
	[ -z "$join" ] || cluster+="	CLUSTER_JOIN=$join \\"$'\n'
	[ -z "$raftjoin" ] || cluster+="	RAFT_JOIN=$raftjoin \\"$'\n'
	for kv in ${14:-}; do
		cluster+="	$kv \\"$'\n'
	done
	cat >"$dir/start.sh" <<EOF
#!/usr/bin/env bash
# (Re)starts the agentmem test Weaviate in $dir (generated by scripts/lib/weaviate.sh):
# same ports, same data. Prints the PID once /v1/.well-known/ready answers 200
# (at once when it already runs).
set -u
dir=$dir
timeout=\${WEAVIATE_READY_TIMEOUT:-90}
if [ -f "\$dir/weaviate.pid" ] && kill -0 "\$(cat "\$dir/weaviate.pid")" 2>/dev/null; then
	cat "\$dir/weaviate.pid" # already running
	exit 0
fi
env -i PATH="\$PATH" HOME="$dir" \\
	AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \\
	AUTHENTICATION_APIKEY_ENABLED=false \\
	AUTHENTICATION_OIDC_ENABLED=false \\
	PERSISTENCE_DATA_PATH="$dir/data" \\
	DISABLE_TELEMETRY=true \\
	GO_PROFILING_DISABLE=true \\
	PROMETHEUS_MONITORING_ENABLED=false \\
	API_BASED_MODULES_DISABLED=true \\
	ENABLE_MODULES=text2vec-transformers \\
	TRANSFORMERS_INFERENCE_API=http://127.0.0.1:$embed \\
	DEFAULT_VECTORIZER_MODULE=none \\
	USE_INVERTED_SEARCHABLE=false \\
	AUTOSCHEMA_ENABLED=false \\
	QUERY_DEFAULTS_LIMIT=25 \\
	CLUSTER_HOSTNAME=$name \\
	CLUSTER_IN_LOCALHOST=true \\
	CLUSTER_BIND_ADDR=127.0.0.1 \\
	CLUSTER_ADVERTISE_ADDR=127.0.0.1 \\
	CLUSTER_GOSSIP_BIND_PORT=$gossip \\
	CLUSTER_DATA_BIND_PORT=$data \\
	RAFT_PORT=$raft \\
	RAFT_INTERNAL_RPC_PORT=$raftrpc \\
$cluster	RAFT_BOOTSTRAP_EXPECT=$expect \\
	RAFT_TIMEOUTS_MULTIPLIER=1 \\
	GRPC_PORT=$grpc \\
	LOG_LEVEL=warning \\
	LOG_FORMAT=json \\
	"$bin" --scheme http --host 127.0.0.1 --port $port \\
	--read-timeout=600s --write-timeout=600s >>"\$dir/weaviate.log" 2>&1 </dev/null &
pid=\$!
echo "\$pid" >"\$dir/weaviate.pid"
$(declare -f _wv_http_code)
deadline=\$((SECONDS + timeout))
while [ \$SECONDS -lt \$deadline ]; do
	if ! kill -0 "\$pid" 2>/dev/null; then
		echo "weaviate exited during startup; last log lines:" >&2
		tail -n 20 "\$dir/weaviate.log" >&2
		exit 1
	fi
	code=\$(_wv_http_code http://127.0.0.1:$port/v1/.well-known/ready)
	if [ "\$code" = 200 ]; then
		echo "\$pid"
		exit 0
	fi
	sleep 0.1
done
echo "weaviate not ready after \${timeout}s; last log lines:" >&2
tail -n 20 "\$dir/weaviate.log" >&2
kill -KILL "\$pid" 2>/dev/null
exit 1
EOF
	chmod 755 "$dir/start.sh"
}

# _wv_build_embed puts the embed server binary into dir $1 (repository root $2).
_wv_build_embed() {
	if [ -n "${AGENTMEM_EMBEDSERVER_BIN:-}" ]; then
		cp "$AGENTMEM_EMBEDSERVER_BIN" "$1/embedserver"
	elif ! (cd "$2" && go build -o "$1/embedserver" ./internal/cmd/embedserver); then
		_wv_log "building the embed server failed"
		return 1
	fi
}

# _wv_run_embed starts $1/embedserver on port $2, waits until it is ready and
# prints its PID (also in $1/embed.pid).
_wv_run_embed() {
	local dir=$1 eport=$2 epid i
	"$dir/embedserver" -addr "127.0.0.1:$eport" >"$dir/embed.log" 2>&1 </dev/null &
	epid=$!
	echo "$epid" >"$dir/embed.pid"
	for i in $(seq 1 100); do
		[ "$(_wv_http_code "http://127.0.0.1:$eport/.well-known/ready")" = 204 ] && break
		sleep 0.1
	done
	if [ "$(_wv_http_code "http://127.0.0.1:$eport/.well-known/ready")" != 204 ]; then
		_wv_log "embed server not ready:"
		cat "$dir/embed.log" >&2
		kill "$epid" 2>/dev/null
		return 1
	fi
	printf '%s\n' "$epid"
}

# weaviate_start starts the embed server and Weaviate and exports their settings.
weaviate_start() {
	local bin root dir eport port grpc gossip data raft raftrpc taken epid pid i
	bin=${AGENTMEM_WEAVIATE_BIN:-$(_wv_bin)}
	[ -x "$bin" ] || {
		_wv_log "no server binary at $bin (run weaviate_install)"
		return 1
	}
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-weaviate.XXXXXX") || return 1
	mkdir -p "$dir/data"

	_wv_build_embed "$dir" "$root" || {
		rm -rf "$dir"
		return 1
	}
	port=${AGENTMEM_WEAVIATE_PORT:-28080}
	eport=$(_wv_pick_port $((port + 10))) &&
		port=$(_wv_pick_port "$port" "$eport") &&
		grpc=$(_wv_pick_port $((port - 29)) "$eport $port") &&
		gossip=$(_wv_pick_port $((port - 134)) "$eport $port $grpc") &&
		data=$(_wv_pick_port $((gossip + 1)) "$eport $port $grpc $gossip") &&
		raft=$(_wv_pick_port $((port + 220)) "$eport $port $grpc $gossip $data") &&
		raftrpc=$(_wv_pick_port $((raft + 1)) "$eport $port $grpc $gossip $data $raft") || {
		_wv_log "no free ports"
		rm -rf "$dir"
		return 1
	}

	epid=$(_wv_run_embed "$dir" "$eport") || {
		rm -rf "$dir"
		return 1
	}

	_wv_write_start "$dir" "$bin" "$port" "$grpc" "$gossip" "$data" "$raft" "$raftrpc" "$eport"
	if ! pid=$("$dir/start.sh"); then
		kill "$epid" 2>/dev/null
		rm -rf "$dir"
		return 1
	fi

	export AGENTMEM_WEAVIATE_DIR="$dir"
	export AGENTMEM_WEAVIATE_START="$dir/start.sh"
	export AGENTMEM_WEAVIATE_HOST="127.0.0.1:$port"
	export AGENTMEM_WEAVIATE_GRPC="127.0.0.1:$grpc"
	export AGENTMEM_WEAVIATE_PID="$pid"
	export AGENTMEM_WEAVIATE_EMBED_URL="http://127.0.0.1:$eport"
	export AGENTMEM_WEAVIATE_EMBED_PID="$epid"
	_wv_log "Weaviate $WEAVIATE_VERSION on $AGENTMEM_WEAVIATE_HOST (gRPC $grpc, pid $pid), embed server $AGENTMEM_WEAVIATE_EMBED_URL ($dir)"
}

# weaviate_start_server (re)starts the server of $AGENTMEM_WEAVIATE_DIR after it
# was stopped or killed, and prints its PID.
weaviate_start_server() {
	local dir=${AGENTMEM_WEAVIATE_DIR:-} pid
	[ -x "$dir/start.sh" ] || {
		_wv_log "AGENTMEM_WEAVIATE_DIR does not hold a started server"
		return 1
	}
	pid=$("$dir/start.sh") || return 1
	export AGENTMEM_WEAVIATE_PID="$pid"
	printf '%s\n' "$pid"
}

# _wv_kill stops the process whose PID is in file $1: SIGTERM, SIGKILL after 20 s.
_wv_kill() {
	local pid i
	[ -f "$1" ] || return 0
	pid=$(cat "$1")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 200); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	return 0
}

# weaviate_stop stops Weaviate and the embed server and removes their files.
weaviate_stop() {
	local dir=${AGENTMEM_WEAVIATE_DIR:-}
	[ -n "$dir" ] || return 0
	_wv_kill "$dir/weaviate.pid"
	_wv_kill "$dir/embed.pid"
	case "$dir" in
	*/agentmem-weaviate.*) rm -rf "$dir" ;;
	esac
	unset AGENTMEM_WEAVIATE_DIR AGENTMEM_WEAVIATE_START AGENTMEM_WEAVIATE_HOST AGENTMEM_WEAVIATE_GRPC \
		AGENTMEM_WEAVIATE_PID AGENTMEM_WEAVIATE_EMBED_URL AGENTMEM_WEAVIATE_EMBED_PID
}

# weaviate_cluster_start [N] starts the embed server and N (default 3) Weaviate
# nodes on loopback that form one Raft cluster (every node a voter; a class
# needs as many nodes as its replication factor), waits
# until all are ready, and exports:
#   AGENTMEM_WEAVIATE_CLUSTER            127.0.0.1:REST1,127.0.0.1:REST2,... (node i is the i-th)
#   AGENTMEM_WEAVIATE_CLUSTER_GRPC       their gRPC addresses, in the same order
#   AGENTMEM_WEAVIATE_CLUSTER_DIR        the temp dir; node i lives in DIR/node<i>, with its
#                                        start.sh (restarts it on the same ports and data,
#                                        waits until ready, prints the PID), weaviate.pid
#                                        and weaviate.log
#   AGENTMEM_WEAVIATE_CLUSTER_EMBED_URL  http://127.0.0.1:EMBEDPORT
# Ports are fixed offsets from AGENTMEM_WEAVIATE_CLUSTER_PORT (default 28500;
# node i of 1..N: REST base+i-1, gRPC base+10+i-1, gossip base+20+2(i-1) and
# data one above, Raft base+40+2(i-1) and its RPC one above, the embed server
# base+60), since every node names the others' ports; startup fails when one
# is taken. The nodes repair replicas quickly, for tests (the classes' async
# replication: compare every 2s, propagate objects older than 2s, a hash tree
# of height 10 per tenant instead of 16); AGENTMEM_WEAVIATE_CLUSTER_ENV
# (space-separated NAME=VALUE) replaces these settings. The single-node
# functions above are independent of these.
_wv_cluster_env="ASYNC_REPLICATION_FREQUENCY=2s ASYNC_REPLICATION_FREQUENCY_WHILE_PROPAGATING=1s \
ASYNC_REPLICATION_ALIVE_NODES_CHECKING_FREQUENCY=1s ASYNC_REPLICATION_PROPAGATION_DELAY=2s \
ASYNC_REPLICATION_HASHTREE_HEIGHT=10"
weaviate_cluster_start() {
	local n=${1:-3} base=${AGENTMEM_WEAVIATE_CLUSTER_PORT:-28500} bin root dir i p node
	local hosts="" grpcs="" raftjoin="" gossip="" pids=() port
	bin=${AGENTMEM_WEAVIATE_BIN:-$(_wv_bin)}
	[ -x "$bin" ] || {
		_wv_log "no server binary at $bin (run weaviate_install)"
		return 1
	}
	[ "$n" -ge 1 ] && [ "$n" -le 9 ] || {
		_wv_log "weaviate_cluster_start: 1 to 9 nodes, not $n"
		return 1
	}
	for i in $(seq 0 $((n - 1))); do
		for p in $((base + i)) $((base + 10 + i)) $((base + 20 + 2 * i)) $((base + 21 + 2 * i)) \
			$((base + 40 + 2 * i)) $((base + 41 + 2 * i)); do
			_wv_port_free "$p" || {
				_wv_log "port $p is taken (set AGENTMEM_WEAVIATE_CLUSTER_PORT)"
				return 1
			}
		done
		raftjoin+="${raftjoin:+,}node$((i + 1)):$((base + 40 + 2 * i))"
		gossip+="${gossip:+,}127.0.0.1:$((base + 20 + 2 * i))"
	done
	_wv_port_free $((base + 60)) || {
		_wv_log "port $((base + 60)) is taken (set AGENTMEM_WEAVIATE_CLUSTER_PORT)"
		return 1
	}
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-weaviate-cluster.XXXXXX") || return 1
	_wv_build_embed "$dir" "$root" && p=$(_wv_run_embed "$dir" $((base + 60))) || {
		rm -rf "$dir"
		return 1
	}
	for i in $(seq 0 $((n - 1))); do
		node=$dir/node$((i + 1))
		mkdir -p "$node/data"
		port=$((base + i))
		_wv_write_start "$node" "$bin" "$port" $((base + 10 + i)) $((base + 20 + 2 * i)) $((base + 21 + 2 * i)) \
			$((base + 40 + 2 * i)) $((base + 41 + 2 * i)) $((base + 60)) "node$((i + 1))" "$gossip" "$raftjoin" "$n" \
			"${AGENTMEM_WEAVIATE_CLUSTER_ENV-$_wv_cluster_env}"
		hosts+="${hosts:+,}127.0.0.1:$port"
		grpcs+="${grpcs:+,}127.0.0.1:$((base + 10 + i))"
	done
	# Every node joins the gossip of all (itself included, so that the first
	# one up, or one restarted alone, finds a member). Node 1 first, until its
	# gossip listens, then the others; none is ready before the Raft cluster
	# has all its voters, so they start together.
	"$dir/node1/start.sh" >/dev/null &
	pids+=($!)
	for i in $(seq 1 100); do
		_wv_port_free $((base + 20)) || break
		sleep 0.1
	done
	for i in $(seq 2 "$n"); do
		"$dir/node$i/start.sh" >/dev/null &
		pids+=($!)
	done
	for i in $(seq 1 "$n"); do
		wait "${pids[$((i - 1))]}" || {
			_wv_log "node$i did not start"
			AGENTMEM_WEAVIATE_CLUSTER_DIR=$dir weaviate_cluster_stop
			return 1
		}
	done
	export AGENTMEM_WEAVIATE_CLUSTER="$hosts"
	export AGENTMEM_WEAVIATE_CLUSTER_GRPC="$grpcs"
	export AGENTMEM_WEAVIATE_CLUSTER_DIR="$dir"
	export AGENTMEM_WEAVIATE_CLUSTER_EMBED_URL="http://127.0.0.1:$((base + 60))"
	_wv_log "Weaviate $WEAVIATE_VERSION cluster of $n nodes on $hosts ($dir)"
}

# weaviate_cluster_kill I kills node I (1-based) with SIGKILL.
weaviate_cluster_kill() {
	local f=${AGENTMEM_WEAVIATE_CLUSTER_DIR:?no cluster}/node$1/weaviate.pid
	[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	return 0
}

# weaviate_cluster_restart I starts node I again on its ports and data, waits
# until it is ready and prints its PID.
weaviate_cluster_restart() {
	"${AGENTMEM_WEAVIATE_CLUSTER_DIR:?no cluster}/node$1/start.sh"
}

# weaviate_cluster_stop stops every node and the embed server and removes
# their files.
weaviate_cluster_stop() {
	local dir=${AGENTMEM_WEAVIATE_CLUSTER_DIR:-} f stops=()
	[ -n "$dir" ] || return 0
	for f in "$dir"/node*/weaviate.pid; do
		_wv_kill "$f" &
		stops+=($!)
	done
	[ ${#stops[@]} -eq 0 ] || wait "${stops[@]}"
	_wv_kill "$dir/embed.pid"
	case "$dir" in
	*/agentmem-weaviate-cluster.*) rm -rf "$dir" ;;
	esac
	unset AGENTMEM_WEAVIATE_CLUSTER AGENTMEM_WEAVIATE_CLUSTER_GRPC AGENTMEM_WEAVIATE_CLUSTER_DIR \
		AGENTMEM_WEAVIATE_CLUSTER_EMBED_URL
}
