-- TPC-C as stored procedures for Microsoft SQL Server (`procedures = true`), the way the
-- reference SQL Server tools run it: one call per transaction, the transaction begun, committed
-- or rolled back inside the procedure, so a transaction is one round trip. Each procedure reads
-- and writes what the client-side statements of statements.sql do, step by step, in the same
-- order: the same rows and columns (every column the client reads is read into a variable, and
-- every order line Order-Status fetches is fetched), the same values, the same locks
-- (UPDLOCK, ROWLOCK). Values the terminal would show go no further. Each ends with one row:
-- `rolled_back` (1 only for the New-Order whose last item is unused, 2.4.2.3), and for
-- Delivery `skipped` (its districts with no undelivered order, 2.7.4.2). Dropped and created
-- again once per instance before the phases.
-- BEGIN TRAN, COMMIT and ROLLBACK stand on lines of their own; IF ... ELSE branches are
-- BEGIN ... END blocks.

-- name: drop_new_order
IF OBJECT_ID(N'drivebench_new_order', N'P') IS NOT NULL DROP PROCEDURE drivebench_new_order;

-- name: create_new_order
CREATE PROCEDURE drivebench_new_order
  @w_id INT, @d_id INT, @c_id INT, @ol_cnt INT, @all_local INT, @entry_d DATETIME,
  @i1 INT, @s1 INT, @q1 INT, @i2 INT, @s2 INT, @q2 INT, @i3 INT, @s3 INT, @q3 INT,
  @i4 INT, @s4 INT, @q4 INT, @i5 INT, @s5 INT, @q5 INT, @i6 INT, @s6 INT, @q6 INT,
  @i7 INT, @s7 INT, @q7 INT, @i8 INT, @s8 INT, @q8 INT, @i9 INT, @s9 INT, @q9 INT,
  @i10 INT, @s10 INT, @q10 INT, @i11 INT, @s11 INT, @q11 INT, @i12 INT, @s12 INT, @q12 INT,
  @i13 INT, @s13 INT, @q13 INT, @i14 INT, @s14 INT, @q14 INT, @i15 INT, @s15 INT, @q15 INT
