/**
 * The quote function also claims the request's (access key, timestamp) pair, so replay protection
 * costs the quote no extra round trip: a replayed request changes nothing and reports `reused`.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function rfq_write_quote(text, text, uuid, uuid, text, text, text, numeric, text, numeric, numeric, numeric, int8, int8, jsonb, jsonb);
    create function rfq_write_quote(
      p_access_key text, p_signed_at int8, p_quote_id text, p_rfq_id text, p_taker uuid, p_maker_account uuid, p_pair text, p_mode text,
      p_pays_token text, p_pays_amount numeric, p_recv_token text, p_recv_amount numeric,
      p_fee numeric, p_total numeric, p_acceptable int8, p_now int8, p_taker_frame jsonb, p_maker_frame jsonb)
    returns table (out_reused boolean, out_rfq_open boolean, out_maker_allowed boolean, out_quote_id text, out_version int8)
    language plpgsql as $fn$
    declare
      v_rfq text;
      v_maker uuid;
      v_id text;
      v_version int8;
      v_seq int8;
      v_account uuid;
      v_topic text;
      v_frame jsonb;
      v_taker_first boolean;
      i int;
    begin
      if p_access_key is not null then
        insert into request_timestamps (access_key, signed_at) values (p_access_key, p_signed_at) on conflict do nothing;
        if not found then
          return query select true, false, false, null::text, null::int8;
          return;
        end if;
      end if;
      select id into v_rfq from rfqs where id = p_rfq_id and status = 'PENDING' and auction_ends_at > p_now for share;
      if v_rfq is null then
        return query select false, false, false, null::text, null::int8;
        return;
      end if;
      select maker_id into v_maker from makers
      where account_id = p_maker_account and active and (suspended_until is null or suspended_until <= p_now)
        and pairs ? p_pair and settlement_modes ? p_mode;
      if v_maker is null then
        return query select false, true, false, null::text, null::int8;
        return;
      end if;
      insert into quotes as q (
        id, rfq_id, maker_id, maker_account_id, version, status,
        maker_pays_token, maker_pays_amount, maker_receives_token, maker_receives_amount,
        taker_fee, taker_total, received_at, acceptable_for_ms, settlement_mode, created_at, updated_at)
      values (
        p_quote_id, p_rfq_id, v_maker, p_maker_account, 1, 'SUBMITTED',
        p_pays_token, p_pays_amount, p_recv_token, p_recv_amount,
        p_fee, p_total, p_now, p_acceptable, p_mode, p_now, p_now)
      on conflict (rfq_id, maker_id) do update set
        maker_pays_token = excluded.maker_pays_token, maker_pays_amount = excluded.maker_pays_amount,
        maker_receives_token = excluded.maker_receives_token, maker_receives_amount = excluded.maker_receives_amount,
        taker_fee = excluded.taker_fee, taker_total = excluded.taker_total, received_at = excluded.received_at,
        acceptable_for_ms = excluded.acceptable_for_ms, settlement_mode = excluded.settlement_mode,
        updated_at = excluded.updated_at, version = q.version + 1
      where q.status = 'SUBMITTED'
      returning q.id, q.version into v_id, v_version;
      if v_id is null then
        return query select false, true, true, null::text, null::int8;
        return;
      end if;
      v_taker_first := (p_taker, 'quotes'::text) < (p_maker_account, 'quoteStatus'::text);
      for i in 1..2 loop
        if (i = 1) = v_taker_first then
          v_account := p_taker; v_topic := 'quotes'; v_frame := p_taker_frame;
        else
          v_account := p_maker_account; v_topic := 'quoteStatus'; v_frame := p_maker_frame;
        end if;
        insert into event_seqs as s (account_id, topic, last_seq) values (v_account, v_topic, 1)
        on conflict (account_id, topic) do update set last_seq = s.last_seq + 1
        returning s.last_seq into v_seq;
        insert into outbox (account_id, topic, seq, frame, created_at)
        values (v_account, v_topic, v_seq, jsonb_set(jsonb_set(v_frame, '{quoteId}', to_jsonb(v_id)), '{version}', to_jsonb(v_version)), p_now);
      end loop;
      return query select false, true, true, v_id, v_version;
    end
    $fn$;
  `.execute(db);
}
