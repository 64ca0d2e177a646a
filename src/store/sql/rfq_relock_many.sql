-- Ends many RFQ owners' live locks at once, optionally replacing each with a smaller one, as one
-- SQL function (so the auction close's one write, rfq_close_write in close-functions.ts, relocks
-- through the same definition): the balance rows are locked in key order first (so concurrent
-- batches cannot deadlock), then the net change per (account, token, rail) is applied once.
-- A replacement larger than the lock it replaces raises: this path only ever frees funds.
-- Answers the locks it ended.
create or replace function rfq_relock_many(p_at int8, p_owner_ids text[], p_reasons text[], p_new_lock_ids uuid[], p_kept numeric[])
returns table (owner_id text, lock_id uuid, account_id uuid, token text, rail text, amount numeric)
language plpgsql as $fn$
#variable_conflict use_column
declare
  v_ended jsonb;
  v_lock record;
  v_rows jsonb[] := '{}';
  i int;
begin
  -- One point update per owner: its live lock is one probe of the unique index, planned so
  -- whatever the table's statistics say. As one join against the batch the plan followed them:
  -- on a locks table grown since its last ANALYZE it compared every live lock with every owner
  -- (130,000 rows for a close of 100 RFQs, 30 ms).
  for i in 1 .. coalesce(cardinality(p_owner_ids), 0) loop
    update locks l set released_at = p_at, release_reason = p_reasons[i]
      where l.owner_kind = 'rfq' and l.owner_id = p_owner_ids[i] and l.released_at is null
      returning l.owner_id, l.lock_id, l.account_id, l.token, l.rail, l.amount into v_lock;
    -- Each ended lock beside its replacement (kept 0 when released), gathered into one value the
    -- statements below read (no temporary table: its catalog churn would cost more than the round
    -- trips saved).
    if found then
      v_rows := v_rows || (to_jsonb(v_lock) || jsonb_build_object('new_lock_id', p_new_lock_ids[i], 'kept', coalesce(p_kept[i], 0)));
    end if;
  end loop;
  v_ended := to_jsonb(v_rows);
  if exists (select 1 from jsonb_to_recordset(v_ended) as r(amount numeric, kept numeric) where r.kept > r.amount) then
    raise exception 'a replacement lock exceeds the lock it replaces';
  end if;
  insert into locks (lock_id, account_id, token, rail, amount, owner_kind, owner_id, created_at)
    select r.new_lock_id, r.account_id, r.token, r.rail, r.kept, 'rfq', r.owner_id, p_at
    from jsonb_to_recordset(v_ended) as r(owner_id text, account_id uuid, token text, rail text, new_lock_id uuid, kept numeric)
    where r.new_lock_id is not null and r.kept > 0;
  perform 1 from balances b
    where (b.account_id, b.token, b.rail) in (
      select r.account_id, r.token, r.rail from jsonb_to_recordset(v_ended) as r(account_id uuid, token text, rail text, amount numeric, kept numeric) where r.amount > r.kept)
    order by b.account_id, b.token, b.rail
    for update;
  update balances b set available = b.available + d.freed, locked = b.locked - d.freed
    from (select r.account_id, r.token, r.rail, sum(r.amount - r.kept) as freed
          from jsonb_to_recordset(v_ended) as r(account_id uuid, token text, rail text, amount numeric, kept numeric)
          group by r.account_id, r.token, r.rail) as d
    where b.account_id = d.account_id and b.token = d.token and b.rail = d.rail and d.freed > 0;
  return query select r.owner_id, r.lock_id, r.account_id, r.token, r.rail, r.amount
    from jsonb_to_recordset(v_ended) as r(owner_id text, lock_id uuid, account_id uuid, token text, rail text, amount numeric);
end
$fn$;
