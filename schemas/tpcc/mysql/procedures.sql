-- TPC-C as stored procedures for MySQL and MariaDB (`procedures = true`): one call per
-- transaction, the transaction begun, committed or rolled back inside the procedure, so a
-- transaction is one round trip. Each procedure reads and writes what the client-side statements
-- of statements.sql do, step by step, in the same order: the same rows and columns, the same
-- values, the same locking reads (FOR UPDATE), the read-only transactions started READ ONLY.
-- Values the terminal would show are read into variables and go no further. Each ends with one
-- row: `rolled_back` (1 only for the New-Order whose last item is unused, 2.4.2.3), and for
-- Delivery `skipped` (its districts with no undelivered order, 2.7.4.2). A missing row is an
-- error (SIGNAL): the client rolls back what the procedure left open. Dropped and created again
-- once per instance before the phases. Parameters and variables are prefixed p_ and v_ so that
-- none of them shadows a column.

-- name: drop_new_order
DROP PROCEDURE IF EXISTS drivebench_new_order;

-- name: create_new_order
CREATE PROCEDURE drivebench_new_order(
  p_w_id INT, p_d_id INT, p_c_id INT, p_ol_cnt INT, p_all_local INT, p_entry_d DATETIME,
  p_i1 INT, p_s1 INT, p_q1 INT, p_i2 INT, p_s2 INT, p_q2 INT, p_i3 INT, p_s3 INT, p_q3 INT,
  p_i4 INT, p_s4 INT, p_q4 INT, p_i5 INT, p_s5 INT, p_q5 INT, p_i6 INT, p_s6 INT, p_q6 INT,
  p_i7 INT, p_s7 INT, p_q7 INT, p_i8 INT, p_s8 INT, p_q8 INT, p_i9 INT, p_s9 INT, p_q9 INT,
  p_i10 INT, p_s10 INT, p_q10 INT, p_i11 INT, p_s11 INT, p_q11 INT, p_i12 INT, p_s12 INT, p_q12 INT,
  p_i13 INT, p_s13 INT, p_q13 INT, p_i14 INT, p_s14 INT, p_q14 INT, p_i15 INT, p_s15 INT, p_q15 INT)
BEGIN
  DECLARE v_w_tax, v_d_tax, v_c_discount DECIMAL(4,4);
  DECLARE v_o_id, v_n, v_i_id, v_supply, v_qty, v_s_quantity INT;
  DECLARE v_c_last VARCHAR(16);
  DECLARE v_c_credit CHAR(2);
  DECLARE v_i_price DECIMAL(5,2);
  DECLARE v_i_name VARCHAR(24);
  DECLARE v_i_data, v_s_data VARCHAR(50);
  DECLARE v_d1, v_d2, v_d3, v_d4, v_d5, v_d6, v_d7, v_d8, v_d9, v_d10 CHAR(24);
  DECLARE v_amount DECIMAL(6,2);
  DECLARE v_total DECIMAL(12,2) DEFAULT 0;
  DECLARE v_brand CHAR(1);
  DECLARE v_rolled_back INT DEFAULT 0;
  START TRANSACTION;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;
  IF v_w_tax IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no warehouse row: the TPC-C data is incomplete (reload it)';
  END IF;
  SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district
    WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;
  IF v_o_id IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no district row: the TPC-C data is incomplete (reload it)';
  END IF;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT c_discount, c_last, c_credit INTO v_c_discount, v_c_last, v_c_credit FROM customer
    WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  IF v_c_discount IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer row: the TPC-C data is incomplete (reload it)';
  END IF;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d_id, p_w_id, p_c_id, p_entry_d, NULL, p_ol_cnt, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
  SET v_n = 1;
  order_lines: WHILE v_n <= p_ol_cnt DO
    SET v_i_id = ELT(v_n, p_i1, p_i2, p_i3, p_i4, p_i5, p_i6, p_i7, p_i8, p_i9, p_i10, p_i11, p_i12, p_i13, p_i14, p_i15);
    SET v_supply = ELT(v_n, p_s1, p_s2, p_s3, p_s4, p_s5, p_s6, p_s7, p_s8, p_s9, p_s10, p_s11, p_s12, p_s13, p_s14, p_s15);
    SET v_qty = ELT(v_n, p_q1, p_q2, p_q3, p_q4, p_q5, p_q6, p_q7, p_q8, p_q9, p_q10, p_q11, p_q12, p_q13, p_q14, p_q15);
    SET v_i_price = NULL;
    SELECT i_price, i_name, i_data INTO v_i_price, v_i_name, v_i_data FROM item WHERE i_id = v_i_id;
    IF v_i_price IS NULL THEN
      -- Only the last line's deliberately unused item may be missing (2.4.2.3).
      IF v_n < p_ol_cnt THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no item row: the TPC-C data is incomplete (reload it)';
      END IF;
      SET v_rolled_back = 1;
      LEAVE order_lines;
    END IF;
    SET v_s_quantity = NULL;
    SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06,
        s_dist_07, s_dist_08, s_dist_09, s_dist_10
      INTO v_s_quantity, v_s_data, v_d1, v_d2, v_d3, v_d4, v_d5, v_d6, v_d7, v_d8, v_d9, v_d10
      FROM stock WHERE s_i_id = v_i_id AND s_w_id = v_supply FOR UPDATE;
    IF v_s_quantity IS NULL THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no stock row: the TPC-C data is incomplete (reload it)';
    END IF;
    UPDATE stock SET s_quantity = IF(v_s_quantity - v_qty >= 10, v_s_quantity - v_qty, v_s_quantity - v_qty + 91),
        s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + IF(v_supply = p_w_id, 0, 1)
      WHERE s_i_id = v_i_id AND s_w_id = v_supply;
    SET v_amount = v_qty * v_i_price;
    -- Brand-generic is shown on the terminal only: computed, stored nowhere.
    SET v_brand = IF(v_i_data LIKE '%ORIGINAL%' AND v_s_data LIKE '%ORIGINAL%', 'B', 'G');
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o_id, p_d_id, p_w_id, v_n, v_i_id, v_supply, NULL, v_qty, v_amount,
        ELT(p_d_id, v_d1, v_d2, v_d3, v_d4, v_d5, v_d6, v_d7, v_d8, v_d9, v_d10));
    SET v_total = v_total + v_amount;
    SET v_n = v_n + 1;
  END WHILE order_lines;
  IF v_rolled_back = 1 THEN
    -- An unused item rolls the whole order back.
    ROLLBACK;
  ELSE
    SET v_total = v_total * (1 - v_c_discount) * (1 + v_w_tax + v_d_tax);
    COMMIT;
  END IF;
  SELECT v_rolled_back AS rolled_back;
