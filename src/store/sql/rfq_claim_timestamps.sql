create or replace function rfq_claim_timestamps(p_keys text[], p_times int8[])
returns table (access_key text, signed_at int8, outcome text)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
#variable_conflict use_column
begin
  return query
  with wanted as (
    select distinct t.access_key, t.signed_at from unnest(p_keys, p_times) as t(access_key, signed_at)
  ), won as (
    insert into request_timestamps (access_key, signed_at)
    select w.access_key, w.signed_at from wanted w
    join api_keys k on k.access_key = w.access_key and k.revoked_at is null
    on conflict do nothing
    returning request_timestamps.access_key, request_timestamps.signed_at
  )
  select w.access_key, w.signed_at,
    case
      when exists (select 1 from won where won.access_key = w.access_key and won.signed_at = w.signed_at) then 'claimed'
      -- Lost: a replay, or a key revoked since it was cached (told apart only on this rare path).
      when exists (select 1 from api_keys k where k.access_key = w.access_key and k.revoked_at is null) then 'reused'
      else 'revoked'
    end
  from wanted w;
end
$fn$;
