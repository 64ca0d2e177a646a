/**
 * xchange quotes. `rfq_write_quotes` (migration 0007) learns two item fields:
 * - `xchange` (the maker's bundle, checked in TypeScript before the write) is stored with the
 *   quote; a re-quote without one clears it;
 * - `adapter_signer`: the signer the bundle was verified against must still be the maker's
 *   registered one (the maker record is cached per node for a second).
 * The quote id of an xchange quote is chosen by the maker (it is signed into the bundle before
 * the first submission), so the function also refuses, per item and without touching the batch,
 * an xchange id that is not the id of the maker's existing quote on the RFQ (`quoteIdMismatch`)
 * or that another quote already has (`quoteIdTaken`). A transaction-scoped advisory lock on the
 * proposed id makes two makers proposing the same id at once see each other.
 *
 * `xchange_executions` records the service's attempts to execute a selected xchange bundle from
 * custody (the adapter moves custody's leg only when custody sends the transaction).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table xchange_executions (
      quote_id text primary key,
      attempts int4 not null,
      attempted_at int8 not null,
      tx_hash text,
      last_error text
    )
  `.execute(db);
  await sql`
    drop function rfq_write_quotes(jsonb);
    create function rfq_write_quotes(p_items jsonb)
    returns table (out_ord int, out_reused boolean, out_rfq_open boolean, out_maker_allowed boolean, out_quote_id text, out_version int8, out_refusal text)
    language plpgsql as $fn$
    declare
      it record;
      ev record;
      v_rfq text;
      v_maker uuid;
      v_existing text;
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
          fee numeric, total numeric, acceptable int8, now int8, taker_frame jsonb, maker_frame jsonb,
          xchange jsonb, adapter_signer text)
        order by rfq_id, maker_account, ord
      loop
        out_ord := it.ord;
        out_reused := false; out_rfq_open := false; out_maker_allowed := false; out_quote_id := null; out_version := null; out_refusal := null;
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
