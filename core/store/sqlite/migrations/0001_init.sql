-- 0001: threads, messages, resources.
-- Times are INTEGER unix microseconds (UTC). JSON columns hold TEXT.

CREATE TABLE threads (
    id             TEXT    NOT NULL PRIMARY KEY,
    resource_id    TEXT    NOT NULL,
    title          TEXT    NOT NULL DEFAULT '',
    metadata       TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    boundary       TEXT,
    working_memory TEXT,
    wm_version     INTEGER NOT NULL DEFAULT 0,
    wm_updated_at  INTEGER
);

CREATE INDEX threads_resource_created ON threads (resource_id, created_at, id);
CREATE INDEX threads_resource_updated ON threads (resource_id, updated_at, id);

CREATE TABLE messages (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT    NOT NULL UNIQUE,
    thread_id      TEXT    NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    resource_id    TEXT    NOT NULL,
    role           TEXT    NOT NULL,
    type           TEXT    NOT NULL DEFAULT '',
    content        TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    tokens         INTEGER NOT NULL DEFAULT 0,
    token_encoding TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX messages_thread_created_seq ON messages (thread_id, created_at, seq);

CREATE TABLE resources (
    id             TEXT    NOT NULL PRIMARY KEY,
    working_memory TEXT,
    wm_version     INTEGER NOT NULL DEFAULT 0,
    wm_updated_at  INTEGER,
    metadata       TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
