/**
 * `login`: a SIWE message with the exact statement, this gateway's domain and chain id, `issuedAt`
 * within the window, signed by the message's address; each (address, nonce) accepted once. With
 * `primaryAddress`, the signer must be an unexpired API wallet of it at the venue and the identity
 * is the primary address. Login creates no account.
 */
import { getAddress, isAddress, recoverMessageAddress, type Hex } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { ServiceError } from '../../domain/errors.ts';
import { siweNonceRefusal } from '../../domain/auth/siwe-nonce.ts';
import { claimLoginNonce, deleteLoginNoncesUsedBefore } from '../../store/v0-sessions.ts';
import { issueJwt } from './jwt.ts';
import { VenueUnavailableError } from './venue-port.ts';
import type { V0Deps } from './v0-deps.ts';

export interface V0LoginInput {
  message?: unknown;
  signature?: unknown;
  primaryAddress?: unknown;
}

function invalidSignature(message: string): ServiceError {
  return new ServiceError('INVALID_SIGNATURE', message);
}

export async function login(deps: V0Deps, input: V0LoginInput): Promise<{ token: string; identity: string }> {
  const { message, signature, primaryAddress } = input;
  if (typeof message !== 'string' || message.length === 0 || typeof signature !== 'string' || signature.length === 0) {
    throw new ServiceError('INVALID_INPUT', 'message and signature are required');
  }
  if (message.length > 4096) throw new ServiceError('INVALID_INPUT', 'message is too long');
  if (!/^0x[0-9a-fA-F]+$/.test(signature)) throw new ServiceError('INVALID_INPUT', 'signature must be 0x-prefixed hex');
  if (primaryAddress !== undefined && (typeof primaryAddress !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(primaryAddress) || !isAddress(primaryAddress, { strict: false }))) {
    throw new ServiceError('INVALID_INPUT', 'primaryAddress must be an EVM address (0x + 40 hex)');
  }
  const parsed = parseSiweMessage(message);
  if (parsed.statement !== deps.settings.siweStatement) throw new ServiceError('INVALID_STATEMENT', `the statement must be exactly "${deps.settings.siweStatement}"`);
  if (!parsed.address || !parsed.nonce || !parsed.domain || parsed.chainId === undefined || !parsed.issuedAt) {
    throw invalidSignature('message is not a complete sign-in message');
  }
  const nonceRefused = siweNonceRefusal(parsed.nonce);
  if (nonceRefused !== null) throw new ServiceError('INVALID_INPUT', nonceRefused);
  if (parsed.domain !== deps.service.auth.siweDomain) throw invalidSignature(`domain must be ${deps.service.auth.siweDomain}`);
  if (parsed.chainId !== deps.service.auth.chainId) throw invalidSignature(`chain id must be ${deps.service.auth.chainId}`);
  const now = deps.service.clock.now();
  if (Math.abs(parsed.issuedAt.getTime() - now) > deps.settings.loginWindowMs) throw invalidSignature('issuedAt is outside the accepted window');
  if (parsed.expirationTime && parsed.expirationTime.getTime() <= now) throw invalidSignature('message has expired');
  let recovered: string;
  try {
    recovered = await recoverMessageAddress({ message, signature: signature as Hex });
  } catch {
    throw invalidSignature('signature could not be recovered');
  }
  const signer = getAddress(parsed.address);
  if (getAddress(recovered) !== signer) throw invalidSignature('signature does not match the message address');

  let identity = signer;
  if (primaryAddress !== undefined) {
    const primary = getAddress(primaryAddress as string);
    if (primary !== signer) {
      const approved = await isApprovedApiWallet(deps, signer, primary);
      if (!approved) throw invalidSignature('the signer is not an approved API wallet of primaryAddress');
    }
    identity = primary;
  }
  if (!(await claimLoginNonce(deps.service.db, signer, parsed.nonce, now))) throw invalidSignature('this nonce was already used');
  return { token: await issueJwt(deps.jwtKey, identity, now, deps.settings.tokenLifetimeSecs, identity === signer ? null : signer), identity };
}

/**
 * Deletes up to `batch` login nonces that can no longer be replayed: a message is accepted only
 * while its `issuedAt` is within `loginWindowMs` of now, and one used at `used_at` was issued no
 * earlier than `used_at - loginWindowMs`, so after `used_at + 2 * loginWindowMs` it is refused on
 * its time alone. Called each maintenance round; a flood is bounded by the rounds' batches.
 */
export async function pruneLoginNonces(deps: V0Deps, batch = 5000): Promise<number> {
  const horizon = deps.service.clock.now() - 2 * deps.settings.loginWindowMs;
  return deleteLoginNoncesUsedBefore(deps.service.db, horizon, batch);
}

/** Whether `apiWallet` is an approved, unexpired API wallet of `primary` now. @throws ServiceError SERVICE_UNAVAILABLE */
export async function isApprovedApiWallet(deps: V0Deps, apiWallet: string, primary: string): Promise<boolean> {
  try {
    return await deps.venue.isApiWalletOf(apiWallet, primary);
  } catch (error) {
    if (error instanceof VenueUnavailableError) throw new ServiceError('SERVICE_UNAVAILABLE', 'the venue cannot be reached to check the API wallet');
    throw error;
  }
}
