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

# pg_start creates and starts a throwaway cluster and exports its settings.
pg_start() {
	local bindir dir port i
	bindir=$(pg_bindir) || {
		echo "pg.sh: PostgreSQL is not installed (run pg_install)" >&2
		return 1
	}
	if [ "$(id -u)" = 0 ] && ! getent passwd postgres >/dev/null; then
		echo "pg.sh: user postgres is missing" >&2
		return 1
	fi
	port=$(_pg_pick_port "${AGENTMEM_PG_PORT:-25432}") || {
		echo "pg.sh: no free port" >&2
		return 1
	}

	dir=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-pg.XXXXXX") || return 1
	chmod 755 "$dir"
	mkdir -p "$dir/data" "$dir/sock"
	if [ "$(id -u)" = 0 ]; then
		chown -R postgres:postgres "$dir"
	fi

	# Databases compare text under ICU's en-US, as most installs compare under
	# a linguistic collation (initdb takes the system's locale); "C" would
	# hide a query that depends on byte order. Before PostgreSQL 15 (no ICU
	# provider in initdb) the cluster falls back to "C" and says so.
	if ! _pg_as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
		--locale=C --locale-provider=icu --icu-locale=en-US >"$dir/initdb.log" 2>&1; then
		echo "pg.sh: initdb with the ICU en-US collation failed; the cluster's collation is C" >&2
		rm -rf "$dir/data" && mkdir -p "$dir/data"
		if [ "$(id -u)" = 0 ]; then
			chown postgres:postgres "$dir/data"
		fi
		if ! _pg_as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1; then
			echo "pg.sh: initdb failed:" >&2
			cat "$dir/initdb.log" >&2
			rm -rf "$dir"
			return 1
		fi
	fi
	# Settings live in the cluster so that a plain "pg_ctl start" restores them.
	_pg_as_owner tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF

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
	_pg_as_owner tee "$dir/data/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
EOF

	# A pg_ctl the tests can call as any user; start always logs to the temp dir.
	cat >"$dir/pg_ctl" <<EOF
#!/bin/sh
# pg_ctl for the agentmem test cluster in $dir (generated by scripts/lib/pg.sh)
if [ "\$(id -u)" = 0 ]; then
	exec runuser -u postgres -- "$bindir/pg_ctl" -l "$dir/server.log" "\$@"
fi
exec "$bindir/pg_ctl" -l "$dir/server.log" "\$@"
EOF
	chmod 755 "$dir/pg_ctl"

	if ! "$dir/pg_ctl" -D "$dir/data" -w -t 60 start >/dev/null; then
		echo "pg.sh: server failed to start:" >&2
		cat "$dir/server.log" >&2
		rm -rf "$dir"
		return 1
	fi
	for i in $(seq 1 60); do
		"$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres && break
		sleep 0.5
	done
	if ! "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then
		echo "pg.sh: server not ready:" >&2
		cat "$dir/server.log" >&2
		"$dir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
		rm -rf "$dir"
		return 1
	fi
	if ! "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres agentmem_test; then
		"$dir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
		rm -rf "$dir"
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
