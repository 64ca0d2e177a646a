/**
 * Reads a node's `/metrics` (Prometheus text) as samples: `name{label="value",...}` to its value,
 * labels in the order the exposition writes them.
 */
import { eventually, waitUntil } from './eventually.ts';

export async function metricSamples(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    samples.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return samples;
}

/**
 * Every series name `/metrics` declares (a histogram's `_bucket`, `_sum` and `_count`, a summary's
 * `_sum` and `_count`), from its `# TYPE` lines, so that a metric without samples yet counts.
 */
export async function metricNames(url: string): Promise<Set<string>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name! + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name! + suffix);
  }
  return names;
}

/** The sample's value once it equals `expected` (or the last value read when the time is up; undefined when absent). */
export async function metricReaches(url: string, sample: string, expected: number, timeoutMs = 15_000): Promise<number | undefined> {
  return eventually(async () => (await metricSamples(url)).get(sample), (value) => value === expected, timeoutMs, 250);
}

/**
 * Until the node's dispatcher has read past every outbox row written so far (`rfq_outbox_lag_rows`
 * is 0): a frame those rows hold for a session on this node has been handed to its socket. A
 * `ping` sent after that is answered after the frame (`TestSocket.quiet`).
 */
export async function outboxDispatched(url: string): Promise<void> {
  await waitUntil(async () => (await metricSamples(url)).get('rfq_outbox_lag_rows'), (lag) => lag === 0, "the node's dispatcher reads past every outbox row", { pollMs: 20 });
}
