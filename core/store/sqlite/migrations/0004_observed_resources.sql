-- 0004: a resource known only by its resource-scoped observations gets a row,
-- as PutObservations now gives it, so ListResources and export find it.
INSERT INTO resources (id, created_at, updated_at)
SELECT substr(key, 10), updated_at, updated_at FROM observations
WHERE substr(key, 1, 9) = 'resource:'
ON CONFLICT (id) DO NOTHING;
