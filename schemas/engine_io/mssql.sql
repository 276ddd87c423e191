-- An engine's own I/O counters for SQL Server, read off the transaction path by drivebench's
-- sampler on a session of its own. Every query returns rows of (counter, value, why) where
-- counter is one of drivebench's names; a query that fails (the account lacks VIEW SERVER
-- STATE, the TDS emulator has no DMVs) is named in the reading's `missing` list and the others
-- still count. Times are microseconds (the DMVs give milliseconds).
--
-- Per file of the benchmark's database (DB_ID()): the log file's writes are its flushes (SQL
-- Server writes the log synchronously, each write reaching stable media before the commit
-- returns) and their stall is the flush time; the data files' reads and their stall are the
-- data reads, their writes (checkpoints, the lazy writer) the background writes. Sessions'
-- waits from sys.dm_os_wait_stats: WRITELOG (a commit waiting for its log flush) and
-- PAGEIOLATCH_* (a page waiting to be read), server-wide.

-- name: virtual_file_stats
SELECT v.counter, CAST(v.value AS bigint) AS value, CAST(NULL AS nvarchar(200)) AS why
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id
CROSS APPLY (VALUES
  ('log_writes', 1, s.num_of_writes),
  ('log_flushes', 1, s.num_of_writes),
  ('log_bytes', 1, s.num_of_bytes_written),
  ('log_flush_us', 1, s.io_stall_write_ms * 1000),
  ('data_reads', 0, s.num_of_reads),
  ('data_read_bytes', 0, s.num_of_bytes_read),
  ('data_read_us', 0, s.io_stall_read_ms * 1000),
  ('data_writes', 0, s.num_of_writes),
  ('data_write_bytes', 0, s.num_of_bytes_written),
  ('data_write_us', 0, s.io_stall_write_ms * 1000),
  ('background_write_bytes', 0, s.num_of_bytes_written)
) AS v(counter, file_type, value)
WHERE v.file_type = f.type;

-- name: wait_stats
SELECT 'log_wait_us' AS counter, CAST(SUM(wait_time_ms) AS bigint) * 1000 AS value,
       CAST(NULL AS nvarchar(200)) AS why
FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG'
UNION ALL
SELECT 'data_read_wait_us', CAST(SUM(wait_time_ms) AS bigint) * 1000, NULL
FROM sys.dm_os_wait_stats WHERE wait_type LIKE 'PAGEIOLATCH[_]%';

-- name: pending_io
SELECT 'pending_io' AS counter, COUNT_BIG(*) AS value, CAST(NULL AS nvarchar(200)) AS why
FROM sys.dm_io_pending_io_requests;

-- name: log_stats
SELECT 'checkpoint_age_bytes' AS counter,
       CAST(log_since_last_checkpoint_mb * 1048576 AS bigint) AS value,
       CAST(NULL AS nvarchar(200)) AS why
FROM sys.dm_db_log_stats(DB_ID());
