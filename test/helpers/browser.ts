/**
 * The system's Chromium (Debian package `chromium`) driven by playwright-core, for the console's
 * browser tests. Without it the tests are skipped with the reason printed, so `npm test` still
 * passes on a machine that has none (`.ci/run` installs it).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why browser tests cannot run here, or null when they can. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium); console browser tests skipped`;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Errors the page threw or logged; a test asserts there were none. */
  errors: string[];
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile, nothing talking to the internet on its own. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'rfq-console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
    timezoneId: 'Europe/Berlin',
    locale: 'en-GB',
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // 4xx answers the test provokes on purpose (a wrong token) are logged by Chromium as errors.
    if (message.type() === 'error' && !/status of 40[0-9]/.test(message.text()) && !/ERR_CONNECTION_REFUSED/.test(message.text())) errors.push(`console: ${message.text()}`);
  });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
