create or replace function rfq_close_write(
  p_now int8,
  p_lock_owners text[], p_lock_reasons text[], p_new_lock_ids uuid[], p_kept numeric[],
  p_rfq_ids text[], p_rfq_from text[], p_rfq_to text[], p_rfq_fields text[],
  p_quote_ids text[], p_quote_from text[], p_quote_to text[], p_quote_deadlines int8[], p_quote_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  v_ended jsonb := '[]';
  v_rfqs jsonb;
  v_quotes jsonb;
  v_written int;
  v_balances jsonb;
begin
  if coalesce(cardinality(p_lock_owners), 0) > 0 then
    select coalesce(jsonb_agg(to_jsonb(e)), '[]') into v_ended
      from rfq_relock_many(p_now, p_lock_owners, p_lock_reasons, p_new_lock_ids, p_kept) as e;
  end if;
  select count(*), coalesce(jsonb_agg(to_jsonb(r)), '[]') into v_written, v_rfqs
    from rfq_write_rfq_statuses(p_now, p_rfq_ids, p_rfq_from, p_rfq_to, p_rfq_fields) as r;
  if v_written <> coalesce(cardinality(p_rfq_ids), 0) then
    raise exception 'RFQ batch wrote % of % rows: some changed under their locks', v_written, cardinality(p_rfq_ids);
  end if;
  v_quotes := rfq_write_quote_batch(p_now, p_quote_ids, p_quote_from, p_quote_to, p_quote_deadlines, p_quote_fields);
  -- Under the accounts' frame locks (balance-frames.ts): each frame built from these rows is numbered after every commit they include.
  v_balances := rfq_balance_frame_rows(array(select (e ->> 'account_id')::uuid from jsonb_array_elements(v_ended) as e));
  return jsonb_build_object('ended', v_ended, 'rfqs', v_rfqs, 'quotes', v_quotes, 'balances', v_balances);
end
$fn$;
