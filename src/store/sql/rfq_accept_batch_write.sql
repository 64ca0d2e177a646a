create or replace function rfq_accept_batch_write(
  p_now int8, p_items jsonb,
  p_quote_items int[], p_quote_ids text[], p_quote_from text[], p_quote_to text[], p_quote_deadlines int8[], p_quote_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  it record;
  v_locked int[] := '{}';
  v_ids text[]; v_from text[]; v_to text[]; v_fields text[];
  v_accounts uuid[];
  v_q_ids text[]; v_q_from text[]; v_q_to text[]; v_q_deadlines int8[]; v_q_fields text[];
  v_written int;
  v_rfqs jsonb;
  v_quotes jsonb;
begin
  -- Balance rows in key order, as every batch of locks takes them; within one taker, arrival order.
  for it in
    select * from jsonb_to_recordset(p_items) as x(ord int, lock_id uuid, account uuid, token text, rail text, amount numeric, rfq_id text, at int8)
    order by x.account, x.token, x.rail, x.ord
  loop
    if rfq_lock_funds(it.lock_id, it.account, it.token, it.rail, it.amount, 'rfq', it.rfq_id, it.at) then
      v_locked := v_locked || it.ord;
    end if;
  end loop;
  if cardinality(v_locked) = 0 then
    return jsonb_build_object('locked', '[]'::jsonb);
  end if;
  select array_agg(x.rfq_id order by x.ord), array_agg(x.rfq_from order by x.ord), array_agg(x.rfq_to order by x.ord),
         array_agg(jsonb_strip_nulls(jsonb_build_object('quoted_at', x.at, 'selected_quote_id', x.selected))::text order by x.ord), array_agg(distinct x.account)
    into v_ids, v_from, v_to, v_fields, v_accounts
    from jsonb_to_recordset(p_items) as x(ord int, account uuid, rfq_id text, rfq_from text, rfq_to text, at int8, selected text)
    where x.ord = any(v_locked);
  select count(*), coalesce(jsonb_agg(to_jsonb(r)), '[]') into v_written, v_rfqs
    from rfq_write_rfq_statuses(p_now, v_ids, v_from, v_to, v_fields) as r;
  if v_written <> cardinality(v_ids) then
    raise exception 'accept batch wrote % of % RFQs: some changed under their locks', v_written, cardinality(v_ids);
  end if;
  select array_agg(q.id order by q.n), array_agg(q.prior order by q.n), array_agg(q.status order by q.n),
         array_agg(q.deadline order by q.n), array_agg(q.fields order by q.n)
    into v_q_ids, v_q_from, v_q_to, v_q_deadlines, v_q_fields
    from unnest(p_quote_items, p_quote_ids, p_quote_from, p_quote_to, p_quote_deadlines, p_quote_fields)
      with ordinality as q(item, id, prior, status, deadline, fields, n)
    where q.item = any(v_locked);
  v_quotes := rfq_write_quote_batch(p_now, v_q_ids, v_q_from, v_q_to, v_q_deadlines, v_q_fields);
  return jsonb_build_object('locked', to_jsonb(v_locked), 'rfqs', v_rfqs, 'quotes', v_quotes,
    -- Under the takers' frame locks (balance-frames.ts): each frame built from these rows is numbered after every commit they include.
    'balances', rfq_balance_frame_rows(v_accounts));
end
$fn$;
