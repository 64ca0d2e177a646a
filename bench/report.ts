/** The compact text report: every figure, the baseline figure it is compared with, the ratio. */
import type { BenchResults } from './run.ts';
import type { LoadResult } from './lib/http-load.ts';
import type { Resources } from './lib/resources.ts';
import type { LatencySummary } from './lib/stats.ts';

interface Row {
  figure: string;
  value: number;
  unit: string;
  bareLabel: string;
  bare: number | null;
  target?: { text: string; ok: boolean } | undefined;
}

const fmt = (v: number, unit: string) => (!Number.isFinite(v) ? '-' : unit === '/s' ? `${Math.round(v)}/s` : `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ms`);

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

function table(rows: Row[]): string {
  const lines = [
    `${pad('figure', 46)} ${pad('value', 10, true)}  ${pad('bare insert route', 30)} ${pad('ratio', 7, true)}  target`,
    '-'.repeat(118),
  ];
  for (const r of rows) {
    const x = r.bare === null || !r.bare ? NaN : r.value / r.bare;
    const ratio = !Number.isFinite(x) ? '-' : `${x.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2)}x`;
    const bare = r.bare === null ? '-' : `${r.bareLabel} ${fmt(r.bare, r.unit)}`;
    const target = r.target ? `${r.target.text} ${r.target.ok ? 'PASS' : 'MISS'}` : '';
    lines.push(`${pad(r.figure, 46)} ${pad(fmt(r.value, r.unit), 10, true)}  ${pad(bare, 30)} ${pad(ratio, 7, true)}  ${target}`);
  }
  return lines.join('\n');
}

function errorsText(errors: Record<string, number>): string {
  const entries = Object.entries(errors);
  return entries.length === 0 ? '0' : entries.map(([k, v]) => `${k} x${v}`).join(', ');
}

function resourceLine(name: string, requests: number, r: Resources | undefined): string {
  if (!r) return '';
  const p = r.probe;
  const probe = p
    ? ` | stmts/req ${p.statementsPerReq}, pool checkouts/req ${p.poolHoldMs.perReq}, pool wait p99 ${p.poolWaitMs.p99} ms, hold p50/p99 ${p.poolHoldMs.p50}/${p.poolHoldMs.p99} ms, loop delay p99 ${p.eventLoopDelayMs.p99} ms, pg backends ${r.backends.start}->${r.backends.end} (+${r.backends.new})${p.timers && p.timers.fired > 0 ? `, timers >=200ms fired ${p.timers.fired}, early ${p.timers.early} (max ${p.timers.earlyMaxMs} ms)` : ''}${p.gc ? `, GC scavenges ${p.gc.minor.count} (${p.gc.minor.totalMs} ms, max ${p.gc.minor.maxMs}), other ${p.gc.major.count} (${p.gc.major.totalMs} ms, max ${p.gc.major.maxMs})` : ''}`
    : '';
  return `${pad(name, 26)} n=${pad(String(requests), 6)} load ${r.loadAverageStart.split(' ')[0]}->${r.loadAverageEnd.split(' ')[0]} machine ${pad(`${r.machineBusyPct}%`, 6)} service ${pad(`${r.serviceCpuUsPerReq}us`, 7)} pg ${pad(`${r.postgresCpuUsPerReq}us`, 7)} gen ${pad(`${r.generatorCpuUsPerReq}us`, 6)}${r.rollbacks ? ` rollbacks ${r.rollbacks}` : ''}${probe}`;
}

