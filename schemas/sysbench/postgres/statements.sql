-- sysbench OLTP statements for PostgreSQL. `{table}` is the table number. Every statement is
-- prepared once per connection (BEGIN/COMMIT/ROLLBACK included) and bound with typed parameters.

-- name: create_table
CREATE TABLE IF NOT EXISTS sbtest{table} (
  id SERIAL NOT NULL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
);

-- name: load_create_table
-- The table as the load creates it: create_table without its primary key, which
-- load_primary_key adds once the rows are in. One sorted build of the key's index takes less
-- of the server than one index insert per row; the key, its index and their names end up as
-- create_table's.
CREATE TABLE IF NOT EXISTS sbtest{table} (
  id SERIAL NOT NULL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL
);

-- name: load_primary_key
ALTER TABLE sbtest{table} ADD PRIMARY KEY (id);

-- name: create_index
CREATE INDEX IF NOT EXISTS k_{table} ON sbtest{table}(k);

-- name: drop_table
DROP TABLE IF EXISTS sbtest{table};

-- name: table_exists
SELECT COUNT(*)::int8 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'sbtest{table}';

-- name: count_rows
SELECT COUNT(*)::int8 FROM sbtest{table};

-- name: load_insert_prefix
INSERT INTO sbtest{table} (id, k, c, pad) VALUES

-- name: load_insert_row
($, $, $, $)

-- name: load_begin
BEGIN;

-- name: meta_create
CREATE TABLE IF NOT EXISTS drivebench_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);

-- name: meta_get
SELECT value FROM drivebench_meta WHERE name = $1;

-- name: meta_put
INSERT INTO drivebench_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;

-- name: begin_read
BEGIN;

-- name: begin_write
BEGIN;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- name: point_select
SELECT c FROM sbtest{table} WHERE id = $1::int4;

-- name: simple_range
SELECT c FROM sbtest{table} WHERE id BETWEEN $1::int4 AND $2::int4;

-- name: sum_range
SELECT SUM(k) FROM sbtest{table} WHERE id BETWEEN $1::int4 AND $2::int4;

-- name: order_range
SELECT c FROM sbtest{table} WHERE id BETWEEN $1::int4 AND $2::int4 ORDER BY c;

-- name: distinct_range
SELECT DISTINCT c FROM sbtest{table} WHERE id BETWEEN $1::int4 AND $2::int4 ORDER BY c;

-- name: index_update
UPDATE sbtest{table} SET k = k + 1 WHERE id = $1::int4;

-- name: non_index_update
UPDATE sbtest{table} SET c = $1::text WHERE id = $2::int4;

-- name: delete
DELETE FROM sbtest{table} WHERE id = $1::int4;

-- name: insert
INSERT INTO sbtest{table} (id, k, c, pad) VALUES ($1::int4, $2::int4, $3::text, $4::text);

-- name: insert_text
INSERT INTO sbtest{table} (id, k, c, pad) VALUES ({id}, {k}, '{c}', '{pad}');

-- name: insert_text_auto
INSERT INTO sbtest{table} (k, c, pad) VALUES ({k}, '{c}', '{pad}');
