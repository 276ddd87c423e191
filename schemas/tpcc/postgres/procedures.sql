-- TPC-C as stored procedures for PostgreSQL (`procedures = true`): one call per transaction, so
-- a transaction is one round trip. Each procedure reads and writes the rows the client-side
-- statements of statements.sql do, step by step, with the same values, the same locking reads
-- (FOR UPDATE) and in the same order, and answers one row: `rolled_back` (1 only for the
-- New-Order whose last item is unused, 2.4.2.3), and for Delivery `skipped` (its districts
-- with no undelivered order, 2.7.4.2). Dropped and created again once per instance before the
-- phases.
--
-- Form: PL/pgSQL PROCEDUREs run by CALL outside any transaction block, answering through INOUT
-- arguments (passed as typed NULLs in the call). Why not FUNCTIONs run by SELECT:
--   * the unused-item New-Order rolls back with ROLLBACK inside the procedure and still answers
--     its row; a function can only undo its writes by raising an error (an error round trip,
--     mapped back by the client) or by an EXCEPTION sub-block, which makes every New-Order a
--     subtransaction, work the client-side form does not do;
--   * CALL with ROLLBACK inside works over the extended protocol, so the call is prepared once
--     per connection like every client-side statement;
--   * the CALL's implicit transaction, and the one a ROLLBACK starts, take the session's
--     default level, which `workload.isolation` sets (SET SESSION CHARACTERISTICS), as BEGIN
--     does in the client-side form; Order-Status and Stock-Level make theirs READ ONLY first,
--     as BEGIN READ ONLY does.
-- A failed call (deadlock, serialization failure, missing row) ends its implicit transaction
-- with the error: nothing is left open for the client to roll back.
-- Missing rows raise P0001 with the reason, as the client-side form fails on them.

-- name: drop_new_order
DROP PROCEDURE IF EXISTS drivebench_new_order;

-- name: create_new_order
CREATE PROCEDURE drivebench_new_order(
  p_w_id INT, p_d_id INT, p_c_id INT, p_ol_cnt INT, p_all_local INT, p_entry_d TIMESTAMP,
  i1 INT, s1 INT, q1 INT, i2 INT, s2 INT, q2 INT, i3 INT, s3 INT, q3 INT,
  i4 INT, s4 INT, q4 INT, i5 INT, s5 INT, q5 INT, i6 INT, s6 INT, q6 INT,
  i7 INT, s7 INT, q7 INT, i8 INT, s8 INT, q8 INT, i9 INT, s9 INT, q9 INT,
  i10 INT, s10 INT, q10 INT, i11 INT, s11 INT, q11 INT, i12 INT, s12 INT, q12 INT,
  i13 INT, s13 INT, q13 INT, i14 INT, s14 INT, q14 INT, i15 INT, s15 INT, q15 INT,
  INOUT rolled_back INT)
LANGUAGE plpgsql AS $$
DECLARE
  v_items INT[] := ARRAY[i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15];
  v_supply INT[] := ARRAY[s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15];
  v_qty INT[] := ARRAY[q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15];
  v_w_tax NUMERIC;
  v_d_tax NUMERIC;
  v_o_id INT;
  v_cust RECORD;
  v_item RECORD;
  v_stock RECORD;
  v_left INT;
  v_dist TEXT;
  v_amount NUMERIC;
  v_total NUMERIC := 0;
