/**
 * In embedded mode the operator token and the secret-sealing key are generated once and kept in
 * the data directory (mode 0600), so a restart keeps issued API keys usable.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

async function readOrCreate(file: string, make: () => string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const value = make();
    await writeFile(file, `${value}\n`, { mode: 0o600 });
    return value;
  }
}

export async function embeddedSecrets(dataDir: string): Promise<{ adminToken: string; secretKey: string }> {
  await mkdir(dataDir, { recursive: true });
  return {
    adminToken: await readOrCreate(path.join(dataDir, 'admin-token'), () => `adm_${randomBytes(24).toString('hex')}`),
    secretKey: await readOrCreate(path.join(dataDir, 'secret-key'), () => randomBytes(32).toString('base64')),
  };
}

/** The embedded `/v0` omnibus venue key and its API wallet key, generated once into the data directory. */
export async function embeddedVenueKeys(dataDir: string): Promise<{ omnibusKey: string; agentKey: string }> {
  await mkdir(dataDir, { recursive: true });
  const key = () => `0x${randomBytes(32).toString('hex')}`;
  return {
    omnibusKey: await readOrCreate(path.join(dataDir, 'venue-omnibus-key'), key),
    agentKey: await readOrCreate(path.join(dataDir, 'venue-agent-key'), key),
  };
}
