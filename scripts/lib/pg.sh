# shellcheck shell=bash
# scripts/lib/pg.sh — a throwaway PostgreSQL cluster for the test suite.
#
# Source it, then:
#   pg_install   install Debian's postgresql package when no initdb is present
#   pg_install_pgvector
#                make the pgvector extension ("vector") available; run it
#                before pg_start (see the function)
#   pg_start     create and start a fresh cluster, create database agentmem_test
#                and export:
#                  AGENTMEM_PG_DSN      postgres://postgres@127.0.0.1:PORT/agentmem_test?sslmode=disable
#                  AGENTMEM_PG_DATADIR  the cluster's data directory
#                  AGENTMEM_PG_CTL      a pg_ctl that works for the calling user
#                                       (root included): "$AGENTMEM_PG_CTL" -D "$AGENTMEM_PG_DATADIR" -m fast -w stop
#                                       and "$AGENTMEM_PG_CTL" -D "$AGENTMEM_PG_DATADIR" -w start
#                  AGENTMEM_PG_DIR      the temp dir holding everything (data, socket, log)
#   pg_stop      stop the cluster started by pg_start and remove its files
#
# Settings: AGENTMEM_PG_PORT picks the first port to try (default 25432,
# below the kernel's ephemeral range, 32768-60999 by default, so that no
# outgoing connection can hold the port between choosing it and binding it);
# AGENTMEM_PG_PRELOAD sets shared_preload_libraries (e.g. pg_stat_statements,
# which the Mastra PostgreSQL benchmark reads). The
# cluster trusts every local connection and listens on 127.0.0.1 only; it is
# tuned for speed (fsync off) and is meant for tests, never for data. Works as
# root on a fresh Debian machine: the server runs as user postgres.

# pg_bindir prints the bin directory of the newest installed PostgreSQL.
pg_bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && [ -x "$d/initdb" ] || return 1
	printf '%s\n' "$d"
}

# pg_install installs PostgreSQL from Debian's packages if it is missing.
pg_install() {
	if pg_bindir >/dev/null; then
		return 0
	fi
	echo "pg.sh: installing postgresql" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || return 1
	apt-get install -y -qq postgresql >/dev/null || return 1
	pg_bindir >/dev/null
}

# pg_install_pgvector makes the pgvector extension available to the newest
# installed PostgreSQL. Nothing happens when its control file is installed.
# Otherwise it installs Debian's postgresql-NN-pgvector when the package
# exists, else builds the source tree $AGENTMEM_PGVECTOR_SRC (default
# ../shared/vendor/pgvector next to the repository; copied first, the tree
# may be read-only) with postgresql-server-dev-NN. Run it before pg_start:
# installing the dev package may upgrade the server package, and a cluster
# started before would fail to load its libraries. Elsewhere, install your
# distribution's postgresql-NN-pgvector (or build pgvector from source).
pg_install_pgvector() {
	local bindir major src tmp
	bindir=$(pg_bindir) || {
		echo "pg.sh: PostgreSQL is not installed (run pg_install)" >&2
		return 1
	}
	major=$(basename "$(dirname "$bindir")")
	if [ -f "/usr/share/postgresql/$major/extension/vector.control" ]; then
		return 0
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || return 1
	if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
		echo "pg.sh: installing postgresql-$major-pgvector" >&2
		apt-get install -y -qq "postgresql-$major-pgvector" >/dev/null || return 1
	else
		src=${AGENTMEM_PGVECTOR_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/vendor/pgvector}
		if [ ! -f "$src/vector.control" ]; then
			echo "pg.sh: no postgresql-$major-pgvector package and no pgvector source at $src (set AGENTMEM_PGVECTOR_SRC)" >&2
			return 1
		fi
		echo "pg.sh: building pgvector from $src" >&2
		apt-get install -y -qq "postgresql-server-dev-$major" make gcc >/dev/null || return 1
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-pgvector.XXXXXX") || return 1
		cp -r "$src/." "$tmp/"
		if ! make -s -C "$tmp" PG_CONFIG="$bindir/pg_config" OPTFLAGS="" >"$tmp/build.log" 2>&1 ||
			! make -s -C "$tmp" install PG_CONFIG="$bindir/pg_config" >>"$tmp/build.log" 2>&1; then
			echo "pg.sh: pgvector build failed:" >&2
			tail -n 30 "$tmp/build.log" >&2
			rm -rf "$tmp"
			return 1
		fi
		rm -rf "$tmp"
	fi
	[ -f "/usr/share/postgresql/$major/extension/vector.control" ] || {
		echo "pg.sh: pgvector installed, but no vector.control for PostgreSQL $major" >&2
		return 1
	}
}

