-- An RFQ takes quotes and re-quotes while PENDING and before `auction_ends_at`. The domain's rule
-- is `isOpenForQuotes` (src/domain/rfq/auction.ts); test/store/sql-checks.test.ts feeds both the
-- same cases. An expression, inlined into the quote write's RFQ lookup.
create or replace function rfq_open_for_quotes(p_status text, p_auction_ends_at int8, p_now int8)
returns boolean
language sql immutable as $fn$
  select p_status = 'PENDING' and p_now < p_auction_ends_at
$fn$;
