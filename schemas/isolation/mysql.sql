-- Transaction isolation for MySQL and MariaDB (`workload.isolation`): set for the session, so
-- every later transaction of the connection runs at it. `read_back` is MySQL 8's and MariaDB
-- 11.1's variable; `read_back_fallback` the older name MariaDB up to 11.0 (and MySQL 5.7)
-- answer to.

-- name: set_read_committed
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: set_repeatable_read
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- name: set_serializable
SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE;

-- name: read_back
SELECT @@SESSION.transaction_isolation;

-- name: read_back_fallback
SELECT @@SESSION.tx_isolation;
