-- Why a maker may not act now, or null when it may: 'inactive' when it is no maker (null row) or
-- inactive, 'suspended' while `suspended_until` is after `p_now`. The domain's rule is
-- `makerStandingRefusal` (src/domain/rfq/quote-admission.ts); test/store/sql-checks.test.ts feeds
-- both the same cases. An expression over its arguments, so PostgreSQL inlines it into the query
-- that calls it (the quote write's maker lookup keeps its plan).
create or replace function rfq_maker_standing(p_active boolean, p_suspended_until int8, p_now int8)
returns text
language sql immutable as $fn$
  select case
    when p_active is not true then 'inactive'
    when p_suspended_until is not null and p_suspended_until > p_now then 'suspended'
  end
$fn$;