# _pg_as_owner runs a command as the cluster owner (postgres when we are root).
_pg_as_owner() {
	if [ "$(id -u)" = 0 ]; then
		if command -v runuser >/dev/null 2>&1; then
			runuser -u postgres -- "$@"
		else
			su -s /bin/sh postgres -c "$(printf '%q ' "$@")"
		fi
	else
		"$@"
	fi
}

# _pg_port_free reports whether nothing listens on 127.0.0.1:$1.
_pg_port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# _pg_pick_port prints the first port from $1 on (200 tried) that nothing
# listens on.
_pg_pick_port() {
	local port=$1 i
	for i in $(seq 0 200); do
		if _pg_port_free "$port"; then
			printf '%s\n' "$port"
			return 0
		fi
		port=$((port + 1))
	done
	return 1
}

# _pg_owned_dir creates a temp dir named after $1 (agentmem-pg, …) that the
# cluster owner can use, and prints its path.
_pg_owned_dir() {
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || return 1
	chmod 755 "$dir"
	if [ "$(id -u)" = 0 ]; then
		chown postgres:postgres "$dir"
	fi
	printf '%s\n' "$dir"
}

# _pg_initdb BINDIR DIR DATA PORT creates a cluster in DATA (sockets in
# DIR/sock) listening on 127.0.0.1:PORT and trusting every local connection,
# replication included.
_pg_initdb() {
	local bindir=$1 dir=$2 data=$3 port=$4
	_pg_as_owner mkdir -p "$data" "$dir/sock" || return 1
	# Databases compare text under ICU's en-US, as most installs compare under
	# a linguistic collation (initdb takes the system's locale); "C" would
	# hide a query that depends on byte order. Before PostgreSQL 15 (no ICU
	# provider in initdb) the cluster falls back to "C" and says so.
	if ! _pg_as_owner "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 \
		--locale=C --locale-provider=icu --icu-locale=en-US >"$dir/initdb.log" 2>&1; then
		echo "pg.sh: initdb with the ICU en-US collation failed; the cluster's collation is C" >&2
		_pg_as_owner rm -rf "$data" && _pg_as_owner mkdir -p "$data"
		if ! _pg_as_owner "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1; then
			echo "pg.sh: initdb failed:" >&2
			cat "$dir/initdb.log" >&2
			return 1
		fi
	fi
	# Settings live in the cluster so that a plain "pg_ctl start" restores them.
	_pg_as_owner tee -a "$data/postgresql.conf" >/dev/null <<EOF

# agentmem test cluster (scripts/lib/pg.sh)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/sock'
max_connections = 300
shared_buffers = 128MB
fsync = off
full_page_writes = off
log_min_messages = warning
${AGENTMEM_PG_PRELOAD:+shared_preload_libraries = '$AGENTMEM_PG_PRELOAD'}
EOF
	_pg_as_owner tee "$data/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
local replication all trust
host replication all 127.0.0.1/32 trust
EOF
}

# _pg_write_ctl BINDIR DIR writes DIR/pg_ctl, a pg_ctl the tests can call as
# any user; start always logs to DIR/server.log.
_pg_write_ctl() {
	local bindir=$1 dir=$2
	cat >"$dir/pg_ctl" <<EOF
#!/bin/sh
# pg_ctl for the agentmem test cluster in $dir (generated by scripts/lib/pg.sh)
if [ "\$(id -u)" = 0 ]; then
	exec runuser -u postgres -- "$bindir/pg_ctl" -l "$dir/server.log" "\$@"
fi
exec "$bindir/pg_ctl" -l "$dir/server.log" "\$@"
EOF
	chmod 755 "$dir/pg_ctl"
}

# _pg_run_server BINDIR DIR DATA PORT starts the cluster in DATA and waits
# until it accepts connections; on failure it prints the log, stops the
# server and returns 1.
_pg_run_server() {
	local bindir=$1 dir=$2 data=$3 port=$4 i
	if ! "$dir/pg_ctl" -D "$data" -w -t 60 start >/dev/null; then
		echo "pg.sh: server failed to start:" >&2
		cat "$dir/server.log" >&2
		return 1
	fi
	for i in $(seq 1 60); do
		"$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres && return 0
		sleep 0.5
	done
	echo "pg.sh: server not ready:" >&2
	cat "$dir/server.log" >&2
	"$dir/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1
	return 1
}

# _pg_require_bindir prints the bin directory, or says that PostgreSQL (or
# user postgres, needed when running as root) is missing.
_pg_require_bindir() {
	local bindir
	bindir=$(pg_bindir) || {
		echo "pg.sh: PostgreSQL is not installed (run pg_install)" >&2
		return 1
	}
	if [ "$(id -u)" = 0 ] && ! getent passwd postgres >/dev/null; then
		echo "pg.sh: user postgres is missing" >&2
		return 1
	fi
	printf '%s\n' "$bindir"
}

