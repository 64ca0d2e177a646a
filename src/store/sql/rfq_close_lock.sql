create or replace function rfq_close_lock(p_ids text[], p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_rfqs jsonb := '[]';
  v_locked text[];
  v_quotes jsonb := '[]';
  v_protections jsonb := '[]';
  v_makers uuid[] := '{}';
  v_pair record;
begin
  select coalesce(jsonb_agg(to_jsonb(r) order by r.id), '[]'), array_agg(r.id order by r.id) into v_rfqs, v_locked
    from (select r.* from rfqs r
          where r.id = any(p_ids) and r.status = 'PENDING' and r.auction_ends_at <= p_now
            and rfq_accepting_execution(r.id) is null
          order by r.id
          for update of r skip locked) as r;
  if v_locked is null then
    return jsonb_build_object('rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections, 'barred', '[]'::jsonb);
  end if;
  select coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)) order by q.id), '[]') into v_quotes
    from (select q.* from quotes q where q.rfq_id = any(v_locked) order by q.id for update of q) as q;
  for v_pair in
    select distinct q.maker_account_id as maker, r.instrument_id as instrument
      from quotes q join rfqs r on r.id = q.rfq_id
      where q.rfq_id = any(v_locked) and r.id = any(v_locked) and r.auto_accept and q.status = 'SUBMITTED'
      order by 1, 2
  loop
    v_protections := v_protections || rfq_locked_protections(v_pair.maker, v_pair.instrument, p_now);
    v_makers := v_makers || v_pair.maker;
  end loop;
  return jsonb_build_object('rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections,
    'barred', rfq_barred_makers(v_makers, p_now));
end
$fn$;
