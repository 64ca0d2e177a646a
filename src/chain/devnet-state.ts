/**
 * The embedded devnet's state on disk, saved by us rather than by anvil.
 *
 * anvil's own `--state-interval` dump runs on its clock and tells nobody which block it saved, so
 * after a SIGKILL the restarted chain could lack blocks the store had already booked: anvil then
 * mines other blocks at those heights and the follower halts for good. Here the node asks anvil
 * for its state (`anvil_dumpState`), writes it atomically (temporary file, fsync, rename, fsync of
 * the directory) and only then publishes the block it held: `durableBlock`. The chain follower and
 * the custody broadcaster never treat a later block as final (`finalBlock` in chain-context.ts), so
 * whatever the store booked is on disk in anvil's state too and a restart resumes the same chain.
 *
 * A dump must be one block's state. anvil reads its block list and then its accounts, and a block
 * mined in between leaves a dump holding balances of a block it does not list: a chain restarted
 * from it has effects with no transaction and no log (a deposit's tokens in custody that no
 * follower can ever credit; the SIGKILL test saw it as a custody invariant violation). Taking the
 * dump again until no block was mined during it does not work: a dump takes longer as the chain
 * grows (hundreds of ms at a few thousand blocks) and would never finish between blocks under
 * load. So this keeper owns block production: anvil runs with instant mining only (one block per
 * transaction) and the keeper mines the periodic block itself (`blockTimeSecs`, as
 * `--block-time` did); around each dump it switches instant mining off, takes the dump, checks
 * that the head is the block the dump lists (a block whose mining had begun before the switch is
 * caught here, and the dump taken again), and switches mining back on, mining at once whatever
 * arrived meanwhile. Transactions sent during a dump wait for it (a devnet-only cost).
 * The published `durableBlock` is the block the saved dump lists.
 * One save at a time, the next `intervalMs` after the previous one ended, or later when dumps grow
 * slow (`PAUSE_SHARE`, `saveSpacingMs`); saves never pile up.
 */
