-- `rfq_balance_frame_rows(accounts)`: locks each account's balance frames (in account order),
-- then answers the accounts' rows in (account, token, rail) order as a JSON array. The read is a
-- statement after the locks, so in READ COMMITTED it sees every commit made before they were
-- granted. The key's namespace keeps these locks apart from any other advisory lock.
create or replace function rfq_balance_frame_rows(p_accounts uuid[]) returns jsonb
language plpgsql as $fn$
declare
  v_account uuid;
  v_rows jsonb;
begin
  for v_account in select distinct a from unnest(p_accounts) as a order by a loop
    perform pg_advisory_xact_lock(hashtextextended('rfq.balance-frames:' || v_account::text, 0));
  end loop;
  select coalesce(jsonb_agg(to_jsonb(b) order by b.account_id, b.token, b.rail), '[]') into v_rows
    from balances b where b.account_id = any(p_accounts);
  return v_rows;
end
$fn$;
