/**
 * The embedded devnet's state on disk, saved by us rather than by anvil (issue 13, part 3).
 *
 * anvil's own `--state-interval` dump runs on its clock and tells nobody which block it saved, so
 * after a SIGKILL the restarted chain could lack blocks the store had already booked: anvil then
 * mines other blocks at those heights and the follower halts for good. Here the node asks anvil
 * for its state (`anvil_dumpState`), writes it atomically (temporary file, fsync, rename, fsync of
 * the directory) and only then publishes the block it held: `durableBlock`. The chain follower and
 * the custody broadcaster never treat a later block as final (`finalBlock` in chain-context.ts), so
 * whatever the store booked is on disk in anvil's state too and a restart resumes the same chain.
 *
 * The block number is read BEFORE the dump: blocks only grow, so the dump holds at least that
 * block. One save at a time, the next `intervalMs` after the previous one ended (a long chain's
 * dump takes longer; saves never pile up).
 */
import { open, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error || body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? `HTTP ${res.status}`}`);
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
  #durable = -1;
  #timer: NodeJS.Timeout | null = null;
  #saving: Promise<void> | null = null;
  #stopped = false;
  #failing = false;

  constructor(options: { rpcUrl: string; stateFile: string; intervalMs?: number }) {
    this.#rpcUrl = options.rpcUrl;
    this.#stateFile = options.stateFile;
    this.#intervalMs = options.intervalMs ?? 1000;
  }

  /** The highest block known to be in the state file on disk; -1 before the first save. */
  get durableBlock(): number {
    return this.#durable;
  }

  /** Saves once now (so the loaded chain is durable at once), then keeps saving. */
  async start(): Promise<void> {
    await this.save();
    this.#schedule();
  }

  /** Stops the loop and saves a last time (a clean stop keeps every block). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#saving;
    await this.save();
  }

  /** One save; concurrent callers share the save in flight. */
  save(): Promise<void> {
    this.#saving ??= this.#saveNow().finally(() => (this.#saving = null));
    return this.#saving;
  }

  async #saveNow(): Promise<void> {
    const head = Number(await rpc<string>(this.#rpcUrl, 'eth_blockNumber'));
    const dump = await rpc<string>(this.#rpcUrl, 'anvil_dumpState');
    // anvil answers gzip; `--load-state` reads the plain JSON (the format its `--state` writes).
    const json = await gunzipAsync(Buffer.from(dump.slice(2), 'hex'));
    const temporary = `${this.#stateFile}.tmp`;
    await writeFile(temporary, json);
    await fsyncPath(temporary);
    await rename(temporary, this.#stateFile);
    await fsyncPath(dirname(this.#stateFile));
    if (head > this.#durable) this.#durable = head;
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
    }, this.#intervalMs);
    this.#timer.unref();
  }
}
