-- TPC-C statements for PostgreSQL, one per step of clause 2 (prefix no_ New-Order, pay_
-- Payment, os_ Order-Status, dl_ Delivery, sl_ Stock-Level). Rows the transaction will change
-- are read FOR UPDATE. Bare `$` placeholders are numbered when prepared.

-- name: no_warehouse
SELECT w_tax FROM warehouse WHERE w_id = $;

-- name: no_district
SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = $ AND d_id = $ FOR UPDATE;

-- name: no_district_next
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $ AND d_id = $;

-- name: no_customer
SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $ AND c_d_id = $ AND c_id = $;

-- name: no_insert_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES ($, $, $, $, $, NULL, $, $);

-- name: no_insert_new_order
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($, $, $);

-- name: no_item
SELECT i_price, i_name, i_data FROM item WHERE i_id = $;

-- name: no_stock
SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_i_id = $ AND s_w_id = $ FOR UPDATE;

-- name: no_stock_update
UPDATE stock SET s_quantity = $, s_ytd = s_ytd + $, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $ WHERE s_i_id = $ AND s_w_id = $;

-- name: no_insert_order_line
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ($, $, $, $, $, $, NULL, $, $, $);

-- name: pay_warehouse_ytd
UPDATE warehouse SET w_ytd = w_ytd + $ WHERE w_id = $;

-- name: pay_warehouse
SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = $;

-- name: pay_district_ytd
UPDATE district SET d_ytd = d_ytd + $ WHERE d_w_id = $ AND d_id = $;

-- name: pay_district
SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = $ AND d_id = $;

-- name: customers_by_name
SELECT c_id FROM customer WHERE c_w_id = $ AND c_d_id = $ AND c_last = $ ORDER BY c_first;

-- name: pay_customer
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer WHERE c_w_id = $ AND c_d_id = $ AND c_id = $ FOR UPDATE;

-- name: pay_customer_data
SELECT c_data FROM customer WHERE c_w_id = $ AND c_d_id = $ AND c_id = $;

-- name: pay_customer_update
UPDATE customer SET c_balance = c_balance - $, c_ytd_payment = c_ytd_payment + $, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = $ AND c_d_id = $ AND c_id = $;

-- name: pay_customer_update_bc
UPDATE customer SET c_balance = c_balance - $, c_ytd_payment = c_ytd_payment + $, c_payment_cnt = c_payment_cnt + 1, c_data = $ WHERE c_w_id = $ AND c_d_id = $ AND c_id = $;

-- name: pay_insert_history
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($, $, $, $, $, $, $, $);

-- name: os_customer
SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $ AND c_d_id = $ AND c_id = $;

-- name: os_last_order
SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = $ AND o_d_id = $ AND o_c_id = $ ORDER BY o_id DESC LIMIT 1;

-- name: os_order_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $ AND ol_d_id = $ AND ol_o_id = $;

-- name: dl_oldest_new_order
SELECT no_o_id FROM new_order WHERE no_w_id = $ AND no_d_id = $ ORDER BY no_o_id LIMIT 1 FOR UPDATE;

-- name: dl_delete_new_order
DELETE FROM new_order WHERE no_w_id = $ AND no_d_id = $ AND no_o_id = $;

-- name: dl_order_customer
SELECT o_c_id FROM orders WHERE o_w_id = $ AND o_d_id = $ AND o_id = $;

-- name: dl_order_carrier
UPDATE orders SET o_carrier_id = $ WHERE o_w_id = $ AND o_d_id = $ AND o_id = $;

-- name: dl_order_lines_delivered
UPDATE order_line SET ol_delivery_d = $ WHERE ol_w_id = $ AND ol_d_id = $ AND ol_o_id = $;

-- name: dl_order_total
SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = $ AND ol_d_id = $ AND ol_o_id = $;

-- name: dl_customer_update
UPDATE customer SET c_balance = c_balance + $, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $ AND c_d_id = $ AND c_id = $;

-- name: sl_district_next
SELECT d_next_o_id FROM district WHERE d_w_id = $ AND d_id = $;

-- name: sl_low_stock
SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = $ AND ol_d_id = $ AND ol_o_id < $ AND ol_o_id >= $ AND s_w_id = $ AND s_i_id = ol_i_id AND s_quantity < $;

-- name: begin
BEGIN;

-- Order-Status and Stock-Level only read.
-- name: begin_read
BEGIN READ ONLY;

-- name: commit
COMMIT;

-- name: rollback
ROLLBACK;

-- The parameter mark, for statements built from column lists (the loader's INSERTs).
-- name: placeholder
$

-- The load record, shared with sysbench (same table, keys prefixed by benchmark).

-- name: meta_create
CREATE TABLE IF NOT EXISTS drivebench_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);

-- name: meta_get
SELECT value FROM drivebench_meta WHERE name = $1;

-- name: meta_put
INSERT INTO drivebench_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;

-- NOPM: Σ D_NEXT_O_ID of every district, read at phase boundaries.
-- name: sum_next_o_id
SELECT SUM(d_next_o_id) FROM district;
