/**
 * The embedded data directory is private: created 0700, an older one tightened
 * to 0700/0600, and one that its group or other users can write refused, by `npm start` itself
 * with a clear line and exit status 2 before anything is started or written.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DataDirError, secureDataDir } from '../../src/runtime/data-dir.ts';

const NODE = path.resolve('node_modules/.bin/node');
const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('embedded data directory', () => {
  const roots: string[] = [];
  const scratch = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'rfq-data-dir-'));
    roots.push(dir);
    return dir;
  };
  after(async () => {
    for (const dir of roots) await rm(dir, { recursive: true, force: true });
  });

  it('creates a missing directory 0700, and later files are private whatever the old umask', async () => {
    const dir = path.join(await scratch(), 'nested', 'data');
    assert.equal(await secureDataDir(dir), 0);
    assert.equal(await modeOf(dir), 0o700);
    await writeFile(path.join(dir, 'later'), 'x');
    await mkdir(path.join(dir, 'later-dir'));
    assert.equal(await modeOf(path.join(dir, 'later')), 0o600);
    assert.equal(await modeOf(path.join(dir, 'later-dir')), 0o700);
  });

  it('tightens a directory an older version left readable to 0700 and its files to 0600, leaving links alone', async () => {
    const dir = await scratch();
    const outside = path.join(await scratch(), 'outside');
    await writeFile(outside, 'not ours');
    await chmod(outside, 0o644);
    await mkdir(path.join(dir, 'pglite', 'base'), { recursive: true });
    await writeFile(path.join(dir, 'pglite', 'base', '1234'), 'ledger page');
    await writeFile(path.join(dir, 'admin-token'), 'token');
    await symlink(outside, path.join(dir, 'link'));
    await chmod(path.join(dir, 'pglite', 'base', '1234'), 0o666);
    await chmod(path.join(dir, 'pglite'), 0o755);
    await chmod(dir, 0o755);
    assert.equal(await secureDataDir(dir), 3);
    assert.equal(await modeOf(dir), 0o700);
    assert.equal(await modeOf(path.join(dir, 'pglite')), 0o700);
    assert.equal(await modeOf(path.join(dir, 'pglite', 'base')), 0o700);
    assert.equal(await modeOf(path.join(dir, 'pglite', 'base', '1234')), 0o600);
    assert.equal(await modeOf(outside), 0o644, 'a link is not followed out of the directory');
    assert.equal(await secureDataDir(dir), 0, 'nothing left to tighten');
    assert.deepEqual((await readdir(dir)).sort(), ['admin-token', 'link', 'pglite']);
  });

  it('refuses a directory its group or other users can write, and changes nothing', async () => {
    for (const [mode, who] of [[0o777, 'its group'], [0o775, 'its group'], [0o757, 'other users']] as const) {
      const dir = await scratch();
      await writeFile(path.join(dir, 'admin-token'), 'token');
      await chmod(path.join(dir, 'admin-token'), 0o666);
      await chmod(dir, mode);
      await assert.rejects(secureDataDir(dir), (error: unknown) => {
        assert.ok(error instanceof DataDirError);
        assert.match(error.message, new RegExp(`writable by ${who} \\(mode ${mode.toString(8)}\\)`));
        assert.match(error.message, /chmod 700/);
        return true;
      });
      assert.equal(await modeOf(dir), mode);
      assert.equal(await modeOf(path.join(dir, 'admin-token')), 0o666);
    }
  });

  it('npm start refuses a world-writable data directory with one clear line and status 2', async () => {
    const dir = await scratch();
    await chmod(dir, 0o777);
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (!name.startsWith('RFQ_') && !['DATABASE_URL', 'CHAIN_RPC_URL', 'VENUE_URL', 'PORT', 'HOST'].includes(name)) env[name] = value;
    }
    const child = spawn(NODE, ['src/runtime/main.ts'], { env: { ...env, RFQ_DATA_DIR: dir, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    assert.equal(status, 2, stderr);
    assert.match(stderr, new RegExp(`^rfq-service: refusing to start, data directory ${dir} is writable by its group \\(mode 777\\)`));
    assert.deepEqual(await readdir(dir), [], 'nothing was written into it');
  });
});