export function printReport(results: BenchResults): string {
  const out: string[] = [];
  const b = results.baseline;
  const q = results.quotes;
  const a = results.accept;
  const c = results.close100;
  const u = results.burst;
  out.push('');
  out.push(`rfq-service benchmark  ${results.startedAt}  ${results.quick ? '(quick) ' : ''}${results.durationSecs} s per load step`);
  out.push(`machine: ${results.machine.cpus} x ${results.machine.cpuModel}, node ${results.machine.node}, PostgreSQL ${results.machine.postgres}`);
  out.push(`load average (1/5/15 min): start ${results.machine.loadAverageStart}, end ${results.machine.loadAverageEnd ?? '?'}`);
  out.push(`config: ${JSON.stringify(results.config)}`);
  out.push('');
  const rows: Row[] = [];
  const bareClosed = b?.closed;
  const b100 = b?.rate100;
  const b1000 = b?.rate1000;
  const lat = (l: LatencySummary | undefined, k: 'p50' | 'p99' | 'max') => (l ? l[k] : null);
  if (b) {
    rows.push({ figure: `bare insert: closed loop ${b.closed.connections} conn, throughput`, value: b.closed.throughput, unit: '/s', bareLabel: '', bare: null });
    rows.push({ figure: 'bare insert: closed loop p50', value: b.closed.latency.p50, unit: 'ms', bareLabel: '', bare: null });
    rows.push({ figure: 'bare insert: closed loop p99', value: b.closed.latency.p99, unit: 'ms', bareLabel: '', bare: null });
    for (const [name, r] of [['100/s', b.rate100], ['1000/s', b.rate1000], ...(b.extraRates ?? []).map((x) => [`${x.offeredRate}/s`, x] as const)] as const) {
      rows.push({ figure: `bare insert: open loop ${name}, achieved`, value: r.throughput, unit: '/s', bareLabel: '', bare: null });
      rows.push({ figure: `bare insert: open loop ${name}, p50`, value: r.latency.p50, unit: 'ms', bareLabel: '', bare: null });
      rows.push({ figure: `bare insert: open loop ${name}, p99`, value: r.latency.p99, unit: 'ms', bareLabel: '', bare: null });
    }
  }
  if (q) {
    rows.push({ figure: `quote, first on each pair: closed ${q.firstQuotes.connections} conn`, value: q.firstQuotes.throughput, unit: '/s', bareLabel: 'closed', bare: bareClosed?.throughput ?? null });
    const ratio = bareClosed ? q.closed.throughput / bareClosed.throughput : NaN;
    rows.push({
      figure: `re-quote: closed ${q.closed.connections} conn, sustained`,
      value: q.closed.throughput,
      unit: '/s',
      bareLabel: 'closed',
      bare: bareClosed?.throughput ?? null,
      target: { text: '>= 0.70x bare', ok: ratio >= 0.7 },
    });
    rows.push({ figure: 're-quote: closed loop p50', value: q.closed.latency.p50, unit: 'ms', bareLabel: 'closed p50', bare: lat(bareClosed?.latency, 'p50') });
    rows.push({ figure: 're-quote: closed loop p99', value: q.closed.latency.p99, unit: 'ms', bareLabel: 'closed p99', bare: lat(bareClosed?.latency, 'p99') });
    const extra = (q.extraRates ?? []).map((x) => [`${x.offeredRate}/s`, x, b?.extraRates?.find((y) => y.offeredRate === x.offeredRate), null] as const);
    for (const [name, r, bare, target] of [['100/s', q.rate100, b100, null], ['1000/s', q.rate1000, b1000, 20], ...extra] as const) {
      if (!r) continue;
      rows.push({ figure: `re-quote: open loop ${name}, achieved`, value: r.throughput, unit: '/s', bareLabel: `${name}`, bare: bare?.throughput ?? null });
      rows.push({ figure: `re-quote: open loop ${name}, p50`, value: r.latency.p50, unit: 'ms', bareLabel: `${name} p50`, bare: lat(bare?.latency, 'p50') });
      rows.push({
        figure: `re-quote: open loop ${name}, p99`,
        value: r.latency.p99,
        unit: 'ms',
        bareLabel: `${name} p99`,
        bare: lat(bare?.latency, 'p99'),
        target: target === null ? undefined : { text: `<= ${target} ms`, ok: r.latency.p99 <= target && r.failed === 0 },
      });
    }
  }
  if (results.hotTaker) {
    rows.push({ figure: 're-quote, 20 RFQs of ONE taker: closed', value: results.hotTaker.closed.throughput, unit: '/s', bareLabel: 'closed', bare: bareClosed?.throughput ?? null });
    rows.push({ figure: 're-quote, ONE taker: closed p99', value: results.hotTaker.closed.latency.p99, unit: 'ms', bareLabel: 'closed p99', bare: lat(bareClosed?.latency, 'p99') });
  }
  if (a) {
    for (const [name, run, bare] of [['sequential', a.sequential, b100], [`${a.concurrent.concurrency} at once`, a.concurrent, bareClosed]] as const) {
      const bl = name === 'sequential' ? '100/s' : 'closed';
      rows.push({ figure: `accept ${name}: p50`, value: run.latency.p50, unit: 'ms', bareLabel: `${bl} p50`, bare: lat(bare?.latency, 'p50') });
      rows.push({ figure: `accept ${name}: p99`, value: run.latency.p99, unit: 'ms', bareLabel: `${bl} p99`, bare: lat(bare?.latency, 'p99'), target: { text: '<= 25 ms', ok: run.latency.p99 <= 25 && Object.keys(run.errors).length === 0 } });
      rows.push({ figure: `accept ${name}: throughput`, value: run.throughput, unit: '/s', bareLabel: bl, bare: name === 'sequential' ? null : bareClosed?.throughput ?? null });
    }
  }
  for (const [close, bare, target, bl] of [[c, b100, 25, '100/s'], [u, b1000, 100, '1000/s']] as const) {
    if (!close) continue;
    const name = close.label;
    rows.push({ figure: `${name}: lateness observed p50`, value: close.observed.p50, unit: 'ms', bareLabel: `${bl} p50`, bare: lat(bare?.latency, 'p50') });
    rows.push({
      figure: `${name}: lateness observed p99`,
      value: close.observed.p99,
      unit: 'ms',
      bareLabel: `${bl} p99`,
      bare: lat(bare?.latency, 'p99'),
      target: { text: `<= ${target} ms`, ok: close.observed.p99 <= target && close.notSeen === 0 },
    });
    rows.push({ figure: `${name}: lateness observed max`, value: close.observed.max, unit: 'ms', bareLabel: `${bl} max`, bare: lat(bare?.latency, 'max') });
    rows.push({ figure: `${name}: lateness recorded (quotedAt) p50`, value: close.recorded.p50, unit: 'ms', bareLabel: `${bl} p50`, bare: lat(bare?.latency, 'p50') });
    rows.push({
      figure: `${name}: lateness recorded (quotedAt) p99`,
      value: close.recorded.p99,
      unit: 'ms',
      bareLabel: `${bl} p99`,
      bare: lat(bare?.latency, 'p99'),
      target: { text: `(<= ${target} ms on quotedAt)`, ok: close.recorded.p99 <= target },
    });
    rows.push({ figure: `${name}: lateness recorded max`, value: close.recorded.max, unit: 'ms', bareLabel: `${bl} max`, bare: lat(bare?.latency, 'max') });
  }
  out.push(table(rows));
  out.push('');
  out.push('errors / outcomes:');
  const loadErrors = (name: string, r: LoadResult | null | undefined) => {
    if (r) out.push(`  ${pad(name, 28)} sent ${r.sent}, ok ${r.ok}, failed ${r.failed}: ${errorsText(r.errors)}${r.maxInFlight !== null ? `, max in flight ${r.maxInFlight}` : ''}`);
  };
  loadErrors('bare closed', b?.closed);
  loadErrors('bare 100/s', b?.rate100);
  loadErrors('bare 1000/s', b?.rate1000);
  loadErrors('quote first', q?.firstQuotes);
  loadErrors('re-quote closed', q?.closed);
  loadErrors('re-quote 100/s', q?.rate100);
  loadErrors('re-quote 1000/s', q?.rate1000);
  for (const x of q?.extraRates ?? []) loadErrors(`re-quote ${x.offeredRate}/s`, x);
  loadErrors('hot taker closed', results.hotTaker?.closed);
  if (a) {
    out.push(`  ${pad('accept sequential', 28)} ${a.sequential.count}: ${errorsText(a.sequential.errors)}`);
    out.push(`  ${pad('accept concurrent', 28)} ${a.concurrent.count}: ${errorsText(a.concurrent.errors)}`);
  }
  for (const close of [c, u]) {
    if (!close) continue;
    out.push(`  ${pad(close.label, 28)} ${close.count} RFQs, outcomes ${JSON.stringify(close.outcomes)}, not seen ${close.notSeen}, setup overran ${close.setupOverranMs} ms, setup errors ${errorsText(close.setupErrors)}, commit lag (observed - quotedAt) p50/p99/max ${close.commitLag.p50}/${close.commitLag.p99}/${close.commitLag.max} ms`);
    const hist = (h: Record<string, number>) => Object.entries(h).filter(([, n]) => n > 0).map(([k, n]) => `${k}:${n}`).join(' ');
    out.push(`  ${pad('', 28)} recorded ms ${hist(close.recordedBuckets)}`);
    out.push(`  ${pad('', 28)} observed ms ${hist(close.observedBuckets)}`);
  }
  out.push('');
  out.push('where the time goes (CPU per completed request; machine % is of both cores, includes other users):');
  const res = (name: string, n: number, r: Resources | undefined) => {
    const line = resourceLine(name, n, r);
    if (line) out.push(`  ${line}`);
  };
  res('bare closed', b?.closed.ok ?? 0, b?.closed.resources);
  res('bare 1000/s', b?.rate1000.ok ?? 0, b?.rate1000.resources);
  res('quote first (insert)', q?.firstQuotes.ok ?? 0, q?.firstQuotes.resources);
  res('re-quote closed', q?.closed.ok ?? 0, q?.closed.resources);
  res('re-quote 100/s', q?.rate100?.ok ?? 0, q?.rate100?.resources);
  res('re-quote 1000/s', q?.rate1000?.ok ?? 0, q?.rate1000?.resources);
  for (const x of q?.extraRates ?? []) res(`re-quote ${x.offeredRate}/s`, x.ok, x.resources);
  res('hot taker closed', results.hotTaker?.closed.ok ?? 0, results.hotTaker?.closed.resources);
  res('accept sequential', a?.sequential.count ?? 0, a?.sequential.resources);
  res('accept concurrent', a?.concurrent.count ?? 0, a?.concurrent.resources);
  res('close 100/s (per close)', c?.count ?? 0, c?.resources);
  res('burst (per close)', u?.count ?? 0, u?.resources);
  if (results.db) {
    out.push('');
    out.push('database ceiling: the same SQL from pgbench (no Node), transactions/s (bare = 1.00):');
    const bareTps = results.db.find((v) => v.name === 'bare insert')?.tps ?? NaN;
    for (const v of results.db) {
      const perStatement = v.statements.map((s) => `${s.sql.split(' ').slice(0, 2).join(' ')} ${s.ms}`).join(', ');
      out.push(`  ${pad(v.name, 32)} ${pad(`${Math.round(v.tps)}/s`, 8, true)} ${pad(`${(v.tps / bareTps).toFixed(2)}`, 5, true)}  mean ms per statement: ${perStatement}`);
    }
  }
  if (results.whatIf) {
    out.push('');
    out.push(`what-if: the quote SQL behind a bare route (no auth/validation/kysely), closed loop; vs bare insert closed ${bareClosed ? Math.round(bareClosed.throughput) : '-'}/s:`);
    for (const w of results.whatIf) {
      const ratio = bareClosed ? `${(w.throughput / bareClosed.throughput).toFixed(2)}x` : '-';
      out.push(`  ${pad(w.name, 40)} ${pad(`${Math.round(w.throughput)}/s`, 8, true)} ${pad(ratio, 6, true)}  p50 ${w.latency.p50} ms p99 ${w.latency.p99} ms  server ${w.resources.serviceCpuUsPerReq}us pg ${w.resources.postgresCpuUsPerReq}us per req  errors ${errorsText(w.errors)}`);
    }
  }
  // Statements by kind per request: a use case's own statements count about 1 (or a whole
  // number) per request; fractions are background work (sweeps, dispatcher) in the same interval.
  for (const [name, resources] of [
    ['re-quote closed loop, statements per request', q?.closed.resources],
    ['accept, 10 at once, statements per accept', a?.concurrent.resources],
    ['close 100/s, statements per close', c?.resources],
    ['burst, statements per close', u?.resources],
  ] as const) {
    const probe = resources?.probe;
    if (!probe) continue;
    out.push('');
    out.push(`${name} (service side, client-observed mean ms; all statements ${probe.statementsPerReq}):`);
    for (const s of probe.topStatements) out.push(`  ${pad(s.perReq.toFixed(3), 7, true)}  ${pad(s.meanMs.toFixed(2), 6, true)} ms  ${s.sql}`);
  }
  if (results.service && results.service.stderrLines > 0) {
    out.push('');
    out.push(`service stderr: ${results.service.stderrLines} line(s), last: ${results.service.stderrTail.at(-1) ?? ''}`);
  }
  if (results.failures.length > 0) {
    out.push('');
    out.push(`FAILURES:\n${results.failures.join('\n')}`);
  }
  return `${out.join('\n')}\n`;
}
