/** Market-maker protection and maker sessions (DESIGN.md section 11). */
import { Type } from 'typebox';
import { InstrumentId, Nullable, PositiveDecimalString, UnixMillis } from './common.ts';

export const ProtectionRequest = Type.Object(
  {
    instrumentId: InstrumentId,
    /** The rolling window the selections are counted over: one day at most. */
    windowMs: Type.Integer({ minimum: 1, maximum: 86_400_000 }),
    maxSelectedQuotes: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
    maxSelectedNotional: Type.Optional(Nullable(PositiveDecimalString)),
    /** A trip re-arms itself this long after it (at most a day); absent, null or 0: manual reset only. */
    frozenMs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400_000 }))),
  },
  { additionalProperties: false },
);

export const ProtectionResetRequest = Type.Object({ instrumentId: InstrumentId }, { additionalProperties: false });

export const Protection = Type.Object({
  instrumentId: Type.String(),
  windowMs: Type.Integer(),
  maxSelectedQuotes: Nullable(Type.Integer()),
  maxSelectedNotional: Nullable(Type.String({ description: "Decimal string in the instrument's quote token." })),
  triggeredAt: Nullable(UnixMillis),
  reason: Nullable(Type.String({ description: '`maxSelectedQuotes` or `maxSelectedNotional` once tripped.' })),
  frozenMs: Nullable(Type.Integer({ description: 'A trip re-arms itself this long after `triggeredAt`; null: only the reset lifts it.' })),
});

export const CancelAllRequest = Type.Object(
  { instrumentId: Type.Optional(InstrumentId) },
  { additionalProperties: false },
);

export const CancelAllResponse = Type.Object({ cancelled: Type.Integer({ minimum: 0, description: 'Quotes this call cancelled.' }) });

export const CancelAllAfterRequest = Type.Object(
  {
    timeoutMs: Type.Union([Type.Literal(0), Type.Integer({ minimum: 1_000, maximum: 600_000 })], {
      description: 'Cancel all open quotes unless pushed back within this many ms (1,000 to 600,000); 0 disarms.',
    }),
  },
  { additionalProperties: false },
);

export const CancelAllAfter = Type.Object({ firesAt: Nullable(UnixMillis) });

export const ProtectionList = Type.Object({ items: Type.Array(Protection) });

export const MakerSessionView = Type.Object({
  sessionId: Type.String(),
  nodeId: Type.String(),
  cancelOnDisconnect: Type.Boolean(),
  openedAt: UnixMillis,
  nodeHeartbeatAt: Nullable(UnixMillis),
});
