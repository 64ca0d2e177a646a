import { Type } from 'typebox';
import { EvmAddress, UnixMillis } from './common.ts';

export const ChallengeRequest = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);
export const ChallengeResponse = Type.Object({ nonce: Type.String({ format: 'uuid' }), expiresAt: UnixMillis });

export const LoginRequest = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 4096 }),
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]+$', maxLength: 1024 }),
    expiresInSecs: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  },
  { additionalProperties: false },
);

export const LoginResponse = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  account: EvmAddress,
  accessKey: Type.String(),
  secret: Type.String({ description: 'Base64; returned only once.' }),
  expiresAt: UnixMillis,
  makerId: Type.Optional(Type.String()),
});

export const ApiKeyView = Type.Object({ accessKey: Type.String(), createdAt: UnixMillis, expiresAt: UnixMillis });
export const ApiKeyList = Type.Object({ keys: Type.Array(ApiKeyView) });
