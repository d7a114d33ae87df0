-- 0005: observations made ahead of time and not active yet (buffered chunks
-- and a buffered reflection), as a JSON object written with the record.
ALTER TABLE observations ADD COLUMN buffer TEXT NOT NULL DEFAULT '{}';