AS
BEGIN
  DECLARE @w_tax NUMERIC(4,4), @d_tax NUMERIC(4,4), @o_id INT, @c_discount NUMERIC(4,4);
  DECLARE @c_last VARCHAR(16), @c_credit CHAR(2);
  DECLARE @n INT = 1, @i_id INT, @supply INT, @qty INT, @rolled_back INT = 0;
  DECLARE @i_price NUMERIC(5,2), @i_name VARCHAR(24), @i_data VARCHAR(50);
  DECLARE @s_quantity INT, @s_data VARCHAR(50), @left INT, @amount NUMERIC(6,2);
  DECLARE @d1 CHAR(24), @d2 CHAR(24), @d3 CHAR(24), @d4 CHAR(24), @d5 CHAR(24);
  DECLARE @d6 CHAR(24), @d7 CHAR(24), @d8 CHAR(24), @d9 CHAR(24), @d10 CHAR(24);
  DECLARE @brand CHAR(1), @total NUMERIC(12,2) = 0;
  BEGIN TRAN;
  SELECT @w_tax = w_tax FROM warehouse WHERE w_id = @w_id;
  IF @w_tax IS NULL THROW 50001, 'no warehouse row: the TPC-C data is incomplete (reload it)', 1;
  SELECT @d_tax = d_tax, @o_id = d_next_o_id FROM district WITH (UPDLOCK, ROWLOCK)
    WHERE d_w_id = @w_id AND d_id = @d_id;
  IF @o_id IS NULL THROW 50001, 'no district row: the TPC-C data is incomplete (reload it)', 1;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = @w_id AND d_id = @d_id;
  SELECT @c_discount = c_discount, @c_last = c_last, @c_credit = c_credit FROM customer
    WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_id = @c_id;
  IF @c_discount IS NULL THROW 50001, 'no customer row: the TPC-C data is incomplete (reload it)', 1;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (@o_id, @d_id, @w_id, @c_id, @entry_d, NULL, @ol_cnt, @all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d_id, @w_id);
  WHILE @n <= @ol_cnt AND @rolled_back = 0
  BEGIN
    SET @i_id = CHOOSE(@n, @i1, @i2, @i3, @i4, @i5, @i6, @i7, @i8, @i9, @i10, @i11, @i12, @i13, @i14, @i15);
    SET @supply = CHOOSE(@n, @s1, @s2, @s3, @s4, @s5, @s6, @s7, @s8, @s9, @s10, @s11, @s12, @s13, @s14, @s15);
    SET @qty = CHOOSE(@n, @q1, @q2, @q3, @q4, @q5, @q6, @q7, @q8, @q9, @q10, @q11, @q12, @q13, @q14, @q15);
    SET @i_price = NULL;
    SELECT @i_price = i_price, @i_name = i_name, @i_data = i_data FROM item WHERE i_id = @i_id;
    IF @i_price IS NULL
    BEGIN
      -- Only the last line's deliberately unused item may be missing.
      IF @n < @ol_cnt THROW 50001, 'no item row: the TPC-C data is incomplete (reload it)', 1;
      SET @rolled_back = 1;
    END
    ELSE
    BEGIN
      SET @s_quantity = NULL;
      SELECT @s_quantity = s_quantity, @s_data = s_data, @d1 = s_dist_01, @d2 = s_dist_02,
          @d3 = s_dist_03, @d4 = s_dist_04, @d5 = s_dist_05, @d6 = s_dist_06, @d7 = s_dist_07,
          @d8 = s_dist_08, @d9 = s_dist_09, @d10 = s_dist_10
        FROM stock WITH (UPDLOCK, ROWLOCK) WHERE s_i_id = @i_id AND s_w_id = @supply;
      IF @s_quantity IS NULL THROW 50001, 'no stock row: the TPC-C data is incomplete (reload it)', 1;
      SET @left = CASE WHEN @s_quantity - @qty >= 10 THEN @s_quantity - @qty ELSE @s_quantity - @qty + 91 END;
      UPDATE stock SET s_quantity = @left, s_ytd = s_ytd + @qty, s_order_cnt = s_order_cnt + 1,
          s_remote_cnt = s_remote_cnt + CASE WHEN @supply = @w_id THEN 0 ELSE 1 END
        WHERE s_i_id = @i_id AND s_w_id = @supply;
      SET @amount = CAST(@qty * @i_price AS NUMERIC(6,2));
      -- Brand-generic is shown on the terminal only: computed, stored nowhere.
      SET @brand = CASE WHEN @i_data LIKE '%ORIGINAL%' AND @s_data LIKE '%ORIGINAL%' THEN 'B' ELSE 'G' END;
      INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (@o_id, @d_id, @w_id, @n, @i_id, @supply, NULL, @qty, @amount,
          CHOOSE(@d_id, @d1, @d2, @d3, @d4, @d5, @d6, @d7, @d8, @d9, @d10));
      SET @total = @total + @amount;
    END;
    SET @n = @n + 1;
  END;
  -- An unused item (2.4.2.3) rolls the whole order back.
  IF @rolled_back = 1
  BEGIN
    ROLLBACK;
  END
  ELSE
  BEGIN
    SET @total = @total * (1 - @c_discount) * (1 + @w_tax + @d_tax);
    COMMIT;
  END;
  SELECT @rolled_back AS rolled_back;
END;

-- name: drop_payment
IF OBJECT_ID(N'drivebench_payment', N'P') IS NOT NULL DROP PROCEDURE drivebench_payment;

-- name: create_payment
CREATE PROCEDURE drivebench_payment
  @w_id INT, @d_id INT, @c_w_id INT, @c_d_id INT, @c_id INT, @c_last VARCHAR(16),
  @h_amount NUMERIC(6,2), @h_date DATETIME
