# shellcheck shell=bash
# scripts/lib/limits.sh — agentmem beside what the engines alone do.
#
# Source it (after scripts/lib/mastra.sh, whose helpers it uses), then:
#   limits_side_by_side SIZES...
#                       for each size, AGENTMEM_BENCH_REPS interleaved rounds
#                       (default 2) of Mastra's bench.mjs, internal/cmd/limitbench
#                       (modernc SQLite alone) and internal/cmd/membench on
#                       SQLite files; with AGENTMEM_PG_DSN the same on
#                       PostgreSQL (bench-pg.mjs, limitbench -dsn, membench
#                       -dsn), each run in a database of its own; on SQLite,
#                       limitbench -window-db also times Begin against the
#                       engine's keyset read on membench's file, alternating
#                       query by query (robust to a machine's changing load);
#                       membench also runs with -estimate-tokens (bytes/4
#                       for exact counts: the save without the price of that
#                       feature), and limitbench -agentmem-table writes the
#                       rows into agentmem's own SQLite table (the price of
#                       its schema).
#                       Prints the medians and agentmem / limit next to
#                       agentmem / Mastra.
#   limits_pgvector SIZES...
#                       on AGENTMEM_PG_DSN's server: limitbench -vector with the
#                       HNSW index alone, with the keyword index, and with
#                       every index core/vector/pgvector keeps, against membench
#                       -vector pgvector and Mastra's bench-pgvec.mjs (vector
#                       mode, HNSW m 16 / ef_construction 64, calls of 1,000).
#   limits_weaviate SIZES...
#                       limitbench -weaviate (AGENTMEM_WEAVIATE_HOST, _GRPC):
#                       agentmem's Weaviate store and Weaviate's own client
#                       querying the same records, hybrid and vector.

# _limits_build builds limitbench and membench into $work (a fresh temp dir).
_limits_build() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-limits.XXXXXX") || return 1
	go build -o "$work/limitbench" ./internal/cmd/limitbench && go build -o "$work/membench" ./internal/cmd/membench
}

# _limits_db NAME: (re)creates database NAME on AGENTMEM_PG_DSN's server and
# prints its DSN.
_limits_db() {
	psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >&2 || return 1
	_mastra_pg_dsn "$1"
}

