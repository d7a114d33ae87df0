-- 0002: observational memory. One active record per key ("thread:<id>" or
-- "resource:<id>"), written by compare-and-set on version; generations
-- replaced by a reflection are archived in observation_generations.
-- observed_message_ids is a JSON array of text.

CREATE TABLE observations (
    key                  TEXT    NOT NULL PRIMARY KEY,
    observations         TEXT    NOT NULL DEFAULT '',
    observation_tokens   INTEGER NOT NULL DEFAULT 0,
    generation           INTEGER NOT NULL DEFAULT 0,
    last_observed_at     INTEGER,
    observed_message_ids TEXT    NOT NULL DEFAULT '[]',
    version              INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);

CREATE TABLE observation_generations (
    key                  TEXT    NOT NULL,
    generation           INTEGER NOT NULL,
    observations         TEXT    NOT NULL,
    observation_tokens   INTEGER NOT NULL,
    last_observed_at     INTEGER,
    observed_message_ids TEXT    NOT NULL DEFAULT '[]',
    version              INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    archived_at          INTEGER NOT NULL,
    PRIMARY KEY (key, generation)
);
