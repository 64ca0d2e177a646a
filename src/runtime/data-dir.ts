/**
 * The embedded data directory holds the ledger (PGlite), the operator token, the sealing key and
 * the custody key: only the service's user may read or change it. It is created
 * 0700; an existing one is refused when group or others may write it (someone else could already
 * have changed the ledger or planted a key), and otherwise tightened to 0700 for directories and
 * 0600 for files, so a directory made by an older version is closed too. The process umask is set
 * to 077 so whatever PGlite, anvil and the venue simulator create later is private as well.
 */
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/** Sets directories to 0700 and files to 0600 under `dir`; answers how many it had to change. */
async function tighten(dir: string): Promise<number> {
  let changed = 0;
  if (((await lstat(dir)).mode & 0o077) !== 0) {
    await chmod(dir, 0o700);
    changed += 1;
  }
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // Symbolic links are left alone: chmod would follow them out of the directory.
    // The stack is running while this walks (anvil's state is saved through a temporary file that
    // is renamed away), so an entry that vanished since the listing is simply no longer there.
    try {
      if (entry.isDirectory()) changed += await tighten(full);
      else if (entry.isFile() && ((await lstat(full)).mode & 0o177) !== 0) {
        await chmod(full, 0o600);
        changed += 1;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return changed;
}

/**
 * Creates or checks and tightens `dir`; answers how many entries were tightened (a directory from
 * an older version). Throws DataDirError (a line for the operator) when it is unsafe.
 */
export async function secureDataDir(dir: string): Promise<number> {
  process.umask(0o077);
  let mode: number;
  try {
    const found = await stat(dir);
    if (!found.isDirectory()) throw new DataDirError(`data directory ${dir} is not a directory`);
    mode = found.mode;
    if (typeof process.getuid === 'function' && found.uid !== process.getuid()) {
      throw new DataDirError(`data directory ${dir} belongs to another user (uid ${found.uid}); run the service as its owner`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return 0;
  }
  if ((mode & 0o022) !== 0) {
    throw new DataDirError(`data directory ${dir} is writable by ${(mode & 0o020) !== 0 ? 'its group' : 'other users'} (mode ${octal(mode)}): someone else may have changed the ledger or the keys in it; check its contents, then run chmod 700 ${dir}`);
  }
  return tighten(dir);
}
