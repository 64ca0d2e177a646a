/**
 * The SQL function set in the order it is installed: each name is `./<name>.sql`, which defines
 * that one function. A function comes after every function it calls. PostgreSQL checks a PL/pgSQL
 * body only when it runs, but a `language sql` body (`rfq_barred_makers`) is checked at creation,
 * so this order keeps any function convertible to SQL without reordering (a test holds the list
 * to the files in this folder).
 */
export const SQL_FUNCTIONS = [
  'rfq_maker_standing',
  'rfq_open_for_quotes',
  'rfq_protection_tripped',
  'rfq_accepting_execution',
  'rfq_claim_timestamps',
  'rfq_append_events',
  'rfq_balance_frame_rows',
  'rfq_barred_makers',
  'rfq_locked_protections',
  'rfq_lock_funds',
  'rfq_relock_many',
  'rfq_write_rfq_statuses',
  'rfq_write_quote_statuses',
  'rfq_write_quote_batch',
  'rfq_write_quotes',
  'rfq_write_perp_quote',
  'rfq_accept_lock',
  'rfq_accept_write',
  'rfq_accept_batch_lock',
  'rfq_accept_batch_write',
  'rfq_close_lock',
  'rfq_close_write',
  'rfq_perp_acquire',
  'rfq_perp_lock',
  'rfq_perp_record_accept',
  'rfq_perp_write',
] as const;

/**
 * The rules a write checks inside the database, each one function above, with the domain rule it
 * must agree with (test/store/sql-checks.test.ts feeds both the same generated cases) and how the
 * rule reads when spelled out in SQL, which no other function may do (it calls the check).
 */
export const SQL_CHECKS = {
  rfq_maker_standing: { rule: 'makerStandingRefusal', spelled: /suspended_until\s*(<=|>)/ },
  rfq_open_for_quotes: { rule: 'isOpenForQuotes', spelled: /auction_ends_at\s*>(?!=)|<\s*\w*auction_ends_at/ },
  rfq_protection_tripped: { rule: 'isProtectionTripped', spelled: /triggered_at\s+is\s+(not\s+)?null/ },
  rfq_accepting_execution: { rule: 'holdsRfqForAccept', spelled: /from\s+perp_executions\s+\w*\s*where[^;]*phase\s*=\s*'checking'/ },
} as const satisfies Partial<Record<(typeof SQL_FUNCTIONS)[number], { rule: string; spelled: RegExp }>>;
