/**
 * The embedded stack's parts beyond the store: keys kept in the data directory, an anvil devnet
 * whose state is kept there too (so a second `npm start` resumes the same chain), the contracts
 * deployed, and the reference data seeded on first start (tokens with their on-chain addresses,
 * spot pairs). Nothing here runs in production mode.
 */
import path from 'node:path';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { generatePrivateKey } from 'viem/accounts';
import type { Hex } from 'viem';
import { startDevnetStack, type DevnetStack } from '../chain/devnet-stack.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { putInstrument, putToken, type InstrumentInput } from '../services/admin/reference-data.ts';

export const EMBEDDED_TOKENS = [
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'ETH', decimals: 18 },
  { symbol: 'BTC', decimals: 8 },
];

export const EMBEDDED_INSTRUMENTS: Array<[string, InstrumentInput]> = [
  ['ETH-USDC-SPOT', { base: 'ETH', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 250, minQuoteNotional: '10' }],
  ['BTC-USDC-SPOT', { base: 'BTC', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 100, minQuoteNotional: '10' }],
];

/** Perps on the embedded venue simulator: base is the venue's coin name; the fee is the builder fee (at most 0.1 %). */
export const EMBEDDED_PERP_INSTRUMENTS: Array<[string, InstrumentInput]> = [
  ['ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 25, minQuoteNotional: '10' }],
  ['BTC-USDC-PERP', { base: 'BTC', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 10, minQuoteNotional: '10' }],
];

/** A private key kept in the data directory (mode 0600), generated on first use. */
export async function keyFile(file: string): Promise<Hex> {
  try {
    return (await readFile(file, 'utf8')).trim() as Hex;
  } catch {
    const key = generatePrivateKey();
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    return key;
  }
}

export async function startEmbeddedChain(dataDir: string, options: { confirmations: number; pollIntervalMs: number; custodyKey?: string | null; port?: number }): Promise<DevnetStack> {
  await mkdir(dataDir, { recursive: true });
  const custodyKey = (options.custodyKey as Hex | null | undefined) ?? (await keyFile(path.join(dataDir, 'custody-key')));
  const deployerKey = await keyFile(path.join(dataDir, 'deployer-key'));
  return startDevnetStack({
    custodyKey,
    deployerKey,
    tokens: EMBEDDED_TOKENS,
    stateFile: path.join(dataDir, 'anvil-state.json'),
    blockTimeSecs: 1,
    confirmations: options.confirmations,
    pollIntervalMs: options.pollIntervalMs,
    ...(options.port ? { port: options.port } : {}),
  });
}

/** First start: the perps, checked against the venue's meta (so the node must have its venue); later starts change nothing. */
export async function seedEmbeddedPerpInstruments(deps: ServiceDeps): Promise<void> {
  const existing = await deps.refdata.reload();
  for (const [instrumentId, input] of EMBEDDED_PERP_INSTRUMENTS) {
    if (!existing.instruments.has(instrumentId)) await putInstrument(deps, instrumentId, input);
  }
  await deps.refdata.reload();
}

/** First start: tokens (with the devnet addresses) and instruments; later starts change nothing. */
export async function seedEmbeddedReferenceData(deps: ServiceDeps, stack: DevnetStack): Promise<void> {
  const existing = await deps.refdata.reload();
  for (const token of stack.deployed.tokens) {
    const current = existing.tokens.get(token.symbol);
    if (!current || current.address?.toLowerCase() !== token.address.toLowerCase()) await putToken(deps, token.symbol, { decimals: token.decimals, address: token.address });
  }
  for (const [instrumentId, input] of EMBEDDED_INSTRUMENTS) {
    if (!existing.instruments.has(instrumentId)) await putInstrument(deps, instrumentId, input);
  }
  await deps.refdata.reload();
}
