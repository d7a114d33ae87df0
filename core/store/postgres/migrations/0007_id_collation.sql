-- 0007_id_collation: ids compare as bytes (COLLATE "C"), whatever the
-- database's default collation.
--
-- Ids are opaque strings. Under a linguistic default collation (en_US.utf8,
-- as initdb picks on most systems and the official container images, or an
-- ICU locale) every comparison in their indexes goes through the locale: a
-- save's insert into messages_pkey compares ~log2(rows) times per row, and
-- 200,000 random UUID keys took 1.3x as long to insert as under "C"
-- (BENCHMARKS.md). Byte order is also the order the other
-- stores use (SQLite's BINARY, Go's string comparison), so ListThreads breaks
-- ties by id the same way on every store, and ListResources' pages (which
-- compare COLLATE "C") walk the primary key.
--
-- Changing a column's collation keeps its rows (no table rewrite) but
-- rebuilds the indexes on it, under the ACCESS EXCLUSIVE lock that the
-- migration's transaction holds until it commits: on an existing install,
-- opening the store once takes about as long as building messages' primary
-- key and thread index anew (0.25 s for 100,000 messages on the project's
-- machine), and processes still running the previous version wait for it.
-- A view of the application's own over one of these columns makes the
-- migration fail ("cannot alter type of a column used by a view or rule"),
-- with nothing changed: drop the view, open the store, create it again.
-- Parameters compare under the column's collation (a column's implicit
-- collation wins over a parameter's default one), so every statement keeps
-- its index.

ALTER TABLE {{schema}}.{{prefix}}threads
	ALTER COLUMN id TYPE text COLLATE "C",
	ALTER COLUMN resource_id TYPE text COLLATE "C";

ALTER TABLE {{schema}}.{{prefix}}messages
	ALTER COLUMN id TYPE text COLLATE "C",
	ALTER COLUMN thread_id TYPE text COLLATE "C",
	ALTER COLUMN resource_id TYPE text COLLATE "C";

ALTER TABLE {{schema}}.{{prefix}}unindexed ALTER COLUMN message_id TYPE text COLLATE "C";

ALTER TABLE {{schema}}.{{prefix}}resources ALTER COLUMN id TYPE text COLLATE "C";

ALTER TABLE {{schema}}.{{prefix}}observations ALTER COLUMN key TYPE text COLLATE "C";

ALTER TABLE {{schema}}.{{prefix}}observation_generations ALTER COLUMN key TYPE text COLLATE "C";
