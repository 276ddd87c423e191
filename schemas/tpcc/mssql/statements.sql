-- TPC-C statements for Microsoft SQL Server (T-SQL), one per step of clause 2 (prefix no_
-- New-Order, pay_ Payment, os_ Order-Status, dl_ Delivery, sl_ Stock-Level). Rows the
-- transaction will change are read WITH (UPDLOCK, ROWLOCK). Each statement is sent as
-- sp_executesql with the same text every time; bare `@P` placeholders are numbered @P1..@Pn when
-- prepared. Integers are bound as bigint, text as nvarchar, money as its exact decimal text,
-- CAST here to NUMERIC; the last name is CAST to the column's VARCHAR so the comparison stays an
-- index seek. BEGIN TRAN, COMMIT and ROLLBACK go as plain batches.

-- name: no_warehouse
SELECT w_tax FROM warehouse WHERE w_id = @P;

-- name: no_district
SELECT d_tax, d_next_o_id FROM district WITH (UPDLOCK, ROWLOCK) WHERE d_w_id = @P AND d_id = @P;

-- name: no_district_next
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = @P AND d_id = @P;

-- name: no_customer
SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: no_insert_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (@P, @P, @P, @P, @P, NULL, @P, @P);

-- name: no_insert_new_order
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@P, @P, @P);

-- name: no_item
SELECT i_price, i_name, i_data FROM item WHERE i_id = @P;

-- name: no_stock
SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = @P AND s_w_id = @P;

-- name: no_stock_update
UPDATE stock SET s_quantity = @P, s_ytd = s_ytd + @P, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + @P WHERE s_i_id = @P AND s_w_id = @P;

-- name: no_insert_order_line
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (@P, @P, @P, @P, @P, @P, NULL, @P, CAST(@P AS NUMERIC(6,2)), @P);

-- name: pay_warehouse_ytd
UPDATE warehouse SET w_ytd = w_ytd + CAST(@P AS NUMERIC(12,2)) WHERE w_id = @P;

-- name: pay_warehouse
SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = @P;

-- name: pay_district_ytd
UPDATE district SET d_ytd = d_ytd + CAST(@P AS NUMERIC(12,2)) WHERE d_w_id = @P AND d_id = @P;

-- name: pay_district
SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = @P AND d_id = @P;

-- name: customers_by_name
SELECT c_id FROM customer WHERE c_w_id = @P AND c_d_id = @P AND c_last = CAST(@P AS VARCHAR(16)) ORDER BY c_first;

-- name: pay_customer
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer WITH (UPDLOCK, ROWLOCK) WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: pay_customer_data
SELECT c_data FROM customer WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: pay_customer_update
UPDATE customer SET c_balance = c_balance - CAST(@P AS NUMERIC(12,2)), c_ytd_payment = c_ytd_payment + CAST(@P AS NUMERIC(12,2)), c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: pay_customer_update_bc
UPDATE customer SET c_balance = c_balance - CAST(@P AS NUMERIC(12,2)), c_ytd_payment = c_ytd_payment + CAST(@P AS NUMERIC(12,2)), c_payment_cnt = c_payment_cnt + 1, c_data = @P WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: pay_insert_history
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (@P, @P, @P, @P, @P, @P, CAST(@P AS NUMERIC(6,2)), @P);

-- name: os_customer
SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: os_last_order
SELECT TOP 1 o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = @P AND o_d_id = @P AND o_c_id = @P ORDER BY o_id DESC;

-- name: os_order_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = @P AND ol_d_id = @P AND ol_o_id = @P;

-- name: dl_oldest_new_order
SELECT TOP 1 no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK) WHERE no_w_id = @P AND no_d_id = @P ORDER BY no_o_id;

-- name: dl_delete_new_order
DELETE FROM new_order WHERE no_w_id = @P AND no_d_id = @P AND no_o_id = @P;

-- name: dl_order_customer
SELECT o_c_id FROM orders WHERE o_w_id = @P AND o_d_id = @P AND o_id = @P;

-- name: dl_order_carrier
UPDATE orders SET o_carrier_id = @P WHERE o_w_id = @P AND o_d_id = @P AND o_id = @P;

-- name: dl_order_lines_delivered
UPDATE order_line SET ol_delivery_d = @P WHERE ol_w_id = @P AND ol_d_id = @P AND ol_o_id = @P;

-- name: dl_order_total
SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = @P AND ol_d_id = @P AND ol_o_id = @P;

-- name: dl_customer_update
UPDATE customer SET c_balance = c_balance + CAST(@P AS NUMERIC(12,2)), c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = @P AND c_d_id = @P AND c_id = @P;

-- name: sl_district_next
SELECT d_next_o_id FROM district WHERE d_w_id = @P AND d_id = @P;

-- name: sl_low_stock
SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = @P AND ol_d_id = @P AND ol_o_id < @P AND ol_o_id >= @P AND s_w_id = @P AND s_i_id = ol_i_id AND s_quantity < @P;

-- name: begin
BEGIN TRAN;

-- Order-Status and Stock-Level only read.
-- name: begin_read
BEGIN TRAN;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- The parameter mark, for statements built from column lists (the loader's INSERTs).
-- name: placeholder
@P

-- The load record, shared with sysbench (same table, keys prefixed by benchmark).

-- name: meta_create
IF OBJECT_ID(N'drivebench_meta', N'U') IS NULL CREATE TABLE drivebench_meta (name NVARCHAR(200) NOT NULL PRIMARY KEY, value NVARCHAR(4000) NOT NULL);

-- name: meta_get
SELECT value FROM drivebench_meta WHERE name = @P1;

-- name: meta_put
IF EXISTS (SELECT 1 FROM drivebench_meta WHERE name = @P1) UPDATE drivebench_meta SET value = @P2 WHERE name = @P1 ELSE INSERT INTO drivebench_meta (name, value) VALUES (@P1, @P2);

-- NOPM: Σ D_NEXT_O_ID of every district, read at phase boundaries.
-- name: sum_next_o_id
SELECT SUM(CAST(d_next_o_id AS BIGINT)) FROM district;
