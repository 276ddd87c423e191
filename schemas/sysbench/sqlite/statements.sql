-- sysbench OLTP statements for SQLite. `{table}` is the table number (1-based).
-- Writers take the write lock at BEGIN (IMMEDIATE): SQLite cannot upgrade a read transaction
-- once another writer has committed, so a deferred BEGIN would turn most writes into retries.

-- name: create_table
CREATE TABLE IF NOT EXISTS sbtest{table} (
  id INTEGER NOT NULL PRIMARY KEY,
  k INTEGER NOT NULL DEFAULT 0,
  c CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT ''
);

-- name: create_index
CREATE INDEX IF NOT EXISTS k_{table} ON sbtest{table}(k);

-- name: drop_table
DROP TABLE IF EXISTS sbtest{table};

-- name: table_exists
SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'sbtest{table}';

-- name: count_rows
SELECT COUNT(*) FROM sbtest{table};

-- name: load_insert_prefix
INSERT INTO sbtest{table} (id, k, c, pad) VALUES

-- name: load_insert_row
(?, ?, ?, ?)

-- name: load_begin
BEGIN IMMEDIATE;

-- name: meta_create
CREATE TABLE IF NOT EXISTS drivebench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- name: meta_get
SELECT value FROM drivebench_meta WHERE key = ?1;

-- name: meta_put
INSERT OR REPLACE INTO drivebench_meta (key, value) VALUES (?1, ?2);

-- name: begin_read
BEGIN;

-- name: begin_write
BEGIN IMMEDIATE;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- name: point_select
SELECT c FROM sbtest{table} WHERE id = ?1;

-- name: simple_range
SELECT c FROM sbtest{table} WHERE id BETWEEN ?1 AND ?2;

-- name: sum_range
SELECT SUM(k) FROM sbtest{table} WHERE id BETWEEN ?1 AND ?2;

-- name: order_range
SELECT c FROM sbtest{table} WHERE id BETWEEN ?1 AND ?2 ORDER BY c;

-- name: distinct_range
SELECT DISTINCT c FROM sbtest{table} WHERE id BETWEEN ?1 AND ?2 ORDER BY c;

-- name: index_update
UPDATE sbtest{table} SET k = k + 1 WHERE id = ?1;

-- name: non_index_update
UPDATE sbtest{table} SET c = ?1 WHERE id = ?2;

-- name: delete
DELETE FROM sbtest{table} WHERE id = ?1;

-- name: insert
INSERT INTO sbtest{table} (id, k, c, pad) VALUES (?1, ?2, ?3, ?4);

-- name: insert_text
INSERT INTO sbtest{table} (id, k, c, pad) VALUES ({id}, {k}, '{c}', '{pad}');

-- name: insert_text_auto
INSERT INTO sbtest{table} (k, c, pad) VALUES ({k}, '{c}', '{pad}');
