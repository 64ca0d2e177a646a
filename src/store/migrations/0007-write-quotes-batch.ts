/**
 * Group commit for quotes: `rfq_write_quotes(items jsonb)` applies many quote writes in one call
 * and one transaction, with exactly the per-quote checks of `rfq_write_quote` (migration 0006).
 * Items are applied in (rfq, maker, arrival) order and every event-sequence row is taken after all
 * quote rows, in (account, topic) order, so concurrent batches and other writers cannot deadlock.
 * One item's refusal (replayed timestamp, RFQ closed, maker not allowed, quote not open) is its
 * own result and does not affect the others. It replaces the one-quote function.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function rfq_write_quote(text, int8, text, text, uuid, uuid, text, text, text, numeric, text, numeric, numeric, numeric, int8, int8, jsonb, jsonb);
    create function rfq_write_quotes(p_items jsonb)
    returns table (out_ord int, out_reused boolean, out_rfq_open boolean, out_maker_allowed boolean, out_quote_id text, out_version int8)
    language plpgsql as $fn$
    declare
      it record;
      ev record;
      v_rfq text;
      v_maker uuid;
      v_id text;
      v_version int8;
      v_seq int8;
      ev_account uuid[] := '{}';
      ev_topic text[] := '{}';
      ev_frame jsonb[] := '{}';
      ev_at int8[] := '{}';
    begin
      for it in
        select * from jsonb_to_recordset(p_items) as x(
          ord int, access_key text, signed_at int8, quote_id text, rfq_id text, taker uuid, maker_account uuid,
          pair text, mode text, pays_token text, pays_amount numeric, recv_token text, recv_amount numeric,
          fee numeric, total numeric, acceptable int8, now int8, taker_frame jsonb, maker_frame jsonb)
        order by rfq_id, maker_account, ord
      loop
        out_ord := it.ord;
        out_reused := false; out_rfq_open := false; out_maker_allowed := false; out_quote_id := null; out_version := null;
        if it.access_key is not null then
          insert into request_timestamps (access_key, signed_at) values (it.access_key, it.signed_at) on conflict do nothing;
          if not found then
            out_reused := true;
            return next;
            continue;
          end if;
        end if;
        select id into v_rfq from rfqs where id = it.rfq_id and status = 'PENDING' and auction_ends_at > it.now for share;
        if v_rfq is null then
          return next;
          continue;
        end if;
        out_rfq_open := true;
        select maker_id into v_maker from makers
        where account_id = it.maker_account and active and (suspended_until is null or suspended_until <= it.now)
          and pairs ? it.pair and settlement_modes ? it.mode;
        if v_maker is null then
          return next;
          continue;
        end if;
        out_maker_allowed := true;
        v_id := null;
        insert into quotes as q (
          id, rfq_id, maker_id, maker_account_id, version, status,
          maker_pays_token, maker_pays_amount, maker_receives_token, maker_receives_amount,
          taker_fee, taker_total, received_at, acceptable_for_ms, settlement_mode, created_at, updated_at)
        values (
          it.quote_id, it.rfq_id, v_maker, it.maker_account, 1, 'SUBMITTED',
          it.pays_token, it.pays_amount, it.recv_token, it.recv_amount,
          it.fee, it.total, it.now, it.acceptable, it.mode, it.now, it.now)
        on conflict (rfq_id, maker_id) do update set
          maker_pays_token = excluded.maker_pays_token, maker_pays_amount = excluded.maker_pays_amount,
          maker_receives_token = excluded.maker_receives_token, maker_receives_amount = excluded.maker_receives_amount,
          taker_fee = excluded.taker_fee, taker_total = excluded.taker_total, received_at = excluded.received_at,
          acceptable_for_ms = excluded.acceptable_for_ms, settlement_mode = excluded.settlement_mode,
          updated_at = excluded.updated_at, version = q.version + 1
        where q.status = 'SUBMITTED'
        returning q.id, q.version into v_id, v_version;
        if v_id is null then
          return next;
          continue;
        end if;
        out_quote_id := v_id;
        out_version := v_version;
        ev_account := ev_account || it.taker || it.maker_account;
        ev_topic := ev_topic || 'quotes'::text || 'quoteStatus'::text;
        ev_frame := ev_frame
          || jsonb_set(jsonb_set(it.taker_frame, '{quoteId}', to_jsonb(v_id)), '{version}', to_jsonb(v_version))
          || jsonb_set(jsonb_set(it.maker_frame, '{quoteId}', to_jsonb(v_id)), '{version}', to_jsonb(v_version));
        ev_at := ev_at || it.now || it.now;
        return next;
      end loop;

      for ev in
        select * from unnest(ev_account, ev_topic, ev_frame, ev_at) with ordinality as e(account_id, topic, frame, at, n)
        order by account_id, topic, n
      loop
        insert into event_seqs as s (account_id, topic, last_seq) values (ev.account_id, ev.topic, 1)
        on conflict (account_id, topic) do update set last_seq = s.last_seq + 1
        returning s.last_seq into v_seq;
        insert into outbox (account_id, topic, seq, frame, created_at) values (ev.account_id, ev.topic, v_seq, ev.frame, ev.at);
      end loop;
    end
    $fn$;
  `.execute(db);
}
