create or replace function rfq_perp_record_accept(p_id text, p_rfq text, p_quote text, p_account uuid, p_version int8, p_order text, p_state jsonb, p_now int8)
returns table (open_id text, open_quote_id text, open_quote_version int8)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
begin
  select e.id, e.quote_id, e.quote_version into open_id, open_quote_id, open_quote_version
    from perp_executions e where e.id = rfq_accepting_execution(p_rfq);
  if open_id is null then
    insert into perp_executions (id, rfq_id, quote_id, account_id, quote_version, taker_order, phase, state, next_at, created_at, updated_at)
      values (p_id, p_rfq, p_quote, p_account, p_version, p_order, 'checking', p_state, p_now, p_now, p_now);
  end if;
  return next;
end
$fn$;
