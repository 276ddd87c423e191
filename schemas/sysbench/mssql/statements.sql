-- sysbench OLTP statements for Microsoft SQL Server (T-SQL). `{table}` is the table number.
-- Every statement is sent as sp_executesql with the same text and parameter declaration on
-- every call (integers bigint, text nvarchar), so SQL Server's plan cache is reused; parameters
-- are CAST to the column types so every lookup stays an index seek. BEGIN TRAN, COMMIT and
-- ROLLBACK go as plain batches. The loader's bare `@P` placeholders are numbered when prepared.

-- name: create_table
IF OBJECT_ID(N'sbtest{table}_id', N'SO') IS NULL
  CREATE SEQUENCE sbtest{table}_id AS INT START WITH 1000000000;
CREATE TABLE sbtest{table} (
  id INT NOT NULL,
  k INT NOT NULL DEFAULT 0,
  c CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  CONSTRAINT sbtest{table}_pk PRIMARY KEY CLUSTERED (id)
);

-- name: create_index
CREATE INDEX k_{table} ON sbtest{table}(k);

-- name: drop_table
IF OBJECT_ID(N'sbtest{table}', N'U') IS NOT NULL DROP TABLE sbtest{table};

-- name: table_exists
SELECT CASE WHEN OBJECT_ID(N'sbtest{table}', N'U') IS NULL THEN 0 ELSE 1 END;

-- name: count_rows
SELECT COUNT(*) FROM sbtest{table};

-- name: load_insert_prefix
INSERT INTO sbtest{table} (id, k, c, pad) VALUES

-- name: load_insert_row
(@P, @P, @P, @P)

-- name: load_begin
BEGIN TRAN;

-- name: meta_create
IF OBJECT_ID(N'drivebench_meta', N'U') IS NULL CREATE TABLE drivebench_meta (name NVARCHAR(200) NOT NULL PRIMARY KEY, value NVARCHAR(4000) NOT NULL);

-- name: meta_get
SELECT value FROM drivebench_meta WHERE name = @P1;

-- name: meta_put
IF EXISTS (SELECT 1 FROM drivebench_meta WHERE name = @P1) UPDATE drivebench_meta SET value = @P2 WHERE name = @P1 ELSE INSERT INTO drivebench_meta (name, value) VALUES (@P1, @P2);

-- name: begin_read
BEGIN TRAN;

-- name: begin_write
BEGIN TRAN;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- name: point_select
SELECT c FROM sbtest{table} WHERE id = CAST(@P1 AS INT);

-- name: simple_range
SELECT c FROM sbtest{table} WHERE id BETWEEN CAST(@P1 AS INT) AND CAST(@P2 AS INT);

-- name: sum_range
SELECT SUM(k) FROM sbtest{table} WHERE id BETWEEN CAST(@P1 AS INT) AND CAST(@P2 AS INT);

-- name: order_range
SELECT c FROM sbtest{table} WHERE id BETWEEN CAST(@P1 AS INT) AND CAST(@P2 AS INT) ORDER BY c;

-- name: distinct_range
SELECT DISTINCT c FROM sbtest{table} WHERE id BETWEEN CAST(@P1 AS INT) AND CAST(@P2 AS INT) ORDER BY c;

-- name: index_update
UPDATE sbtest{table} SET k = k + 1 WHERE id = CAST(@P1 AS INT);

-- name: non_index_update
UPDATE sbtest{table} SET c = CAST(@P1 AS CHAR(120)) WHERE id = CAST(@P2 AS INT);

-- name: delete
DELETE FROM sbtest{table} WHERE id = CAST(@P1 AS INT);

-- name: insert
INSERT INTO sbtest{table} (id, k, c, pad) VALUES (CAST(@P1 AS INT), CAST(@P2 AS INT), CAST(@P3 AS CHAR(120)), CAST(@P4 AS CHAR(60)));

-- name: insert_text
INSERT INTO sbtest{table} (id, k, c, pad) VALUES ({id}, {k}, '{c}', '{pad}');

-- oltp_insert with auto_inc: ids from the table's sequence, which starts at 1,000,000,000 so
-- it never meets the loaded ids (SQL Server's IDENTITY would refuse the loader's explicit ids).
-- name: insert_text_auto
INSERT INTO sbtest{table} (id, k, c, pad) VALUES (NEXT VALUE FOR sbtest{table}_id, {k}, '{c}', '{pad}');
