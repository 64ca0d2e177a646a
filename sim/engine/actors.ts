/**
 * The simulated participants: takers (funded by operator adjustment, trading over REST, watching
 * balances, rfqStatus and quotes over WebSocket) and makers (registered active for both pairs,
 * quoting from the open-RFQ listing, watching quoteStatus). On a chain the makers take turns at
 * the inventory modes (M0 permit2, M1 promised, ...) and all of them also quote in xchange mode
 * with their own adapter signer. Each actor talks to one node, so a
 * second node serves half of them and a stopped node silences only its own.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { keccak256, stringToHex } from 'viem';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { ApiError } from '../../src/client/http.ts';
import { errorCodes } from '../../src/domain/error-codes.ts';
import type { SimStack } from './stack.ts';
import { FrameWatch } from './frames.ts';
import { Wallet, equipWallets } from './wallets.ts';
import type { LocalAccount } from 'viem';
import { PerpTaker } from '../../src/client/perp-taker.ts';
import { VenueNonces } from '../../src/client/perp-order.ts';
import type { Findings } from './findings.ts';

export interface Actor {
  name: string;
  role: 'taker' | 'maker';
  address: string;
  client: RfqClient;
  node: number;
  watch: FrameWatch;
  /** Its own wallet on the simulated chain (runs with a chain only). */
  wallet: Wallet | null;
  account: LocalAccount;
  /** A taker's perp trading (runs with a venue only). */
  perp: PerpTaker | null;
  /** A maker's venue nonces (one source per signing key). */
  nonces: VenueNonces;
  /** A maker's inventory mode: a quote without an xchange bundle settles in it. */
  inventoryMode: 'permit2' | 'promised';
  /** On a chain, the key that signs a maker's xchange swaps (registered with the service and the adapter). */
  adapterSigner: LocalAccount | null;
}

export async function createActors(stack: SimStack, seed: number, findings: Findings, counts: { takers: number; makers: number }): Promise<Actor[]> {
  const actors: Actor[] = [];
  const roles: Array<'taker' | 'maker'> = [...Array<'taker'>(counts.takers).fill('taker'), ...Array<'maker'>(counts.makers).fill('maker')];
  const nameOf = (role: 'taker' | 'maker', i: number) => `${role === 'taker' ? 'T' : 'M'}${role === 'taker' ? i : i - counts.takers}`;
  // Keys from the seed: a replay signs in the same wallets.
  const keys = roles.map((role, i) => keccak256(stringToHex(`rfq-sim/${seed}/${nameOf(role, i)}`)));
  const chain = stack.chain;
  const xchange = chain?.test.stack.settings.xchangeAdapterAddress ? chain : null;
  const adapterSigners = roles.map((role, i) => (role === 'maker' && xchange ? privateKeyToAccount(keccak256(stringToHex(`rfq-sim/${seed}/${nameOf(role, i)}/adapter`))) : null));
  const wallets = chain ? await Promise.all(keys.map((key) => Wallet.connect(chain, key))) : null;
  if (chain && wallets) {
    const makers = wallets.flatMap((wallet, i) => (roles[i] === 'maker' ? [{ wallet, adapterSigner: (adapterSigners[i] ?? privateKeyToAccount(keys[i]!)).address }] : []));
    await equipWallets(chain, makers, wallets.filter((_, i) => roles[i] === 'taker'));
  }
  for (const [i, role] of roles.entries()) {
    const name = nameOf(role, i);
    const account = privateKeyToAccount(keys[i]!);
    const node = i % stack.nodeCount;
    const wallet = wallets?.[i] ?? null;
    // On a chain a permit2 maker names its factory wrapper as spender (DESIGN 5); makers take
    // turns at permit2 and promised, and each offers xchange with its adapter signer too.
    const inventoryMode = role === 'maker' && chain && (i - counts.takers) % 2 === 1 ? 'promised' : 'permit2';
    const adapterSigner = adapterSigners[i] ?? null;
    const settlementModes: Array<'permit2' | 'promised' | 'xchange' | 'perp'> = [inventoryMode, ...(adapterSigner ? ['xchange' as const] : []), ...(stack.venue ? ['perp' as const] : [])];
    if (role === 'maker') {
      await stack.admin.putMaker(account.address, {
        active: true,
        pairs: ['ETH-USDC', 'BTC-USDC'],
        settlementModes,
        ...(wallet?.wrapper && inventoryMode === 'permit2' ? { spender: wallet.wrapper } : {}),
        ...(adapterSigner ? { adapterSigner: adapterSigner.address } : {}),
      });
    }
    if (stack.venue) await stack.venue.fund(account.address, '1000000');
    const client = new RfqClient(stack.urlOf(node));
    await client.signIn(account);
    const watch = new FrameWatch(name, client, findings);
    await watch.open(role === 'taker' ? ['balances', 'rfqStatus', 'quotes'] : ['balances', 'quoteStatus']);
    const perp = stack.venue && role === 'taker' ? await PerpTaker.connect(client, account, stack.venue.nodeSettings) : null;
    actors.push({ name, role, address: account.address, client, node, watch, wallet, account, perp, nonces: new VenueNonces(), inventoryMode, adapterSigner });
  }
  return actors;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; code: string };

/** Runs a request and classifies its answer: a value, or a refusal with its code (never a 500; a documented 503 is a refusal). */
export async function attempt<T>(run: () => Promise<T>, findings: Findings, what: string): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ApiError) {
      // A 503 with its own code in the table (the venue or the chain could not be asked; nothing
      // changed) is the documented answer to a fault the driver injected; any other 5xx is a finding.
      const documented = error.status === 503 && (errorCodes as Record<string, { status: number }>)[error.code]?.status === 503;
      if (error.status >= 500 && !documented) findings.add('http5xx', `${what}: ${error.message}`);
      return { ok: false, status: error.status, code: error.code };
    }
    throw error;
  }
}
