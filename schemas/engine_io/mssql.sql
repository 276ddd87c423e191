-- An engine's own I/O counters for SQL Server, read off the transaction path by drivebench's
-- sampler on a session of its own. Every query returns rows of (counter, value) where counter
-- is one of drivebench's names; a query that fails (the TDS emulator has no DMVs) is named in
-- the reading's `missing` list. Times are microseconds (the DMVs give milliseconds).

-- name: dm_io_virtual_file_stats
SELECT CASE WHEN f.type = 1 THEN 'log_writes' ELSE 'data_writes' END AS counter,
       CAST(s.num_of_writes AS bigint) AS value
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id
UNION ALL
SELECT CASE WHEN f.type = 1 THEN 'log_bytes' ELSE 'data_write_bytes' END,
       CAST(s.num_of_bytes_written AS bigint)
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id
UNION ALL
SELECT 'data_reads', CAST(s.num_of_reads AS bigint)
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id WHERE f.type = 0
UNION ALL
SELECT 'data_read_bytes', CAST(s.num_of_bytes_read AS bigint)
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id WHERE f.type = 0
UNION ALL
SELECT 'data_read_us', CAST(s.io_stall_read_ms AS bigint) * 1000
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id WHERE f.type = 0
UNION ALL
SELECT 'data_write_us', CAST(s.io_stall_write_ms AS bigint) * 1000
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS s
JOIN sys.database_files AS f ON f.file_id = s.file_id WHERE f.type = 0;

-- name: dm_os_wait_stats
SELECT 'log_flushes' AS counter, CAST(waiting_tasks_count AS bigint) AS value
FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG'
UNION ALL
SELECT 'log_flush_us', CAST(wait_time_ms AS bigint) * 1000
FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG';