BEGIN
  rolled_back := 0;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no warehouse row %: the TPC-C data is incomplete (reload it)', p_w_id;
  END IF;
  SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district
    WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no district row (%,%): the TPC-C data is incomplete (reload it)', p_w_id, p_d_id;
  END IF;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT c_discount, c_last, c_credit INTO v_cust FROM customer
    WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no customer row: the TPC-C data is incomplete (reload it)';
  END IF;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d_id, p_w_id, p_c_id, p_entry_d, NULL, p_ol_cnt, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
  FOR n IN 1..p_ol_cnt LOOP
    SELECT i_price, i_name, i_data INTO v_item FROM item WHERE i_id = v_items[n];
    IF NOT FOUND THEN
      -- Only the last line's deliberately unused item may be missing (2.4.2.3): the whole
      -- order is rolled back.
      IF n < p_ol_cnt THEN
        RAISE EXCEPTION 'no item row %: the TPC-C data is incomplete (reload it)', v_items[n];
      END IF;
      ROLLBACK;
      rolled_back := 1;
      RETURN;
    END IF;
    SELECT s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05,
           s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10
      INTO v_stock FROM stock WHERE s_i_id = v_items[n] AND s_w_id = v_supply[n] FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'no stock row (%,%): the TPC-C data is incomplete (reload it)', v_items[n], v_supply[n];
    END IF;
    v_left := CASE WHEN v_stock.s_quantity - v_qty[n] >= 10 THEN v_stock.s_quantity - v_qty[n]
                   ELSE v_stock.s_quantity - v_qty[n] + 91 END;
    UPDATE stock SET s_quantity = v_left, s_ytd = s_ytd + v_qty[n], s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + CASE WHEN v_supply[n] = p_w_id THEN 0 ELSE 1 END
      WHERE s_i_id = v_items[n] AND s_w_id = v_supply[n];
    v_dist := CASE p_d_id WHEN 1 THEN v_stock.s_dist_01 WHEN 2 THEN v_stock.s_dist_02
      WHEN 3 THEN v_stock.s_dist_03 WHEN 4 THEN v_stock.s_dist_04 WHEN 5 THEN v_stock.s_dist_05
      WHEN 6 THEN v_stock.s_dist_06 WHEN 7 THEN v_stock.s_dist_07 WHEN 8 THEN v_stock.s_dist_08
      WHEN 9 THEN v_stock.s_dist_09 ELSE v_stock.s_dist_10 END;
    v_amount := v_qty[n] * v_item.i_price;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      VALUES (v_o_id, p_d_id, p_w_id, n, v_items[n], v_supply[n], NULL, v_qty[n], v_amount, v_dist);
    v_total := v_total + v_amount;
  END LOOP;
  -- The order's total, shown on the terminal only (as the client-side form computes it).
  v_total := v_total * (1 - v_cust.c_discount) * (1 + v_w_tax + v_d_tax);
END
$$;

-- name: drop_payment
DROP PROCEDURE IF EXISTS drivebench_payment;

-- name: create_payment
CREATE PROCEDURE drivebench_payment(
  p_w_id INT, p_d_id INT, p_c_w_id INT, p_c_d_id INT, p_c_id INT, p_c_last VARCHAR,
  p_h_amount NUMERIC, p_h_date TIMESTAMP, INOUT rolled_back INT)
LANGUAGE plpgsql AS $$
DECLARE
  v_w RECORD;
  v_d RECORD;
  v_ids INT[];
  v_c_id INT := p_c_id;
  v_cust RECORD;
  v_c_data TEXT;
BEGIN
  rolled_back := 0;
  UPDATE warehouse SET w_ytd = w_ytd + p_h_amount WHERE w_id = p_w_id;
  SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip INTO v_w FROM warehouse
    WHERE w_id = p_w_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no warehouse row %: the TPC-C data is incomplete (reload it)', p_w_id;
  END IF;
  UPDATE district SET d_ytd = d_ytd + p_h_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip INTO v_d FROM district
    WHERE d_w_id = p_w_id AND d_id = p_d_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no district row (%,%): the TPC-C data is incomplete (reload it)', p_w_id, p_d_id;
  END IF;
  -- By last name: the customer at position ceil(n/2) of those ordered by first name (2.5.2.2).
  IF v_c_id IS NULL THEN
    v_ids := ARRAY(SELECT c_id FROM customer
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last ORDER BY c_first);
    IF cardinality(v_ids) = 0 THEN
      RAISE EXCEPTION 'no customer named %: the TPC-C data is incomplete (reload it)', p_c_last;
    END IF;
    v_c_id := v_ids[(cardinality(v_ids) - 1) / 2 + 1];
  END IF;
  SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
         c_since, c_credit, c_credit_lim, c_discount, c_balance
    INTO v_cust FROM customer
    WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no customer row: the TPC-C data is incomplete (reload it)';
  END IF;
  IF v_cust.c_credit = 'BC' THEN
    SELECT c_data INTO v_c_data FROM customer
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
    UPDATE customer SET c_balance = c_balance - p_h_amount,
        c_ytd_payment = c_ytd_payment + p_h_amount, c_payment_cnt = c_payment_cnt + 1,
        c_data = left(format('%s %s %s %s %s %s | ', v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id,
                             p_h_amount::NUMERIC(6,2)) || coalesce(v_c_data, ''), 500)
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  ELSE
    UPDATE customer SET c_balance = c_balance - p_h_amount,
        c_ytd_payment = c_ytd_payment + p_h_amount, c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_h_date, p_h_amount,
            concat(v_w.w_name, '    ', v_d.d_name));
END
$$;

