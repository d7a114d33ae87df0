-- 0008_observation_buffer: observations made ahead of time and not active
-- yet (buffered chunks and a buffered reflection), written with the record.
ALTER TABLE {{schema}}.{{prefix}}observations ADD COLUMN IF NOT EXISTS buffer jsonb NOT NULL DEFAULT '{}';
