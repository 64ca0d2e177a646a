/**
 * The gate's CPU ceiling (bench/gate.ts): the most a throughput figure could be at its run's CPU
 * per request, and the verdict printed beside each throughput row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuCeiling, gateRows, printGate } from '../../bench/gate.ts';
import type { BenchResults } from '../../bench/run.ts';

const cpu = (service: number, postgres: number, generator: number) => ({ serviceCpuUsPerReq: service, postgresCpuUsPerReq: postgres, generatorCpuUsPerReq: generator });

test('the ceiling is every core busy at the measured CPU per request', () => {
  // 400 us per request on 2 cores: at most 5,000/s; against a 5,000/s floor that is 1.0x.
  const c = cpuCeiling(cpu(150, 200, 50), 2, 5000, 1.0, cpu(100, 100, 50))!;
  assert.equal(c.perReqUs, 400);
  assert.equal(c.maxPerSec, 5000);
  assert.equal(c.ratio, 1);
  // 0.5x of a 5,000/s floor is 2,500/s: 2 cores allow 800 us per request for it.
  assert.equal(cpuCeiling(cpu(150, 200, 50), 2, 5000, 0.5)!.neededUs, 800);
  assert.equal(c.floorPerReqUs, 250);
});

test('no ceiling without a sample, a floor or any CPU', () => {
  assert.equal(cpuCeiling(undefined, 2, 5000, 1), null);
  assert.equal(cpuCeiling(cpu(1, 1, 1), 2, undefined, 1), null);
  assert.equal(cpuCeiling(cpu(1, 1, 1), 2, 0, 1), null);
  assert.equal(cpuCeiling(cpu(0, 0, 0), 2, 5000, 1), null);
});

function results(requoteCpu: ReturnType<typeof cpu>, acceptCpu: ReturnType<typeof cpu>): BenchResults {
  const load = (throughput: number, resources: ReturnType<typeof cpu>) => ({ throughput, connections: 10, errors: {}, latency: { count: 1, mean: 1, p50: 1, p90: 1, p99: 1, max: 1 }, resources });
  return {
    machine: { cpus: 2 },
    baseline: { closed: load(5000, cpu(100, 100, 50)), rate100: load(100, cpu(1, 1, 1)), rate1000: load(1000, cpu(1, 1, 1)) },
    quotes: { closed: load(3000, requoteCpu), rate1000: { ...load(1000, requoteCpu), failed: 0 } },
    accept: { sequential: { ...load(100, acceptCpu), concurrency: 1 }, concurrent: { ...load(1000, acceptCpu), concurrency: 10 } },
  } as unknown as BenchResults;
}

test('a throughput row says whether its target is within reach of its CPU ceiling', () => {
  // Re-quote at 500 us: 4,000/s at most = 0.8x < 1.0x. Accept at 600 us: 3,333/s = 0.67x >= 0.5x.
  const rows = gateRows(results(cpu(200, 250, 50), cpu(250, 300, 50)), new Set(['quotes', 'accept']));
  const requote = rows.find((r) => r.figure.startsWith('re-quote, closed'))!;
  const accept = rows.find((r) => r.figure.startsWith('accept throughput'))!;
  assert.equal(requote.ceiling!.maxPerSec, 4000);
  assert.equal(rows.filter((r) => r.ceiling !== null).length, 2, 'only the throughput rows carry a ceiling');
  const text = printGate(rows);
  const line = (figure: string) => text.split('\n').find((l) => l.startsWith(`  ${figure}`))!;
  assert.match(line(requote.figure), /500 us\/request -> at most 4,000\/s on 2 cores = 0\.80x of the floor \(out of reach at this CPU: 1\.0x needs <= 400 us per request; the floor itself 250 us\)/);
  assert.match(line(accept.figure), /600 us\/request -> at most 3,333\/s on 2 cores = 0\.67x of the floor \(within reach; the floor itself 250 us\)/);
});
