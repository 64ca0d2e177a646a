-- The batch write as the accept's and the close's one-call writes use it (accept-functions.ts,
-- close-functions.ts): every row written or the call raises (a row that moved under its lock),
-- answered as a JSON array with `xchange` as text (its exact numbers, json-rows.ts).
create or replace function rfq_write_quote_batch(p_now int8, p_ids text[], p_from text[], p_to text[], p_deadlines int8[], p_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  v_written int;
  v_quotes jsonb;
begin
  select count(*), coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text))), '[]') into v_written, v_quotes
    from rfq_write_quote_statuses(p_now, p_ids, p_from, p_to, p_deadlines, p_fields) as q;
  if v_written <> coalesce(cardinality(p_ids), 0) then
    raise exception 'quote batch wrote % of % rows: some changed under their locks', v_written, cardinality(p_ids);
  end if;
  return v_quotes;
end
$fn$;
