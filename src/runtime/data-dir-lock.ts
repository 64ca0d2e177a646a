/**
 * One process per data directory: a second `npm start` on the same `RFQ_DATA_DIR` ran
 * beside the first on the same PGlite files and devnet state. The owner holds `owner.lock`
 * (created exclusively, holding its PID); another process finding it held by a live process
 * refuses to start and names that PID. A lock left by a process that is gone (SIGKILL, a power
 * cut) is taken over: a PID that no longer runs owns nothing.
 */
import { readFileSync, rmSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { DataDirError } from './data-dir.ts';

export const LOCK_FILE = 'owner.lock';

export interface DataDirLock {
  /** Gives the directory up (the stop's last step; also on process exit). */
  release(): Promise<void>;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `dataDir` for this process, or throws DataDirError naming the live owner. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      const releaseSync = () => {
        try {
          // Only our own lock: never one a successor took over.
          if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
      process.once('exit', releaseSync);
      return {
        async release() {
          process.off('exit', releaseSync);
          const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
          if (owner === process.pid) await rm(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && running(owner)) {
        throw new DataDirError(`the data directory ${dataDir} is in use by process ${owner} (another rfq-service); stop it first or set RFQ_DATA_DIR to another directory`);
      }
      await rm(file, { force: true });
    }
  }
  throw new DataDirError(`the data directory ${dataDir} could not be locked (${file} keeps reappearing)`);
}
