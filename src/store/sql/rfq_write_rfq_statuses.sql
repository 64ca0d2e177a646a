-- The RFQ status writer's batch form: a compare-and-set per row from the status it was decided
-- from (src/store/rfq-status.ts), as one SQL function (PL/pgSQL, so its plan is kept per
-- connection). Every write of an RFQ's status inside the database comes through here: the
-- accept's (rfq_accept_write, rfq_accept_batch_write), the auction close's (rfq_close_write) and
-- the perp execution's (rfq_perp_write). Per row, `p_fields` is a JSON object of the outcome's
-- fields to set; `?` tells "set to null" from "leave".
create or replace function rfq_write_rfq_statuses(p_now int8, p_ids text[], p_from text[], p_to text[], p_fields text[])
returns setof rfqs
language plpgsql as $fn$
begin
  return query
  update rfqs r set
    status = d.status, updated_at = p_now,
    quoted_at = case when d.f ? 'quoted_at' then (d.f ->> 'quoted_at')::int8 else r.quoted_at end,
    settled_at = case when d.f ? 'settled_at' then (d.f ->> 'settled_at')::int8 else r.settled_at end,
    selected_quote_id = case when d.f ? 'selected_quote_id' then d.f ->> 'selected_quote_id' else r.selected_quote_id end,
    failure_code = case when d.f ? 'failure_code' then d.f ->> 'failure_code' else r.failure_code end,
    failure_reason = case when d.f ? 'failure_reason' then d.f ->> 'failure_reason' else r.failure_reason end,
    sweep_fills = case when d.f ? 'sweep_fills' then nullif(d.f -> 'sweep_fills', 'null'::jsonb) else r.sweep_fills end
  from (select u.id, u.prior, u.status, u.f::jsonb as f from unnest(p_ids, p_from, p_to, p_fields) as u(id, prior, status, f)) as d
  where r.id = d.id and r.status = d.prior
  returning r.*;
end
$fn$;
