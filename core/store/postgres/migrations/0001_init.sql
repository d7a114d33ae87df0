-- 0001_init: threads, messages and resources.
-- {{schema}} is replaced by the quoted schema name before execution, and
-- {{prefix}} by "agentmem_" (by "" when an earlier version's schema, made
-- before migration 0010 prefixed the names, is migrated: see migrate.go).

CREATE TABLE {{schema}}.{{prefix}}threads (
	id             text        PRIMARY KEY,
	resource_id    text        NOT NULL,
	title          text        NOT NULL DEFAULT '',
	metadata       jsonb,
	created_at     timestamptz NOT NULL,
	updated_at     timestamptz NOT NULL,
	boundary       jsonb,
	working_memory text,
	wm_version     bigint      NOT NULL DEFAULT 0,
	wm_updated_at  timestamptz
);

CREATE INDEX {{prefix}}threads_resource_created_idx ON {{schema}}.{{prefix}}threads (resource_id, created_at);

CREATE TABLE {{schema}}.{{prefix}}messages (
	seq            bigint      GENERATED ALWAYS AS IDENTITY,
	id             text        PRIMARY KEY,
	thread_id      text        NOT NULL REFERENCES {{schema}}.{{prefix}}threads (id) ON DELETE CASCADE,
	resource_id    text        NOT NULL,
	role           text        NOT NULL DEFAULT '',
	type           text        NOT NULL DEFAULT '',
	content        jsonb       NOT NULL,
	created_at     timestamptz NOT NULL,
	tokens         integer     NOT NULL DEFAULT 0,
	token_encoding text        NOT NULL DEFAULT '',
	CONSTRAINT {{prefix}}messages_seq_key UNIQUE (seq)
);

CREATE INDEX {{prefix}}messages_thread_created_seq_idx ON {{schema}}.{{prefix}}messages (thread_id, created_at, seq);

CREATE TABLE {{schema}}.{{prefix}}resources (
	id             text        PRIMARY KEY,
	working_memory text,
	wm_version     bigint      NOT NULL DEFAULT 0,
	wm_updated_at  timestamptz,
	metadata       jsonb,
	created_at     timestamptz NOT NULL,
	updated_at     timestamptz NOT NULL
);
