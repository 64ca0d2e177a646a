-- `rfq_write_quotes(items jsonb, events boolean)`, the group-committed quote write
-- (src/services/rfq/write-quote.ts).
--
-- Per item, in (RFQ, maker, arrival) order, and refused per item without touching the batch:
-- 1. the request's replay claim through the one claim, `rfq_claim_timestamps` (every item's in
--    one call before the loop; a pair repeated in the batch is won by its first item)
--    (src/store/timestamp-claims.ts): `out_reused` when the (access key, timestamp) was already
--    used, `out_refusal = 'keyRevoked'` when the key was revoked since it was cached;
-- 2. the maker's market-maker protection on the item's instrument not tripped (`rfq_protection_tripped`)
--    (`out_refusal = 'protectionTriggered'`; since 0175, when it replaced a statement of its own
--    per quote, submit-quote.ts);
-- 3. the RFQ open for quotes (`rfq_open_for_quotes`), locked FOR SHARE so an accept or close waits;
-- 4. the maker in standing (`rfq_maker_standing`: active, unsuspended), approved for the pair and settlement mode, and (xchange) its
--    registered adapter signer still the one the bundle was verified against: the live half of
--    "may this maker quote now" (the cached half is `quotingMaker`, submit-quote.ts);
-- 5. xchange ids: the maker's existing quote id (`quoteIdMismatch`) or a fresh one (`quoteIdTaken`),
--    with a transaction-scoped advisory lock on the proposed id;
-- 6. insert, or re-price while SUBMITTED (the quote machine's `requote`: version + 1, receivedAt
--    restamped);
-- then the taker's `quoteUpdate` and the maker's `quoteStatus` frames of every written quote go to
-- the outbox through `rfq_append_events` (outbox.ts), taker's then maker's for each quote written
-- in the order the items are returned. With `p_events` (since 0160) one more row, `out_ord` null,
-- carries what `rfq_append_events` returned (`out_events`: since 0187 each frame's `[id, seq]`),
-- for the writer to join with its frames (write-quote.ts `framesWritten`) and hand to its node's
-- dispatcher once committed; it comes only when some frame was written. The frames' `quoteId`
-- and `version` are set here and, for that hand-over, there: the test of this function holds the
-- two to the rows stored.
create or replace function rfq_write_quotes(p_items jsonb, p_events boolean default false)
returns table (out_ord int, out_reused boolean, out_rfq_open boolean, out_maker_allowed boolean, out_quote_id text, out_version int8, out_refusal text, out_events jsonb)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
declare
  it record;
  v_rfq text;
  v_maker uuid;
  v_existing text;
  v_id text;
  v_version int8;
  -- Arrays, appended in place: a jsonb value is rewritten whole by each ||, which made a batch
  -- cost quadratic in its size (about 40% of a 40-64 item batch).
  v_events jsonb[] := '{}';
  v_claim text;
  v_key text;
  v_keys text[];
  v_times int8[];
  v_claims jsonb := '{}';
  v_seen text[] := '{}';
  v_written jsonb;
begin
  -- Every item's replay claim in one call (one call per item cost about 40 times as much:
  -- bench/claim-cost.ts), in (access key, timestamp) order; the loop reads each item's outcome.
  select array_agg(x.access_key order by x.access_key, x.signed_at), array_agg(x.signed_at order by x.access_key, x.signed_at)
    into v_keys, v_times
    from jsonb_to_recordset(p_items) as x(access_key text, signed_at int8)
    where x.access_key is not null;
  if v_keys is not null then
    select coalesce(jsonb_object_agg(c.access_key || E'\n' || c.signed_at, c.outcome), '{}') into v_claims
      from rfq_claim_timestamps(v_keys, v_times) as c;
  end if;
  for it in
    select * from jsonb_to_recordset(p_items) as x(
      ord int, access_key text, signed_at int8, quote_id text, rfq_id text, taker uuid, maker_account uuid,
      instrument text, pair text, mode text, pays_token text, pays_amount numeric, recv_token text, recv_amount numeric,
      fee numeric, total numeric, acceptable int8, now int8, taker_frame jsonb, maker_frame jsonb,
      xchange jsonb, adapter_signer text)
    order by rfq_id, maker_account, ord
  loop
    out_ord := it.ord;
    out_reused := false; out_rfq_open := false; out_maker_allowed := false; out_quote_id := null; out_version := null; out_refusal := null; out_events := null;
    if it.access_key is not null then
      -- A pair repeated in the batch is claimed once: the first item in loop order wins it.
      v_key := it.access_key || E'\n' || it.signed_at;
      v_claim := v_claims ->> v_key;
      if v_claim = 'claimed' and v_key = any(v_seen) then
        v_claim := 'reused';
      end if;
      v_seen := array_append(v_seen, v_key);
      if v_claim = 'reused' then
        out_reused := true;
        return next;
        continue;
      elsif v_claim = 'revoked' then
        out_refusal := 'keyRevoked';
        return next;
        continue;
      end if;
    end if;
    if exists (select 1 from maker_protections where maker_account_id = it.maker_account and instrument_id = it.instrument and rfq_protection_tripped(triggered_at)) then
      out_refusal := 'protectionTriggered';
      return next;
      continue;
    end if;
    select id into v_rfq from rfqs where id = it.rfq_id and rfq_open_for_quotes(status, auction_ends_at, it.now) for share;
    if v_rfq is null then
      return next;
      continue;
    end if;
    out_rfq_open := true;
    select maker_id into v_maker from makers
    where account_id = it.maker_account and rfq_maker_standing(active, suspended_until, it.now) is null
      and pairs ? it.pair and settlement_modes ? it.mode
      and (it.adapter_signer is null or adapter_signer = it.adapter_signer);
    if v_maker is null then
      return next;
      continue;
    end if;
    out_maker_allowed := true;
    if it.xchange is not null then
      select id into v_existing from quotes where rfq_id = it.rfq_id and maker_id = v_maker;
      if v_existing is null then
        perform pg_advisory_xact_lock(hashtextextended(it.quote_id, 0));
        if exists (select 1 from quotes where id = it.quote_id) then
          out_refusal := 'quoteIdTaken';
          return next;
          continue;
        end if;
      elsif v_existing <> it.quote_id then
        out_refusal := 'quoteIdMismatch';
        out_quote_id := v_existing;
        return next;
        continue;
      end if;
    end if;
    v_id := null;
    insert into quotes as q (
      id, rfq_id, maker_id, maker_account_id, version, status,
      maker_pays_token, maker_pays_amount, maker_receives_token, maker_receives_amount,
      taker_fee, taker_total, received_at, acceptable_for_ms, settlement_mode, xchange, created_at, updated_at)
    values (
      it.quote_id, it.rfq_id, v_maker, it.maker_account, 1, 'SUBMITTED',
      it.pays_token, it.pays_amount, it.recv_token, it.recv_amount,
      it.fee, it.total, it.now, it.acceptable, it.mode, it.xchange, it.now, it.now)
    on conflict (rfq_id, maker_id) do update set
      maker_pays_token = excluded.maker_pays_token, maker_pays_amount = excluded.maker_pays_amount,
      maker_receives_token = excluded.maker_receives_token, maker_receives_amount = excluded.maker_receives_amount,
      taker_fee = excluded.taker_fee, taker_total = excluded.taker_total, received_at = excluded.received_at,
      acceptable_for_ms = excluded.acceptable_for_ms, settlement_mode = excluded.settlement_mode,
      xchange = excluded.xchange, updated_at = excluded.updated_at, version = q.version + 1
    where q.status = 'SUBMITTED'
    returning q.id, q.version into v_id, v_version;
    if v_id is null then
      return next;
      continue;
    end if;
    out_quote_id := v_id;
    out_version := v_version;
    v_events := array_append(v_events, jsonb_build_object('ord', coalesce(array_length(v_events, 1), 0), 'account_id', it.taker, 'topic', 'quotes', 'at', it.now,
           'frame', jsonb_set(jsonb_set(it.taker_frame, '{quoteId}', to_jsonb(v_id)), '{version}', to_jsonb(v_version))));
    v_events := array_append(v_events, jsonb_build_object('ord', coalesce(array_length(v_events, 1), 0), 'account_id', it.maker_account, 'topic', 'quoteStatus', 'at', it.now,
           'frame', jsonb_set(jsonb_set(it.maker_frame, '{quoteId}', to_jsonb(v_id)), '{version}', to_jsonb(v_version))));
    return next;
  end loop;

  -- The frames of every quote written, in one call of the outbox writer (0008): sequence rows in
  -- (account, topic) order, each (account, topic) numbered in append order.
  if coalesce(array_length(v_events, 1), 0) > 0 then
    v_written := rfq_append_events(to_jsonb(v_events));
    if p_events then
      out_ord := null; out_reused := null; out_rfq_open := null; out_maker_allowed := null;
      out_quote_id := null; out_version := null; out_refusal := null; out_events := v_written;
      return next;
    end if;
  end if;
end
$fn$;
