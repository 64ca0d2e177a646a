/** GET /v1/rfq/network: what integrators need to settle, on a node with a chain and without. */
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';

const OMNIBUS_KEY = generatePrivateKey();

for (const backend of backends()) {
  describe(`GET /v1/rfq/network [${backend}]`, () => {
    let chain: TestChain;
    let h: Harness;
    let bare: Harness;
    before(async () => {
      chain = await startTestChain();
      // BTC without an address: it is not listed.
      const { BTC: _btc, ...withAddresses } = chain.tokenAddresses;
      // A venue the test never calls: the route only reports its network, builder and omnibus addresses.
      h = await startHarness(backend, {
        chain: chain.stack.settings,
        tokenAddresses: withAddresses,
        venue: { url: 'http://127.0.0.1:9', network: 'testnet', builderAddress: '0x00000000000000000000000000000000000000b1' },
        v0: { venue: { url: 'http://127.0.0.1:9', omnibusKey: OMNIBUS_KEY, agentKey: generatePrivateKey(), network: 'testnet', pollIntervalMs: 60_000 } },
      });
      bare = await startHarness(backend);
    });
    after(async () => {
      await h?.close();
      await bare?.close();
      await chain?.stop();
    });

    it('tells an integrator the chain, contracts, custody and tokens', async () => {
      const { client } = await h.newUser();
      const network = await client.signed<Record<string, unknown>>('GET', '/v1/rfq/network');
      const s = chain.stack.settings;
      assert.deepEqual(network, {
        chainId: 31337,
        permit2Address: s.permit2Address,
        custodyAddress: chain.custody,
        wrapperFactoryAddress: s.wrapperFactoryAddress,
        xchangeAdapterAddress: s.xchangeAdapterAddress,
        tokens: [
          { symbol: 'ETH', address: chain.token('ETH'), decimals: 18 },
          { symbol: 'USDC', address: chain.token('USDC'), decimals: 6 },
        ],
        rpcUrl: s.publicRpcUrl,
        venue: { network: 'testnet', builderAddress: '0x00000000000000000000000000000000000000b1', omnibusAddress: privateKeyToAccount(OMNIBUS_KEY).address },
      });
    });

    it('needs a signed request, and is 503 on a node without a chain', async () => {
      await rejects(new RfqClient(h.url).signed('GET', '/v1/rfq/network'), 401, 'UNAUTHENTICATED');
      const { client } = await bare.newUser();
      await rejects(client.signed('GET', '/v1/rfq/network'), 503, 'NOT_AVAILABLE');
    });

    it('is described in /openapi.json', async () => {
      const spec = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      assert.ok(spec.paths['/v1/rfq/network']?.get?.responses['200']);
    });
  });
}