# _pg_discard DIR [DATA…] stops the servers of the DATA directories
# (immediate mode) and removes DIR, after a failed start.
_pg_discard() {
	local dir=$1 data
	shift
	for data in "$@"; do
		"$dir/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$dir"
}

# pg_start creates and starts a throwaway cluster and exports its settings.
pg_start() {
	local bindir dir port
	bindir=$(_pg_require_bindir) || return 1
	port=$(_pg_pick_port "${AGENTMEM_PG_PORT:-25432}") || {
		echo "pg.sh: no free port" >&2
		return 1
	}
	dir=$(_pg_owned_dir agentmem-pg) || return 1
	_pg_write_ctl "$bindir" "$dir"
	if ! _pg_initdb "$bindir" "$dir" "$dir/data" "$port" ||
		! _pg_run_server "$bindir" "$dir" "$dir/data" "$port"; then
		rm -rf "$dir"
		return 1
	fi
	if ! "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres agentmem_test; then
		_pg_discard "$dir" "$dir/data"
		return 1
	fi

	export AGENTMEM_PG_DIR="$dir"
	export AGENTMEM_PG_DATADIR="$dir/data"
	export AGENTMEM_PG_CTL="$dir/pg_ctl"
	export AGENTMEM_PG_DSN="postgres://postgres@127.0.0.1:$port/agentmem_test?sslmode=disable"
	echo "pg.sh: PostgreSQL $("$bindir/postgres" -V | awk '{print $3}') on 127.0.0.1:$port ($dir)" >&2
}

# pg_stop stops the cluster started by pg_start and removes its files.
pg_stop() {
	local dir=${AGENTMEM_PG_DIR:-}
	[ -n "$dir" ] || return 0
	if [ -d "$dir/data" ]; then
		"$dir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
			"$dir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
	fi
	case "$dir" in
	*/agentmem-pg.*) rm -rf "$dir" ;;
	esac
	unset AGENTMEM_PG_DIR AGENTMEM_PG_DATADIR AGENTMEM_PG_CTL AGENTMEM_PG_DSN
}

