-- The perp execution that is accepting an RFQ (still checking the taker's order), or null: while
-- there is one, the RFQ is being accepted, so the auction close passes it over and a second
-- accept gets the first one's answer. The domain's rule is `holdsRfqForAccept` on the execution's
-- phase (src/domain/perp/execution.ts); test/store/sql-checks.test.ts feeds both the same
-- executions. At most one execution per RFQ is checking (the index perp_executions_one_open_per_rfq),
-- found through it.
create or replace function rfq_accepting_execution(p_rfq text)
returns text
language sql stable as $fn$
  select e.id from perp_executions e where e.rfq_id = p_rfq and e.phase = 'checking'
$fn$;
