/**
 * The checks' venue reads (`meta`, the taker's builder-fee approval) and the signer's recovery
 * (DESIGN.md 9.3 steps 1-3), started once the accept's transaction has recorded the execution
 * rather than once the execution begins. None of them depends on the commit, and on the
 * accept-to-SETTLED path they took one venue round trip plus a secp256k1 recovery (~4 ms of CPU)
 * after the 202. Started ahead, they run while the transaction commits and the
 * execution wakes, and the execution takes them over. Not earlier: accepts that are refused or
 * replayed must not become venue reads (the venue limits reads per address) and recoveries.
 *
 * What this may and may not change: the reads are still made at the accept, never cached (rule 4
 * re-reads `a` on each accept; the approval must be the one in force), and still stored with the
 * execution. The execution uses them only when they were started for the very order it records
 * (the same JSON text) and, for the approval, the same taker; otherwise, and on any other node or
 * after a restart, it reads afresh. Entries nobody takes (the accept was refused) are dropped.
 */
import { recoverL1Signer } from '../../domain/perp/recover-signer.ts';
import type { SignedVenueAction, VenueNetwork } from '../../domain/perp/types.ts';
import type { Clock } from '../deps.ts';
import type { ExecutionVenue } from './execution-venue.ts';
import type { CallRecord } from './execution-rows.ts';

type Address = `0x${string}`;

/** One venue call as made: its reply, or the error text when it threw (then the outcome is unclear). */
export interface VenueCall<T> {
  reply: T | undefined;
  error: string | null;
  record: CallRecord;
}

/** A venue call, recorded whatever its outcome; a throw is returned as `error`. */
export async function venueCall<T>(clock: Clock, kind: string, quoteId: string | null, request: unknown, run: () => Promise<T>): Promise<VenueCall<T>> {
  const startedAt = clock.now();
  try {
    const reply = await run();
    return { reply, error: null, record: { kind, quoteId, request, reply, startedAt, endedAt: clock.now() } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { reply: undefined, error: message, record: { kind, quoteId, request, error: message, startedAt, endedAt: clock.now() } };
  }
}

export type Recovered = { address: Address; error: null } | { address: null; error: unknown };

/** The signer of `signed`; never rejects (a signature that does not recover is an `error`). */
export function recoverSigner(signed: unknown, network: VenueNetwork): Promise<Recovered> {
  return recoverL1Signer(signed as SignedVenueAction, network).then(
    (address) => ({ address, error: null }),
    (error: unknown) => ({ address: null, error }),
  );
}

/** The signer of an order given as its JSON text, parsed as the execution parses it. */
export type SignerRecovery = (orderJson: string, network: VenueNetwork) => Promise<Recovered>;

/** On the calling thread (the runtime may hand a thread's instead: runtime/recovery-thread.ts). */
export const recoverSignerOfText: SignerRecovery = async (orderJson, network) => {
  let order: unknown;
  try {
    order = JSON.parse(orderJson);
  } catch (error) {
    return { address: null, error };
  }
  return recoverSigner(order, network);
};

type Meta = Awaited<ReturnType<ExecutionVenue['freshMeta']>>;

export interface CheckReads {
  /** The order's JSON text, as the execution records it. */
  takerOrder: string;
  /** The taker whose approval `fee` reads (lower-case). */
  taker: Address;
  meta: Promise<VenueCall<Meta>>;
  /** Null when no builder is configured (no quote then carries a builder fee). */
  fee: Promise<VenueCall<number>> | null;
  /** Recovered from `JSON.parse(takerOrder)`: the object the execution checks. */
  recovery: Promise<Recovered>;
}

export interface CheckReadSettings {
  venue: ExecutionVenue;
  network: VenueNetwork;
  builderAddress: Address | null;
  clock: Clock;
  /** Where recoveries run; default: this thread. */
  recover?: SignerRecovery;
}

export function startCheckReads(s: CheckReadSettings, takerOrder: string, taker: Address): CheckReads {
  const meta = venueCall(s.clock, 'meta', null, { type: 'meta' }, () => s.venue.freshMeta());
  const builder = s.builderAddress;
  const fee = builder ? venueCall(s.clock, 'maxBuilderFee', null, { type: 'maxBuilderFee', user: taker, builder }, () => s.venue.maxBuilderFee(taker, builder)) : null;
  const recovery = (s.recover ?? recoverSignerOfText)(takerOrder, s.network);
  return { takerOrder, taker, meta, fee, recovery };
}

/** How long reads started ahead wait to be taken; an accept's transaction takes milliseconds. */
const KEEP_MS = 10_000;
/** Bounded: a flood of refused accepts cannot grow it without limit. */
const MAX_ENTRIES = 1_000;

/** Per node: reads started at an accept, by RFQ, until its execution takes them. */
export class CheckReadsAhead {
  readonly #settings: CheckReadSettings;
  readonly #byRfq = new Map<string, { reads: CheckReads; timer: NodeJS.Timeout }>();

  constructor(settings: CheckReadSettings) {
    this.#settings = settings;
  }

  /** A perp accept of `rfqId` was recorded with this order (its JSON text is what the execution holds). */
  arrived(rfqId: string, order: unknown, taker: string): void {
    let takerOrder: string | undefined;
    try {
      takerOrder = JSON.stringify(order);
    } catch {
      return;
    }
    if (typeof takerOrder !== 'string' || this.#byRfq.size >= MAX_ENTRIES) return;
    this.#drop(rfqId);
    const timer = setTimeout(() => this.#drop(rfqId), KEEP_MS);
    timer.unref();
    this.#byRfq.set(rfqId, { reads: startCheckReads(this.#settings, takerOrder, taker.toLowerCase() as Address), timer });
  }

  /** The reads started for exactly this recorded order, handed over once; null otherwise. */
  take(rfqId: string, takerOrder: string): CheckReads | null {
    const entry = this.#byRfq.get(rfqId);
    if (!entry) return null;
    this.#drop(rfqId);
    return entry.reads.takerOrder === takerOrder ? entry.reads : null;
  }

  get size(): number {
    return this.#byRfq.size;
  }

  #drop(rfqId: string): void {
    const entry = this.#byRfq.get(rfqId);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#byRfq.delete(rfqId);
  }
}

/**
 * Recoveries of a well-formed dummy signature (r is the generator's x coordinate, so a point
 * exists), one per turn of the event loop: the secp256k1 library builds its multiplication
 * tables on first use (~90 ms here) and its big-integer code runs 2-3x slower until the JIT has
 * seen it a few times; otherwise the node's first perp accepts pay for both.
 */
export async function warmUpRecovery(network: VenueNetwork, rounds = 16): Promise<void> {
  const dummy = {
    action: { type: 'noop' },
    nonce: 0,
    signature: { r: '0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', s: '0x0000000000000000000000000000000000000000000000000000000000000001', v: 27 },
  };
  for (let i = 0; i < rounds; i++) {
    await recoverSigner(dummy, network);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
