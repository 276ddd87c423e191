-- Transaction isolation for PostgreSQL (`workload.isolation`): the session's default, which
-- every later BEGIN without a level of its own takes. Repeatable read is a snapshot for the
-- whole transaction.

-- name: set_read_committed
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- name: set_repeatable_read
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- name: set_serializable
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE;

-- name: read_back
SELECT current_setting('transaction_isolation');