-- name: drop_order_status
DROP PROCEDURE IF EXISTS drivebench_order_status;

-- name: create_order_status
CREATE PROCEDURE drivebench_order_status(
  p_w_id INT, p_d_id INT, p_c_id INT, p_c_last VARCHAR, INOUT rolled_back INT)
LANGUAGE plpgsql AS $$
DECLARE
  v_ids INT[];
  v_c_id INT := p_c_id;
  v_cust RECORD;
  v_order RECORD;
BEGIN
  SET TRANSACTION READ ONLY;
  rolled_back := 0;
  IF v_c_id IS NULL THEN
    v_ids := ARRAY(SELECT c_id FROM customer
      WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last ORDER BY c_first);
    IF cardinality(v_ids) = 0 THEN
      RAISE EXCEPTION 'no customer named %: the TPC-C data is incomplete (reload it)', p_c_last;
    END IF;
    v_c_id := v_ids[(cardinality(v_ids) - 1) / 2 + 1];
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_cust FROM customer
    WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no customer row: the TPC-C data is incomplete (reload it)';
  END IF;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_order FROM orders
    WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id ORDER BY o_id DESC LIMIT 1;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no order of the customer: the TPC-C data is incomplete (reload it)';
  END IF;
  PERFORM ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
    WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_order.o_id;
END
$$;

-- name: drop_delivery
DROP PROCEDURE IF EXISTS drivebench_delivery;

-- name: create_delivery
CREATE PROCEDURE drivebench_delivery(
  p_w_id INT, p_o_carrier_id INT, p_delivery_d TIMESTAMP, INOUT rolled_back INT,
  INOUT skipped INT)
LANGUAGE plpgsql AS $$
DECLARE
  v_o_id INT;
  v_c_id INT;
  v_total NUMERIC;
BEGIN
  rolled_back := 0;
  skipped := 0;
  FOR v_d IN 1..10 LOOP
    SELECT no_o_id INTO v_o_id FROM new_order
      WHERE no_w_id = p_w_id AND no_d_id = v_d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
      skipped := skipped + 1;
      CONTINUE;
    END IF;
    DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d AND no_o_id = v_o_id;
    SELECT o_c_id INTO v_c_id FROM orders
      WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'no order row: the TPC-C data is incomplete (reload it)';
    END IF;
    UPDATE orders SET o_carrier_id = p_o_carrier_id
      WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o_id;
    UPDATE order_line SET ol_delivery_d = p_delivery_d
      WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o_id;
    SELECT SUM(ol_amount) INTO v_total FROM order_line
      WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o_id;
    UPDATE customer SET c_balance = c_balance + coalesce(v_total, 0),
        c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w_id AND c_d_id = v_d AND c_id = v_c_id;
  END LOOP;
END
$$;

-- name: drop_stock_level
DROP PROCEDURE IF EXISTS drivebench_stock_level;

-- name: create_stock_level
CREATE PROCEDURE drivebench_stock_level(
  p_w_id INT, p_d_id INT, p_threshold INT, INOUT rolled_back INT, INOUT low_stock INT)
LANGUAGE plpgsql AS $$
DECLARE
  v_next INT;
BEGIN
  SET TRANSACTION READ ONLY;
  rolled_back := 0;
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no district row (%,%): the TPC-C data is incomplete (reload it)', p_w_id, p_d_id;
  END IF;
  -- The answer row carries the count the terminal shows.
  SELECT COUNT(DISTINCT s_i_id) INTO low_stock FROM order_line, stock
    WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id < v_next AND ol_o_id >= v_next - 20
      AND s_w_id = p_w_id AND s_i_id = ol_i_id AND s_quantity < p_threshold;
END
$$;

-- The calls, one per transaction, in `procs::params` order; bare `$` placeholders are
-- numbered when prepared. Each placeholder is cast to its procedure argument's type, and the
-- INOUT answers are typed NULLs.

-- name: call_new_order
CALL drivebench_new_order($::int, $::int, $::int, $::int, $::int, $::timestamp, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, $::int, NULL::int);

-- name: call_payment
CALL drivebench_payment($::int, $::int, $::int, $::int, $::int, $::varchar, $::numeric, $::timestamp, NULL::int);

-- name: call_order_status
CALL drivebench_order_status($::int, $::int, $::int, $::varchar, NULL::int);

-- name: call_delivery
CALL drivebench_delivery($::int, $::int, $::timestamp, NULL::int, NULL::int);

-- name: call_stock_level
CALL drivebench_stock_level($::int, $::int, $::int, NULL::int, NULL::int);
