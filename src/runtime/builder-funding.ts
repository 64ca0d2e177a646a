/**
 * The builder account's perps account value, watched (DESIGN.md 13): the venue refuses every
 * `approveBuilderFee` naming a builder that holds less than 100 USDC of it ("Builder has
 * insufficient balance to be approved."), so every fee-bearing perp RFQ would end
 * SETTLEMENT_FAILED. Below the minimum the node is not ready (`/readyz` says why) and the gauge
 * `rfq_venue_builder_account_value_usdc` shows the value. One `clearinghouseState` read (weight
 * 2) per interval; a failed read keeps the last value (the venue's reachability is reported
 * elsewhere).
 */
import { Gauge } from 'prom-client';
import type { Address } from 'viem';
import type { NodeContext } from './node-context.ts';

/** The venue's minimum perps account value of a builder, in USDC. */
export const BUILDER_MIN_ACCOUNT_VALUE_USDC = 100;

export interface BuilderFundingOptions {
  builder: Address;
  read: (builder: Address) => Promise<string>;
  intervalMs: number;
}

export interface BuilderFundingWatch {
  /** Reads now; resolves once the reading is in. */
  refresh(): Promise<void>;
  stop(): void;
}

/** True when `value` (a venue decimal, possibly negative) is below `minimum` whole USDC. */
export function belowMinimum(value: string, minimum: number): boolean {
  if (value.startsWith('-')) return true;
  const [whole = '0'] = value.split('.');
  return BigInt(whole) < BigInt(minimum);
}

export function watchBuilderFunding(context: NodeContext, options: BuilderFundingOptions): BuilderFundingWatch {
  let value: string | null = null;
  const refresh = async () => {
    try {
      value = await options.read(options.builder);
    } catch {
      // Kept: the last value read stands until the venue answers again.
    }
  };
  (context.notReadyReasons ??= []).push(() =>
    value !== null && belowMinimum(value, BUILDER_MIN_ACCOUNT_VALUE_USDC)
      ? `builder ${options.builder} holds ${value} USDC of perps account value; the venue approves no builder fee below ${BUILDER_MIN_ACCOUNT_VALUE_USDC} USDC (fund its perps account)`
      : null,
  );
  new Gauge({
    name: 'rfq_venue_builder_account_value_usdc',
    help: `The builder account's perps account value at the venue (at least ${BUILDER_MIN_ACCOUNT_VALUE_USDC} is needed for builder-fee approvals); -1 until read`,
    registers: [context.metrics.registry],
    collect() {
      this.set(value === null ? -1 : Number(value));
    },
  });
  const timer = setInterval(() => void refresh(), options.intervalMs);
  timer.unref();
  void refresh();
  return { refresh, stop: () => clearInterval(timer) };
}