# pg_pair_start creates a primary and a streaming standby that it replicates
# to synchronously (synchronous_standby_names = '*': a commit returns once
# the standby has flushed its WAL), through the physical replication slot
# agentmem_standby (pg_basebackup -C -S … -R), and exports:
#   AGENTMEM_PG_FAILOVER_DSN  both servers, the writable one chosen at connect:
#                             postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/agentmem_test?target_session_attrs=read-write&sslmode=disable
#   AGENTMEM_PG_READ_DSN      the same hosts, standby first, with
#                             target_session_attrs=prefer-standby (reads that tolerate lag)
#   AGENTMEM_PG_PRIMARY_DATADIR, AGENTMEM_PG_STANDBY_DATADIR
#                             the two data directories
#   AGENTMEM_PG_PAIR_CTL      a pg_ctl that works for the calling user (both
#                             servers log to AGENTMEM_PG_PAIR_DIR/server.log)
#   AGENTMEM_PG_PAIR_DIR      the temp dir holding both
# Both run the same binaries, so pgvector (pg_install_pgvector) is on both.
# The standby's own settings have synchronous_standby_names = '': promoted
# without a standby of its own, it keeps accepting commits. The ports start
# at AGENTMEM_PG_PAIR_PORT (default 25532); the settings are pg_start's.
pg_pair_start() {
	local bindir dir p1 p2 i state
	bindir=$(_pg_require_bindir) || return 1
	p1=$(_pg_pick_port "${AGENTMEM_PG_PAIR_PORT:-25532}") || {
		echo "pg.sh: no free port" >&2
		return 1
	}
	p2=$(_pg_pick_port $((p1 + 1))) || {
		echo "pg.sh: no free port" >&2
		return 1
	}
	dir=$(_pg_owned_dir agentmem-pgpair) || return 1
	_pg_write_ctl "$bindir" "$dir"
	if ! _pg_initdb "$bindir" "$dir" "$dir/primary" "$p1"; then
		rm -rf "$dir"
		return 1
	fi
	printf '%s\n' "# primary of the pair: every commit waits for the standby" \
		"synchronous_standby_names = '*'" "synchronous_commit = on" "wal_level = replica" \
		"log_line_prefix = '%m [%p] primary: '" | _pg_as_owner tee -a "$dir/primary/postgresql.conf" >/dev/null
	if ! _pg_run_server "$bindir" "$dir" "$dir/primary" "$p1"; then
		rm -rf "$dir"
		return 1
	fi
	# The database is created before the copy, so the standby has it too;
	# until the standby streams, a synchronous commit would wait for it.
	if ! PGOPTIONS="-c synchronous_commit=local" "$bindir/createdb" -h 127.0.0.1 -p "$p1" -U postgres agentmem_test ||
		! _pg_as_owner "$bindir/pg_basebackup" -h 127.0.0.1 -p "$p1" -U postgres -D "$dir/standby" \
			-X stream -C -S agentmem_standby -R -c fast >"$dir/basebackup.log" 2>&1; then
		echo "pg.sh: creating the standby failed:" >&2
		cat "$dir/basebackup.log" >&2
		_pg_discard "$dir" "$dir/primary"
		return 1
	fi
	# pg_basebackup -R wrote primary_conninfo and primary_slot_name into
	# postgresql.auto.conf and standby.signal; the rest is the standby's own.
	printf '%s\n' "# standby of the pair; once promoted it waits for no standby" \
		"port = $p2" "synchronous_standby_names = ''" \
		"log_line_prefix = '%m [%p] standby: '" | _pg_as_owner tee -a "$dir/standby/postgresql.conf" >/dev/null
	if ! _pg_run_server "$bindir" "$dir" "$dir/standby" "$p2"; then
		_pg_discard "$dir" "$dir/primary"
		return 1
	fi
	for i in $(seq 1 120); do
		state=$("$bindir/psql" -h 127.0.0.1 -p "$p1" -U postgres -d postgres -Atc \
			"SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'" 2>/dev/null)
		[ "$state" = sync ] && break
		sleep 0.25
	done
	if [ "$state" != sync ]; then
		echo "pg.sh: the standby does not stream synchronously (state '$state'):" >&2
		tail -n 30 "$dir/server.log" >&2
		_pg_discard "$dir" "$dir/standby" "$dir/primary"
		return 1
	fi

	export AGENTMEM_PG_PAIR_DIR="$dir"
	export AGENTMEM_PG_PAIR_CTL="$dir/pg_ctl"
	export AGENTMEM_PG_PRIMARY_DATADIR="$dir/primary"
	export AGENTMEM_PG_STANDBY_DATADIR="$dir/standby"
	export AGENTMEM_PG_FAILOVER_DSN="postgres://postgres@127.0.0.1:$p1,127.0.0.1:$p2/agentmem_test?target_session_attrs=read-write&sslmode=disable"
	export AGENTMEM_PG_READ_DSN="postgres://postgres@127.0.0.1:$p2,127.0.0.1:$p1/agentmem_test?target_session_attrs=prefer-standby&sslmode=disable"
	echo "pg.sh: PostgreSQL pair, primary 127.0.0.1:$p1, synchronous standby 127.0.0.1:$p2 ($dir)" >&2
}

# pg_pair_failover stops the primary of pg_pair_start (immediate mode, as a
# crash; "pg_pair_failover fast" for a clean shutdown) and then promotes the
# standby. The old primary is stopped first: a primary still running after
# the promotion would keep accepting commits that can never be replicated.
pg_pair_failover() {
	local dir=${AGENTMEM_PG_PAIR_DIR:-}
	[ -n "$dir" ] || {
		echo "pg.sh: no pair (run pg_pair_start)" >&2
		return 1
	}
	"$dir/pg_ctl" -D "$dir/primary" -m "${1:-immediate}" -w -t 60 stop >/dev/null || return 1
	"$dir/pg_ctl" -D "$dir/standby" -w -t 60 promote >/dev/null
}

# pg_pair_stop stops both servers of pg_pair_start and removes their files.
pg_pair_stop() {
	local dir=${AGENTMEM_PG_PAIR_DIR:-} d
	[ -n "$dir" ] || return 0
	for d in standby primary; do
		if [ -f "$dir/$d/postmaster.pid" ]; then
			"$dir/pg_ctl" -D "$dir/$d" -m fast -w -t 30 stop >/dev/null 2>&1 ||
				"$dir/pg_ctl" -D "$dir/$d" -m immediate -w stop >/dev/null 2>&1
		fi
	done
	case "$dir" in
	*/agentmem-pgpair.*) rm -rf "$dir" ;;
	esac
	unset AGENTMEM_PG_PAIR_DIR AGENTMEM_PG_PAIR_CTL AGENTMEM_PG_PRIMARY_DATADIR AGENTMEM_PG_STANDBY_DATADIR \
		AGENTMEM_PG_FAILOVER_DSN AGENTMEM_PG_READ_DSN
}
