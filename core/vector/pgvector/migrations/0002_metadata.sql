-- Each index's table holds its records' message metadata for filters; NULL
-- when a record has none, which a filter reads as every key missing.
DO $$
DECLARE t record;
BEGIN
	FOR t IN SELECT n.nspname, i.table_name FROM {{schema}}.vector_indexes AS i
		JOIN pg_class AS c ON c.oid = i.tableoid JOIN pg_namespace AS n ON n.oid = c.relnamespace
	LOOP
		EXECUTE format('ALTER TABLE %I.%I ADD COLUMN IF NOT EXISTS metadata jsonb', t.nspname, t.table_name);
	END LOOP;
END
$$;
