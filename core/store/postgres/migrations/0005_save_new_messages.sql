-- 0005_save_new_messages: the common batch — new ids into one existing
-- thread of the right resource — as one statement.
--
-- save_messages runs its locking CTE (sorts, aggregates, FOR UPDATE), the
-- refusal checks, the insert and the thread update as separate statements;
-- for a batch of 100 new messages that cost ~1.6x the server time of this
-- one statement (BENCHMARKS.md, "Saves after migration 0005").
-- Here the thread's UPDATE takes its row lock (as save_messages' FOR UPDATE
-- does) and the INSERT reads the row the UPDATE returns: when the thread is
-- missing, belongs to another resource or any id is already stored, the
-- UPDATE matches nothing, nothing is written, and the call goes on to
-- save_messages, which refuses or upserts as before. A thread deleted
-- concurrently is either locked first (DeleteThread waits and deletes the
-- messages with it) or found gone. An id another transaction inserts after
-- the NOT EXISTS check fails the INSERT with a unique violation; the caller
-- repeats the call, which then finds it stored. (A single message takes the
-- same statement without the function; see saveOneMessageSQL.)
--
-- The plans are made once per connection, often while the tables are small:
-- without enable_seqscan the id check and the thread's update are index
-- probes whatever the tables held then (a generic plan that chose a
-- sequential scan of a small messages table made every later call on the
-- connection read the whole table).
--
-- The caller gives distinct ids (a repeated id needs save_messages'
-- last-occurrence rule). The rows are save_messages', with one more column
-- and one more kind:
--   kind 3: every message was inserted, in the order given; seqs holds their
--           seq in that order (created_at is what the caller gave), so the
--           caller reads one row whatever the batch size.
-- The messages go in in the order given, so within a batch seq follows the
-- batch (as in the other stores; save_messages inserts in id order).
CREATE FUNCTION {{schema}}.save_new_messages(
	p_id text[], p_thread text, p_resource text, p_role text[], p_type text[], p_content text[],
	p_created timestamptz[], p_tokens int[], p_encoding text[], p_at timestamptz)
RETURNS TABLE (kind int4, ord bigint, thread_id text, why text, id text, created_at timestamptz, seq bigint, seqs bigint[])
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $fn$
#variable_conflict use_column
BEGIN
	-- RETURNING follows the scan of the arrays, so the seqs are in the order
	-- given; the HAVING keeps them aligned with p_id should a plan ever
	-- reorder the rows (save_messages then reports each row it finds stored).
	RETURN QUERY
	WITH thr AS (
		UPDATE {{schema}}.threads t
		SET updated_at = p_at, boundary = {{schema}}.pulled_back(t.boundary, f.first)
		FROM (SELECT min(c) AS first FROM unnest(p_created) AS c) f -- a column, so pulled_back is inlined
		WHERE t.id = p_thread AND t.resource_id = p_resource
			AND NOT EXISTS (SELECT 1 FROM {{schema}}.messages m WHERE m.id = ANY (p_id))
		RETURNING t.id
	),
	ins AS (
		INSERT INTO {{schema}}.messages AS m (id, thread_id, resource_id, role, type, content, created_at, tokens, token_encoding)
		SELECT u.id, thr.id, p_resource, u.role, u.type, u.content, u.created, u.tokens, u.enc
		FROM thr, unnest(p_id, p_role, p_type, p_content, p_created, p_tokens, p_encoding)
			AS u(id, role, type, content, created, tokens, enc)
		RETURNING m.id, m.seq
	)
	SELECT 3, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::timestamptz, NULL::bigint, array_agg(i.seq)
	FROM ins i
	HAVING array_agg(i.id) = p_id;
	IF FOUND THEN
		RETURN;
	END IF;
	RETURN QUERY SELECT s.*, NULL::bigint[] FROM {{schema}}.save_messages(p_id,
		array_fill(p_thread, ARRAY[cardinality(p_id)]), array_fill(p_resource, ARRAY[cardinality(p_id)]),
		p_role, p_type, p_content, p_created, p_tokens, p_encoding, p_at) AS s;
END
$fn$;
