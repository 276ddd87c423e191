-- TPC-C schema for Microsoft SQL Server (T-SQL): the nine tables of clause 1.3 with their
-- clustered primary keys, and the two secondary indexes the transactions need (customer by last
-- name, orders by customer). Money and rates are NUMERIC; times DATETIME, as the SQL Server TPC-C
-- kits use (the workloads bind "YYYY-MM-DD HH:MM:SS" text; every session runs SET DATEFORMAT ymd,
-- so it reads the same whatever the login's language).

-- name: create_warehouse
IF OBJECT_ID(N'warehouse', N'U') IS NULL
CREATE TABLE warehouse (
  w_id INT NOT NULL,
  w_name VARCHAR(10),
  w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20),
  w_city VARCHAR(20),
  w_state CHAR(2),
  w_zip CHAR(9),
  w_tax NUMERIC(4,4),
  w_ytd NUMERIC(12,2),
  PRIMARY KEY (w_id)
);

-- name: create_district
IF OBJECT_ID(N'district', N'U') IS NULL
CREATE TABLE district (
  d_id SMALLINT NOT NULL,
  d_w_id INT NOT NULL,
  d_name VARCHAR(10),
  d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20),
  d_city VARCHAR(20),
  d_state CHAR(2),
  d_zip CHAR(9),
  d_tax NUMERIC(4,4),
  d_ytd NUMERIC(12,2),
  d_next_o_id INT,
  PRIMARY KEY (d_w_id, d_id)
);

-- name: create_customer
IF OBJECT_ID(N'customer', N'U') IS NULL
CREATE TABLE customer (
  c_id INT NOT NULL,
  c_d_id SMALLINT NOT NULL,
  c_w_id INT NOT NULL,
  c_first VARCHAR(16),
  c_middle CHAR(2),
  c_last VARCHAR(16),
  c_street_1 VARCHAR(20),
  c_street_2 VARCHAR(20),
  c_city VARCHAR(20),
  c_state CHAR(2),
  c_zip CHAR(9),
  c_phone CHAR(16),
  c_since DATETIME,
  c_credit CHAR(2),
  c_credit_lim NUMERIC(12,2),
  c_discount NUMERIC(4,4),
  c_balance NUMERIC(12,2),
  c_ytd_payment NUMERIC(12,2),
  c_payment_cnt INT,
  c_delivery_cnt INT,
  c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)
);

-- name: create_history
IF OBJECT_ID(N'history', N'U') IS NULL
CREATE TABLE history (
  h_c_id INT,
  h_c_d_id SMALLINT,
  h_c_w_id INT,
  h_d_id SMALLINT,
  h_w_id INT,
  h_date DATETIME,
  h_amount NUMERIC(6,2),
  h_data VARCHAR(24)
);

-- name: create_orders
IF OBJECT_ID(N'orders', N'U') IS NULL
CREATE TABLE orders (
  o_id INT NOT NULL,
  o_d_id SMALLINT NOT NULL,
  o_w_id INT NOT NULL,
  o_c_id INT,
  o_entry_d DATETIME,
  o_carrier_id SMALLINT,
  o_ol_cnt SMALLINT,
  o_all_local SMALLINT,
  PRIMARY KEY (o_w_id, o_d_id, o_id)
);

-- name: create_new_order
IF OBJECT_ID(N'new_order', N'U') IS NULL
CREATE TABLE new_order (
  no_o_id INT NOT NULL,
  no_d_id SMALLINT NOT NULL,
  no_w_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
);

-- name: create_order_line
IF OBJECT_ID(N'order_line', N'U') IS NULL
CREATE TABLE order_line (
  ol_o_id INT NOT NULL,
  ol_d_id SMALLINT NOT NULL,
  ol_w_id INT NOT NULL,
  ol_number SMALLINT NOT NULL,
  ol_i_id INT,
  ol_supply_w_id INT,
  ol_delivery_d DATETIME,
  ol_quantity SMALLINT,
  ol_amount NUMERIC(6,2),
  ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
);

-- name: create_item
IF OBJECT_ID(N'item', N'U') IS NULL
CREATE TABLE item (
  i_id INT NOT NULL,
  i_im_id INT,
  i_name VARCHAR(24),
  i_price NUMERIC(5,2),
  i_data VARCHAR(50),
  PRIMARY KEY (i_id)
);

-- name: create_stock
IF OBJECT_ID(N'stock', N'U') IS NULL
CREATE TABLE stock (
  s_i_id INT NOT NULL,
  s_w_id INT NOT NULL,
  s_quantity SMALLINT,
  s_dist_01 CHAR(24),
  s_dist_02 CHAR(24),
  s_dist_03 CHAR(24),
  s_dist_04 CHAR(24),
  s_dist_05 CHAR(24),
  s_dist_06 CHAR(24),
  s_dist_07 CHAR(24),
  s_dist_08 CHAR(24),
  s_dist_09 CHAR(24),
  s_dist_10 CHAR(24),
  s_ytd INT,
  s_order_cnt SMALLINT,
  s_remote_cnt SMALLINT,
  s_data VARCHAR(50),
  PRIMARY KEY (s_w_id, s_i_id)
);

-- name: create_index_customer_by_name
CREATE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first);

-- name: create_index_orders_by_customer
CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);

-- name: drop_tables
IF OBJECT_ID(N'warehouse', N'U') IS NOT NULL DROP TABLE warehouse;
IF OBJECT_ID(N'district', N'U') IS NOT NULL DROP TABLE district;
IF OBJECT_ID(N'customer', N'U') IS NOT NULL DROP TABLE customer;
IF OBJECT_ID(N'history', N'U') IS NOT NULL DROP TABLE history;
IF OBJECT_ID(N'orders', N'U') IS NOT NULL DROP TABLE orders;
IF OBJECT_ID(N'new_order', N'U') IS NOT NULL DROP TABLE new_order;
IF OBJECT_ID(N'order_line', N'U') IS NOT NULL DROP TABLE order_line;
IF OBJECT_ID(N'item', N'U') IS NOT NULL DROP TABLE item;
IF OBJECT_ID(N'stock', N'U') IS NOT NULL DROP TABLE stock;
