/**
 * The chain under simulation: a real anvil with the project's contracts (test/helpers/chain.ts),
 * mining a block a second, and between it and the service nodes a TCP relay the driver can cut
 * (an RPC outage: every node's follower, broadcaster and permit signer lose the chain at once,
 * while the wallets of takers and makers keep their own direct connection, as a real user's
 * wallet would). Custody, deposits, withdrawals and permit2 settlement are all real transactions.
 */
import net from 'node:net';
import type { Address, Hex } from 'viem';
import { startTestChain, type TestChain } from '../../test/helpers/chain.ts';
import { rpc } from '../../test/helpers/settlement.ts';

/**
 * Blocks on top before the follower books one. Deep enough that a reorganisation the driver makes
 * (a snapshot reverted a block or two later) stays below it.
 */
export const SIM_CONFIRMATIONS = 4;

/** A TCP relay in front of anvil: `down()` refuses new connections and drops the open ones. */
class RpcRelay {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #down = false;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#server = net.createServer((client) => {
      if (this.#down) {
        client.destroy();
        return;
      }
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as net.AddressInfo).port;
  }

  get isDown(): boolean {
    return this.#down;
  }

  down(): void {
    this.#down = true;
    for (const s of this.#sockets) s.destroy();
  }

  up(): void {
    this.#down = false;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export class SimChain {
  readonly test: TestChain;
  readonly #relay: RpcRelay;

  private constructor(test: TestChain, relay: RpcRelay) {
    this.test = test;
    this.#relay = relay;
  }

  static async start(): Promise<SimChain> {
    const test = await startTestChain({ confirmations: SIM_CONFIRMATIONS, blockTimeSecs: 1 });
    try {
      const url = new URL(test.rpcUrl);
      const relay = new RpcRelay({ host: url.hostname, port: Number(url.port) });
      await relay.listen();
      return new SimChain(test, relay);
    } catch (error) {
      await test.stop();
      throw error;
    }
  }

  /** What the nodes connect to: anvil through the relay the driver can cut. */
  get nodeSettings(): TestChain['stack']['settings'] {
    const rpcUrl = `http://127.0.0.1:${this.#relay.port}`;
    return { ...this.test.stack.settings, rpcUrl, publicRpcUrl: rpcUrl };
  }

  get custody(): Address {
    return this.test.custody;
  }

  get rpcDown(): boolean {
    return this.#relay.isDown;
  }

  setRpc(up: boolean): void {
    if (up) this.#relay.up();
    else this.#relay.down();
  }

  call<T>(method: string, params: unknown[] = []): Promise<T> {
    return rpc<T>(this.test.rpcUrl, method, params);
  }

  #chainId: number | null = null;

  async chainId(): Promise<number> {
    this.#chainId ??= Number(await this.call<Hex>('eth_chainId'));
    return this.#chainId;
  }

  /** A mined block's timestamp (unix seconds). */
  async blockTimestamp(blockNumber: bigint): Promise<number> {
    const block = await this.call<{ timestamp: Hex }>('eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false]);
    return Number(block.timestamp);
  }

  async head(): Promise<{ number: number; timestamp: number }> {
    const block = await this.call<{ number: Hex; timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
    return { number: Number(block.number), timestamp: Number(block.timestamp) };
  }

  async close(): Promise<void> {
    await this.#relay.close();
    await this.test.stop();
  }
}