AS
BEGIN
  DECLARE @w_name VARCHAR(10), @w_street_1 VARCHAR(20), @w_street_2 VARCHAR(20),
    @w_city VARCHAR(20), @w_state CHAR(2), @w_zip CHAR(9);
  DECLARE @d_name VARCHAR(10), @d_street_1 VARCHAR(20), @d_street_2 VARCHAR(20),
    @d_city VARCHAR(20), @d_state CHAR(2), @d_zip CHAR(9);
  DECLARE @c_first VARCHAR(16), @c_middle CHAR(2), @c_street_1 VARCHAR(20),
    @c_street_2 VARCHAR(20), @c_city VARCHAR(20), @c_state CHAR(2), @c_zip CHAR(9),
    @c_phone CHAR(16), @c_since DATETIME, @c_credit CHAR(2), @c_credit_lim NUMERIC(12,2),
    @c_discount NUMERIC(4,4), @c_balance NUMERIC(12,2);
  DECLARE @c_data VARCHAR(500), @n INT;
  BEGIN TRAN;
  UPDATE warehouse SET w_ytd = w_ytd + @h_amount WHERE w_id = @w_id;
  SELECT @w_name = w_name, @w_street_1 = w_street_1, @w_street_2 = w_street_2,
      @w_city = w_city, @w_state = w_state, @w_zip = w_zip
    FROM warehouse WHERE w_id = @w_id;
  UPDATE district SET d_ytd = d_ytd + @h_amount WHERE d_w_id = @w_id AND d_id = @d_id;
  SELECT @d_name = d_name, @d_street_1 = d_street_1, @d_street_2 = d_street_2,
      @d_city = d_city, @d_state = d_state, @d_zip = d_zip
    FROM district WHERE d_w_id = @w_id AND d_id = @d_id;
  IF @c_id IS NULL
  BEGIN
    -- By last name: the customer at position ceil(n/2) ordered by first name (2.5.2.2).
    SELECT @n = COUNT(*) FROM customer WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_last = @c_last;
    SELECT @c_id = c_id FROM (SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first) AS rn FROM customer
        WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_last = @c_last) t
      WHERE rn = (@n + 1) / 2;
  END;
  SELECT @c_first = c_first, @c_middle = c_middle, @c_last = c_last, @c_street_1 = c_street_1,
      @c_street_2 = c_street_2, @c_city = c_city, @c_state = c_state, @c_zip = c_zip,
      @c_phone = c_phone, @c_since = c_since, @c_credit = c_credit,
      @c_credit_lim = c_credit_lim, @c_discount = c_discount, @c_balance = c_balance
    FROM customer WITH (UPDLOCK, ROWLOCK)
    WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
  IF @c_credit IS NULL THROW 50001, 'no customer row: the TPC-C data is incomplete (reload it)', 1;
  IF @c_credit = 'BC'
  BEGIN
    -- Bad credit: the ids and the amount go in front of C_DATA, kept to 500 characters.
    SELECT @c_data = c_data FROM customer WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
    UPDATE customer SET c_balance = c_balance - @h_amount, c_ytd_payment = c_ytd_payment + @h_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = LEFT(CONCAT(@c_id, ' ', @c_d_id, ' ', @c_w_id, ' ', @d_id, ' ', @w_id, ' ', CAST(@h_amount AS VARCHAR(20)), ' | ', @c_data), 500)
      WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
  END
  ELSE
  BEGIN
    UPDATE customer SET c_balance = c_balance - @h_amount, c_ytd_payment = c_ytd_payment + @h_amount,
        c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = @c_w_id AND c_d_id = @c_d_id AND c_id = @c_id;
  END;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (@c_id, @c_d_id, @c_w_id, @d_id, @w_id, @h_date, @h_amount, CONCAT(@w_name, '    ', @d_name));
  COMMIT;
  SELECT 0 AS rolled_back;
END;

-- name: drop_order_status
IF OBJECT_ID(N'drivebench_order_status', N'P') IS NOT NULL DROP PROCEDURE drivebench_order_status;

-- name: create_order_status
CREATE PROCEDURE drivebench_order_status
  @w_id INT, @d_id INT, @c_id INT, @c_last VARCHAR(16)
AS
BEGIN
  DECLARE @n INT, @c_balance NUMERIC(12,2), @c_first VARCHAR(16), @c_middle CHAR(2);
  DECLARE @o_id INT, @o_entry_d DATETIME, @o_carrier_id INT;
  DECLARE @ol_i_id INT, @ol_supply_w_id INT, @ol_quantity INT, @ol_amount NUMERIC(6,2),
    @ol_delivery_d DATETIME;
  BEGIN TRAN;
  IF @c_id IS NULL
  BEGIN
    SELECT @n = COUNT(*) FROM customer WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_last = @c_last;
    SELECT @c_id = c_id FROM (SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first) AS rn FROM customer
        WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_last = @c_last) t
      WHERE rn = (@n + 1) / 2;
  END;
  SELECT @c_balance = c_balance, @c_first = c_first, @c_middle = c_middle, @c_last = c_last
    FROM customer WHERE c_w_id = @w_id AND c_d_id = @d_id AND c_id = @c_id;
  SELECT TOP 1 @o_id = o_id, @o_entry_d = o_entry_d, @o_carrier_id = o_carrier_id FROM orders
    WHERE o_w_id = @w_id AND o_d_id = @d_id AND o_c_id = @c_id
    ORDER BY o_id DESC;
  IF @o_id IS NULL THROW 50001, 'no order of the customer: the TPC-C data is incomplete (reload it)', 1;
  -- Every line of the order is fetched, as the client-side form fetches them: the assignment
  -- reads each row in turn.
  SELECT @ol_i_id = ol_i_id, @ol_supply_w_id = ol_supply_w_id, @ol_quantity = ol_quantity,
      @ol_amount = ol_amount, @ol_delivery_d = ol_delivery_d
    FROM order_line WHERE ol_w_id = @w_id AND ol_d_id = @d_id AND ol_o_id = @o_id;
  COMMIT;
  SELECT 0 AS rolled_back;