import { open, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { postJson } from '../net/json-post.ts';

const gunzipAsync = promisify(gunzip);

/** Dumps per save before it gives up (the follower then waits for the next save). */
const MAX_ATTEMPTS = 5;

/**
 * A dump grows with the chain (every block is in it): after hours of blocks it takes seconds. Saves
 * are spaced so that mining is off at most 1 / PAUSE_SHARE of the time; durability then lags more.
 */
const PAUSE_SHARE = 5;
/** Pauses remembered for the spacing: the shortest of them is the dump's cost (see saveSpacingMs). */
const PAUSES_KEPT = 5;

/**
 * The wait before the next save: `intervalMs`, or PAUSE_SHARE times the shortest recent pause when
 * dumps are slow. The shortest, not the last: a pause is measured in this process, so one that
 * spans a stall of its event loop (PGlite opening its store and migrating it blocks it for seconds,
 * and for tens of seconds on a loaded machine) is long without the dump being slow. Spaced by that
 * one pause, the next save came 5 x 24 s later on a loaded first start, and nothing was final
 * (nothing credited, nothing settled) meanwhile; a dump that is really slow is slow every time.
 */
export function saveSpacingMs(intervalMs: number, recentPausesMs: readonly number[]): number {
  return recentPausesMs.length === 0 ? intervalMs : Math.max(intervalMs, PAUSE_SHARE * Math.min(...recentPausesMs));
}

const BEST_BLOCK_FIELD = Buffer.from('"best_block_number":');

/** The dump's own head: the highest block its block list holds. */
export function bestBlockOfDump(json: Buffer): number {
  const at = json.indexOf(BEST_BLOCK_FIELD);
  if (at < 0) throw new Error('anvil state dump has no best_block_number');
  const match = /^\s*(\d+)/.exec(json.subarray(at + BEST_BLOCK_FIELD.length, at + BEST_BLOCK_FIELD.length + 32).toString());
  if (!match) throw new Error('anvil state dump has an unreadable best_block_number');
  return Number(match[1]);
}

async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  // Not fetch: src/net/json-post.ts says why. A state dump can be large, hence the higher cap.
  const reply = await postJson(rpcUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), { timeoutMs: 30_000, maxBytes: 1024 * 1024 * 1024 });
  const body = JSON.parse(reply.text) as { result?: T; error?: { message: string } };
  if (body.error || body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? `HTTP ${reply.status}`}`);
  return body.result;
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class DevnetStateKeeper {
  readonly #rpcUrl: string;
  readonly #stateFile: string;
  readonly #intervalMs: number;
  readonly #blockTimeMs: number;
  #durable = -1;
  /** How long mining was off for each of the last saves (at most PAUSES_KEPT), oldest first. */
  readonly #pausesMs: number[] = [];
  #timer: NodeJS.Timeout | null = null;
  #clock: NodeJS.Timeout | null = null;
  #saving: Promise<void> | null = null;
  #ticking: Promise<void> | null = null;
  #stopped = false;
  #failing = false;

  /** anvil at `rpcUrl` must run with instant mining and no `--block-time`: this keeper mines the periodic block. */
  constructor(options: { rpcUrl: string; stateFile: string; blockTimeSecs: number; intervalMs?: number }) {
    this.#rpcUrl = options.rpcUrl;
    this.#stateFile = options.stateFile;
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#blockTimeMs = options.blockTimeSecs * 1000;
  }

  /** The highest block known to be in the state file on disk; -1 before the first save. */
  get durableBlock(): number {
    return this.#durable;
  }

  /** Saves once now (so the loaded chain is durable at once), then keeps saving and keeps the block clock. */
  async start(): Promise<void> {
    await this.save();
    this.#schedule();
    this.#tick();
  }

  /** Stops the clock and the loop and saves a last time (a clean stop keeps every block). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#clock) clearTimeout(this.#clock);
    this.#timer = null;
    this.#clock = null;
    await this.#ticking;
    await this.#saving;
    await this.save();
  }

  /** One save; concurrent callers share the save in flight. */
  save(): Promise<void> {
    this.#saving ??= this.#saveNow().finally(() => (this.#saving = null));
    return this.#saving;
  }

  async #saveNow(): Promise<void> {
    // A periodic block being mined now would land mid-dump: let it finish first.
    await this.#ticking;
    await rpc(this.#rpcUrl, 'evm_setAutomine', [false]);
    const pausedAt = performance.now();
    try {
      for (let attempt = 1; ; attempt++) {
        const dump = await rpc<string>(this.#rpcUrl, 'anvil_dumpState');
        const head = Number(await rpc<string>(this.#rpcUrl, 'eth_blockNumber'));
        // anvil answers gzip; `--load-state` reads the plain JSON (the format its `--state` writes).
        const json = await gunzipAsync(Buffer.from(dump.slice(2), 'hex'));
        const best = bestBlockOfDump(json);
        if (head === best) return await this.#write(json, best);
        if (attempt === MAX_ATTEMPTS) throw new Error(`the chain mined during each of ${MAX_ATTEMPTS} state dumps (last: dump lists block ${best}, head ${head})`);
      }
    } finally {
      await this.#resumeMining();
      this.#pausesMs.push(performance.now() - pausedAt);
      if (this.#pausesMs.length > PAUSES_KEPT) this.#pausesMs.shift();
    }
  }

  /** Instant mining back on; what arrived while it was off is mined now (the new listener only sees later arrivals). */
  async #resumeMining(): Promise<void> {
    await rpc(this.#rpcUrl, 'evm_setAutomine', [true]);
    const pool = await rpc<{ pending: string }>(this.#rpcUrl, 'txpool_status');
    if (Number(pool.pending) > 0) await rpc(this.#rpcUrl, 'evm_mine');
  }

  async #write(json: Buffer, best: number): Promise<void> {
    const temporary = `${this.#stateFile}.tmp`;
    await writeFile(temporary, json);
    await fsyncPath(temporary);
    await rename(temporary, this.#stateFile);
    await fsyncPath(dirname(this.#stateFile));
    if (best > this.#durable) this.#durable = best;
  }

  /** The periodic block (chain time moves on without transactions): after the dump in flight, if any; every `blockTimeSecs` from the last one's start. */
  #tick(previousAt = performance.now()): void {
    if (this.#stopped) return;
    this.#clock = setTimeout(() => {
      const startedAt = performance.now();
      this.#ticking = (this.#saving ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => rpc(this.#rpcUrl, 'evm_mine'))
        .then(() => undefined, () => undefined) // a missed tick is only a later block
        .finally(() => {
          this.#ticking = null;
          this.#tick(startedAt);
        });
    }, Math.max(0, this.#blockTimeMs - (performance.now() - previousAt)));
    this.#clock.unref();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.save()
        .then(() => (this.#failing = false))
        .catch((error: unknown) => {
          // Once per failure streak: the follower simply waits (durableBlock stays put) until saves work again.
          if (!this.#failing) process.stderr.write(`devnet state save failed (the chain follower waits for it): ${error instanceof Error ? error.message : String(error)}\n`);
          this.#failing = true;
        })
        .finally(() => this.#schedule());
    }, saveSpacingMs(this.#intervalMs, this.#pausesMs));
    this.#timer.unref();
  }
}
