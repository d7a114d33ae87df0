-- 0006_observed_resources: a resource known only by its resource-scoped
-- observations gets a row, as PutObservations now gives it, so ListResources
-- and export find it.
INSERT INTO {{schema}}.{{prefix}}resources (id, created_at, updated_at)
SELECT substr(key, 10), updated_at, updated_at FROM {{schema}}.{{prefix}}observations
WHERE starts_with(key, 'resource:')
ON CONFLICT (id) DO NOTHING;
