-- The makers among `p_makers` whose quotes may not be selected now: inactive, or suspended after
-- failed settlements (`suspended_until` after `p_now`), or no longer a maker. Such a maker could
-- not settle what it won (its maker calls are refused), so every selection passes its quotes
-- over. The rows are read, not locked: a suspension committed a moment after the read is the same
-- as one committed a moment after the selection. The quote write function
-- (sql/rfq_write_quotes.sql) admits quotes by the same rule, `rfq_maker_standing`.
create or replace function rfq_barred_makers(p_makers uuid[], p_now int8)
returns jsonb
language sql stable as $fn$
  select coalesce(jsonb_agg(k.maker order by k.maker), '[]')
    from (select distinct unnest(p_makers) as maker) as k
    where not exists (select 1 from makers m
                      where m.account_id = k.maker and rfq_maker_standing(m.active, m.suspended_until, p_now) is null)
$fn$;
