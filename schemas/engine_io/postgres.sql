-- An engine's own I/O counters for PostgreSQL, read off the transaction path by drivebench's
-- sampler on a session of its own. Every query returns rows of (counter, value, why) where
-- counter is one of drivebench's names and why says why a NULL value is not counted; a query
-- that fails (a view this version lacks, a function the account may not call) is named in the
-- reading's `missing` list and the others still count. NAME_fallback stands in for NAME where
-- NAME does not prepare. Times are microseconds; the timings are counted only with
-- track_wal_io_timing and track_io_timing on (a private cluster turns them on).
--
-- Verified on PostgreSQL 15. 16 has the same views (and adds pg_stat_io); 17 moved the
-- checkpointer's buffers to pg_stat_checkpointer and dropped pg_stat_bgwriter's backend
-- columns (bgwriter_fallback, from the release notes, unverified); 18 moved pg_stat_wal's
-- write and sync counts and times to pg_stat_io (pg_stat_wal_fallback, unverified).

-- Log flushes are WAL syncs (fdatasync, fsync); with wal_sync_method open_sync or
-- open_datasync every WAL write is a synced write, counted as a flush.

-- name: pg_stat_wal
SELECT 'log_writes' AS counter, wal_write::bigint AS value, NULL::text AS why FROM pg_stat_wal
UNION ALL SELECT 'log_bytes', wal_bytes::bigint, NULL FROM pg_stat_wal
UNION ALL SELECT 'log_flushes',
  CASE WHEN current_setting('wal_sync_method') LIKE 'open%' THEN wal_write ELSE wal_sync END::bigint,
  NULL FROM pg_stat_wal
UNION ALL SELECT 'log_flush_us',
  CASE WHEN current_setting('track_wal_io_timing')::bool THEN
    (CASE WHEN current_setting('wal_sync_method') LIKE 'open%' THEN wal_write_time
          ELSE wal_sync_time END * 1000)::bigint END,
  'track_wal_io_timing is off' FROM pg_stat_wal;

-- name: pg_stat_wal_fallback
SELECT 'log_bytes' AS counter, wal_bytes::bigint AS value, NULL::text AS why FROM pg_stat_wal
UNION ALL SELECT 'log_writes', sum(writes)::bigint, NULL FROM pg_stat_io WHERE object = 'wal'
UNION ALL SELECT 'log_flushes',
  CASE WHEN current_setting('wal_sync_method') LIKE 'open%' THEN sum(writes)
       ELSE sum(fsyncs) END::bigint,
  NULL FROM pg_stat_io WHERE object = 'wal'
UNION ALL SELECT 'log_flush_us',
  CASE WHEN current_setting('track_wal_io_timing')::bool THEN
    (CASE WHEN current_setting('wal_sync_method') LIKE 'open%' THEN sum(write_time)
          ELSE sum(fsync_time) END * 1000)::bigint END,
  'track_wal_io_timing is off' FROM pg_stat_io WHERE object = 'wal';

-- Data reads are blocks read from the kernel (a miss of shared_buffers; the page cache may
-- still serve it), their time with track_io_timing.

-- name: pg_stat_database
SELECT 'data_reads' AS counter, sum(blks_read)::bigint AS value, NULL::text AS why
  FROM pg_stat_database
UNION ALL SELECT 'data_read_bytes', (sum(blks_read) * current_setting('block_size')::bigint)::bigint,
  NULL FROM pg_stat_database
UNION ALL SELECT 'data_read_requests', sum(blks_read + blks_hit)::bigint, NULL FROM pg_stat_database
UNION ALL SELECT 'data_read_us',
  CASE WHEN current_setting('track_io_timing')::bool THEN (sum(blk_read_time) * 1000)::bigint END,
  'track_io_timing is off' FROM pg_stat_database
UNION ALL SELECT 'data_write_us',
  CASE WHEN current_setting('track_io_timing')::bool THEN (sum(blk_write_time) * 1000)::bigint END,
  'track_io_timing is off' FROM pg_stat_database;

-- Data writes: the checkpointer's, the background writer's (both background writes) and the
-- backends' own (a backend that found no clean buffer).

-- name: bgwriter
SELECT 'background_write_bytes' AS counter,
  ((buffers_checkpoint + buffers_clean) * current_setting('block_size')::bigint)::bigint AS value,
  NULL::text AS why FROM pg_stat_bgwriter
UNION ALL SELECT 'data_writes', (buffers_checkpoint + buffers_clean + buffers_backend)::bigint, NULL
  FROM pg_stat_bgwriter
UNION ALL SELECT 'data_write_bytes',
  ((buffers_checkpoint + buffers_clean + buffers_backend)
   * current_setting('block_size')::bigint)::bigint, NULL
  FROM pg_stat_bgwriter;

-- name: bgwriter_fallback
SELECT 'background_write_bytes' AS counter,
  ((c.buffers_written + b.buffers_clean) * current_setting('block_size')::bigint)::bigint AS value,
  NULL::text AS why FROM pg_stat_checkpointer AS c, pg_stat_bgwriter AS b
UNION ALL SELECT 'data_writes', (c.buffers_written + b.buffers_clean + io.writes)::bigint, NULL
  FROM pg_stat_checkpointer AS c, pg_stat_bgwriter AS b,
       (SELECT coalesce(sum(writes), 0) AS writes FROM pg_stat_io
        WHERE backend_type = 'client backend' AND object = 'relation') AS io
UNION ALL SELECT 'data_write_bytes',
  ((c.buffers_written + b.buffers_clean + io.writes)
   * current_setting('block_size')::bigint)::bigint, NULL
  FROM pg_stat_checkpointer AS c, pg_stat_bgwriter AS b,
       (SELECT coalesce(sum(writes), 0) AS writes FROM pg_stat_io
        WHERE backend_type = 'client backend' AND object = 'relation') AS io;

-- How far the WAL has gone past the last checkpoint's redo point (a standby in recovery has
-- no current WAL position: the query fails there, named in missing).

-- name: checkpoint_age
SELECT 'checkpoint_age_bytes' AS counter,
  pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::bigint AS value, NULL::text AS why
FROM pg_control_checkpoint();
