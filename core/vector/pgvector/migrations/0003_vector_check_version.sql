-- A write sent inside another store's transaction (one round trip, ended
-- by its Sync) cannot read the resources' versions before it commits:
-- vector_check_version fails the statement, and so the transaction, when a
-- resource was written with another index version than the index's.
CREATE OR REPLACE FUNCTION {{schema}}.vector_check_version(index_name text, resource_id text, have text, want text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF want IS NOT NULL AND have IS DISTINCT FROM want THEN
		RAISE EXCEPTION 'resource % of index % was written with version %, not %', resource_id, index_name, have, want
			USING HINT = 'delete and reindex the resource';
	END IF;
	RETURN true;
END
$$;
