/**
 * The handle every use case writes through: a Kysely transaction. Repositories take it as their
 * first argument so nothing can write outside the use case's one transaction.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

export type Tx = Transaction<DB>;
export type Db = Kysely<DB>;
/** Read-only helpers accept either the database or an open transaction. */
export type Reader = Kysely<DB> | Transaction<DB>;
