create or replace function rfq_accept_write(
  p_now int8, p_lock_id uuid, p_account uuid, p_token text, p_rail text, p_amount numeric,
  p_rfq text, p_rfq_from text, p_rfq_to text, p_selected text,
  p_quote_ids text[], p_quote_from text[], p_quote_to text[], p_quote_deadlines int8[], p_quote_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  v_rfq jsonb;
  v_quotes jsonb;
  v_balances jsonb;
begin
  if not rfq_lock_funds(p_lock_id, p_account, p_token, p_rail, p_amount, 'rfq', p_rfq, p_now) then
    return jsonb_build_object('locked', false);
  end if;
  select to_jsonb(r) into v_rfq
    from rfq_write_rfq_statuses(p_now, array[p_rfq], array[p_rfq_from], array[p_rfq_to], array[jsonb_strip_nulls(jsonb_build_object('quoted_at', p_now, 'selected_quote_id', p_selected))::text]) as r;
  if v_rfq is null then
    raise exception 'RFQ % is no longer %: it changed under its lock', p_rfq, p_rfq_from;
  end if;
  v_quotes := rfq_write_quote_batch(p_now, p_quote_ids, p_quote_from, p_quote_to, p_quote_deadlines, p_quote_fields);
  -- Under the account's frame lock (balance-frames.ts): the frame built from these rows is numbered after every commit they include.
  v_balances := rfq_balance_frame_rows(array[p_account]);
  return jsonb_build_object('locked', true, 'rfq', v_rfq, 'quotes', v_quotes, 'balances', v_balances);
end
$fn$;
