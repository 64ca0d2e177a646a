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
