/**
 * The clause that makes a PL/pgSQL function on the hot path keep one plan per statement and
 * connection (`plan_cache_mode = force_generic_plan` while it runs, and in what it calls).
 *
 * PL/pgSQL caches a plan per statement, but PostgreSQL re-plans a statement on every call when its
 * generic plan's estimated cost is well above that of the custom plans: a statement over
 * `unnest($array)` is such a one, its custom plan knowing the array's length (1 row) where the
 * generic one assumes 10. The replay claim (`rfq_claim_timestamps`) was so planned again on every
 * call, with the same nested-loop index plan each time; planning was about 6% of a quote batch's
 * backend CPU (`perf` of a backend running `rfq_write_quotes`). Every statement in the
 * functions carrying this clause is a point lookup by a unique key, an insert, or a scan of the
 * call's own arguments, so their generic plans are the plans they would get anyway.
 */
export const GENERIC_PLANS = 'set plan_cache_mode = force_generic_plan';
