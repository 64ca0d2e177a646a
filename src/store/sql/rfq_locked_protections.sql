-- A maker's protection on an instrument, locked FOR UPDATE, with its selections inside the window
-- (as `SelectionGuard.lock` reads them): the spot accept's, the auction close's
-- (close-functions.ts) and the perp execution's lock calls (perp-commit-functions.ts) take it
-- through this one definition.
create or replace function rfq_locked_protections(p_maker uuid, p_instrument text, p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_protections jsonb;
begin
  select coalesce(jsonb_agg(to_jsonb(locked) || jsonb_build_object(
           'selected_count', coalesce(w.n, 0), 'selected_notional', coalesce(w.notional, 0))), '[]')
    into v_protections
    from (select p.maker_account_id, p.instrument_id, p.window_ms, p.max_selected_quotes, p.max_selected_notional, p.triggered_at
          from maker_protections p
          where p.maker_account_id = p_maker and p.instrument_id = p_instrument
          for update of p) as locked
    -- A tripped protection refuses whatever the count; the count is read only when it matters.
    left join lateral (select count(*) as n, sum(s.notional) as notional
          from maker_protection_selections s
          where not rfq_protection_tripped(locked.triggered_at) and s.maker_account_id = locked.maker_account_id
            and s.instrument_id = locked.instrument_id and s.selected_at > p_now - locked.window_ms) as w on true;
  return v_protections;
end
$fn$;
