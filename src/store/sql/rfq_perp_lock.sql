create or replace function rfq_perp_lock(p_rfq text, p_account uuid, p_quote text, p_now int8, p_signer text, p_nonce int8, p_purpose text)
returns jsonb
language plpgsql as $fn$
declare
  v_locked jsonb;
  v_maker uuid;
  v_claimed boolean := true;
begin
  v_locked := rfq_accept_lock(null, null, p_rfq, p_account, p_quote, p_now);
  if not v_locked ? 'rfq' then
    return v_locked;
  end if;
  if v_locked -> 'rfq' ->> 'status' = 'PENDING' then
    select q.maker_account_id into v_maker from quotes q where q.id = p_quote and q.rfq_id = p_rfq;
    if v_maker is not null then
      v_locked := v_locked || jsonb_build_object('protections', rfq_locked_protections(v_maker, v_locked -> 'rfq' ->> 'instrument_id', p_now));
    end if;
  end if;
  if p_signer is not null then
    insert into venue_nonce_claims (signer, nonce, claimed_at, purpose, quote_id)
      values (lower(p_signer), p_nonce, p_now, p_purpose, null)
      on conflict (signer, nonce) do nothing;
    v_claimed := found;
  end if;
  return v_locked || jsonb_build_object('claimed', v_claimed);
end
$fn$;
