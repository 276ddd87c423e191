-- An engine's own I/O counters for SQLite: SQLite keeps none, so drivebench counts them in
-- its own VFS layer under every connection it opens (reads, writes and syncs of the database
-- file and of its -wal or -journal, with their times) and answers them through the SQL
-- function drivebench_io(name), registered on each connection. Rows of (counter, value) as for
-- the server engines; times in microseconds. Log flushes are syncs of the -wal or -journal,
-- data reads are reads of the database file (not of pages read through mmap), background
-- writes are checkpoints' writes to the database file.
-- With count_io = false the database is opened without that layer: there is no
-- drivebench_io and this query is named missing.

-- name: vfs_counters
SELECT 'log_flushes' AS counter, drivebench_io('log_flushes') AS value
UNION ALL SELECT 'log_flush_us', drivebench_io('log_flush_us')
UNION ALL SELECT 'log_writes', drivebench_io('log_writes')
UNION ALL SELECT 'log_bytes', drivebench_io('log_bytes')
UNION ALL SELECT 'data_reads', drivebench_io('data_reads')
UNION ALL SELECT 'data_read_bytes', drivebench_io('data_read_bytes')
UNION ALL SELECT 'data_read_us', drivebench_io('data_read_us')
UNION ALL SELECT 'data_writes', drivebench_io('data_writes')
UNION ALL SELECT 'data_write_bytes', drivebench_io('data_write_bytes')
UNION ALL SELECT 'data_write_us', drivebench_io('data_write_us')
UNION ALL SELECT 'data_flushes', drivebench_io('data_flushes')
UNION ALL SELECT 'background_write_bytes', drivebench_io('background_write_bytes');