limits_side_by_side() {
	local reps=${AGENTMEM_BENCH_REPS:-2} work n r side db stats
	mastra_install || return 1
	_limits_build || return 1
	export PGOPTIONS="-c client_min_messages=warning"
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			rm -f "$AGENTMEM_MASTRA_DIR/bench-$n.db"*
			_mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/sqlite-mastra-$n.jsonl" node bench.mjs "$n" || return 1
			rm -f "$AGENTMEM_MASTRA_DIR/bench-$n.db"*
			_mastra_timed "$work" "$work/sqlite-limit-$n.jsonl" "$work/limitbench" -n "$n" -db "$work/limit.db" || return 1
			_mastra_timed "$work" "$work/sqlite-table-$n.jsonl" "$work/limitbench" -n "$n" -db "$work/table.db" -agentmem-table || return 1
			_mastra_timed "$work" "$work/sqlite-agentmem-$n.jsonl" "$work/membench" -n "$n" -db "$work/agentmem.db" || return 1
			"$work/limitbench" -n "$n" -window-db "$work/agentmem.db" >>"$work/sqlite-agentmem-$n.jsonl" || return 1
			_mastra_timed "$work" "$work/sqlite-estimate-$n.jsonl" "$work/membench" -n "$n" -db "$work/agentmem.db" -estimate-tokens || return 1
			rm -f "$work"/*.db*
		done
	done
	_limits_report "$work" sqlite "SQLite: modernc alone; Mastra on LibSQL" "$@"
	if [ -n "${AGENTMEM_PG_DSN:-}" ]; then
		stats=$(_mastra_pg_dsn bench_stats)
		psql -qX "$AGENTMEM_PG_DSN" -c "CREATE DATABASE bench_stats" 2>/dev/null || true
		psql -qX "$stats" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" || return 1
		for n in "$@"; do
			for r in $(seq 1 "$reps"); do
				for side in mastra limit agentmem estimate; do
					db=$(_limits_db "bench_limits_${side}_$n") || return 1
					case $side in
					mastra) _mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/pg-$side-$n.jsonl" node bench-pg.mjs "$n" "$db" "$stats" ;;
					limit) _mastra_timed "$work" "$work/pg-$side-$n.jsonl" "$work/limitbench" -n "$n" -dsn "$db" ;;
					agentmem) _mastra_timed "$work" "$work/pg-$side-$n.jsonl" "$work/membench" -n "$n" -dsn "$db" ;;
					estimate) _mastra_timed "$work" "$work/pg-$side-$n.jsonl" "$work/membench" -n "$n" -dsn "$db" -estimate-tokens ;;
					esac || return 1
					psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE bench_limits_${side}_$n" || return 1
				done
			done
		done
		_limits_report "$work" pg "PostgreSQL: COPY and keyset reads alone; Mastra's PostgresStore" "$@"
	fi
	rm -rf "$work"
}

# _limits_report WORK PREFIX TITLE SIZES...: medians per side (the upper one
# for an even count), agentmem / limit and agentmem / Mastra.
_limits_report() {
	local work=$1 prefix=$2 title=$3 n
	shift 3
	local prog='
	  def med(f; l): [.[] | select((l == null) or .label == l) | f | select(. != null)] | sort
	    | if length == 0 then null else .[(length / 2 | floor)] end;
	  {save: med(.save_msgs_per_s; null), calls: med(.save_calls_msgs_per_s; null), last10: med(.p50_ms; "recall lastMessages=10"),
	   tok: med(.p50_ms; "recall messageHistory maxTokens=8000"), begin: med(.p50_ms; "begin maxTokens=8000"),
	   tokenize: med(.tokenize_ms_per_1000; null),
	   sfbegin: med(.p50_ms; "same file: begin maxTokens=8000"), sfengine: med(.p50_ms; "same file: engine window 8000 tokens")}'
	echo
	echo "== agentmem beside the engine alone and Mastra ($title), medians of ${AGENTMEM_BENCH_REPS:-2} interleaved rounds =="
	echo "   (ratios are agentmem's figure over the other's: for a rate higher is better, for a time lower)"
	printf '%-8s %-34s %10s %10s %10s %16s %16s\n' N figure agentmem limit Mastra "agentmem/limit" "agentmem/Mastra"
	for n in "$@"; do
		local a l m e t=null
		a=$(jq -s "$prog" "$work/$prefix-agentmem-$n.jsonl")
		l=$(jq -s "$prog" "$work/$prefix-limit-$n.jsonl")
		m=$(jq -s "$prog" "$work/$prefix-mastra-$n.jsonl")
		e=$(jq -s "$prog" "$work/$prefix-estimate-$n.jsonl")
		if [ -f "$work/$prefix-table-$n.jsonl" ]; then
			t=$(jq -s "$prog" "$work/$prefix-table-$n.jsonl")
		fi
		# The save rate against Mastra times the loop as bench.mjs does
		# (batches built inside it); against the limit, whose rows are built
		# untimed, only the save calls.
		jq -rn --argjson a "$a" --argjson l "$l" --argjson m "$m" --argjson e "$e" --argjson t "$t" --arg n "$n" '
		  def r(x; y): if x and y and y != 0 then (x / y | if . >= 1 then (. * 100 | round / 100) else (. * 10000 | round / 10000) end | tostring) + "x" else "n/a" end;
		  def row(name; x; y; z): [$n, name, (x | tostring), (y | tostring), (z | tostring), r(x; y), r(x; z)] | @tsv;
		  row("save msg/s, loop as Mastra times it"; $a.save; null; $m.save),
		  row("save msg/s, in the save calls"; $a.calls; $l.save; null),
		  row("  tokens estimated (bytes/4)"; $e.calls; $l.save; null),
		  row("  engine alone, agentmem'"'"'s table"; $t.save; $l.save; null),
		  row("8k-token window p50 ms, Recall"; $a.tok; $l.tok; $m.tok),
		  row("8k-token window p50 ms, Begin"; $a.begin; $l.tok; $m.tok),
		  row("last 10 p50 ms"; $a.last10; $l.last10; $m.last10),
		  row("8k window, same file alternating, Begin"; $a.sfbegin; $a.sfengine; null),
		  ([$n, "exact token counts, ms per 1,000", "", ($l.tokenize | tostring), "", "", ""] | @tsv)' |
			awk -F'\t' '{printf "%-8s %-34s %10s %10s %10s %16s %16s\n", $1, $2, $3, $4, $5, $6, $7}'
	done
}

limits_pgvector() {
	local reps=${AGENTMEM_BENCH_REPS:-1} work n r side db
	mastra_install || return 1
	[ -n "${AGENTMEM_PG_DSN:-}" ] || {
		echo "limits.sh: AGENTMEM_PG_DSN is not set" >&2
		return 1
	}
	_limits_build || return 1
	export PGOPTIONS="-c client_min_messages=warning"
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			for side in mastra hnsw hnsw,gin hnsw,gin,btree agentmem; do
				db=$(_limits_db "bench_limits_vec_$n") || return 1
				psql -qX "$db" -c "CREATE EXTENSION IF NOT EXISTS vector" || return 1
				case $side in
				mastra) _mastra_timed "$AGENTMEM_MASTRA_DIR" "$work/vec-$side-$n.jsonl" node bench-pgvec.mjs "$n" "$db" ;;
				agentmem) _mastra_timed "$work" "$work/vec-$side-$n.jsonl" "$work/membench" -n "$n" -dsn "$db" -vector pgvector -mode vector ;;
				*) _mastra_timed "$work" "$work/vec-$side-$n.jsonl" "$work/limitbench" -n "$n" -dsn "$db" -vector -indexes "$side" ;;
				esac || return 1
				psql -qX "$AGENTMEM_PG_DSN" -c "DROP DATABASE bench_limits_vec_$n" || return 1
			done
		done
	done
	echo
	echo "== pgvector indexing beside the server alone (plain SQL, calls of 1,000) and Mastra, medians of $reps rounds =="
	printf '%-8s %-40s %12s %16s\n' N "writer (indexes kept)" "msg/s" "agentmem/this"
	local prog='[.[] | (.save_msgs_per_s // .index_msgs_per_s) | select(. != null)] | sort | if length == 0 then null else .[(length / 2 | floor)] end'
	for n in "$@"; do
		local a x
		a=$(jq -s "$prog" "$work/vec-agentmem-$n.jsonl")
		for side in agentmem hnsw hnsw,gin hnsw,gin,btree mastra; do
			x=$(jq -s "$prog" "$work/vec-$side-$n.jsonl")
			jq -rn --argjson a "$a" --argjson x "$x" --arg n "$n" --arg side "$side" '
			  def name: {"agentmem": "agentmem (messages and vectors)", "hnsw": "server alone: HNSW",
			    "hnsw,gin": "server alone: HNSW + keyword GIN", "hnsw,gin,btree": "server alone: HNSW + GIN + b-trees",
			    "mastra": "Mastra PgVector (messages and vectors)"}[$side];
			  [$n, name, ($x | tostring), (if $x and $x != 0 then ($a / $x * 100 | round / 100 | tostring) + "x" else "n/a" end)] | @tsv' |
				awk -F'\t' '{printf "%-8s %-40s %12s %16s\n", $1, $2, $3, $4}'
		done
	done
	rm -rf "$work"
}

limits_weaviate() {
	local reps=${AGENTMEM_BENCH_REPS:-1} work n r
	[ -n "${AGENTMEM_WEAVIATE_HOST:-}" ] || {
		echo "limits.sh: AGENTMEM_WEAVIATE_HOST is not set" >&2
		return 1
	}
	_limits_build || return 1
	for n in "$@"; do
		for r in $(seq 1 "$reps"); do
			"$work/limitbench" -n "$n" -weaviate "$AGENTMEM_WEAVIATE_HOST" -weaviate-grpc "${AGENTMEM_WEAVIATE_GRPC:-}" >>"$work/weaviate-$n.jsonl" || return 1
		done
	done
	echo
	echo "== Weaviate queries: agentmem's store beside Weaviate's own client on the same records (top 4), medians of $reps rounds =="
	printf '%-8s %-10s %14s %14s %16s\n' N mode "agentmem ms" "client ms" "agentmem/limit"
	for n in "$@"; do
		jq -rs --arg n "$n" '
		  def med(l): [.[] | select(.label == l) | .p50_ms] | sort | if length == 0 then null else .[(length / 2 | floor)] end;
		  ["hybrid", "vector"][] as $m | [med("weaviate \($m) agentmem"), med("weaviate \($m) client")] as [$a, $c]
		  | [$n, $m, ($a | tostring), ($c | tostring), (if $a and $c then ($a / $c * 100 | round / 100 | tostring) + "x" else "n/a" end)] | @tsv' \
			"$work/weaviate-$n.jsonl" | awk -F'\t' '{printf "%-8s %-10s %14s %14s %16s\n", $1, $2, $3, $4, $5}'
	done
	rm -rf "$work"
}
