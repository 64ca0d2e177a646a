/**
 * Starts a real service node on loopback for black-box tests, with helpers to make signed-in
 * takers and makers. Nothing is mocked: requests go over HTTP to the node.
 */
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { startNode, generateSecretKey, type NodeOptions, type RunningNode } from '../../src/runtime/node.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { AdminClient } from '../../src/client/admin-client.ts';
import { createTestDatabase, type Backend, type TestDatabase } from './backends.ts';
import { TEST_VENUE_WEIGHT_PER_MIN } from './venue-profile.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface Harness {
  node: RunningNode;
  url: string;
  admin: AdminClient;
  backend: Backend;
  /** Credits test funds by operator adjustment (zero amounts are skipped). */
  fund(address: string, amounts: Record<string, string>): Promise<void>;
  /** A fresh wallet, signed in. */
  newUser(): Promise<{ client: RfqClient; account: PrivateKeyAccount }>;
  /** A fresh wallet registered as an active maker for `pairs`, signed in with a maker-scoped key. */
  newMaker(pairs?: string[]): Promise<{ client: RfqClient; account: PrivateKeyAccount; makerId: string }>;
  close(): Promise<void>;
}

export interface HarnessOptions extends Partial<Omit<NodeOptions, 'store'>> {
  seed?: boolean;
  /** Share a database with another harness (multi-node tests). */
  database?: TestDatabase;
  /** On-chain token addresses to seed (from a test chain's `tokenAddresses`). */
  tokenAddresses?: Record<string, string>;
}

export async function startHarness(backend: Backend, options: HarnessOptions = {}): Promise<Harness> {
  const database = options.database ?? (await createTestDatabase(backend));
  const node = await startNode({
    store: database.location,
    adminToken: ADMIN_TOKEN,
    secretKey: options.secretKey ?? generateSecretKey(),
    rateLimit: options.rateLimit ?? { perKeyPerSec: 100_000, perSourcePerSec: 100_000 },
    venueWeightPerMin: TEST_VENUE_WEIGHT_PER_MIN,
    ...options,
  });
  const admin = new AdminClient(node.url, ADMIN_TOKEN);
  if (options.seed !== false) await seedReferenceData(admin, options.tokenAddresses);
  const harness: Harness = {
    node,
    url: node.url,
    admin,
    backend,
    async fund(address, amounts) {
      for (const [token, amount] of Object.entries(amounts)) {
        if (amount !== '0') await admin.adjustBalance({ address, token, amount, memo: 'test funding' });
      }
    },
    async newUser() {
      const account = privateKeyToAccount(generatePrivateKey());
      const client = new RfqClient(node.url);
      await client.signIn(account);
      return { client, account };
    },
    async newMaker(pairs = ['ETH-USDC', 'BTC-USDC']) {
      const account = privateKeyToAccount(generatePrivateKey());
      const { makerId } = await admin.putMaker(account.address, { active: true, pairs, settlementModes: ['permit2'] });
      const client = new RfqClient(node.url);
      await client.signIn(account);
      return { client, account, makerId };
    },
    async close() {
      await node.close();
      if (!options.database) await database.drop();
    },
  };
  return harness;
}

/** Two spot pairs with 18/8-decimal bases and a 6-decimal quote token. */
export async function seedReferenceData(admin: AdminClient, addresses: Record<string, string> = {}): Promise<void> {
  const at = (symbol: string) => (addresses[symbol] ? { address: addresses[symbol] } : {});
  await admin.putToken('USDC', { decimals: 6, ...at('USDC') });
  await admin.putToken('ETH', { decimals: 18, ...at('ETH') });
  await admin.putToken('BTC', { decimals: 8, ...at('BTC') });
  await admin.putInstrument('ETH-USDC-SPOT', { base: 'ETH', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 250, minQuoteNotional: '10' });
  await admin.putInstrument('BTC-USDC-SPOT', { base: 'BTC', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 100 });
}
