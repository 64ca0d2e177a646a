/**
 * The quote write as a database function: one round trip, and a plan PostgreSQL caches instead
 * of planning a multi-CTE statement per quote. It only re-checks what can change under the quote
 * (RFQ still PENDING and open, locked FOR SHARE; maker active, unsuspended, approved for the
 * pair and mode) and writes; every business rule stays in the TypeScript domain. The two frames
 * come rendered; the function fills in the quote id and version and numbers them per
 * (account, topic), taking the sequence rows in (account, topic) order like every other writer.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function rfq_write_quote(
      p_quote_id text, p_rfq_id text, p_taker uuid, p_maker_account uuid, p_pair text, p_mode text,
      p_pays_token text, p_pays_amount numeric, p_recv_token text, p_recv_amount numeric,
      p_fee numeric, p_total numeric, p_acceptable int8, p_now int8, p_taker_frame jsonb, p_maker_frame jsonb)
    returns table (out_rfq_open boolean, out_maker_allowed boolean, out_quote_id text, out_version int8)
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
      select id into v_rfq from rfqs where id = p_rfq_id and status = 'PENDING' and auction_ends_at > p_now for share;
      if v_rfq is null then
        return query select false, false, null::text, null::int8;
        return;
      end if;
      select maker_id into v_maker from makers
      where account_id = p_maker_account and active and (suspended_until is null or suspended_until <= p_now)
        and pairs ? p_pair and settlement_modes ? p_mode;
      if v_maker is null then
        return query select true, false, null::text, null::int8;
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
        return query select true, true, null::text, null::int8;
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
      return query select true, true, v_id, v_version;
    end
    $fn$;
  `.execute(db);
}
