-- TPC-C consistency conditions (clause 3.3.2) for PostgreSQL, one query per condition. Each
-- `check_*` query returns no row when the condition holds, else one row: the number of
-- violating units (COUNT(*) OVER ()), the first one's key, then the values compared, in the
-- order src/workload/tpcc/check.rs labels them. Money is NUMERIC and compares exactly; the
-- half-cent tolerance is there for the same text on every engine. Per-district and per-order
-- values come from correlated subqueries on primary-key prefixes; HISTORY has no index, so it
-- is summed once, grouped.

-- name: population
SELECT (SELECT COUNT(*) FROM warehouse), (SELECT COUNT(*) FROM district), (SELECT COUNT(*) FROM orders),
       (SELECT COUNT(*) FROM customer);

-- name: check_1
SELECT COUNT(*) OVER (), w_id, w_ytd, d_ytd
FROM (SELECT w_id, w_ytd, (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id) AS d_ytd
      FROM warehouse) t
WHERE w_ytd IS NULL OR d_ytd IS NULL OR ABS(w_ytd - d_ytd) > 0.005
ORDER BY w_id LIMIT 1;

-- name: check_2
SELECT COUNT(*) OVER (), d_w_id, d_id, d_next_o_id - 1, max_o_id, max_no_o_id
FROM (SELECT d_w_id, d_id, d_next_o_id,
             (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) AS max_o_id,
             (SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) AS max_no_o_id
      FROM district) t
WHERE d_next_o_id IS NULL OR max_o_id IS NULL OR d_next_o_id - 1 <> max_o_id
   OR (max_no_o_id IS NOT NULL AND max_no_o_id <> max_o_id)
ORDER BY d_w_id, d_id LIMIT 1;

-- name: check_3
SELECT COUNT(*) OVER (), d_w_id, d_id, span, n
FROM (SELECT d_w_id, d_id,
             (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) AS span,
             (SELECT COUNT(*) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) AS n
      FROM district) t
WHERE COALESCE(span, 0) <> n
ORDER BY d_w_id, d_id LIMIT 1;

-- name: check_4
SELECT COUNT(*) OVER (), d_w_id, d_id, ol_cnt, n_lines
FROM (SELECT d_w_id, d_id,
             (SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) AS ol_cnt,
             (SELECT COUNT(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id) AS n_lines
      FROM district) t
WHERE COALESCE(ol_cnt, 0) <> n_lines
ORDER BY d_w_id, d_id LIMIT 1;

-- name: check_5
SELECT COUNT(*) OVER (), o_w_id, o_d_id, o_id, o_carrier_id,
       CASE WHEN no_o_id IS NULL THEN 'no' ELSE 'yes' END
FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL)
ORDER BY o_w_id, o_d_id, o_id LIMIT 1;

-- name: check_6
SELECT COUNT(*) OVER (), o_w_id, o_d_id, o_id, o_ol_cnt, n_lines
FROM (SELECT o_w_id, o_d_id, o_id, o_ol_cnt,
             (SELECT COUNT(*) FROM order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id) AS n_lines
      FROM orders) t
WHERE o_ol_cnt IS NULL OR o_ol_cnt <> n_lines
ORDER BY o_w_id, o_d_id, o_id LIMIT 1;

-- name: check_7
SELECT COUNT(*) OVER (), ol_w_id, ol_d_id, ol_o_id, ol_number, ol_delivery_d, o_carrier_id
FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
WHERE (ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL)
   OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL)
ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number LIMIT 1;

-- name: check_8
SELECT COUNT(*) OVER (), w_id, w_ytd, h_amount
FROM warehouse LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS h_amount FROM history GROUP BY h_w_id) h
  ON h_w_id = w_id
WHERE w_ytd IS NULL OR h_amount IS NULL OR ABS(w_ytd - h_amount) > 0.005
ORDER BY w_id LIMIT 1;

-- name: check_9
SELECT COUNT(*) OVER (), d_w_id, d_id, d_ytd, h_amount
FROM district LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS h_amount FROM history
                         GROUP BY h_w_id, h_d_id) h
  ON h_w_id = d_w_id AND h_d_id = d_id
WHERE d_ytd IS NULL OR h_amount IS NULL OR ABS(d_ytd - h_amount) > 0.005
ORDER BY d_w_id, d_id LIMIT 1;

