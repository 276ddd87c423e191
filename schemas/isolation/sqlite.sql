-- Transaction isolation for SQLite (`workload.isolation`). SQLite transactions are always
-- serializable (read_uncommitted matters only to connections sharing a cache), so only
-- serializable can be asked for; `read_back` names the level a session runs at.

-- name: set_serializable
PRAGMA read_uncommitted = 0;

-- name: read_back
SELECT CASE WHEN read_uncommitted = 0 THEN 'serializable' ELSE 'read uncommitted' END
FROM pragma_read_uncommitted;
