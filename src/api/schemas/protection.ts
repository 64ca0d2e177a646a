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
});

export const ProtectionList = Type.Object({ items: Type.Array(Protection) });

export const MakerSessionView = Type.Object({
  sessionId: Type.String(),
  nodeId: Type.String(),
  cancelOnDisconnect: Type.Boolean(),
  openedAt: UnixMillis,
  nodeHeartbeatAt: Nullable(UnixMillis),
});
