-- 0004_save_function: SaveMessages as one call of a PL/pgSQL function, and
-- smaller message rows.
--
-- The single CTE statement it replaces cost 1-5 ms of planning per call until
-- the server settled on a generic plan (after five calls on each connection,
-- and then a plan made for 10 rows ran batches of 1,000), and its foreign key
-- to threads ran a lookup per inserted row. The function's statements are
-- small and always use their generic plans (index probes with = ANY), so a
-- call's planning is done once per connection; the outer statement has
-- nothing to plan. Each statement takes a fresh snapshot, as the foreign
-- key's check did.
--
-- Thread existence is kept by the lock instead of the foreign key: a save
-- locks its threads (FOR UPDATE, in id order) before writing, DeleteThread
-- deletes the thread row and then, in a later statement of its transaction,
-- the thread's messages. A save that locked first commits before the delete
-- proceeds and its messages are deleted with the thread; a save that waits
-- for the delete finds the thread gone and is refused.

ALTER TABLE {{schema}}.{{prefix}}messages DROP CONSTRAINT IF EXISTS {{prefix}}messages_thread_id_fkey;

-- Content is kept as the JSON text SaveMessages wrote (message.MarshalStored):
-- jsonb's binary form of a short message is ~15% larger than its compact text
-- and parsing it was a quarter of an insert's time; nothing queries inside it
-- but CompactContent, which casts. Existing rows keep jsonb's formatting, which
-- reads compact.
ALTER TABLE {{schema}}.{{prefix}}messages ALTER COLUMN content TYPE text USING content::text;

-- seq stays unique by its identity; no statement looks a row up by seq
-- (CompactContent walks heap blocks).
ALTER TABLE {{schema}}.{{prefix}}messages DROP CONSTRAINT IF EXISTS {{prefix}}messages_seq_key;

-- A thread's messages arrive in time order, at the right edge of the index.
ALTER INDEX {{schema}}.{{prefix}}messages_thread_created_seq_idx SET (fillfactor = 100);

-- pulled_back is store.PullBack: a boundary at or after first (the earliest
-- message inserted into its thread) moves to just before it.
CREATE FUNCTION {{schema}}.pulled_back(b jsonb, first timestamptz) RETURNS jsonb
LANGUAGE sql STABLE AS $$
	SELECT CASE WHEN jsonb_typeof(b) = 'object' AND first IS NOT NULL AND (b->>'createdAt')::timestamptz >= first
		THEN jsonb_build_object(
			'createdAt', to_char((first - interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
			'messageIds', 'null'::jsonb, 'maxTokens', b->'maxTokens', 'atMaxRemoveTokens', b->'atMaxRemoveTokens')
		ELSE b END
$$;

-- save_messages upserts a batch (parallel arrays, one element per message) and
-- returns rows (kind, ord, thread_id, why, id, created_at, seq):
--   kind 0: the batch is refused; ord is the 1-based position of the first
--           refused message, why 'takeover' (its id belongs to another
--           resource, stored or earlier in the batch), 'missing' (no such
--           thread) or 'mismatch' (the thread belongs to another resource);
--           nothing was written;
--   kind 1: one per distinct saved id, with its stored created_at and seq;
--   kind 2: a message moved to a thread that was not locked; nothing was
--           written and the call must be repeated.
-- New ids are inserted (a plain INSERT: no speculative insertion), stored
-- ones updated without touching created_at and seq; every locked thread's
-- updated_at is bumped (store.PullBack moves a boundary before the earliest
-- inserted message). A new id that another transaction inserted after the
-- lock fails the INSERT with a unique violation, and the caller repeats the
-- call, which then finds it stored.
CREATE FUNCTION {{schema}}.save_messages(
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
		SELECT t.id, t.resource_id FROM {{schema}}.threads t
		WHERE t.id = ANY (p_thread || ARRAY(SELECT m.thread_id FROM {{schema}}.messages m WHERE m.id = ANY (p_id)))
		ORDER BY t.id FOR UPDATE
	),
	cur AS (
		SELECT m.id, m.resource_id, m.thread_id FROM {{schema}}.messages m
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
		INSERT INTO {{schema}}.messages AS m (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		VALUES (p_id[1], p_thread[1], p_resource[1], p_role[1], p_type[1], p_content[1], p_created[1], p_tokens[1], p_encoding[1])
		RETURNING m.created_at, m.seq INTO new_at, new_seq;
		UPDATE {{schema}}.threads t SET updated_at = p_at, boundary = {{schema}}.pulled_back(t.boundary, new_at)
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
		INSERT INTO {{schema}}.messages AS m (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		SELECT u.id, u.t, u.r, u.role, u.type, u.content, u.created, u.tokens, u.enc
		FROM inp u
		WHERE cardinality(cur_id) = 0 OR u.id NOT IN (SELECT unnest(cur_id))
		ORDER BY u.id
		RETURNING m.id, m.created_at, m.seq, m.thread_id
	),
	upd AS (
		UPDATE {{schema}}.messages m SET thread_id = u.t, resource_id = u.r, role = u.role, type = u.type,
			content = u.content, tokens = u.tokens, token_encoding = u.enc
		FROM inp u
		WHERE cardinality(cur_id) > 0 AND m.id = u.id AND m.id IN (SELECT unnest(cur_id))
		RETURNING m.id, m.created_at, m.seq
	),
	touch AS (
		UPDATE {{schema}}.threads t SET updated_at = p_at, boundary = {{schema}}.pulled_back(t.boundary, n.first)
		FROM (SELECT x.id, (SELECT min(i.created_at) FROM ins i WHERE i.thread_id = x.id) AS first
			FROM unnest(thr_id) AS x(id)) n
		WHERE t.id = n.id
	)
	SELECT 1, NULL::bigint, NULL::text, NULL::text, i.id, i.created_at, i.seq FROM ins i
	UNION ALL
	SELECT 1, NULL::bigint, NULL::text, NULL::text, u.id, u.created_at, u.seq FROM upd u;
END
$fn$;
