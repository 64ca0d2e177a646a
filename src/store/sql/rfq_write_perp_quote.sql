-- One call, one transaction: the ordinary quote write (`rfq_write_quotes` with this one item), then,
-- when it wrote the quote, the maker's two venue nonce claims and its signed orders. A nonce already
-- claimed rolls the whole write back (the quote is not written or re-priced) and is reported as
-- `out_refusal = 'venueNonceClaimed'` with the pair in `out_conflict` (src/services/perp/perp-quote.ts).
create or replace function rfq_write_perp_quote(p_item jsonb, p_perp jsonb)
returns table (out_ord int, out_reused boolean, out_rfq_open boolean, out_maker_allowed boolean, out_quote_id text, out_version int8, out_refusal text, out_conflict text)
language plpgsql as $fn$
declare
  r record;
begin
  begin
    select * into r from rfq_write_quotes(jsonb_build_array(p_item));
    out_ord := r.out_ord; out_reused := r.out_reused; out_rfq_open := r.out_rfq_open; out_maker_allowed := r.out_maker_allowed;
    out_quote_id := r.out_quote_id; out_version := r.out_version; out_refusal := r.out_refusal; out_conflict := null;
    if r.out_quote_id is not null and r.out_version is not null then
      insert into venue_nonce_claims (signer, nonce, claimed_at, purpose, quote_id)
      values (p_perp->>'order_signer', (p_perp->>'order_nonce')::int8, (p_item->>'now')::int8, 'makerOrder', r.out_quote_id)
      on conflict do nothing;
      if not found then
        raise exception using errcode = 'RFQN1', message = (p_perp->>'order_signer') || ':' || (p_perp->>'order_nonce');
      end if;
      insert into venue_nonce_claims (signer, nonce, claimed_at, purpose, quote_id)
      values (p_perp->>'cancel_signer', (p_perp->>'cancel_nonce')::int8, (p_item->>'now')::int8, 'makerCancel', r.out_quote_id)
      on conflict do nothing;
      if not found then
        raise exception using errcode = 'RFQN1', message = (p_perp->>'cancel_signer') || ':' || (p_perp->>'cancel_nonce');
      end if;
      insert into perp_quote_orders as o (quote_id, version, asset_index, cloid, maker_order, maker_order_signer, maker_cancel, maker_cancel_signer, updated_at)
      values (r.out_quote_id, r.out_version, (p_perp->>'asset_index')::int4, p_perp->>'cloid', p_perp->>'order', p_perp->>'order_signer',
              p_perp->>'cancel', p_perp->>'cancel_signer', (p_item->>'now')::int8)
      on conflict (quote_id) do update set
        version = excluded.version, asset_index = excluded.asset_index, cloid = excluded.cloid,
        maker_order = excluded.maker_order, maker_order_signer = excluded.maker_order_signer,
        maker_cancel = excluded.maker_cancel, maker_cancel_signer = excluded.maker_cancel_signer, updated_at = excluded.updated_at;
    end if;
  exception when sqlstate 'RFQN1' then
    out_ord := 0; out_reused := false; out_rfq_open := true; out_maker_allowed := true;
    out_quote_id := null; out_version := null; out_refusal := 'venueNonceClaimed'; out_conflict := sqlerrm;
  end;
  return next;
end
$fn$;
