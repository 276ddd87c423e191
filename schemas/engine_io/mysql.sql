-- An engine's own I/O counters for MySQL and MariaDB, read off the transaction path by
-- drivebench's sampler on a session of its own. Every query returns rows of (counter, value)
-- where counter is one of drivebench's names (log_flushes, data_reads, ...), and a third
-- column saying why a NULL value is not counted; a query that fails (a view missing, an
-- account without the right) is named in the reading's `missing` list and the others still
-- count. NAME_fallback stands in for NAME where NAME does not prepare. Times are microseconds
-- (performance_schema's timers are picoseconds).
--
-- Verified on MariaDB 10.11. MariaDB 10.8 removed Innodb_os_log_fsyncs: its Innodb_data_fsyncs
-- counts every InnoDB fsync, the redo log's and the data files', and is read as log flushes
-- there (a commit-bound workload syncs the log at each commit, the data files a few times per
-- checkpoint), with data_flushes named missing. MySQL 8.0 (unverified here) keeps
-- Innodb_os_log_fsyncs, and has its status in performance_schema.global_status only (the
-- fallback), with no Innodb_checkpoint_age.
--
-- Background writes are the buffer pool's pages written back by the page cleaner
-- (Innodb_buffer_pool_pages_flushed, in pages of innodb_page_size), not Innodb_data_written,
-- which also counts the redo log and the doublewrite buffer.

-- name: innodb_status
SELECT counter, value, why FROM (
  SELECT CASE VARIABLE_NAME
           WHEN 'INNODB_LOG_WRITES' THEN 'log_writes'
           WHEN 'INNODB_OS_LOG_WRITTEN' THEN 'log_bytes'
           WHEN 'INNODB_OS_LOG_FSYNCS' THEN 'log_flushes'
           WHEN 'INNODB_DATA_READS' THEN 'data_reads'
           WHEN 'INNODB_DATA_READ' THEN 'data_read_bytes'
           WHEN 'INNODB_BUFFER_POOL_READ_REQUESTS' THEN 'data_read_requests'
           WHEN 'INNODB_DATA_WRITES' THEN 'data_writes'
           WHEN 'INNODB_DATA_WRITTEN' THEN 'data_write_bytes'
           WHEN 'INNODB_BUFFER_POOL_WAIT_FREE' THEN 'free_page_waits'
           WHEN 'INNODB_CHECKPOINT_AGE' THEN 'checkpoint_age_bytes'
           WHEN 'INNODB_DATA_PENDING_READS' THEN 'pending_io'
           WHEN 'INNODB_DATA_PENDING_WRITES' THEN 'pending_io'
           WHEN 'INNODB_DATA_PENDING_FSYNCS' THEN 'pending_io'
           WHEN 'INNODB_BUFFER_POOL_PAGES_FLUSHED' THEN 'background_write_bytes'
         END AS counter,
         CAST(VARIABLE_VALUE AS UNSIGNED)
           * IF(VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_FLUSHED', @@GLOBAL.innodb_page_size, 1)
           AS value, NULL AS why
  FROM information_schema.GLOBAL_STATUS
  WHERE VARIABLE_NAME LIKE 'INNODB%'
) AS named
WHERE counter IS NOT NULL
UNION ALL
SELECT CASE WHEN EXISTS (SELECT 1 FROM information_schema.GLOBAL_STATUS
                         WHERE VARIABLE_NAME = 'INNODB_OS_LOG_FSYNCS')
            THEN 'data_flushes' ELSE 'log_flushes' END,
       CAST(VARIABLE_VALUE AS UNSIGNED), NULL
FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_DATA_FSYNCS'
UNION ALL
SELECT 'data_flushes', NULL,
       'MariaDB 10.8 and later count log and data fsyncs together, read as log_flushes'
FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM information_schema.GLOBAL_STATUS
                            WHERE VARIABLE_NAME = 'INNODB_OS_LOG_FSYNCS');

-- name: innodb_status_fallback
SELECT counter, value, why FROM (
  SELECT CASE UPPER(VARIABLE_NAME)
           WHEN 'INNODB_LOG_WRITES' THEN 'log_writes'
           WHEN 'INNODB_OS_LOG_WRITTEN' THEN 'log_bytes'
           WHEN 'INNODB_OS_LOG_FSYNCS' THEN 'log_flushes'
           WHEN 'INNODB_DATA_READS' THEN 'data_reads'
           WHEN 'INNODB_DATA_READ' THEN 'data_read_bytes'
           WHEN 'INNODB_BUFFER_POOL_READ_REQUESTS' THEN 'data_read_requests'
           WHEN 'INNODB_DATA_WRITES' THEN 'data_writes'
           WHEN 'INNODB_DATA_WRITTEN' THEN 'data_write_bytes'
           WHEN 'INNODB_DATA_FSYNCS' THEN 'data_flushes'
           WHEN 'INNODB_BUFFER_POOL_WAIT_FREE' THEN 'free_page_waits'
           WHEN 'INNODB_DATA_PENDING_READS' THEN 'pending_io'
           WHEN 'INNODB_DATA_PENDING_WRITES' THEN 'pending_io'
           WHEN 'INNODB_DATA_PENDING_FSYNCS' THEN 'pending_io'
           WHEN 'INNODB_BUFFER_POOL_PAGES_FLUSHED' THEN 'background_write_bytes'
         END AS counter,
         CAST(VARIABLE_VALUE AS UNSIGNED)
           * IF(UPPER(VARIABLE_NAME) = 'INNODB_BUFFER_POOL_PAGES_FLUSHED', @@GLOBAL.innodb_page_size, 1)
           AS value, NULL AS why
  FROM performance_schema.global_status
  WHERE UPPER(VARIABLE_NAME) LIKE 'INNODB%'
) AS named
WHERE counter IS NOT NULL;

-- Time spent in I/O, from performance_schema's InnoDB file instruments: reads and writes of
-- data files, and the redo log's syncs (SUM_TIMER_MISC: fsync, with the rare open and close)
-- where the server instruments the log (MySQL; MariaDB 10.8 and later do not, nor do they
-- time log flushes anywhere else). A private instance turns on only these instruments and the
-- global consumer; elsewhere a value is NULL when performance_schema or the instrument is off.

-- name: file_waits
SELECT 'data_read_us' AS counter, (
         SELECT CAST(SUM_TIMER_READ / 1000000 AS UNSIGNED)
         FROM performance_schema.file_summary_by_event_name
         WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_data_file'
           AND EXISTS (SELECT 1 FROM performance_schema.setup_instruments
                       WHERE NAME = EVENT_NAME AND ENABLED = 'YES' AND TIMED = 'YES')
           AND @@GLOBAL.performance_schema = 1) AS value,
       'performance_schema or its innodb_data_file instrument is off' AS why
UNION ALL
SELECT 'data_write_us', (
         SELECT CAST(SUM_TIMER_WRITE / 1000000 AS UNSIGNED)
         FROM performance_schema.file_summary_by_event_name
         WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_data_file'
           AND EXISTS (SELECT 1 FROM performance_schema.setup_instruments
                       WHERE NAME = EVENT_NAME AND ENABLED = 'YES' AND TIMED = 'YES')
           AND @@GLOBAL.performance_schema = 1),
       'performance_schema or its innodb_data_file instrument is off'
UNION ALL
SELECT 'log_flush_us', (
         SELECT CAST(SUM_TIMER_MISC / 1000000 AS UNSIGNED)
         FROM performance_schema.file_summary_by_event_name
         WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_log_file'
           AND EXISTS (SELECT 1 FROM performance_schema.setup_instruments
                       WHERE NAME = EVENT_NAME AND ENABLED = 'YES' AND TIMED = 'YES')
           AND @@GLOBAL.performance_schema = 1),
       CASE WHEN EXISTS (SELECT 1 FROM performance_schema.setup_instruments
                         WHERE NAME = 'wait/io/file/innodb/innodb_log_file')
            THEN 'performance_schema or its innodb_log_file instrument is off'
            ELSE 'the server does not time redo log flushes (MariaDB 10.8 and later)' END;
