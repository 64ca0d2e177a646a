-- The lock as one SQL function (true when taken; PL/pgSQL, so its plan is kept per connection),
-- so the accept's one write (rfq_accept_write, accept-functions.ts) and a `/v0` order's record
-- (v0-order-record.ts) lock through the same definition: the lock row is written only if the
-- balance update took. The one home of the lock rule.
create or replace function rfq_lock_funds(p_lock_id uuid, p_account uuid, p_token text, p_rail text, p_amount numeric, p_owner_kind text, p_owner_id text, p_at int8)
returns boolean
language plpgsql as $fn$
declare
  v_taken boolean;
begin
  with moved as (
    update balances set available = available - p_amount, locked = locked + p_amount
    where account_id = p_account and token = p_token and rail = p_rail and available >= p_amount
    returning 1
  ), taken as (
    insert into locks (lock_id, account_id, token, rail, amount, owner_kind, owner_id, created_at)
    select p_lock_id, p_account, p_token, p_rail, p_amount, p_owner_kind, p_owner_id, p_at
    from moved
    returning lock_id
  )
  select count(*) = 1 into v_taken from taken;
  return v_taken;
end
$fn$;
