
CREATE TABLE __SCHEMA__.mastra_messages (
    id text NOT NULL,
    thread_id text NOT NULL,
    content text NOT NULL,
    role text NOT NULL,
    type text NOT NULL,
    "createdAt" timestamp without time zone NOT NULL,
    "resourceId" text,
    "createdAtZ" timestamp with time zone DEFAULT now()
);

CREATE TABLE __SCHEMA__.mastra_resources (
    id text NOT NULL,
    "workingMemory" text,
    metadata jsonb,
    "createdAt" timestamp without time zone NOT NULL,
    "updatedAt" timestamp without time zone NOT NULL,
    "createdAtZ" timestamp with time zone DEFAULT now(),
    "updatedAtZ" timestamp with time zone DEFAULT now()
);

CREATE TABLE __SCHEMA__.mastra_threads (
    id text NOT NULL,
    "resourceId" text NOT NULL,
    title text NOT NULL,
    metadata jsonb,
    "createdAt" timestamp without time zone NOT NULL,
    "updatedAt" timestamp without time zone NOT NULL,
    "createdAtZ" timestamp with time zone DEFAULT now(),
    "updatedAtZ" timestamp with time zone DEFAULT now()
);

INSERT INTO __SCHEMA__.mastra_messages VALUES ('trip-1', 'trip', '{"format":2,"parts":[{"type":"text","text":"Find me a hotel in Lisbon for May 3-5."}]}', 'user', 'v2', '2025-01-15 09:00:00', 'ada', '2025-01-15 09:00:00+00');
INSERT INTO __SCHEMA__.mastra_messages VALUES ('trip-2', 'trip', '{"format":2,"parts":[{"type":"step-start"},{"type":"reasoning","reasoning":"Search hotels first.","details":[{"type":"text","text":"Search hotels first."}]},{"type":"tool-invocation","toolInvocation":{"state":"result","toolCallId":"call-1","toolName":"searchHotels","args":{"city":"Lisbon","from":"2025-05-03","to":"2025-05-05"},"result":{"hotels":[{"name":"Casa Azul","price":120}]}}},{"type":"text","text":"Casa Azul has a room for 120 EUR a night."},{"type":"source","source":{"sourceType":"url","id":"src-1","url":"https://example.com/casa-azul","title":"Casa Azul"}}]}', 'assistant', 'v2', '2025-01-15 09:00:01', 'ada', '2025-01-15 09:00:01+00');
INSERT INTO __SCHEMA__.mastra_messages VALUES ('trip-3', 'trip', '{"format":2,"parts":[{"type":"text","text":"Here is my passport scan."},{"type":"file","data":"aGVsbG8=","mimeType":"image/png"}]}', 'user', 'v2', '2025-01-15 09:00:02', 'ada', '2025-01-15 09:00:02+00');
INSERT INTO __SCHEMA__.mastra_messages VALUES ('trip-4', 'trip', '{"format":2,"parts":[{"type":"tool-invocation","toolInvocation":{"state":"call","toolCallId":"call-2","toolName":"bookHotel","args":{"hotel":"Casa Azul"}}}]}', 'assistant', 'v2', '2025-01-15 09:00:03', 'ada', '2025-01-15 09:00:03+00');
INSERT INTO __SCHEMA__.mastra_messages VALUES ('food-1', 'food', '{"format":2,"parts":[{"type":"text","text":"Something vegetarian tonight?"}]}', 'user', 'v2', '2025-01-15 09:00:10', 'ada', '2025-01-15 09:00:10+00');
INSERT INTO __SCHEMA__.mastra_messages VALUES ('food-2', 'food', '{"format":2,"parts":[{"type":"text","text":"Try a mushroom risotto."}]}', 'assistant', 'v2', '2025-01-15 09:00:11', 'ada', '2025-01-15 09:00:11+00');
INSERT INTO __SCHEMA__.mastra_messages VALUES ('notes-1', 'notes', '{"format":2,"parts":[{"type":"text","text":"Remember that I prefer trains."}]}', 'user', 'v2', '2025-01-15 09:00:20', 'bob', '2025-01-15 09:00:20+00');

INSERT INTO __SCHEMA__.mastra_resources VALUES ('ada', '# About the user
- **Name**: Ada
- **Location**: Porto
', '"{}"', '2026-11-30 23:01:35.9', '2026-11-30 23:01:35.9', '2026-11-30 23:01:35.9+00', '2026-11-30 23:01:35.9+00');

INSERT INTO __SCHEMA__.mastra_threads VALUES ('trip', 'ada', 'Trip to Lisbon', '{"channel": "web"}', '2026-11-30 23:01:35.64', '2026-11-30 23:01:35.854', '2026-11-30 23:01:35.64+00', '2026-11-30 23:01:35.854+00');
INSERT INTO __SCHEMA__.mastra_threads VALUES ('food', 'ada', 'Dinner ideas', NULL, '2026-11-30 23:01:36.028', '2026-11-30 23:01:36.125', '2026-11-30 23:01:36.028+00', '2026-11-30 23:01:36.125+00');
INSERT INTO __SCHEMA__.mastra_threads VALUES ('notes', 'bob', 'Notes', '{"workingMemory": "# Notes\n- prefers trains\n"}', '2026-11-30 23:01:36.13', '2026-11-30 23:01:36.261', '2026-11-30 23:01:36.13+00', '2026-11-30 23:01:36.261+00');

ALTER TABLE ONLY __SCHEMA__.mastra_messages
    ADD CONSTRAINT mastra_messages_pkey PRIMARY KEY (id);

ALTER TABLE ONLY __SCHEMA__.mastra_resources
    ADD CONSTRAINT mastra_resources_pkey PRIMARY KEY (id);

ALTER TABLE ONLY __SCHEMA__.mastra_threads
    ADD CONSTRAINT mastra_threads_pkey PRIMARY KEY (id);

CREATE INDEX mastra_fixture_mastra_messages_thread_id_createdat_idx ON __SCHEMA__.mastra_messages USING btree (thread_id, "createdAt" DESC);

CREATE INDEX mastra_fixture_mastra_threads_resourceid_createdat_idx ON __SCHEMA__.mastra_threads USING btree ("resourceId", "createdAt" DESC);

