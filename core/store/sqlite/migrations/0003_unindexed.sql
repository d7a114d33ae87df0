-- 0003: messages whose indexing for semantic recall failed and must be
-- retried. A marker goes with its message (ON DELETE CASCADE); an upsert of
-- the message (ON CONFLICT DO UPDATE) keeps it.

CREATE TABLE unindexed (
    message_id TEXT    NOT NULL PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    marked_at  INTEGER NOT NULL
);
