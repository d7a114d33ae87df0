CREATE TABLE IF NOT EXISTS {{schema}}.vector_indexes (
	name       text COLLATE "C" PRIMARY KEY,
	table_name text        NOT NULL UNIQUE,
	dimension  integer     NOT NULL,
	storage    text        NOT NULL,
	config     jsonb       NOT NULL,
	version    text        NOT NULL DEFAULT '',
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS {{schema}}.vector_resources (
	index_name  text COLLATE "C" NOT NULL REFERENCES {{schema}}.vector_indexes (name) ON DELETE CASCADE,
	resource_id text COLLATE "C" NOT NULL,
	version     text   NOT NULL,
	records     bigint NOT NULL DEFAULT 0,
	terms       bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (index_name, resource_id)
);
