-- 0006: ids of messages older than the record's lookback window that it has
-- not observed (the messages of a thread moved in from another resource), a
-- JSON array written with the record.
ALTER TABLE observations ADD COLUMN unobserved_message_ids TEXT NOT NULL DEFAULT '[]';