END;

-- name: drop_delivery
IF OBJECT_ID(N'drivebench_delivery', N'P') IS NOT NULL DROP PROCEDURE drivebench_delivery;

-- name: create_delivery
CREATE PROCEDURE drivebench_delivery
  @w_id INT, @o_carrier_id INT, @delivery_d DATETIME
AS
BEGIN
  DECLARE @d INT = 1, @o_id INT, @c_id INT, @total NUMERIC(12,2), @skipped INT = 0;
  BEGIN TRAN;
  WHILE @d <= 10
  BEGIN
    SET @o_id = NULL;
    SELECT TOP 1 @o_id = no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK)
      WHERE no_w_id = @w_id AND no_d_id = @d ORDER BY no_o_id;
    IF @o_id IS NOT NULL
    BEGIN
      DELETE FROM new_order WHERE no_w_id = @w_id AND no_d_id = @d AND no_o_id = @o_id;
      SET @c_id = NULL;
      SELECT @c_id = o_c_id FROM orders WHERE o_w_id = @w_id AND o_d_id = @d AND o_id = @o_id;
      IF @c_id IS NULL THROW 50001, 'no order row: the TPC-C data is incomplete (reload it)', 1;
      UPDATE orders SET o_carrier_id = @o_carrier_id WHERE o_w_id = @w_id AND o_d_id = @d AND o_id = @o_id;
      UPDATE order_line SET ol_delivery_d = @delivery_d WHERE ol_w_id = @w_id AND ol_d_id = @d AND ol_o_id = @o_id;
      SELECT @total = SUM(ol_amount) FROM order_line WHERE ol_w_id = @w_id AND ol_d_id = @d AND ol_o_id = @o_id;
      SET @total = ISNULL(@total, 0);
      UPDATE customer SET c_balance = c_balance + @total, c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = @w_id AND c_d_id = @d AND c_id = @c_id;
    END
    ELSE
    BEGIN
      SET @skipped = @skipped + 1;
    END;
    SET @d = @d + 1;
  END;
  COMMIT;
  SELECT 0 AS rolled_back, @skipped AS skipped;
END;

-- name: drop_stock_level
IF OBJECT_ID(N'drivebench_stock_level', N'P') IS NOT NULL DROP PROCEDURE drivebench_stock_level;

-- name: create_stock_level
CREATE PROCEDURE drivebench_stock_level
  @w_id INT, @d_id INT, @threshold INT
AS
BEGIN
  DECLARE @next INT, @low_stock INT;
  BEGIN TRAN;
  SELECT @next = d_next_o_id FROM district WHERE d_w_id = @w_id AND d_id = @d_id;
  SELECT @low_stock = COUNT(*) FROM (SELECT DISTINCT s_i_id FROM order_line, stock
      WHERE ol_w_id = @w_id AND ol_d_id = @d_id AND ol_o_id < @next AND ol_o_id >= @next - 20
        AND s_w_id = @w_id AND s_i_id = ol_i_id AND s_quantity < @threshold) low_items;
  COMMIT;
  -- The answer row carries the count the terminal shows.
  SELECT 0 AS rolled_back, @low_stock AS low_stock;
END;

-- The calls, one per transaction; bare `@P` placeholders are numbered when prepared.

-- name: call_new_order
EXEC drivebench_new_order @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P, @P;

-- name: call_payment
EXEC drivebench_payment @P, @P, @P, @P, @P, @P, @P, @P;

-- name: call_order_status
EXEC drivebench_order_status @P, @P, @P, @P;

-- name: call_delivery
EXEC drivebench_delivery @P, @P, @P;

-- name: call_stock_level
EXEC drivebench_stock_level @P, @P, @P;
