create or replace function rfq_accept_lock(p_access_key text, p_signed_at int8, p_rfq text, p_account uuid, p_quote text, p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_claim text;
  v_rfq rfqs;
  v_quotes jsonb;
  v_maker uuid;
  v_protections jsonb := '[]';
  v_barred jsonb := '[]';
begin
  if p_access_key is not null then
    select c.outcome into v_claim from rfq_claim_timestamps(array[p_access_key], array[p_signed_at]) as c;
    if v_claim <> 'claimed' then
      return jsonb_build_object('claim', v_claim);
    end if;
  end if;
  select * into v_rfq from rfqs where id = p_rfq and account_id = p_account for update;
  if not found then
    return jsonb_build_object('claim', v_claim);
  end if;
  select coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)) order by q.received_at, q.id), '[]')
    into v_quotes
    from (select * from quotes where rfq_id = p_rfq order by received_at, id for update) as q;
  if v_rfq.status = 'PENDING' and exists (select 1 from instruments i where i.instrument_id = v_rfq.instrument_id and i.type = 'SPOT') then
    select q.maker_account_id into v_maker from quotes q where q.id = p_quote and q.rfq_id = p_rfq;
    if v_maker is not null then
      v_protections := rfq_locked_protections(v_maker, v_rfq.instrument_id, p_now);
      v_barred := rfq_barred_makers(array[v_maker], p_now);
    end if;
  end if;
  return jsonb_build_object('claim', v_claim, 'rfq', to_jsonb(v_rfq), 'quotes', v_quotes, 'protections', v_protections, 'barred', v_barred);
end
$fn$;
