-- 0002_observations: observational memory. One active record per key
-- ("thread:<id>" or "resource:<id>"), written by compare-and-set on version;
-- generations replaced by a reflection are archived in observation_generations.

CREATE TABLE {{schema}}.{{prefix}}observations (
	key                  text        PRIMARY KEY,
	observations         text        NOT NULL DEFAULT '',
	observation_tokens   integer     NOT NULL DEFAULT 0,
	generation           integer     NOT NULL DEFAULT 0,
	last_observed_at     timestamptz,
	observed_message_ids text[]      NOT NULL DEFAULT '{}',
	version              bigint      NOT NULL,
	updated_at           timestamptz NOT NULL
);

CREATE TABLE {{schema}}.{{prefix}}observation_generations (
	key                  text        NOT NULL,
	generation           integer     NOT NULL,
	observations         text        NOT NULL,
	observation_tokens   integer     NOT NULL,
	last_observed_at     timestamptz,
	observed_message_ids text[]      NOT NULL DEFAULT '{}',
	version              bigint      NOT NULL,
	updated_at           timestamptz NOT NULL,
	archived_at          timestamptz NOT NULL,
	PRIMARY KEY (key, generation)
);
