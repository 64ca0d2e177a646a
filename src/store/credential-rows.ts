/** What a credential's live standing is read from: its key row and its account's maker row. */
import { sql } from 'kysely';
import type { Reader } from './transaction.ts';

export interface CredentialRow {
  access_key: string;
  revoked_at: string | number | null;
  expires_at: string | number;
  active: boolean | null;
  suspended_until: string | number | null;
}

/** The rows of `accessKeys` that exist, with their maker's standing columns (null when no maker). */
export async function credentialRows(db: Reader, accessKeys: readonly string[]): Promise<CredentialRow[]> {
  const rows = await sql<CredentialRow>`
    select k.access_key, k.revoked_at, k.expires_at, m.active, m.suspended_until
    from api_keys k left join makers m on m.account_id = k.account_id
    where k.access_key = any(${accessKeys}::text[])`.execute(db);
  return rows.rows;
}
