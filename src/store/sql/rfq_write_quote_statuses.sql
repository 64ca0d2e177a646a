-- The quote status writer's batch form: a compare-and-set per row from the status it was decided
-- from (src/store/quote-status.ts), as one SQL function (PL/pgSQL: its plan is kept per connection,
-- where a `language sql` function is planned again on every call). Every write of a quote's
-- status inside the database comes through here: the accept's, the auction close's (through
-- rfq_write_quote_batch) and the perp execution's (rfq_perp_write). `p_deadlines` sets the
-- settlement deadline on a win and keeps it otherwise (a null keeps: it is never cleared). Per
-- row, `p_fields` is a JSON object of the other fields to set: `?` tells "set to null" from "leave".
create or replace function rfq_write_quote_statuses(p_now int8, p_ids text[], p_from text[], p_to text[], p_deadlines int8[], p_fields text[])
returns setof quotes
language plpgsql as $fn$
begin
  return query
  update quotes q set status = d.status, updated_at = p_now,
    settlement_deadline_secs = coalesce(d.deadline, q.settlement_deadline_secs),
    permit_signature = case when d.f ? 'permit_signature' then d.f ->> 'permit_signature' else q.permit_signature end,
    spender = case when d.f ? 'spender' then d.f ->> 'spender' else q.spender end,
    quote_hash = case when d.f ? 'quote_hash' then d.f ->> 'quote_hash' else q.quote_hash end,
    delivery_deadline_secs = case when d.f ? 'delivery_deadline_secs' then (d.f ->> 'delivery_deadline_secs')::int8 else q.delivery_deadline_secs end,
    window_starts_at = case when d.f ? 'window_starts_at' then (d.f ->> 'window_starts_at')::int8 else q.window_starts_at end,
    window_ends_at = case when d.f ? 'window_ends_at' then (d.f ->> 'window_ends_at')::int8 else q.window_ends_at end,
    position = case when d.f ? 'position' then (d.f ->> 'position')::int4 else q.position end,
    settled_at = case when d.f ? 'settled_at' then (d.f ->> 'settled_at')::int8 else q.settled_at end,
    perp_filled_size = case when d.f ? 'perp_filled_size' then d.f ->> 'perp_filled_size' else q.perp_filled_size end,
    perp_fill_avg_px = case when d.f ? 'perp_fill_avg_px' then d.f ->> 'perp_fill_avg_px' else q.perp_fill_avg_px end,
    perp_maker_filled_size = case when d.f ? 'perp_maker_filled_size' then d.f ->> 'perp_maker_filled_size' else q.perp_maker_filled_size end,
    -- A cut SWEEP leg's legs as selected (a perp leg's: its cut is what its execution reports).
    maker_pays_amount = case when d.f ? 'maker_pays_amount' then (d.f ->> 'maker_pays_amount')::numeric else q.maker_pays_amount end,
    maker_receives_amount = case when d.f ? 'maker_receives_amount' then (d.f ->> 'maker_receives_amount')::numeric else q.maker_receives_amount end,
    taker_fee = case when d.f ? 'taker_fee' then (d.f ->> 'taker_fee')::numeric else q.taker_fee end,
    taker_total = case when d.f ? 'taker_total' then (d.f ->> 'taker_total')::numeric else q.taker_total end,
    selected_qty = case when d.f ? 'selected_qty' then (d.f ->> 'selected_qty')::numeric else q.selected_qty end
  from (select u.id, u.prior, u.status, u.deadline, u.f::jsonb as f from unnest(p_ids, p_from, p_to, p_deadlines, p_fields) as u(id, prior, status, deadline, f)) as d
  where q.id = d.id and q.status = d.prior
  returning q.*;
end
$fn$;
