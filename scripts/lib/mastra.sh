# shellcheck shell=bash
# scripts/lib/mastra.sh — Mastra's side of the side-by-side benchmark.
#
# Source it, then:
#   mastra_install      install Node's Mastra packages (the versions the
#                       reference scripts were written for) into a cache
#                       directory, never the repository, and copy the .mjs
#                       scripts beside them; exports AGENTMEM_MASTRA_DIR
#   mastra_side_by_side SIZES...
#                       for each size, interleaved (Mastra, agentmem, Mastra,
#                       agentmem; AGENTMEM_BENCH_REPS rounds, default 2), runs
#                       bench.mjs and internal/cmd/membench on SQLite files in a
#                       fresh temp dir, one process per run, and prints each
#                       figure of the last round as agentmem's ratio to Mastra's
#                       with the median over the rounds.
#   mastra_side_by_side_vector SIZES...
#                       the semantic-recall (vector path) pair: bench-vec.mjs
#                       (LibSQLStore + LibSQLVector) against membench -vector
#                       (SQLite + core/vector/local) in the default hybrid mode
#                       and in vector mode, interleaved, with hashembed.mjs's
#                       embedder on both sides.
#   mastra_side_by_side_pg SIZES...
#                       the same on PostgreSQL (AGENTMEM_PG_DSN, a superuser DSN
#                       of a server loading pg_stat_statements): bench-pg.mjs
#                       and membench -dsn, each run in a database of its own
#                       created for it and dropped after.
#
# Settings: AGENTMEM_MASTRA_SCRIPTS is the folder holding bench.mjs (default
# scripts/mastra in this repository);
# AGENTMEM_MASTRA_DIR the install folder (default ~/.cache/agentmem/mastra-bench).
# AGENTMEM_BENCH_CREATEDB is appended to the CREATE DATABASE of each
# PostgreSQL run, e.g. "TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'
# LOCALE_PROVIDER libc" to measure under another default collation than
# the cluster's (scripts/lib/pg.sh: ICU's en-US).

_mastra_packages=(@mastra/core@1.71.0 @mastra/memory@1.31.0 @mastra/libsql@1.23.1 @mastra/pg@1.27.1)

