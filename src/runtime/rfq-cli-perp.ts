/**
 * The taker CLI's perp side: which wallet key signs the venue order, and the venue it trades on.
 * The key is, in order: `--private-key` (or `RFQ_PRIVATE_KEY`); the key the credential was made
 * with (`login --private-key`); the embedded stack's demo taker key, when the CLI is logged in
 * with the demo taker's access key (`<RFQ_DATA_DIR>/demo-taker-credential.json` names it). With
 * none of these the CLI says so and sends nothing: the service holds no taker key.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { PerpTaker } from '../client/perp-taker.ts';
import type { RfqClient } from '../client/rfq-client.ts';
import type { SavedCredential } from './cli-credentials.ts';

/** No wallet key to sign a perp order with; the message says where the CLI looked. */
export class NoWalletKey extends Error {
  override readonly name = 'NoWalletKey';
}

export interface PerpCliSettings {
  flagKey: string | undefined;
  venueUrl: string | undefined;
  env: NodeJS.ProcessEnv;
  saved: SavedCredential | null;
  credentialsFile: string;
}

const KEY_SHAPE = /^0x[0-9a-fA-F]{64}$/;

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** The embedded demo taker's key, when `accessKey` is the demo taker's. */
export async function demoTakerKey(dataDir: string, accessKey: string): Promise<Hex | null> {
  const credential = await readText(path.join(dataDir, 'demo-taker-credential.json'));
  if (credential === null) return null;
  let saved: { accessKey?: unknown };
  try {
    saved = JSON.parse(credential) as { accessKey?: unknown };
  } catch {
    return null;
  }
  if (saved.accessKey !== accessKey) return null;
  const key = (await readText(path.join(dataDir, 'demo-taker-key')))?.trim();
  return key && KEY_SHAPE.test(key) ? (key as Hex) : null;
}

export async function walletKeyFor(accessKey: string, settings: PerpCliSettings): Promise<{ key: Hex; source: string }> {
  const given = settings.flagKey ?? (settings.env.RFQ_PRIVATE_KEY || undefined);
  if (given !== undefined) {
    if (!KEY_SHAPE.test(given)) throw new NoWalletKey('--private-key (or RFQ_PRIVATE_KEY) must be 0x followed by 64 hex digits');
    return { key: given as Hex, source: settings.flagKey ? '--private-key' : 'RFQ_PRIVATE_KEY' };
  }
  if (settings.saved?.walletKey && settings.saved.accessKey === accessKey) return { key: settings.saved.walletKey, source: settings.credentialsFile };
  const dataDir = path.resolve(settings.env.RFQ_DATA_DIR || './.rfq-data');
  const demo = await demoTakerKey(dataDir, accessKey);
  if (demo) return { key: demo, source: `the demo taker's key in ${dataDir}` };
  throw new NoWalletKey(
    'a perp order or a deposit is signed with your wallet key, and none was found: log in with `npm run rfq -- login --private-key 0x..`, ' +
      `or pass --private-key (or RFQ_PRIVATE_KEY); the demo taker's key is used only when logged in with its access key and ${path.join(dataDir, 'demo-taker-key')} exists`,
  );
}

export async function perpTakerFor(client: RfqClient, settings: PerpCliSettings): Promise<PerpTaker> {
  const { key } = await walletKeyFor(client.credentials!.accessKey, settings);
  const env = settings.env;
  const network = env.RFQ_VENUE_NETWORK === 'testnet' || env.RFQ_VENUE_NETWORK === 'mainnet' ? env.RFQ_VENUE_NETWORK : undefined;
  return PerpTaker.connect(client, privateKeyToAccount(key), {
    ...(settings.venueUrl ?? env.RFQ_VENUE_URL ? { url: settings.venueUrl ?? env.RFQ_VENUE_URL } : {}),
    ...(network ? { network } : {}),
    ...(env.RFQ_VENUE_BUILDER_ADDRESS ? { builderAddress: env.RFQ_VENUE_BUILDER_ADDRESS } : {}),
  });
}
