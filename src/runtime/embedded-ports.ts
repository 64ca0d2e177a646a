/**
 * The embedded devnet's and venue simulator's ports: kept in the data directory
 * (`ports.json`) and reused on restart, so a maker that cached the URLs still reaches them;
 * `RFQ_DEVNET_PORT` and `RFQ_VENUE_SIM_PORT` pin them. Every port the start will listen on is
 * probed before anything starts, and a busy one refused at once with its name and number, rather
 * than after the devnet's set-up with a stack trace. A kept (unpinned) port found busy is given
 * up for a free one, with a line saying so.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

export const PORTS_FILE = 'ports.json';

export interface EmbeddedPorts {
  devnet: number;
  venueSim: number;
}

export class PortBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PortBusyError';
  }
}

/** Binds `port` (0: any) on `host` and lets it go: the port it got, or null when it is taken. */
export function probePort(host: string, port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

async function kept(dataDir: string): Promise<Partial<EmbeddedPorts>> {
  try {
    const value = JSON.parse(await readFile(path.join(dataDir, PORTS_FILE), 'utf8')) as Record<string, unknown>;
    const valid = (p: unknown) => (typeof p === 'number' && Number.isInteger(p) && p > 0 && p < 65536 ? p : undefined);
    const devnet = valid(value.devnet);
    const venueSim = valid(value.venueSim);
    return { ...(devnet ? { devnet } : {}), ...(venueSim ? { venueSim } : {}) };
  } catch {
    return {};
  }
}

/**
 * The ports to start on: pinned, else kept, else fresh; `needed` says which parts start here.
 * Throws PortBusyError naming a pinned port (or the node's own) that is taken.
 */
export async function chooseEmbeddedPorts(
  dataDir: string,
  host: string,
  pinned: { node: number; devnet: number | null; venueSim: number | null },
  needed: { devnet: boolean; venueSim: boolean },
  step: (message: string) => void,
): Promise<EmbeddedPorts> {
  if (pinned.node !== 0 && (await probePort(host, pinned.node)) === null) throw new PortBusyError(`port ${pinned.node} on ${host} (PORT, the node's HTTP port) is already in use`);
  const previous = await kept(dataDir);
  const choose = async (name: 'devnet' | 'venueSim', setting: string, pin: number | null, wanted: boolean): Promise<number> => {
    if (!wanted) return 0;
    if (pin !== null) {
      if ((await probePort('127.0.0.1', pin)) === null) throw new PortBusyError(`port ${pin} on 127.0.0.1 (${setting}) is already in use`);
      return pin;
    }
    const last = previous[name];
    if (last !== undefined && (await probePort('127.0.0.1', last)) !== null) return last;
    const fresh = await probePort('127.0.0.1', 0);
    if (fresh === null) throw new PortBusyError(`no free port on 127.0.0.1 for the ${name === 'devnet' ? 'devnet' : 'venue simulator'}`);
    if (last !== undefined) step(`the ${name === 'devnet' ? 'devnet' : 'venue simulator'}'s port ${last} is in use: moving to ${fresh} (${setting} pins it)`);
    return fresh;
  };
  const devnet = await choose('devnet', 'RFQ_DEVNET_PORT', pinned.devnet, needed.devnet);
  const venueSim = await choose('venueSim', 'RFQ_VENUE_SIM_PORT', pinned.venueSim, needed.venueSim);
  return { devnet, venueSim };
}

/** Keeps the ports the parts listen on for the next start. */
export async function keepEmbeddedPorts(dataDir: string, ports: EmbeddedPorts): Promise<void> {
  await writeFile(path.join(dataDir, PORTS_FILE), `${JSON.stringify(ports)}\n`, { mode: 0o600 });
}
