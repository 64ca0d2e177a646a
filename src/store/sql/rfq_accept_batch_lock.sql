create or replace function rfq_accept_batch_lock(p_items jsonb, p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_keys text[];
  v_times int8[];
  v_claims jsonb := '{}';
  v_ids text[];
  v_accounts uuid[];
  v_locked text[];
  v_rfqs jsonb := '[]';
  v_quotes jsonb := '[]';
  v_protections jsonb := '[]';
  v_makers uuid[] := '{}';
  v_pair record;
begin
  select array_agg(x.access_key), array_agg(x.signed_at) into v_keys, v_times
    from jsonb_to_recordset(p_items) as x(access_key text, signed_at int8)
    where x.access_key is not null;
  if v_keys is not null then
    select coalesce(jsonb_object_agg(c.access_key || E'\n' || c.signed_at, c.outcome), '{}') into v_claims
      from rfq_claim_timestamps(v_keys, v_times) as c;
  end if;
  -- Arrays, not joins with the JSON: a lookup by = any(array) is an index scan whatever the
  -- planner guesses of a set-returning function's rows (it guesses 100, and chose a sequential
  -- scan of quotes for one RFQ).
  select array_agg(x.rfq_id), array_agg(x.account) into v_ids, v_accounts
    from jsonb_to_recordset(p_items) as x(access_key text, signed_at int8, rfq_id text, account uuid)
    where x.access_key is null or v_claims ->> (x.access_key || E'\n' || x.signed_at) = 'claimed';
  if v_ids is null then
    return jsonb_build_object('claims', v_claims, 'rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections);
  end if;
  select coalesce(jsonb_agg(to_jsonb(r) order by r.id), '[]'), array_agg(r.id) into v_rfqs, v_locked
    from (select r.* from rfqs r
          where r.id = any(v_ids) and (r.id, r.account_id) in (select w.id, w.account from unnest(v_ids, v_accounts) as w(id, account))
          order by r.id
          for update of r) as r;
  if v_locked is null then
    return jsonb_build_object('claims', v_claims, 'rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections);
  end if;
  select coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)) order by q.received_at, q.id), '[]')
    into v_quotes
    from (select q.* from quotes q where q.rfq_id = any(v_locked) order by q.id for update of q) as q;
  for v_pair in
    select distinct q.maker_account_id as maker, r.instrument_id as instrument
      from jsonb_to_recordset(p_items) as x(rfq_id text, quote_id text)
      join jsonb_to_recordset(v_rfqs) as r(id text, status text, instrument_id text) on r.id = x.rfq_id
      join quotes q on q.id = x.quote_id and q.rfq_id = x.rfq_id
      join instruments i on i.instrument_id = r.instrument_id and i.type = 'SPOT'
      where r.status = 'PENDING'
      order by 1, 2
  loop
    v_protections := v_protections || rfq_locked_protections(v_pair.maker, v_pair.instrument, p_now);
    v_makers := v_makers || v_pair.maker;
  end loop;
  return jsonb_build_object('claims', v_claims, 'rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections,
    'barred', rfq_barred_makers(v_makers, p_now));
end
$fn$;