mastra_install() {
	local src=${AGENTMEM_MASTRA_SCRIPTS:-$(pwd)/scripts/mastra}
	export AGENTMEM_MASTRA_DIR=${AGENTMEM_MASTRA_DIR:-$HOME/.cache/agentmem/mastra-bench}
	[ -f "$src/bench.mjs" ] || {
		echo "mastra.sh: no bench.mjs in $src (set AGENTMEM_MASTRA_SCRIPTS)" >&2
		return 1
	}
	command -v node >/dev/null && command -v npm >/dev/null || {
		echo "mastra.sh: node and npm are needed" >&2
		return 1
	}
	mkdir -p "$AGENTMEM_MASTRA_DIR" || return 1
	(
		cd "$AGENTMEM_MASTRA_DIR" || exit 1
		[ -f package.json ] || npm init -y >/dev/null || exit 1
		if ! node -e 'for (const p of process.argv.slice(1)) require.resolve(p + "/package.json")' \
			@mastra/core @mastra/memory @mastra/libsql @mastra/pg 2>/dev/null; then
			npm install --no-audit --no-fund --loglevel=error "${_mastra_packages[@]}" >&2 || exit 1
		fi
	) || return 1
	cp "$src"/*.mjs "$AGENTMEM_MASTRA_DIR"/
}

# _mastra_workdir sets the caller's work (a fresh temp dir) and bin (membench
# built into it).
_mastra_workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-mastra.XXXXXX") || return 1
	bin="$work/membench"
	go build -o "$bin" ./internal/cmd/membench
}

mastra_side_by_side() {
	local reps=${AGENTMEM_BENCH_REPS:-2} work bin n r
	mastra_install || return 1
	_mastra_workdir || return 1
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			rm -f "$AGENTMEM_MASTRA_DIR/bench-$n.db"*
			_mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/mastra-$n.jsonl" node bench.mjs "$n" || return 1
			echo "{\"N\":$n,\"db_bytes\":$(_mastra_bytes "$AGENTMEM_MASTRA_DIR/bench-$n.db")}" >>"$work/mastra-$n.jsonl"
			_mastra_timed "$work" "$work/agentmem-$n.jsonl" "$bin" -n "$n" -db "$work/agentmem-$n.db" || return 1
			rm -f "$work/agentmem-$n.db"* "$AGENTMEM_MASTRA_DIR/bench-$n.db"*
		done
	done
	_mastra_report "$work" "SQLite; Mastra on LibSQL" db_bytes "$@"
	rm -rf "$work"
}

mastra_side_by_side_pg() {
	local reps=${AGENTMEM_BENCH_REPS:-2} work bin n r base stats db
	mastra_install || return 1
	[ -n "${AGENTMEM_PG_DSN:-}" ] || {
		echo "mastra.sh: AGENTMEM_PG_DSN is not set" >&2
		return 1
	}
	_mastra_workdir || return 1
	stats=$(_mastra_pg_dsn bench_stats)
	export PGOPTIONS="-c client_min_messages=warning"
	psql -qX "$AGENTMEM_PG_DSN" -c "CREATE DATABASE bench_stats" 2>/dev/null || true
	psql -qX "$stats" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" || return 1
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			for side in mastra agentmem; do
				db="bench_${side}_${n}_$r"
				psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db ${AGENTMEM_BENCH_CREATEDB:-}" || return 1
				if [ "$side" = mastra ]; then
					_mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/mastra-$n.jsonl" node bench-pg.mjs "$n" "$(_mastra_pg_dsn "$db")" "$stats" || return 1
				else
					_mastra_timed "$work" "$work/agentmem-$n.jsonl" "$bin" -n "$n" -dsn "$(_mastra_pg_dsn "$db")" || return 1
				fi
				psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE $db" || return 1
			done
		done
	done
	_mastra_report "$work" "PostgreSQL; Mastra's PostgresStore" messages_table_bytes "$@"
	rm -rf "$work"
}

# mastra_side_by_side_pgvector SIZES...: bench-pgvec.mjs (PostgresStore +
# PgVector on one database) against membench -vector pgvector (the
# PostgreSQL store and core/vector/pgvector on one pool), both searching in
# vector mode with HNSW m 16 / ef_construction 64, each on a fresh database
# of $AGENTMEM_PG_DSN's server (which needs the vector extension): saved in
# calls of 1,000 messages (Mastra's saveMessages, agentmem's SaveMessages),
# then in one call of all N (saveMessages; SaveMessagesBulk with
# pgvector.Config.BuildMemory 512MB). Mastra's one call runs up to N 20,000
# only: at 100,000 its saveMessages spent over six minutes in JavaScript
# without writing a row.
mastra_side_by_side_pgvector() {
	local reps=${AGENTMEM_BENCH_REPS:-1} work bin n r db side
	mastra_install || return 1
	[ -n "${AGENTMEM_PG_DSN:-}" ] || {
		echo "mastra.sh: AGENTMEM_PG_DSN is not set" >&2
		return 1
	}
	_mastra_workdir || return 1
	export PGOPTIONS="-c client_min_messages=warning"
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			for side in mastra agentmem mastra-bulk agentmem-bulk; do
				[ "$side" = mastra-bulk ] && [ "$n" -gt 20000 ] && continue
				db="bench_pgvec_${side/-/_}_${n}_$r"
				psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || return 1
				psql -qX "$(_mastra_pg_dsn "$db")" -c "CREATE EXTENSION vector" || return 1
				case $side in
				mastra) _mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/$side-$n.jsonl" node bench-pgvec.mjs "$n" "$(_mastra_pg_dsn "$db")" ;;
				mastra-bulk) _mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/$side-$n.jsonl" node bench-pgvec.mjs "$n" "$(_mastra_pg_dsn "$db")" cosine "$n" ;;
				agentmem) _mastra_timed "$work" "$work/$side-$n.jsonl" "$bin" -n "$n" -dsn "$(_mastra_pg_dsn "$db")" -vector pgvector -mode vector ;;
				agentmem-bulk) _mastra_timed "$work" "$work/$side-$n.jsonl" "$bin" -n "$n" -dsn "$(_mastra_pg_dsn "$db")" -vector pgvector -mode vector -bulk -batch "$n" -build-memory 512MB ;;
				esac || return 1
				psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE $db" || return 1
			done
		done
	done
	echo
	echo "== PostgreSQL + pgvector side by side with Mastra (PostgresStore + PgVector), medians of $reps rounds =="
	printf '%-8s %-28s %14s %14s %10s\n' N figure agentmem Mastra ratio
	local prog='def med(f): [.[] | f | select(. != null)] | sort | if length == 0 then null else .[(length / 2 | floor)] end;
	  {save: (med(.save_msgs_per_s) // med(.index_msgs_per_s)), p50: med(.p50_ms), bytes: (med(.all_tables_bytes) // med(.tables_bytes))}'
	for n in "$@"; do
		local a m ab mb
		a=$(jq -s "$prog" "$work/agentmem-$n.jsonl")
		m=$(jq -s "$prog" "$work/mastra-$n.jsonl")
		ab=$(jq -s "$prog" "$work/agentmem-bulk-$n.jsonl")
		mb='{}'
		[ -f "$work/mastra-bulk-$n.jsonl" ] && mb=$(jq -s "$prog" "$work/mastra-bulk-$n.jsonl")
		jq -rn --argjson a "$a" --argjson m "$m" --argjson ab "$ab" --argjson mb "$mb" --arg n "$n" '
		  def r(x; y): if x and y and y != 0 then (x / y * 100 | round / 100 | tostring) + "x" else "n/a" end;
		  [$n, "indexing msg/s", ($a.save | tostring), ($m.save | tostring), r($a.save; $m.save)],
		  [$n, "recall p50 ms", ($a.p50 | tostring), ($m.p50 | tostring), r($m.p50; $a.p50)],
		  [$n, "tables bytes", ($a.bytes | tostring), ($m.bytes | tostring), r($a.bytes; $m.bytes)],
		  [$n, "one-call indexing msg/s", ($ab.save | tostring), ($mb.save | tostring), r($ab.save; $mb.save)],
		  [$n, "one-call recall p50 ms", ($ab.p50 | tostring), ($mb.p50 | tostring), r($mb.p50; $ab.p50)],
		  [$n, "one-call tables bytes", ($ab.bytes | tostring), ($mb.bytes | tostring), r($ab.bytes; $mb.bytes)] | @tsv' |
			awk -F'\t' '{printf "%-8s %-28s %14s %14s %10s\n", $1, $2, $3, $4, $5}'
	done
	rm -rf "$work"
}

mastra_side_by_side_vector() {
	local reps=${AGENTMEM_BENCH_REPS:-2} work bin n r
	mastra_install || return 1
	_mastra_workdir || return 1
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			rm -f "$AGENTMEM_MASTRA_DIR/bench-$n.db"* "$AGENTMEM_MASTRA_DIR/vec-$n.db"*
			_mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/mastra-$n.jsonl" node bench-vec.mjs "$n" || return 1
			rm -f "$AGENTMEM_MASTRA_DIR/bench-$n.db"* "$AGENTMEM_MASTRA_DIR/vec-$n.db"*
			_mastra_timed "$work" "$work/agentmem-$n.jsonl" "$bin" -n "$n" -db "$work/a-$n.db" -vector "$work/a-$n.vec" || return 1
			_mastra_timed "$work" "$work/vectormode-$n.jsonl" "$bin" -n "$n" -db "$work/v-$n.db" -vector "$work/v-$n.vec" -mode vector || return 1
			rm -f "$work"/a-"$n".* "$work"/v-"$n".*
		done
	done
	echo
	echo "== semantic recall side by side with Mastra (LibSQLVector), medians of $reps interleaved rounds =="
	printf '%-8s %-44s %12s %12s %12s\n' N figure agentmem "agentmem vec" Mastra
	local prog='def med(f): [.[] | f | select(. != null)] | sort | if length == 0 then null else .[(length / 2 | floor)] end;
	  {save: (med(.save_msgs_per_s) // med(.index_msgs_per_s)), p50: med(.p50_ms), rss: med(.peak_rss_kb),
	   bytes: ((med(.db_bytes) // 0) + (med(.vector_file_bytes) // 0)), open: med(.vector_open_ms)}'
	for n in "$@"; do
		local a v m
		a=$(jq -s "$prog" "$work/agentmem-$n.jsonl")
		v=$(jq -s "$prog" "$work/vectormode-$n.jsonl")
		m=$(jq -s "$prog" "$work/mastra-$n.jsonl")
		jq -rn --argjson a "$a" --argjson v "$v" --argjson m "$m" --arg n "$n" '
		  def row(name; f): [$n, name, ($a | f | tostring), ($v | f | tostring), ($m | f | tostring)] | @tsv;
		  def r(x; y): if x and y and y != 0 then (x / y * 100 | round / 100 | tostring) + "x" else "n/a" end;
		  row("save msg/s"; .save), row("recall p50 ms"; .p50), row("peak RSS KiB"; .rss),
		  row("bytes on disk (db + vectors)"; .bytes), row("vector file open ms"; .open),
		  ([$n, "recall p50 Mastra / agentmem", r($m.p50; $a.p50), r($m.p50; $v.p50), ""] | @tsv)' |
			awk -F'\t' '{printf "%-8s %-44s %12s %12s %12s\n", $1, $2, $3, $4, $5}'
	done
	rm -rf "$work"
}

# _mastra_pg_dsn DB: AGENTMEM_PG_DSN with its database replaced by DB.
_mastra_pg_dsn() {
	local dsn=$AGENTMEM_PG_DSN query=""
	case $dsn in *\?*) query="?${dsn#*\?}" dsn=${dsn%%\?*} ;; esac
	echo "${dsn%/*}/$1$query"
}

# _mastra_timed DIR LOG CMD...: runs CMD in DIR under /usr/bin/time, appending
# its JSON lines and its peak RSS ({"peak_rss_kb":...}) to LOG.
_mastra_timed() {
	local dir=$1 log=$2 rss
	shift 2
	rss=$(mktemp) || return 1
	(cd "$dir" && /usr/bin/time -o "$rss" -f '%M' "$@") | grep '^{' | grep -v peak_rss_kb >>"$log" || return 1
	echo "{\"peak_rss_kb\":$(tail -n 1 "$rss")}" >>"$log"
	rm -f "$rss"
}

# _mastra_bytes FILE: size of an SQLite file with its WAL and shared memory.
_mastra_bytes() {
	local f sz=0
	for f in "$1" "$1-wal" "$1-shm"; do
		[ -f "$f" ] && sz=$((sz + $(stat -c %s "$f")))
	done
	echo "$sz"
}

# _mastra_report WORK TITLE BYTES_FIELD SIZES...: medians per side (the upper
# one for an even count) and agentmem's ratio to Mastra.
_mastra_report() {
	local work=$1 title=$2 bytes=$3 n
	shift 3
	# med FIELD [LABEL]: median of FIELD over the rounds (lines with that label).
	local prog='
	  def med(f; l): [.[] | select((l == null) or .label == l) | f | select(. != null)] | sort
	    | if length == 0 then null else .[(length / 2 | floor)] end;
	  {save: med(.save_msgs_per_s; null), first: med(.first_batch_ms; null),
	   last10: med(.p50_ms; "recall lastMessages=10"), tok: med(.p50_ms; "recall messageHistory maxTokens=8000"),
	   begin: med(.p50_ms; "begin maxTokens=8000"), b2_10: med(.batches_2_10_ms_max; null), b10: med(.batch_10_ms; null), b100: med(.batch_100_ms; null), bytes: med(.[$bytes]; null), rss: med(.peak_rss_kb; null),
	   fault: med(.page_fault_us; null), first_lf: med(.first_batch_less_faults_ms; null), b10_lf: med(.batch_10_less_faults_ms; null),
	   b2_10_lf: med(.batches_2_10_less_faults_ms_max; null), b100_lf: med(.batch_100_less_faults_ms; null)}'
	echo
	echo "== side by side with Mastra ($title), medians of ${AGENTMEM_BENCH_REPS:-2} interleaved rounds =="
	printf '%-8s %-44s %12s %12s %10s\n' N figure agentmem Mastra ratio
	for n in "$@"; do
		local a m
		a=$(jq -s --arg bytes "$bytes" "$prog" "$work/agentmem-$n.jsonl")
		m=$(jq -s --arg bytes "$bytes" "$prog" "$work/mastra-$n.jsonl")
		jq -rn --argjson a "$a" --argjson m "$m" --arg n "$n" '
		  def r(x; y): if x and y and y != 0 then (x / y * 100 | round / 100 | tostring) + "x" else "n/a" end;
		  def row(name; x; y; ratio): [$n, name, (x | tostring), (y | tostring), ratio] | @tsv;
		  row("save msg/s (agentmem/Mastra)"; $a.save; $m.save; r($a.save; $m.save)),
		  row("last-10 read p50 ms (Mastra/agentmem)"; $a.last10; $m.last10; r($m.last10; $a.last10)),
		  row("8k-token recall p50 ms (Mastra/agentmem)"; $a.tok; $m.tok; r($m.tok; $a.tok)),
		  row("8k-token Begin p50 ms (Mastra recall/Begin)"; $a.begin; $m.tok; r($m.tok; $a.begin)),
		  row("bytes on disk (agentmem/Mastra)"; $a.bytes; $m.bytes; r($a.bytes; $m.bytes)),
		  row("peak RSS KiB (agentmem/Mastra)"; $a.rss; $m.rss; r($a.rss; $m.rss)),
		  row("first batch of 1,000 ms (agentmem)"; $a.first; null; ""),
		  row("first / tenth batch (agentmem)"; $a.first; $a.b10; r($a.first; $a.b10)),
		  row("slowest of batches 2-10 / batch 100 (agentmem)"; $a.b2_10; $a.b100; r($a.b2_10; $a.b100)),
		  row("page fault us (agentmem process)"; $a.fault; null; ""),
		  row("first / tenth, less faults (agentmem)"; $a.first_lf; $a.b10_lf; r($a.first_lf; $a.b10_lf)),
		  row("slowest 2-10 / batch 100, less faults"; $a.b2_10_lf; $a.b100_lf; r($a.b2_10_lf; $a.b100_lf))' |
			awk -F'\t' '{printf "%-8s %-44s %12s %12s %10s\n", $1, $2, $3, $4, $5}'
	done
}
