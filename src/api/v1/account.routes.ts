/** Instruments, balances and the ledger of the signed-in account. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listInstruments } from '../../services/account/instruments.ts';
import { readBalances } from '../../services/account/balances.ts';
import { readLedger } from '../../services/account/ledger.ts';
import { BalanceList, InstrumentList, LedgerPage } from '../schemas/account.ts';
import { PageQuery, errorResponses } from '../schemas/common.ts';
import type { ApiContext } from '../context.ts';

export function accountRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    app.get('/v1/rfq/instruments', {
      config: { auth: 'hmac' },
      schema: { summary: 'Tradable instruments and taker fees', tags: ['reference'], response: { 200: InstrumentList, ...errorResponses } },
    }, async () => ({ instruments: await listInstruments(deps) }));

    app.get('/v1/rfq/balances', {
      config: { auth: 'hmac' },
      schema: { summary: 'Balances per token and rail', tags: ['account'], response: { 200: BalanceList, ...errorResponses } },
    }, async (request) => ({ balances: await readBalances(deps.db, deps, request.auth!.accountId) }));

    app.get('/v1/rfq/ledger', {
      config: { auth: 'hmac' },
      schema: { summary: 'Ledger entries, newest first', tags: ['account'], querystring: PageQuery, response: { 200: LedgerPage, ...errorResponses } },
    }, async (request) => readLedger(deps, request.auth!.accountId, request.query));
  };
}
