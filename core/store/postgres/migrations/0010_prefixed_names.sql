-- 0010_prefixed_names: every name agentmem gives in the schema starts with
-- "agentmem_", so that a schema shared with the application keeps its common
-- names (messages, threads, resources, schema_migrations) for it.
--
-- A new schema got the prefixed tables from the migrations before this one
-- ({{prefix}}). A schema an earlier version created ({{legacy}} is true:
-- its schema_migrations held agentmem's migrations and has been renamed to
-- agentmem_schema_migrations) has its tables, their indexes, constraints and
-- sequence renamed here, rows untouched (a rename rewrites nothing); a
-- process of the earlier version still running fails on the missing names.
DO $rename$
BEGIN
	IF {{legacy}} THEN
		ALTER TABLE {{schema}}.threads RENAME TO agentmem_threads;
		ALTER INDEX {{schema}}.threads_pkey RENAME TO agentmem_threads_pkey;
		ALTER INDEX {{schema}}.threads_resource_created_idx RENAME TO agentmem_threads_resource_created_idx;
		ALTER TABLE {{schema}}.messages RENAME TO agentmem_messages;
		ALTER INDEX {{schema}}.messages_pkey RENAME TO agentmem_messages_pkey;
		ALTER INDEX {{schema}}.messages_thread_created_seq_idx RENAME TO agentmem_messages_thread_created_seq_idx;
		ALTER SEQUENCE {{schema}}.messages_seq_seq RENAME TO agentmem_messages_seq_seq;
		ALTER TABLE {{schema}}.resources RENAME TO agentmem_resources;
		ALTER INDEX {{schema}}.resources_pkey RENAME TO agentmem_resources_pkey;
		ALTER TABLE {{schema}}.observations RENAME TO agentmem_observations;
		ALTER INDEX {{schema}}.observations_pkey RENAME TO agentmem_observations_pkey;
		ALTER TABLE {{schema}}.observation_generations RENAME TO agentmem_observation_generations;
		ALTER INDEX {{schema}}.observation_generations_pkey RENAME TO agentmem_observation_generations_pkey;
		ALTER TABLE {{schema}}.unindexed RENAME TO agentmem_unindexed;
		ALTER INDEX {{schema}}.unindexed_pkey RENAME TO agentmem_unindexed_pkey;
		ALTER TABLE {{schema}}.agentmem_unindexed RENAME CONSTRAINT unindexed_message_id_fkey TO agentmem_unindexed_message_id_fkey;
	END IF;
END
$rename$;

-- The functions, in either schema: pulled_back keeps its body (it reads no
-- table); save_messages' body names the tables, so it is made anew under its
-- new name; save_new_messages goes (this version does not call it, and the
-- earlier versions that did cannot run on the renamed tables).
ALTER FUNCTION {{schema}}.pulled_back(jsonb, timestamptz) RENAME TO agentmem_pulled_back;
DROP FUNCTION {{schema}}.save_new_messages(text[], text, text, text[], text[], text[], timestamptz[], int[], text[], timestamptz);
DROP FUNCTION {{schema}}.save_messages(text[], text[], text[], text[], text[], text[], timestamptz[], int[], text[], timestamptz);

-- agentmem_save_messages is 0004's save_messages on the prefixed tables.
CREATE FUNCTION {{schema}}.agentmem_save_messages(
	p_id text[], p_thread text[], p_resource text[], p_role text[], p_type text[], p_content text[],
	p_created timestamptz[], p_tokens int[], p_encoding text[], p_at timestamptz)
