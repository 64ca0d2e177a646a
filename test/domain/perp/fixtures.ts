/** Signed venue orders for the perp checks, signed with the SDK as a real client would. */
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { PERP_BASE_DECIMALS, type PerpOrderContext, type VenueNetwork } from '../../../src/domain/perp/index.ts';

export const TAKER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const MAKER_KEY: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
export const AGENT_KEY: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
export const taker = privateKeyToAccount(TAKER_KEY);
export const maker = privateKeyToAccount(MAKER_KEY);
export const agent = privateKeyToAccount(AGENT_KEY);
export const BUILDER: Address = '0x00000000000000000000000000000000000000bb';
export const CLOID: Hex = '0x0123456789abcdef0123456789abcdef';
export const NOW = 1_800_000_000_000;
export const USDC = 1_000_000n;
export const COIN = 10n ** BigInt(PERP_BASE_DECIMALS);

/** ETH (index 1, szDecimals 4): BUY 0.5 for 1500.5 USDC, so p = 3001. */
export function buyContext(overrides: Partial<PerpOrderContext> = {}): PerpOrderContext {
  return {
    side: 'BUY',
    legs: { makerPays: COIN / 2n, makerReceives: 1500n * USDC + USDC / 2n },
    baseDecimals: PERP_BASE_DECIMALS,
    quoteDecimals: 6,
    assetIndex: 1,
    szDecimals: 4,
    builder: { address: BUILDER, feeTenthBp: 20 },
    now: NOW,
    ...overrides,
  };
}

export function takerAction(overrides: Record<string, unknown> = {}, orderOverrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'order',
    orders: [{ a: 1, b: true, p: '3001', s: '0.5', r: false, t: { limit: { tif: 'Ioc' } }, c: CLOID, ...orderOverrides }],
    grouping: 'na',
    builder: { b: BUILDER, f: 20 },
    ...overrides,
  };
}

export async function sign(
  action: Record<string, unknown>,
  options: { key?: Hex; nonce?: number; network?: VenueNetwork; vaultAddress?: Hex; expiresAfter?: number } = {},
): Promise<{ action: Record<string, unknown>; nonce: number; signature: { r: Hex; s: Hex; v: 27 | 28 } }> {
  const nonce = options.nonce ?? NOW;
  const wallet = privateKeyToAccount(options.key ?? TAKER_KEY);
  const signature = await signL1Action({
    wallet,
    action,
    nonce,
    isTestnet: (options.network ?? 'testnet') === 'testnet',
    ...(options.vaultAddress ? { vaultAddress: options.vaultAddress } : {}),
    ...(options.expiresAfter !== undefined ? { expiresAfter: options.expiresAfter } : {}),
  });
  return { action, nonce, signature: signature as { r: Hex; s: Hex; v: 27 | 28 } };
}
