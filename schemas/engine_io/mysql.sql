-- An engine's own I/O counters for MySQL and MariaDB, read off the transaction path by
-- drivebench's sampler on a session of its own. Every query returns rows of (counter, value)
-- where counter is one of drivebench's names (log_flushes, data_reads, ...); a query that
-- fails (a view missing, performance_schema off) is named in the reading's `missing` list and
-- the others still count. Times are microseconds (performance_schema's timers are picoseconds).

-- name: innodb_status
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
         WHEN 'INNODB_CHECKPOINT_AGE' THEN 'checkpoint_age_bytes'
       END AS counter,
       CAST(VARIABLE_VALUE AS UNSIGNED) AS value
FROM information_schema.GLOBAL_STATUS
WHERE UPPER(VARIABLE_NAME) IN ('INNODB_LOG_WRITES', 'INNODB_OS_LOG_WRITTEN', 'INNODB_OS_LOG_FSYNCS',
  'INNODB_DATA_READS', 'INNODB_DATA_READ', 'INNODB_BUFFER_POOL_READ_REQUESTS',
  'INNODB_DATA_WRITES', 'INNODB_DATA_WRITTEN', 'INNODB_DATA_FSYNCS',
  'INNODB_BUFFER_POOL_WAIT_FREE', 'INNODB_DATA_PENDING_READS', 'INNODB_DATA_PENDING_WRITES',
  'INNODB_DATA_PENDING_FSYNCS', 'INNODB_CHECKPOINT_AGE');

-- name: file_waits
SELECT CASE
         WHEN EVENT_NAME = 'wait/io/file/innodb/innodb_log_file' THEN 'log_flush_us'
         ELSE 'data_read_us'
       END AS counter,
       CAST(CASE
         WHEN EVENT_NAME = 'wait/io/file/innodb/innodb_log_file' THEN SUM_TIMER_MISC
         ELSE SUM_TIMER_READ
       END / 1000000 AS UNSIGNED) AS value
FROM performance_schema.file_summary_by_event_name
WHERE EVENT_NAME IN ('wait/io/file/innodb/innodb_log_file', 'wait/io/file/innodb/innodb_data_file')
UNION ALL
SELECT 'data_write_us', CAST(SUM_TIMER_WRITE / 1000000 AS UNSIGNED)
FROM performance_schema.file_summary_by_event_name
WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_data_file';