RETURNS TABLE (kind int4, ord bigint, thread_id text, why text, id text, created_at timestamptz, seq bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $fn$
#variable_conflict use_column
DECLARE
	thr_id    text[]; -- locked threads, in id order
	thr_res   text[]; -- their resources
	cur_id    text[]; -- stored messages of the batch, locked, in id order
	cur_res   text[];
	cur_thr   text[];
	bad_ord   bigint;
	bad_why   text;
	bad_thr   text;
	take_ord  bigint;
	new_at    timestamptz;
	new_seq   bigint;
BEGIN
	-- Locks: the target threads and the threads holding stored messages of
	-- the batch, then those messages, each in id order (as DeleteMessages).
	-- One snapshot: a message moved to a thread this did not lock is stale.
	WITH thr AS (
		SELECT t.id, t.resource_id FROM {{schema}}.agentmem_threads t
		WHERE t.id = ANY (p_thread || ARRAY(SELECT m.thread_id FROM {{schema}}.agentmem_messages m WHERE m.id = ANY (p_id)))
		ORDER BY t.id FOR UPDATE
	),
	cur AS (
		SELECT m.id, m.resource_id, m.thread_id FROM {{schema}}.agentmem_messages m
		WHERE m.id = ANY (p_id) AND (SELECT count(*) FROM thr) >= 0
		ORDER BY m.id FOR UPDATE
	)
	SELECT (SELECT coalesce(array_agg(t.id), '{}') FROM thr t), (SELECT coalesce(array_agg(t.resource_id), '{}') FROM thr t),
		coalesce(array_agg(c.id), '{}'), coalesce(array_agg(c.resource_id), '{}'), coalesce(array_agg(c.thread_id), '{}')
	INTO thr_id, thr_res, cur_id, cur_res, cur_thr
	FROM cur c;
	IF cardinality(cur_id) > 0 AND EXISTS (SELECT 1 FROM unnest(cur_thr) AS c(t) WHERE c.t <> ALL (thr_id)) THEN
		RETURN QUERY SELECT 2, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::bigint;
		RETURN;
	END IF;

	-- Refusals, by batch position; for one position a takeover comes first.
	-- A single new message into its own thread needs no query.
	IF NOT (cardinality(p_id) = 1 AND cardinality(cur_id) = 0 AND thr_id = p_thread AND thr_res = p_resource) THEN
		SELECT i.ord, i.t, CASE WHEN th.id IS NULL THEN 'missing' ELSE 'mismatch' END
		INTO bad_ord, bad_thr, bad_why
		FROM unnest(p_thread, p_resource) WITH ORDINALITY AS i(t, r, ord)
		LEFT JOIN unnest(thr_id, thr_res) AS th(id, r) ON th.id = i.t
		WHERE th.id IS NULL OR th.r <> i.r
		ORDER BY i.ord LIMIT 1;
	END IF;
	IF cardinality(cur_id) > 0 THEN
		SELECT min(i.ord) INTO take_ord
		FROM unnest(p_id, p_resource) WITH ORDINALITY AS i(id, r, ord)
		JOIN unnest(cur_id, cur_res) AS c(id, r) ON c.id = i.id
		WHERE c.r <> i.r;
	END IF;
	IF cardinality(p_id) > 1 AND EXISTS (SELECT 1 FROM unnest(p_resource) AS r WHERE r <> p_resource[1]) THEN
		-- An id earlier in the batch with another resource: one window sort.
		SELECT least(take_ord, min(w.ord)) INTO take_ord
		FROM (SELECT i.ord, i.r, min(i.r) OVER v AS lo, max(i.r) OVER v AS hi
			FROM unnest(p_id, p_resource) WITH ORDINALITY AS i(id, r, ord)
			WINDOW v AS (PARTITION BY i.id ORDER BY i.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)) w
		WHERE w.lo <> w.r OR w.hi <> w.r;
	END IF;
	IF take_ord IS NOT NULL AND (bad_ord IS NULL OR take_ord <= bad_ord) THEN
		bad_ord := take_ord;
		bad_thr := p_thread[take_ord];
		bad_why := 'takeover';
	END IF;
	IF bad_ord IS NOT NULL THEN
		RETURN QUERY SELECT 0, bad_ord, bad_thr, bad_why, NULL::text, NULL::timestamptz, NULL::bigint;
		RETURN;
	END IF;

	IF cardinality(p_id) = 1 AND cardinality(cur_id) = 0 THEN
		-- One new message: the write without the batch's set operations.
		INSERT INTO {{schema}}.agentmem_messages AS m (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		VALUES (p_id[1], p_thread[1], p_resource[1], p_role[1], p_type[1], p_content[1], p_created[1], p_tokens[1], p_encoding[1])
		RETURNING m.created_at, m.seq INTO new_at, new_seq;
		UPDATE {{schema}}.agentmem_threads t SET updated_at = p_at, boundary = {{schema}}.agentmem_pulled_back(t.boundary, new_at)
		WHERE t.id = p_thread[1];
		RETURN QUERY SELECT 1, NULL::bigint, NULL::text, NULL::text, p_id[1], new_at, new_seq;
		RETURN;
	END IF;

	-- Writes: the last occurrence of an id wins (the caller gave every
	-- occurrence the first one's created_at); new rows go in in id order.
	RETURN QUERY
	WITH inp AS (
		SELECT DISTINCT ON (u.id) u.*
		FROM unnest(p_id, p_thread, p_resource, p_role, p_type, p_content, p_created, p_tokens, p_encoding)
			WITH ORDINALITY AS u(id, t, r, role, type, content, created, tokens, enc, ord)
		ORDER BY u.id, u.ord DESC
	),
	ins AS (
		INSERT INTO {{schema}}.agentmem_messages AS m (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		SELECT u.id, u.t, u.r, u.role, u.type, u.content, u.created, u.tokens, u.enc
		FROM inp u
		WHERE cardinality(cur_id) = 0 OR u.id NOT IN (SELECT unnest(cur_id))
		ORDER BY u.id
		RETURNING m.id, m.created_at, m.seq, m.thread_id
	),
	upd AS (
		UPDATE {{schema}}.agentmem_messages m SET thread_id = u.t, resource_id = u.r, role = u.role, type = u.type,
			content = u.content, tokens = u.tokens, token_encoding = u.enc
		FROM inp u
		WHERE cardinality(cur_id) > 0 AND m.id = u.id AND m.id IN (SELECT unnest(cur_id))
		RETURNING m.id, m.created_at, m.seq
	),
	touch AS (
		UPDATE {{schema}}.agentmem_threads t SET updated_at = p_at, boundary = {{schema}}.agentmem_pulled_back(t.boundary, n.first)
		FROM (SELECT x.id, (SELECT min(i.created_at) FROM ins i WHERE i.thread_id = x.id) AS first
			FROM unnest(thr_id) AS x(id)) n
		WHERE t.id = n.id
	)
	SELECT 1, NULL::bigint, NULL::text, NULL::text, i.id, i.created_at, i.seq FROM ins i
	UNION ALL
	SELECT 1, NULL::bigint, NULL::text, NULL::text, u.id, u.created_at, u.seq FROM upd u;
END
$fn$;
