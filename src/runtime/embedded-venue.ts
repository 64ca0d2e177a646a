/**
 * The embedded stack's venue: the venue simulator as a child process (like anvil) with its state
 * under `<data dir>/venue-sim/`, so a second `npm start` resumes the same accounts and fills; the
 * `/v0` omnibus's API wallet approved there, a builder address kept in the data directory, and
 * the demo taker funded at the venue with its builder fee approved. Embedded mode only, except
 * `approveOmnibusAgent`, which also serves a real venue (scripts/testnet-smoke.ts).
 */
import path from 'node:path';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { startVenueSimProcess, type VenueSimProcess } from '../../sim/venue/launch.ts';
import { VenueSimControl, VenueSimControlError } from '../../sim/venue/control.ts';
import { keyFile } from './embedded-stack.ts';
import type { VenueFaucet } from '../api/context.ts';
import { invalidField, ServiceError } from '../domain/errors.ts';

export type VenueNetwork = 'mainnet' | 'testnet';

/** A venue as its signers and readers need it: where it answers and which network it signs for. */
export interface VenueEndpoint {
  url: string;
  network: VenueNetwork;
}

export interface EmbeddedVenue {
  url: string;
  network: VenueNetwork;
  builderAddress: Address;
  process: VenueSimProcess;
  stop(): Promise<void>;
}

/** The omnibus's API wallet name at the venue (one wallet per name: approving again replaces it). */
const AGENT_NAME = 'rfq-v0';
/** What the demo taker holds at the venue on its first start (human USDC). */
const DEMO_TAKER_PERP_USDC = '100000';
const DEMO_TAKER_SPOT_USDC = '100000';
/** What the demo taker sends from its venue spot USDC to the `/v0` omnibus: its `/v0` balance (human USDC). */
const DEMO_TAKER_V0_USDC = '10000';
/** Each demo maker's perp margin at the venue (human USDC), topped up to this at every start. */
const DEMO_MAKER_PERP_USDC = 1_000_000n;
/** The venue's cap on a perp builder fee; the taker approves up to it so every perp quote's fee fits. */
const DEMO_TAKER_MAX_BUILDER_FEE = '0.1%';

function exchangeFor(venue: VenueEndpoint, key: Hex): ExchangeClient {
  return new ExchangeClient({ transport: new HttpTransport({ apiUrl: venue.url, isTestnet: venue.network === 'testnet', timeout: 10_000 }), wallet: privateKeyToAccount(key) });
}

/** Starts the simulator; the builder address is the configured one or one generated into the data directory. */
export async function startEmbeddedVenue(dataDir: string, options: { network: VenueNetwork; builderAddress: string | null; port?: number }): Promise<EmbeddedVenue> {
  const stateDir = path.join(dataDir, 'venue-sim');
  await mkdir(stateDir, { recursive: true });
  const builderAddress = (options.builderAddress ?? privateKeyToAccount(await keyFile(path.join(dataDir, 'venue-builder-key'))).address).toLowerCase() as Address;
  const sim = await startVenueSimProcess({ dataDir: stateDir, network: options.network, ...(options.port ? { port: options.port } : {}) });
  return { url: sim.url, network: options.network, builderAddress, process: sim, stop: () => sim.stop() };
}