END;

-- name: drop_payment
DROP PROCEDURE IF EXISTS drivebench_payment;

-- name: create_payment
CREATE PROCEDURE drivebench_payment(
  p_w_id INT, p_d_id INT, p_c_w_id INT, p_c_d_id INT, p_c_id INT, p_c_last VARCHAR(16),
  p_h_amount DECIMAL(6,2), p_h_date DATETIME)
BEGIN
  DECLARE v_w_name, v_d_name VARCHAR(10);
  DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);
  DECLARE v_w_state, v_d_state, v_c_middle, v_c_state, v_c_credit CHAR(2);
  DECLARE v_w_zip, v_d_zip, v_c_zip CHAR(9);
  DECLARE v_c_id, v_n INT;
  DECLARE v_c_first, v_c_last VARCHAR(16);
  DECLARE v_c_street_1, v_c_street_2, v_c_city VARCHAR(20);
  DECLARE v_c_phone CHAR(16);
  DECLARE v_c_since DATETIME;
  DECLARE v_c_credit_lim, v_c_balance DECIMAL(12,2);
  DECLARE v_c_discount DECIMAL(4,4);
  DECLARE v_c_data VARCHAR(500);
  START TRANSACTION;
  UPDATE warehouse SET w_ytd = w_ytd + p_h_amount WHERE w_id = p_w_id;
  SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip
    INTO v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip
    FROM warehouse WHERE w_id = p_w_id;
  UPDATE district SET d_ytd = d_ytd + p_h_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip
    INTO v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip
    FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SET v_c_id = p_c_id;
  IF v_c_id IS NULL THEN
    -- By last name: the customer at position ceil(n/2) ordered by first name (2.5.2.2).
    SELECT COUNT(*) INTO v_n FROM customer
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer of that last name: the TPC-C data is incomplete (reload it)';
    END IF;
    SET v_n = (v_n - 1) DIV 2;
    SELECT c_id INTO v_c_id FROM customer
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
      ORDER BY c_first LIMIT v_n, 1;
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
      c_since, c_credit, c_credit_lim, c_discount, c_balance
    INTO v_c_first, v_c_middle, v_c_last, v_c_street_1, v_c_street_2, v_c_city, v_c_state, v_c_zip,
      v_c_phone, v_c_since, v_c_credit, v_c_credit_lim, v_c_discount, v_c_balance
    FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id FOR UPDATE;
  IF v_c_credit IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer row: the TPC-C data is incomplete (reload it)';
  END IF;
  IF v_c_credit = 'BC' THEN
    -- Bad credit: the ids and the amount go in front of C_DATA, kept to 500 characters.
    SELECT c_data INTO v_c_data FROM customer
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
    UPDATE customer SET c_balance = c_balance - p_h_amount, c_ytd_payment = c_ytd_payment + p_h_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = LEFT(CONCAT(v_c_id, ' ', p_c_d_id, ' ', p_c_w_id, ' ', p_d_id, ' ', p_w_id, ' ',
          p_h_amount, ' | ', IFNULL(v_c_data, '')), 500)
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  ELSE
    UPDATE customer SET c_balance = c_balance - p_h_amount, c_ytd_payment = c_ytd_payment + p_h_amount,
        c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_h_date, p_h_amount,
      CONCAT(IFNULL(v_w_name, ''), '    ', IFNULL(v_d_name, '')));
  COMMIT;
  SELECT 0 AS rolled_back;
END;

-- name: drop_order_status
DROP PROCEDURE IF EXISTS drivebench_order_status;

