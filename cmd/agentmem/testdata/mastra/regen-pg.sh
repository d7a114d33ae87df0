#!/usr/bin/env bash
# Regenerates mastra-pg.sql: the Mastra memory of write-fixture.mjs written by
# @mastra/pg into a scratch schema of the PostgreSQL at $AGENTMEM_PG_DSN, then
# dumped (mastra_threads, mastra_messages, mastra_resources) with the schema
# name replaced by __SCHEMA__. Needs Node 20+, npm install, and pg_dump.
set -euo pipefail
cd "$(dirname "$0")"
schema=mastra_fixture
psql "$AGENTMEM_PG_DSN" -qc "DROP SCHEMA IF EXISTS $schema CASCADE"
node write-fixture.mjs "$AGENTMEM_PG_DSN" "$schema"
pg_dump "$AGENTMEM_PG_DSN" --no-owner --no-privileges --inserts \
  -t "$schema.mastra_threads" -t "$schema.mastra_messages" -t "$schema.mastra_resources" |
  grep -v '^SET \|^SELECT pg_catalog\|^--\|^\\' | sed "s/\b$schema\./__SCHEMA__./g" | cat -s > mastra-pg.sql
psql "$AGENTMEM_PG_DSN" -qc "DROP SCHEMA $schema CASCADE"
echo "wrote mastra-pg.sql"
