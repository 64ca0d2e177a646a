-- A maker's protection on an instrument is tripped from `triggered_at` until the maker resets it:
-- its quotes are refused and its selections counted no more. The domain's rule is
-- `isProtectionTripped` (src/domain/rfq/maker-protection.ts); test/store/sql-checks.test.ts feeds
-- both the same cases. An expression, inlined where it is called.
create or replace function rfq_protection_tripped(p_triggered_at int8)
returns boolean
language sql immutable as $fn$
  select p_triggered_at is not null
$fn$;
