/**
 * The taker CLI's remembered credential: one JSON file (mode 0600, since it holds the API
 * secret), default `<RFQ_DATA_DIR or ./.rfq-data>/cli-credentials.json` (where `npm start` keeps
 * the operator token), overridable by `--credentials` or `RFQ_CREDENTIALS`. It records the server URL the key was issued by, so later commands need no
 * `--url`.
 */
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const DEFAULT_CREDENTIALS_FILE = './.rfq-data/cli-credentials.json';

export interface SavedCredential {
  url: string;
  accessKey: string;
  secret: string;
  /** Present after a wallet sign-in (unknown for a pasted key pair). */
  account?: string;
  userId?: string;
  expiresAt?: number;
}

/** `--credentials`, else RFQ_CREDENTIALS, else beside the stack's other files in RFQ_DATA_DIR (default ./.rfq-data). */
export function credentialsPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return path.resolve(flag);
  if (env.RFQ_CREDENTIALS) return path.resolve(env.RFQ_CREDENTIALS);
  return env.RFQ_DATA_DIR ? path.resolve(env.RFQ_DATA_DIR, 'cli-credentials.json') : path.resolve(DEFAULT_CREDENTIALS_FILE);
}

/** The saved credential, or null when the file does not exist. */
export async function readCredential(file: string): Promise<SavedCredential | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const value = JSON.parse(text) as Partial<SavedCredential>;
  if (typeof value.url !== 'string' || typeof value.accessKey !== 'string' || typeof value.secret !== 'string') {
    throw new Error(`${file} is not a credential file (needs url, accessKey, secret)`);
  }
  return value as SavedCredential;
}

export async function writeCredential(file: string, credential: SavedCredential): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(credential, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created; an older file may be wider.
  await chmod(file, 0o600);
}

export async function removeCredential(file: string): Promise<void> {
  await rm(file, { force: true });
}
