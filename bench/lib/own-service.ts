/**
 * A service under test on its own fresh bench database and data directory, started and taken
 * down in one place (the deposit-latency bench, its phase in bench/run.ts, and bench/ws.ts each
 * had a copy): `stop` stops the service and its process group, drops the database and removes
 * the directory, once, whatever failed before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { startService, type Service } from './venue.ts';

export interface OwnService {
  service: Service;
  db: BenchDatabase;
  dataDir: string;
  /** Stops the service, drops the database, removes the data directory; the service's exit code. */
  stop(): Promise<number | null>;
}

export interface OwnServiceOptions {
  /** PostgreSQL to create the bench database on. */
  adminUrl: string;
  /** Names the data directory (rfq-bench-<name>-). */
  name: string;
  poolSize: number;
  /** Extra RFQ_* settings. */
  env?: Record<string, string>;
  /** More bench modules to preload into the service (venue.ts `startService`). */
  imports?: string[];
}

export async function startOwnService(options: OwnServiceOptions): Promise<OwnService> {
  const db = await createBenchDatabase(options.adminUrl);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `rfq-bench-${options.name}-`));
  const dispose = async () => {
    await db.drop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  };
  let service: Service;
  try {
    service = await startService({ databaseUrl: db.url, dataDir, probeFile: null, cpuProfDir: null, poolSize: options.poolSize, ...(options.env ? { env: options.env } : {}), ...(options.imports ? { imports: options.imports } : {}) });
  } catch (error) {
    await dispose();
    throw error;
  }
  let stopped: Promise<number | null> | null = null;
  return {
    service,
    db,
    dataDir,
    stop() {
      stopped ??= (async () => {
        const code = await service.stop().catch(() => null);
        await dispose();
        return code;
      })();
      return stopped;
    },
  };
}
