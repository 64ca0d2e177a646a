create or replace function rfq_perp_acquire(p_id text, p_owner text, p_now int8, p_until int8, p_terminal text[])
returns text
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
declare
  v_row perp_executions;
  v_checks jsonb;
begin
  update perp_executions set lease_owner = p_owner, lease_until = p_until
    where id = (
      select id from perp_executions
      where id = p_id and phase <> all(p_terminal) and next_at <= p_now and lease_until <= p_now
      for update skip locked)
    returning * into v_row;
  if v_row.id is null then
    return null;
  end if;
  if v_row.phase = 'checking' then
    select jsonb_build_object(
        'account_id', r.account_id, 'instrument_id', r.instrument_id, 'side', r.side, 'taker_fee_tenth_bp', r.taker_fee_tenth_bp,
        'taker_address', ta.address, 'maker_account_id', q.maker_account_id,
        'maker_pays_amount', q.maker_pays_amount, 'maker_receives_amount', q.maker_receives_amount,
        'maker_address', ma.address, 'maker_order', o.maker_order, 'maker_cancel', o.maker_cancel)
      into v_checks
      from rfqs r
      join accounts ta on ta.id = r.account_id
      join quotes q on q.id = v_row.quote_id
      join accounts ma on ma.id = q.maker_account_id
      left join perp_quote_orders o on o.quote_id = q.id
      where r.id = v_row.rfq_id;
  end if;
  -- The state as its text, parsed as the driver parses a JSON column (json-rows.ts).
  return jsonb_build_object('execution', to_jsonb(v_row) || jsonb_build_object('state', v_row.state::text), 'checks', v_checks)::text;
end
$fn$;