-- name: create_order_status
CREATE PROCEDURE drivebench_order_status(p_w_id INT, p_d_id INT, p_c_id INT, p_c_last VARCHAR(16))
BEGIN
  DECLARE v_c_id, v_n, v_o_id INT;
  DECLARE v_c_balance DECIMAL(12,2);
  DECLARE v_c_first, v_c_last VARCHAR(16);
  DECLARE v_c_middle CHAR(2);
  DECLARE v_o_entry_d DATETIME;
  DECLARE v_o_carrier_id INT;
  START TRANSACTION READ ONLY;
  SET v_c_id = p_c_id;
  IF v_c_id IS NULL THEN
    SELECT COUNT(*) INTO v_n FROM customer
      WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer of that last name: the TPC-C data is incomplete (reload it)';
    END IF;
    SET v_n = (v_n - 1) DIV 2;
    SELECT c_id INTO v_c_id FROM customer
      WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last
      ORDER BY c_first LIMIT v_n, 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_c_balance, v_c_first, v_c_middle, v_c_last
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
  IF v_c_balance IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer row: the TPC-C data is incomplete (reload it)';
  END IF;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_o_entry_d, v_o_carrier_id FROM orders
    WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id ORDER BY o_id DESC LIMIT 1;
  IF v_o_id IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no order of the customer: the TPC-C data is incomplete (reload it)';
  END IF;
  -- Every line of the order is fetched, as the client-side form fetches them.
  BEGIN
    DECLARE v_done INT DEFAULT 0;
    DECLARE v_ol_i_id, v_ol_supply_w_id, v_ol_quantity INT;
    DECLARE v_ol_amount DECIMAL(6,2);
    DECLARE v_ol_delivery_d DATETIME;
    DECLARE order_lines CURSOR FOR
      SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
        WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_done = 1;
    OPEN order_lines;
    fetch_lines: LOOP
      FETCH order_lines INTO v_ol_i_id, v_ol_supply_w_id, v_ol_quantity, v_ol_amount, v_ol_delivery_d;
      IF v_done = 1 THEN
        LEAVE fetch_lines;
      END IF;
    END LOOP fetch_lines;
    CLOSE order_lines;
  END;
  COMMIT;
  SELECT 0 AS rolled_back;
END;

-- name: drop_delivery
DROP PROCEDURE IF EXISTS drivebench_delivery;

-- name: create_delivery
CREATE PROCEDURE drivebench_delivery(p_w_id INT, p_o_carrier_id INT, p_delivery_d DATETIME)
BEGIN
  DECLARE v_d, v_o_id, v_c_id INT;
  DECLARE v_total DECIMAL(12,2);
  DECLARE v_skipped INT DEFAULT 0;
  START TRANSACTION;
  SET v_d = 1;
  WHILE v_d <= 10 DO
    SET v_o_id = NULL;
    SELECT no_o_id INTO v_o_id FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d
      ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_o_id IS NULL THEN
      -- Reported against the 1 % rule of 2.7.4.2, not an error.
      SET v_skipped = v_skipped + 1;
    ELSE
      DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d AND no_o_id = v_o_id;
      SET v_c_id = NULL;
      SELECT o_c_id INTO v_c_id FROM orders WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o_id;
      IF v_c_id IS NULL THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no order row: the TPC-C data is incomplete (reload it)';
      END IF;
      UPDATE orders SET o_carrier_id = p_o_carrier_id
        WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o_id;
      UPDATE order_line SET ol_delivery_d = p_delivery_d
        WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o_id;
      SELECT SUM(ol_amount) INTO v_total FROM order_line
        WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o_id;
      UPDATE customer SET c_balance = c_balance + IFNULL(v_total, 0), c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w_id AND c_d_id = v_d AND c_id = v_c_id;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
  SELECT 0 AS rolled_back, v_skipped AS skipped;
END;

-- name: drop_stock_level
DROP PROCEDURE IF EXISTS drivebench_stock_level;

-- name: create_stock_level
CREATE PROCEDURE drivebench_stock_level(p_w_id INT, p_d_id INT, p_threshold INT)
BEGIN
  DECLARE v_next, v_low_stock INT;
  START TRANSACTION READ ONLY;
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  IF v_next IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no district row: the TPC-C data is incomplete (reload it)';
  END IF;
  SELECT COUNT(DISTINCT s_i_id) INTO v_low_stock FROM order_line, stock
    WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id < v_next AND ol_o_id >= v_next - 20
      AND s_w_id = p_w_id AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  COMMIT;
  -- The answer row carries the count the terminal shows.
  SELECT 0 AS rolled_back, v_low_stock AS low_stock;
END;

-- The calls, one per transaction.

-- name: call_new_order
CALL drivebench_new_order(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- name: call_payment
CALL drivebench_payment(?, ?, ?, ?, ?, ?, ?, ?);

-- name: call_order_status
CALL drivebench_order_status(?, ?, ?, ?);

-- name: call_delivery
CALL drivebench_delivery(?, ?, ?);

-- name: call_stock_level
CALL drivebench_stock_level(?, ?, ?);
