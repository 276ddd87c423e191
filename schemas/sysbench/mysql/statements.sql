-- sysbench OLTP statements for MySQL and MariaDB (InnoDB). `{table}` is the table number.
-- BEGIN, COMMIT and ROLLBACK go over the text protocol; everything else is a server-side
-- prepared statement, prepared once per connection.

-- name: create_table
CREATE TABLE IF NOT EXISTS sbtest{table} (
  id INTEGER NOT NULL AUTO_INCREMENT,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- name: create_index
CREATE INDEX k_{table} ON sbtest{table}(k);

-- name: drop_table
DROP TABLE IF EXISTS sbtest{table};

-- name: table_exists
SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'sbtest{table}';

-- name: count_rows
SELECT COUNT(*) FROM sbtest{table};

-- name: load_insert_prefix
INSERT INTO sbtest{table} (id, k, c, pad) VALUES

-- name: load_insert_row
(?, ?, ?, ?)

-- name: load_begin
BEGIN;

-- name: meta_create
CREATE TABLE IF NOT EXISTS drivebench_meta (name VARCHAR(64) NOT NULL PRIMARY KEY, value TEXT NOT NULL) ENGINE = InnoDB;

-- name: meta_get
SELECT value FROM drivebench_meta WHERE name = ?;

-- name: meta_put
REPLACE INTO drivebench_meta (name, value) VALUES (?, ?);

-- name: begin_read
BEGIN;

-- name: begin_write
BEGIN;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- name: point_select
SELECT c FROM sbtest{table} WHERE id = ?;

-- name: simple_range
SELECT c FROM sbtest{table} WHERE id BETWEEN ? AND ?;

-- name: sum_range
SELECT SUM(k) FROM sbtest{table} WHERE id BETWEEN ? AND ?;

-- name: order_range
SELECT c FROM sbtest{table} WHERE id BETWEEN ? AND ? ORDER BY c;

-- name: distinct_range
SELECT DISTINCT c FROM sbtest{table} WHERE id BETWEEN ? AND ? ORDER BY c;

-- name: index_update
UPDATE sbtest{table} SET k = k + 1 WHERE id = ?;

-- name: non_index_update
UPDATE sbtest{table} SET c = ? WHERE id = ?;

-- name: delete
DELETE FROM sbtest{table} WHERE id = ?;

-- name: insert
INSERT INTO sbtest{table} (id, k, c, pad) VALUES (?, ?, ?, ?);

-- name: insert_text
INSERT INTO sbtest{table} (id, k, c, pad) VALUES ({id}, {k}, '{c}', '{pad}');

-- name: insert_text_auto
INSERT INTO sbtest{table} (id, k, c, pad) VALUES (0, {k}, '{c}', '{pad}');
