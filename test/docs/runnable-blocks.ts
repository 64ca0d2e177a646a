/**
 * Runs the fenced code blocks of a guide as a reader would type them, so the guides cannot rot.
 * The convention (also in docs/decisions/0044-documentation-is-tested.md):
 *
 * - ```sh            runnable: the block runs in bash (`set -e -o pipefail`, every assignment
 *                    exported) and must exit 0; variables carry over to later blocks, as in one
 *                    terminal session.
 * - ```sh exit=N     runnable, must exit N.
 * - ```sh background runs on while the following blocks run (a second terminal); its exit status
 *                    is checked when the guide ends.
 * - ```sh skip       not run; the test keeps an explicit list of skipped blocks with the reason.
 * - ```text output   the output of the sh block just before it: its lines must appear, in order
 *                    and consecutively, in that block's stdout. `<anything>` matches one
 *                    non-empty run of text, a line `...` any number of lines; runs of spaces
 *                    match any run of spaces (tables are aligned to their content).
 * - ```text stderr   the same for its stderr (after the output block, if both).
 * - ```env           KEY=value lines: a configuration the test loads through loadConfig.
 * - other blocks (```text, ```json ...) are prose; a test may check them by other means.
 *
 * Placeholders `<rfqId>`, `<quoteId>` and `<orderUuid>` (a `/v0` wrapped createOrder's UUID) in a
 * runnable block stand for the id printed by the most recent earlier block that printed one
 * (waiting for a background block still running).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { waitFor } from '../helpers/eventually.ts';

export interface Block {
  lang: string;
  attrs: Record<string, string | true>;
  body: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
}

export function parseBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    const attrs: Record<string, string | true> = {};
    for (const word of open[2]!.split(/\s+/).filter(Boolean)) {
      const [key, value] = word.split('=');
      attrs[key!] = value ?? true;
    }
    blocks.push({ lang: open[1]!, attrs, body: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** Every key path of a JSON value (`a.b.c`), sorted: its shape without the values. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [prefix];
  return Object.entries(value).flatMap(([key, inner]) => keyPaths(inner, prefix ? `${prefix}.${key}` : key)).sort();
}

export const isRunnable = (block: Block) => block.lang === 'sh' && !block.attrs.skip;

/** The regular expression a `text output` block stands for. */
export function outputPattern(expected: string): RegExp {
  const parts = expected.split('\n').map((line) => {
    if (line.trim() === '...') return '(?:[^\\n]*\\n)*?';
    const escaped = line
      .trimEnd()
      .split(/(<[^>]+>)/)
      .map((piece) => (/^<[^>]+>$/.test(piece) ? '.+?' : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ +/g, ' +')))
      .join('');
    return `${escaped} *\\n`;
  });
  return new RegExp(`(?:^|\\n)${parts.join('')}`);
}

export interface RunResult { code: number | null; stdout: string; stderr: string }

interface Started { block: Block; child: ChildProcess; stdout: string; stderr: string; done: Promise<RunResult> }

const ID_PATTERNS: Record<string, RegExp> = {
  '<rfqId>': /rfq_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
  '<quoteId>': /qt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
  // A wrapped-layout `/v0` createOrder's UUID (the requestId beside it is a UUID too: not that one).
  '<orderUuid>': /(?<="orderId": ")[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=")/g,
};

/** One terminal session: a working directory, an environment carried from block to block. */
export class ShellSession {
  readonly #cwd: string;
  readonly #stateFile: string;
  readonly #started: Started[] = [];
  readonly #timeoutMs: number;
  readonly #initialEnv: Record<string, string>;

  constructor(options: { cwd: string; env: Record<string, string>; timeoutMs?: number }) {
    this.#cwd = options.cwd;
    this.#stateFile = path.join(options.cwd, '.doc-session-env');
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#initialEnv = options.env;
  }

  async #env(): Promise<Record<string, string>> {
    // The previous block's exported variables, read back from the file its EXIT trap wrote.
    let text = '';
    try {
      text = await readFile(this.#stateFile, 'utf8');
    } catch {
      return { ...this.#initialEnv };
    }
    return JSON.parse(text) as Record<string, string>;
  }

  /** The id a placeholder stands for, waiting while the most recent block that may print it runs. */
  async #resolve(placeholder: string): Promise<string> {
    const printed = async () => {
      for (let i = this.#started.length - 1; i >= 0; i--) {
        const started = this.#started[i]!;
        const ids = [...started.stdout.matchAll(ID_PATTERNS[placeholder]!)].map((m) => m[0]);
        if (ids.length > 0) return ids[ids.length - 1]!;
        if (started.block.attrs.background && !(await settled(started.done))) break;
      }
      return undefined;
    };
    return waitFor(printed, `an earlier block prints an id for ${placeholder}`, { timeoutMs: 30_000, pollMs: 100 });
  }

  async substitute(body: string): Promise<string> {
    let result = body;
    for (const placeholder of Object.keys(ID_PATTERNS)) {
      if (result.includes(placeholder)) result = result.replaceAll(placeholder, await this.#resolve(placeholder));
    }
    return result;
  }

  /** Starts a block; resolves once it ends (a background block's promise is kept for `finish`). */
  async start(block: Block): Promise<Started> {
    const body = await this.substitute(block.body);
    const env = await this.#env();
    // Background blocks must not race a later block for the state file: they do not write it.
    // This process's own Node writes it: the session's PATH need not lead to one.
    const save = block.attrs.background ? '' : `trap '${JSON.stringify(process.execPath)} -e "process.stdout.write(JSON.stringify(process.env))" > ${JSON.stringify(this.#stateFile)}.tmp && mv ${JSON.stringify(this.#stateFile)}.tmp ${JSON.stringify(this.#stateFile)}' EXIT\n`;
    const script = `set -e -o pipefail -a\n${save}${body}\n`;
    const child = spawn('bash', ['-c', script], { cwd: this.#cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const started: Started = { block, child, stdout: '', stderr: '', done: Promise.resolve({ code: null, stdout: '', stderr: '' }) };
    child.stdout!.on('data', (chunk: Buffer) => { started.stdout += chunk.toString(); });
    child.stderr!.on('data', (chunk: Buffer) => { started.stderr += chunk.toString(); });
    started.done = new Promise((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), this.#timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: started.stdout, stderr: started.stderr });
      });
    });
    this.#started.push(started);
    return started;
  }

  /** The variables the last finished block left exported, as the next block would start with. */
  exported(): Promise<Record<string, string>> {
    return this.#env();
  }

  /** Background blocks still running or finished, for the final exit-status check. */
  background(): Started[] {
    return this.#started.filter((s) => s.block.attrs.background);
  }

  stopAll(): void {
    for (const started of this.#started) if (started.child.exitCode === null) started.child.kill('SIGKILL');
  }
}

async function settled(promise: Promise<unknown>): Promise<boolean> {
  // Whether it has settled already: a settled promise's reaction runs before the next turn of the loop.
  return Promise.race([promise.then(() => true), new Promise<boolean>((answer) => setImmediate(() => answer(false)))]);
}
