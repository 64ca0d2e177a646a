create or replace function rfq_perp_write(
  p_now int8, p_execution text, p_lease_owner text, p_phase text, p_columns jsonb, p_calls jsonb,
  p_rfqs jsonb, p_quotes jsonb, p_events jsonb)
returns jsonb
language plpgsql as $fn$
declare
  v_execution jsonb;
  v_rfqs jsonb;
  v_quotes jsonb;
  v_written int;
  v_events jsonb := '[]';
  v_ids text[]; v_from text[]; v_to text[]; v_fields text[]; v_deadlines int8[];
begin
  if p_execution is not null then
    with next as (
      update perp_executions e set
        phase = p_columns ->> 'phase',
        state = p_columns -> 'state',
        signer = case when p_columns ? 'signer' then p_columns ->> 'signer' else e.signer end,
        nonce = case when p_columns ? 'nonce' then (p_columns ->> 'nonce')::int8 else e.nonce end,
        cloid = case when p_columns ? 'cloid' then p_columns ->> 'cloid' else e.cloid end,
        taker_sent_at = case when p_columns ? 'taker_sent_at' then (p_columns ->> 'taker_sent_at')::int8 else e.taker_sent_at end,
        taker_reply_at = case when p_columns ? 'taker_reply_at' then (p_columns ->> 'taker_reply_at')::int8 else e.taker_reply_at end,
        failure_code = case when p_columns ? 'failure_code' then p_columns ->> 'failure_code' else e.failure_code end,
        lease_owner = case when p_columns ? 'lease_owner' then p_columns ->> 'lease_owner' else e.lease_owner end,
        lease_until = (p_columns ->> 'lease_until')::int8,
        next_at = (p_columns ->> 'next_at')::int8,
        updated_at = p_now
      where e.id = p_execution and e.lease_owner = p_lease_owner and e.phase = p_phase
      returning e.*
    )
    select to_jsonb(next) || jsonb_build_object('state', next.state::text) into v_execution from next;
    if v_execution is null then
      return jsonb_build_object('lost', true);
    end if;
    insert into perp_execution_calls (execution_id, kind, quote_id, request, reply, error, started_at, ended_at)
      select p_execution, e.c ->> 'kind', e.c ->> 'quote_id', nullif(e.c -> 'request', 'null'), nullif(e.c -> 'reply', 'null'),
             e.c ->> 'error', (e.c ->> 'started_at')::int8, (e.c ->> 'ended_at')::int8
      from jsonb_array_elements(p_calls) with ordinality as e(c, ord)
      order by e.ord;
  end if;
  -- The RFQ and its quotes through their status writers, as every other write does.
  select array_agg(d.id order by d.n), array_agg(d.prior order by d.n), array_agg(d.status order by d.n), array_agg(coalesce(d.f, '{}')::text order by d.n)
    into v_ids, v_from, v_to, v_fields
    from rows from (jsonb_to_recordset(p_rfqs) as (id text, prior text, status text, f jsonb)) with ordinality as d(id, prior, status, f, n);
  select count(*), coalesce(jsonb_agg(to_jsonb(r)), '[]') into v_written, v_rfqs
    from rfq_write_rfq_statuses(p_now, v_ids, v_from, v_to, v_fields) as r;
  if v_written <> jsonb_array_length(p_rfqs) then
    raise exception 'RFQ batch wrote % of % rows: some changed under their locks', v_written, jsonb_array_length(p_rfqs);
  end if;
  -- The settlement deadline is set on a win and never cleared: the writer's deadline argument.
  select array_agg(d.id order by d.n), array_agg(d.prior order by d.n), array_agg(d.status order by d.n),
         array_agg((d.f ->> 'settlement_deadline_secs')::int8 order by d.n), array_agg((coalesce(d.f, '{}') - 'settlement_deadline_secs')::text order by d.n)
    into v_ids, v_from, v_to, v_deadlines, v_fields
    from rows from (jsonb_to_recordset(p_quotes) as (id text, prior text, status text, f jsonb)) with ordinality as d(id, prior, status, f, n);
  v_quotes := rfq_write_quote_batch(p_now, v_ids, v_from, v_to, v_deadlines, v_fields);
  if jsonb_array_length(p_events) > 0 then
    v_events := rfq_append_events(p_events);
  end if;
  -- The outbox ids and seqs as text: parsed as the driver parses jsonb (numbers as numbers), not exactly.
  return jsonb_build_object('lost', false, 'execution', v_execution, 'rfqs', v_rfqs, 'quotes', v_quotes, 'events', v_events::text);
end
$fn$;