/** `POST /admin/v1/devnet/venue-faucet`: `/_sim/fund`; a credit the simulator refuses is bad input, anything else the venue being unavailable. */
export function venueFaucetOf(venue: { url: string }): VenueFaucet {
  const control = new VenueSimControl(venue.url);
  return async ({ address, account, token, amount }) => {
    try {
      await control.fund({ user: address, account, token, amount });
    } catch (error) {
      if (error instanceof VenueSimControlError && error.status >= 400 && error.status < 500) throw invalidField('token', 'venueRefused', `the venue simulator refused the credit: ${error.message}`);
      throw new ServiceError('VENUE_UNAVAILABLE', `the venue simulator did not apply the credit: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

/**
 * Approves the omnibus's API wallet unless the venue already lists it unexpired, signed by the
 * omnibus key. The venue knows an account once it holds something: at the simulator
 * (`simulator: true`) a never-seen omnibus is credited 1 spot USDC first; at a real venue the
 * operator deposits, and an empty omnibus is refused here with what to do.
 */
export async function approveOmnibusAgent(venue: VenueEndpoint, keys: { omnibusKey: string; agentKey: string }, options: { simulator: boolean }): Promise<'already approved' | 'approved'> {
  const omnibus = privateKeyToAccount(keys.omnibusKey as Hex).address;
  const agent = privateKeyToAccount(keys.agentKey as Hex).address.toLowerCase();
  const info = new InfoClient({ transport: new HttpTransport({ apiUrl: venue.url, isTestnet: venue.network === 'testnet', timeout: 10_000 }) });
  const agents = await info.extraAgents({ user: omnibus });
  // A day of margin so a wallet about to expire is re-approved now, not mid-trade.
  if (agents.some((a) => a.address.toLowerCase() === agent && a.validUntil > Date.now() + 24 * 3600_000)) return 'already approved';
  const spot = await info.spotClearinghouseState({ user: omnibus });
  if (spot.balances.length === 0) {
    if (!options.simulator) throw new Error(`the /v0 omnibus ${omnibus} holds nothing at the venue, which therefore does not know it: deposit to it first, then approve its API wallet`);
    await new VenueSimControl(venue.url).fund({ user: omnibus, account: 'spot', token: 'USDC', amount: '1' });
  }
  await exchangeFor(venue, keys.omnibusKey as Hex).approveAgent({ agentAddress: agent as Address, agentName: AGENT_NAME });
  return 'approved';
}

/**
 * First start only (a marker file in the data directory): credits the demo taker perp margin and
 * spot USDC at the venue, and approves the builder fee with its own user-signed action.
 */
export async function fundDemoTakerAtVenue(venue: EmbeddedVenue, dataDir: string): Promise<'funded' | 'already funded'> {
  const marker = path.join(dataDir, 'demo-taker-venue-funded');
  try {
    await readFile(marker, 'utf8');
    return 'already funded';
  } catch {
    // not funded yet
  }
  const key = await keyFile(path.join(dataDir, 'demo-taker-key'));
  const user = privateKeyToAccount(key).address;
  const control = new VenueSimControl(venue.url);
  await control.fund({ user, account: 'perp', token: 'USDC', amount: DEMO_TAKER_PERP_USDC });
  await control.fund({ user, account: 'spot', token: 'USDC', amount: DEMO_TAKER_SPOT_USDC });
  await exchangeFor(venue, key).approveBuilderFee({ maxFeeRate: DEMO_TAKER_MAX_BUILDER_FEE, builder: venue.builderAddress });
  await writeFile(marker, `${JSON.stringify({ at: Date.now(), user, perpUsdc: DEMO_TAKER_PERP_USDC, spotUsdc: DEMO_TAKER_SPOT_USDC })}\n`);
  return 'funded';
}

/**
 * Once per data directory (its own marker, so a directory funded before this existed gets it
 * too): the demo taker sends spot USDC from its venue account to the `/v0` omnibus, the way a
 * user funds `/v0` (DESIGN.md section 10), so the omnibus worker credits it on the `VENUE` rail
 * with the omnibus holding the tokens, and a `/v0` order works right after `npm start`.
 */
export async function depositDemoTakerToV0(venue: EmbeddedVenue, dataDir: string, omnibusAddress: Address): Promise<{ outcome: 'deposited' | 'already deposited'; taker: Address }> {
  const marker = path.join(dataDir, 'demo-taker-v0-deposited');
  const key = await keyFile(path.join(dataDir, 'demo-taker-key'));
  const taker = privateKeyToAccount(key).address;
  try {
    await readFile(marker, 'utf8');
    return { outcome: 'already deposited', taker };
  } catch {
    // not deposited yet
  }
  const info = new InfoClient({ transport: new HttpTransport({ apiUrl: venue.url, isTestnet: venue.network === 'testnet', timeout: 10_000 }) });
  const usdc = (await info.spotMeta()).tokens.find((t) => t.name === 'USDC');
  if (!usdc) throw new Error('the venue simulator lists no USDC spot token');
  await exchangeFor(venue, key).spotSend({ destination: omnibusAddress, token: `USDC:${usdc.tokenId}`, amount: DEMO_TAKER_V0_USDC });
  await writeFile(marker, `${JSON.stringify({ at: Date.now(), user: taker, omnibus: omnibusAddress, usdc: DEMO_TAKER_V0_USDC })}\n`);
  return { outcome: 'deposited', taker };
}

/** Tops a demo maker's perp margin up to `DEMO_MAKER_PERP_USDC` at the simulator, so its ALO orders pass the margin check. */
export async function fundDemoMakerAtVenue(venue: VenueEndpoint, address: Address): Promise<void> {
  const info = new InfoClient({ transport: new HttpTransport({ apiUrl: venue.url, isTestnet: venue.network === 'testnet', timeout: 10_000 }) });
  const { marginSummary } = await info.clearinghouseState({ user: address });
  const have = BigInt(marginSummary.accountValue.split('.')[0]!);
  if (have >= DEMO_MAKER_PERP_USDC) return;
  await new VenueSimControl(venue.url).fund({ user: address, account: 'perp', token: 'USDC', amount: String(DEMO_MAKER_PERP_USDC - have) });
}
