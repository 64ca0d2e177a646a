/** The operator surface `/admin/v1` (DESIGN.md section 6), bearer-token protected. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { putInstrument, putToken } from '../../services/admin/reference-data.ts';
import { listMakers, putMaker, unsuspendMaker } from '../../services/admin/makers.ts';
import { listSettlementAnomalies } from '../../services/settlement/settle-quote.ts';
import { adjustBalance } from '../../services/admin/adjust-balance.ts';
import { checkInvariants } from '../../services/admin/invariants.ts';
import { readSettings, settingKeys } from '../../store/settings.ts';
import { changeSettings } from '../../services/admin/change-settings.ts';
import { EvmAddress, InstrumentId, SignedDecimalString, TokenSymbol, DecimalString, Nullable, errorResponses } from '../schemas/common.ts';
import { InstrumentType, Rail } from '../schemas/account.ts';
import type { ApiContext } from '../context.ts';

const SettlementMode = Type.Union([Type.Literal('permit2'), Type.Literal('promised'), Type.Literal('xchange'), Type.Literal('perp')]);
export const MakerView = Type.Object({
  makerId: Type.String(),
  address: EvmAddress,
  active: Type.Boolean(),
  pairs: Type.Array(Type.String()),
  settlementModes: Type.Array(Type.String()),
  spender: Nullable(Type.String()),
  adapterSigner: Nullable(Type.String()),
  suspendedUntil: Nullable(Type.Integer()),
  suspensionCount: Type.Integer(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});
const SettingsBody = Type.Object(
  Object.fromEntries(settingKeys.map((key) => [key, Type.Optional(Type.Integer({ minimum: 0 }))])),
  { additionalProperties: false },
);
const SettingsView = Type.Object(Object.fromEntries(settingKeys.map((key) => [key, Type.Integer()])));

export function adminRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const deps = context.service;
    const admin = { auth: 'admin' as const };
    const tags = ['admin'];

    app.put('/admin/v1/tokens/:symbol', {
      config: admin,
      schema: {
        summary: 'Create or update a token',
        tags,
        params: Type.Object({ symbol: TokenSymbol }),
        body: Type.Object({ decimals: Type.Integer({ minimum: 0, maximum: 36 }), address: Type.Optional(Nullable(EvmAddress)) }, { additionalProperties: false }),
        response: { 200: Type.Object({ symbol: TokenSymbol, decimals: Type.Integer(), address: Nullable(Type.String()) }), ...errorResponses },
      },
    }, async (request) => putToken(deps, request.params.symbol, request.body));

    app.put('/admin/v1/instruments/:instrumentId', {
      config: admin,
      schema: {
        summary: 'Create or update an instrument',
        tags,
        params: Type.Object({ instrumentId: InstrumentId }),
        body: Type.Object(
          {
            base: TokenSymbol,
            quote: TokenSymbol,
            type: InstrumentType,
            takerFeeTenthBp: Type.Integer({ minimum: 0, maximum: 100000 }),
            minQuoteNotional: Type.Optional(Nullable(DecimalString)),
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            instrumentId: InstrumentId, base: TokenSymbol, quote: TokenSymbol, type: InstrumentType,
            takerFeeTenthBp: Type.Integer(), minQuoteNotional: Nullable(Type.String()), enabled: Type.Boolean(),
          }),
          ...errorResponses,
        },
      },
    }, async (request) => putInstrument(deps, request.params.instrumentId, request.body));

    app.put('/admin/v1/makers/:address', {
      config: admin,
      schema: {
        summary: 'Register or update a maker',
        tags,
        params: Type.Object({ address: EvmAddress }),
        body: Type.Object(
          {
            active: Type.Boolean(),
            pairs: Type.Array(Type.String(), { maxItems: 500 }),
            settlementModes: Type.Array(SettlementMode, { minItems: 1, maxItems: 4 }),
            spender: Type.Optional(Nullable(EvmAddress)),
            adapterSigner: Type.Optional(Nullable(EvmAddress)),
            suspended: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: MakerView, ...errorResponses },
      },
    }, async (request) => putMaker(deps, request.params.address, request.body, context.spenderCheck));

    app.post('/admin/v1/makers/:address/unsuspend', {
      config: admin,
      schema: { summary: 'Lift a maker suspension', tags, params: Type.Object({ address: EvmAddress }), response: { 200: MakerView, ...errorResponses } },
    }, async (request) => unsuspendMaker(deps, request.params.address));

    app.get('/admin/v1/settlement-anomalies', {
      config: admin,
      schema: {
        summary: 'On-chain settlements the ledger could not apply normally',
        tags,
        response: {
          200: Type.Object({
            anomalies: Type.Array(Type.Object({
              txHash: Type.String(), logIndex: Type.Integer(), kind: Type.String(), quoteId: Nullable(Type.String()), rfqId: Nullable(Type.String()),
              detail: Type.Record(Type.String(), Type.Unknown()), createdAt: Type.Integer(), resolvedAt: Nullable(Type.Integer()), resolution: Nullable(Type.String()),
            })),
          }),
          ...errorResponses,
        },
      },
    }, async () => ({ anomalies: await listSettlementAnomalies(deps) }));

    app.get('/admin/v1/makers', {
      config: admin,
      schema: { summary: 'List makers', tags, response: { 200: Type.Object({ makers: Type.Array(MakerView) }), ...errorResponses } },
    }, async () => ({ makers: await listMakers(deps) }));

    app.post('/admin/v1/balances/adjust', {
      config: admin,
      schema: {
        summary: 'Post a ledger ADJUSTMENT',
        tags,
        body: Type.Object(
          { address: EvmAddress, token: TokenSymbol, amount: SignedDecimalString, rail: Type.Optional(Rail), memo: Type.String({ minLength: 1, maxLength: 500 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            movementId: Type.String(),
            accountId: Type.String(),
            balance: Type.Object({ token: Type.String(), rail: Type.String(), available: Type.String(), locked: Type.String(), total: Type.String() }),
          }),
          ...errorResponses,
        },
      },
    }, async (request) => adjustBalance(deps, request.body));

    app.get('/admin/v1/invariants', {
      config: admin,
      schema: {
        summary: 'Run the ledger invariant checks',
        tags,
        response: {
          200: Type.Object({ ok: Type.Boolean(), violations: Type.Array(Type.Object({ check: Type.String(), detail: Type.Record(Type.String(), Type.Unknown()) })) }),
          ...errorResponses,
        },
      },
    }, async () => checkInvariants(deps.db, context.extraInvariants));

    app.get('/admin/v1/settings', {
      config: admin,
      schema: { summary: 'Read operator settings', tags, response: { 200: SettingsView, ...errorResponses } },
    }, async () => ({ ...(await readSettings(deps.db)) }) as Record<string, number>);

    app.put('/admin/v1/settings', {
      config: admin,
      schema: { summary: 'Change operator settings', tags, body: SettingsBody, response: { 200: SettingsView, ...errorResponses } },
    }, async (request) => ({ ...(await changeSettings(deps, request.body)) }) as Record<string, number>);
  };
}
