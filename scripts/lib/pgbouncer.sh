# shellcheck shell=bash
# scripts/lib/pgbouncer.sh — PgBouncer in transaction pooling mode in front of
# the cluster of scripts/lib/pg.sh, for the store's tests behind a pooling
# proxy (core/store/postgres, TestConformanceBehindPgBouncer).
#
# Source it after pg.sh, then:
#   pgbouncer_install  install Debian's pgbouncer package when it is missing
#   pgbouncer_start    start PgBouncer (pool_mode = transaction) for database
#                      agentmem_test of the server in AGENTMEM_PG_DSN and
#                      export AGENTMEM_PGBOUNCER_DSN
#   pgbouncer_stop     stop it and remove its files
#
# Settings: AGENTMEM_PGBOUNCER_PORT picks the first port to try (default
# 26432, below the ephemeral range, as in pg.sh). It trusts every local
# connection and listens on 127.0.0.1 only; it runs as user postgres when
# started by root (PgBouncer refuses root).

# pgbouncer_install installs PgBouncer from Debian's packages if it is missing.
pgbouncer_install() {
	if command -v pgbouncer >/dev/null; then
		return 0
	fi
	echo "pgbouncer.sh: installing pgbouncer" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || return 1
	apt-get install -y -qq pgbouncer >/dev/null || return 1
	command -v pgbouncer >/dev/null
}

# pgbouncer_start starts PgBouncer in front of AGENTMEM_PG_DSN's server.
pgbouncer_start() {
	local dir port pgport i
	[[ ${AGENTMEM_PG_DSN:-} =~ @127\.0\.0\.1:([0-9]+)/ ]] || {
		echo "pgbouncer.sh: start pg.sh's cluster first (AGENTMEM_PG_DSN)" >&2
		return 1
	}
	pgport=${BASH_REMATCH[1]}
	port=$(_pg_pick_port "${AGENTMEM_PGBOUNCER_PORT:-26432}") || {
		echo "pgbouncer.sh: no free port" >&2
		return 1
	}
	dir=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-pgbouncer.XXXXXX") || return 1
	cat >"$dir/pgbouncer.ini" <<EOF
[databases]
agentmem_test = host=127.0.0.1 port=$pgport dbname=agentmem_test user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
max_client_conn = 400
default_pool_size = 40
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
ignore_startup_parameters = extra_float_digits
EOF
	echo '"postgres" ""' >"$dir/users.txt"
	[ "$(id -u)" = 0 ] && chown -R postgres "$dir"
	if ! _pg_as_owner pgbouncer -d "$dir/pgbouncer.ini"; then
		echo "pgbouncer.sh: pgbouncer failed to start:" >&2
		cat "$dir/pgbouncer.log" >&2 2>/dev/null
		rm -rf "$dir"
		return 1
	fi
	for i in $(seq 1 40); do
		! _pg_port_free "$port" && break
		sleep 0.25
	done
	export AGENTMEM_PGBOUNCER_DIR="$dir"
	export AGENTMEM_PGBOUNCER_DSN="postgres://postgres@127.0.0.1:$port/agentmem_test?sslmode=disable"
	echo "pgbouncer.sh: PgBouncer $(pgbouncer --version | awk 'NR==1{print $2}') on 127.0.0.1:$port, transaction pooling ($dir)" >&2
}

# pgbouncer_stop stops the PgBouncer started by pgbouncer_start.
pgbouncer_stop() {
	local dir=${AGENTMEM_PGBOUNCER_DIR:-} pid
	[ -n "$dir" ] || return 0
	if pid=$(cat "$dir/pgbouncer.pid" 2>/dev/null); then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 40); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.25
		done
	fi
	case "$dir" in
	*/agentmem-pgbouncer.*) rm -rf "$dir" ;;
	esac
	unset AGENTMEM_PGBOUNCER_DIR AGENTMEM_PGBOUNCER_DSN
}
