/** The `/v0` CLI's command line (src/runtime/v0-cli.ts): help and usage errors, without a server. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseV0Args, runV0Cli, V0UsageError } from '../../src/runtime/v0-cli.ts';

describe('v0 CLI command line', () => {
  for (const flag of ['--help', '-h', 'help']) {
    it(`${flag} prints the usage and exits 0, contacting nothing`, async () => {
      const lines: string[] = [];
      // An unreachable URL: help must not sign in or call the service.
      assert.equal(await runV0Cli([flag], { RFQ_URL: 'http://127.0.0.1:1' }, (line) => lines.push(line)), 0);
      assert.match(lines.join('\n'), /^usage: npm run v0 -- <operation>/);
      assert.match(lines.join('\n'), /deposit token=USDC amount=100 --omnibus/);
    });
  }

  it('usage errors: no operation, an unknown option, a bad network', () => {
    assert.throws(() => parseV0Args([], {}), V0UsageError);
    assert.throws(() => parseV0Args(['getBalances', '--frobnicate'], {}), /unknown option --frobnicate/);
    assert.throws(() => parseV0Args(['deposit', '--network', 'devnet'], {}), /--network must be mainnet or testnet/);
  });

  it('deposit refuses, before any call, without --omnibus or --venue-url', async () => {
    const key = `0x${'11'.repeat(32)}`;
    await assert.rejects(runV0Cli(['deposit', 'token=USDC', 'amount=1', '--key', key, '--venue-url', 'http://127.0.0.1:1'], { RFQ_URL: 'http://127.0.0.1:1' }, () => {}), /--omnibus/);
    await assert.rejects(runV0Cli(['deposit', 'token=USDC', 'amount=1', '--key', key, '--omnibus', `0x${'22'.repeat(20)}`], { RFQ_URL: 'http://127.0.0.1:1' }, () => {}), /--venue-url/);
  });
});
