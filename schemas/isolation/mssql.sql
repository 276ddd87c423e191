-- Transaction isolation for SQL Server (`workload.isolation`): SET TRANSACTION ISOLATION LEVEL
-- holds for the session until set again. Snapshot needs the database's
-- ALLOW_SNAPSHOT_ISOLATION ON (drivebench does not change a database's options); without it
-- the first transaction fails with the server's error 3952. `read_back` names the session's
-- level from sys.dm_exec_sessions.

-- name: set_read_committed
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: set_repeatable_read
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- name: set_serializable
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;

-- name: set_snapshot
SET TRANSACTION ISOLATION LEVEL SNAPSHOT;

-- name: read_back
SELECT CASE transaction_isolation_level WHEN 1 THEN 'read uncommitted' WHEN 2 THEN 'read committed'
       WHEN 3 THEN 'repeatable read' WHEN 4 THEN 'serializable' WHEN 5 THEN 'snapshot' ELSE 'unknown' END
FROM sys.dm_exec_sessions WHERE session_id = @@SPID;
