-- 0003_unindexed: messages whose indexing for semantic recall failed and must
-- be retried. A marker goes with its message (ON DELETE CASCADE, also through
-- the thread's cascade); an upsert of the message keeps it.

CREATE TABLE {{schema}}.{{prefix}}unindexed (
	message_id text        PRIMARY KEY REFERENCES {{schema}}.{{prefix}}messages (id) ON DELETE CASCADE,
	marked_at  timestamptz NOT NULL
);
