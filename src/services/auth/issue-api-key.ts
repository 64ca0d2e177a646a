/**
 * POST /v1/auth/api-keys: verifies an EIP-4361 message (live single-use nonce, this gateway's
 * domain and chain id, time fields, signature recovering the message's address) and issues an
 * HMAC credential. The secret is returned here once and stored only sealed.
 */
import { randomBytes } from 'node:crypto';
import { getAddress, recoverMessageAddress, type Hex } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { ServiceError } from '../../domain/errors.ts';
import { siweNonceRefusal } from '../../domain/auth/siwe-nonce.ts';
import { ensureAccount } from '../../store/accounts.ts';
import { activeMakerIdOf, consumeChallenge, insertApiKey } from '../../store/api-keys.ts';
import type { ServiceDeps } from '../deps.ts';

export interface LoginInput {
  message: string;
  signature: string;
  expiresInSecs?: number | null;
}

export interface IssuedApiKey {
  userId: string;
  account: string;
  accessKey: string;
  secret: string;
  expiresAt: number;
  makerId?: string;
}

function siweInvalid(reason: string, message: string): ServiceError {
  return new ServiceError('SIWE_INVALID', message, { reason });
}

/** The spec's nonce is a UUID; EIP-4361 nonces are alphanumeric, so the message carries it without hyphens. */
export function nonceToUuid(nonce: string): string | null {
  const hex = nonce.toLowerCase().replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export async function issueApiKey(deps: ServiceDeps, input: LoginInput): Promise<IssuedApiKey> {
  const now = deps.clock.now();
  const lifetimeSecs = input.expiresInSecs ?? deps.auth.defaultKeyLifetimeSecs;
  if (!Number.isInteger(lifetimeSecs) || lifetimeSecs < 1 || lifetimeSecs > deps.auth.maxKeyLifetimeSecs) {
    throw new ServiceError('INVALID_REQUEST', `expiresInSecs must be from 1 to ${deps.auth.maxKeyLifetimeSecs}`, {
      errors: [{ field: 'expiresInSecs', reason: 'range', message: `must be from 1 to ${deps.auth.maxKeyLifetimeSecs} (90 days)` }],
    });
  }

  const parsed = parseSiweMessage(input.message);
  if (!parsed.address || !parsed.domain || !parsed.nonce || parsed.chainId === undefined || !parsed.uri || parsed.version !== '1') {
    throw siweInvalid('message', 'message is not a valid EIP-4361 sign-in message');
  }
  if (parsed.domain !== deps.auth.siweDomain) throw siweInvalid('domain', `domain must be ${deps.auth.siweDomain}`);
  if (parsed.chainId !== deps.auth.chainId) throw siweInvalid('chainId', `chain id must be ${deps.auth.chainId}`);
  const skew = deps.auth.timestampSkewMs;
  if (parsed.issuedAt && parsed.issuedAt.getTime() > now + skew) throw siweInvalid('issuedAt', 'issuedAt is in the future');
  if (parsed.expirationTime && parsed.expirationTime.getTime() <= now) throw siweInvalid('expirationTime', 'message has expired');
  if (parsed.notBefore && parsed.notBefore.getTime() > now + skew) throw siweInvalid('notBefore', 'message is not yet valid');
  const nonceRefused = siweNonceRefusal(parsed.nonce);
  if (nonceRefused !== null) throw siweInvalid('nonce', nonceRefused);
  const nonce = nonceToUuid(parsed.nonce);
  if (nonce === null) throw siweInvalid('nonce', 'nonce is not an issued challenge');

  let recovered: string;
  try {
    recovered = await recoverMessageAddress({ message: input.message, signature: input.signature as Hex });
  } catch {
    throw siweInvalid('signature', 'signature could not be recovered');
  }
  const account = getAddress(parsed.address);
  if (getAddress(recovered) !== account) throw siweInvalid('signature', 'signature does not match the message address');

  const accessKey = `ak_${randomBytes(16).toString('hex')}`;
  const secret = randomBytes(32).toString('base64');
  const expiresAt = now + lifetimeSecs * 1000;

  return deps.db.transaction().execute(async (tx) => {
    // Consuming the nonce and issuing the key commit together: a nonce is used exactly once.
    if (!(await consumeChallenge(tx, nonce, now))) throw siweInvalid('nonce', 'nonce is unknown, expired or already used');
    const userId = await ensureAccount(tx, account, deps.ids.uuid(), now);
    const makerId = await activeMakerIdOf(tx, userId);
    await insertApiKey(tx, { accessKey, accountId: userId, secretSealed: deps.secrets.seal(secret), makerScoped: makerId !== null, createdAt: now, expiresAt });
    return {
      userId,
      account,
      accessKey,
      secret,
      expiresAt,
      ...(makerId !== null ? { makerId } : {}),
    };
  });
}
