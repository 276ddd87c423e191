-- An engine's own I/O counters for PostgreSQL, read off the transaction path by drivebench's
-- sampler on a session of its own. Every query returns rows of (counter, value) where counter
-- is one of drivebench's names; a query that fails (a view this version lacks) is named in the
-- reading's `missing` list and the others still count. Times are microseconds; the timings are
-- zero unless track_wal_io_timing and track_io_timing are on (a private cluster turns them on).

-- name: pg_stat_wal
SELECT 'log_writes' AS counter, wal_write::bigint AS value FROM pg_stat_wal
UNION ALL SELECT 'log_bytes', wal_bytes::bigint FROM pg_stat_wal
UNION ALL SELECT 'log_flushes', wal_sync::bigint FROM pg_stat_wal
UNION ALL SELECT 'log_flush_us', (wal_sync_time * 1000)::bigint FROM pg_stat_wal
  WHERE current_setting('track_wal_io_timing')::bool;

-- name: pg_stat_database
SELECT 'data_reads' AS counter, sum(blks_read)::bigint AS value FROM pg_stat_database
UNION ALL SELECT 'data_read_bytes', (sum(blks_read) * current_setting('block_size')::bigint)::bigint
  FROM pg_stat_database
UNION ALL SELECT 'data_read_requests', sum(blks_read + blks_hit)::bigint FROM pg_stat_database
UNION ALL SELECT 'data_read_us', (sum(blk_read_time) * 1000)::bigint FROM pg_stat_database
  WHERE current_setting('track_io_timing')::bool
UNION ALL SELECT 'data_write_us', (sum(blk_write_time) * 1000)::bigint FROM pg_stat_database
  WHERE current_setting('track_io_timing')::bool;

-- name: pg_stat_bgwriter
SELECT 'background_write_bytes' AS counter,
       ((buffers_checkpoint + buffers_clean) * current_setting('block_size')::bigint)::bigint AS value
FROM pg_stat_bgwriter
UNION ALL SELECT 'data_writes', (buffers_checkpoint + buffers_clean + buffers_backend)::bigint
FROM pg_stat_bgwriter
UNION ALL SELECT 'data_write_bytes',
       ((buffers_checkpoint + buffers_clean + buffers_backend) * current_setting('block_size')::bigint)::bigint
FROM pg_stat_bgwriter
UNION ALL SELECT 'data_flushes', buffers_backend_fsync::bigint FROM pg_stat_bgwriter;
