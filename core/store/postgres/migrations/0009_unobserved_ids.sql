-- 0009_unobserved_ids: ids of messages older than the record's lookback
-- window that it has not observed (the messages of a thread moved in from
-- another resource), written with the record.
ALTER TABLE {{schema}}.{{prefix}}observations ADD COLUMN IF NOT EXISTS unobserved_message_ids text[] NOT NULL DEFAULT '{}';