-- name: check_10
SELECT COUNT(*) OVER (), d_w_id, d_id, balance, delivered, paid
FROM (SELECT d_w_id, d_id,
             (SELECT COALESCE(SUM(c_balance), 0) FROM customer WHERE c_w_id = d_w_id AND c_d_id = d_id) AS balance,
             (SELECT COALESCE(SUM(ol_amount), 0) FROM order_line
               WHERE ol_w_id = d_w_id AND ol_d_id = d_id AND ol_delivery_d IS NOT NULL) AS delivered,
             COALESCE(h_amount, 0) AS paid
      FROM district LEFT JOIN (SELECT h_c_w_id, h_c_d_id, SUM(h_amount) AS h_amount FROM history
                               GROUP BY h_c_w_id, h_c_d_id) h
        ON h_c_w_id = d_w_id AND h_c_d_id = d_id) t
WHERE ABS(balance - (delivered - paid)) > 0.005
ORDER BY d_w_id, d_id LIMIT 1;

-- Planned apart from its ORDER BY ... LIMIT 1 (a MATERIALIZED CTE): with the LIMIT, PostgreSQL
-- 15 costs the query as if COUNT(*) OVER () stopped early and picks a nested loop rescanning
-- HISTORY's per-customer sums for every customer, quadratic in warehouses (277 s at 2).
-- name: check_10_customer
WITH t AS MATERIALIZED (
  SELECT c_w_id, c_d_id, c_id, c_balance,
         COALESCE(dl.amount, 0) AS delivered, COALESCE(h.amount, 0) AS paid
  FROM customer
  LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS amount
             FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
             WHERE ol_delivery_d IS NOT NULL
             GROUP BY o_w_id, o_d_id, o_c_id) dl
    ON dl.o_w_id = c_w_id AND dl.o_d_id = c_d_id AND dl.o_c_id = c_id
  LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) AS amount FROM history
             GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
    ON h.h_c_w_id = c_w_id AND h.h_c_d_id = c_d_id AND h.h_c_id = c_id)
SELECT COUNT(*) OVER (), c_w_id, c_d_id, c_id, c_balance, delivered, paid
FROM t
WHERE ABS(c_balance - (delivered - paid)) > 0.005
ORDER BY c_w_id, c_d_id, c_id LIMIT 1;

-- name: check_11
SELECT COUNT(*) OVER (), d_w_id, d_id, n_orders, n_new
FROM (SELECT d_w_id, d_id,
             (SELECT COUNT(*) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) AS n_orders,
             (SELECT COUNT(*) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) AS n_new,
             (SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) AS first_new
      FROM district) t
WHERE first_new = 2101 AND n_orders - n_new <> 2100
ORDER BY d_w_id, d_id LIMIT 1;

-- name: check_11_applies
SELECT COUNT(*) FROM district
WHERE (SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) = 2101;

-- name: check_12
SELECT COUNT(*) OVER (), d_w_id, d_id, balance_ytd, delivered
FROM (SELECT d_w_id, d_id,
             (SELECT COALESCE(SUM(c_balance + c_ytd_payment), 0) FROM customer
               WHERE c_w_id = d_w_id AND c_d_id = d_id) AS balance_ytd,
             (SELECT COALESCE(SUM(ol_amount), 0) FROM order_line
               WHERE ol_w_id = d_w_id AND ol_d_id = d_id AND ol_delivery_d IS NOT NULL) AS delivered
      FROM district) t
WHERE ABS(balance_ytd - delivered) > 0.005
ORDER BY d_w_id, d_id LIMIT 1;

-- name: check_12_customer
SELECT COUNT(*) OVER (), c_w_id, c_d_id, c_id, balance_ytd, delivered
FROM (SELECT c_w_id, c_d_id, c_id, c_balance + c_ytd_payment AS balance_ytd,
             COALESCE(dl.amount, 0) AS delivered
      FROM customer
      LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS amount
                 FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
                 WHERE ol_delivery_d IS NOT NULL
                 GROUP BY o_w_id, o_d_id, o_c_id) dl
        ON dl.o_w_id = c_w_id AND dl.o_d_id = c_d_id AND dl.o_c_id = c_id) t
WHERE ABS(balance_ytd - delivered) > 0.005
ORDER BY c_w_id, c_d_id, c_id LIMIT 1;
