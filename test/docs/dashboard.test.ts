/**
 * The Grafana dashboard in docs/grafana/ names only metrics that a node's `/metrics` declares: a
 * node with a venue (its request budget's metrics included), every query of every panel.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startV0Stack, type V0Stack } from '../helpers/v0.ts';
import { metricNames } from '../helpers/metrics.ts';

const DASHBOARD = 'docs/grafana/rfq-service-dashboard.json';
const METRIC = /\b(?:rfq|nodejs|process)_[a-z0-9_]+\b/g;

interface Panel { title: string; targets?: Array<{ expr: string }> }

describe('the Grafana dashboard', () => {
  let stack: V0Stack;
  before(async () => {
    stack = await startV0Stack('pglite');
  });
  after(async () => stack?.close());

  it('queries only metrics that /metrics declares', async () => {
    const names = await metricNames(stack.harness.url);
    const panels = (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] }).panels;
    assert.ok(panels.length >= 10);
    const used = new Set<string>();
    for (const panel of panels) {
      assert.ok(panel.targets && panel.targets.length > 0, `${panel.title}: no query`);
      for (const { expr } of panel.targets) {
        const metrics = expr.match(METRIC) ?? [];
        assert.ok(metrics.length > 0, `${panel.title}: ${expr} names no metric of this service`);
        for (const metric of metrics) {
          assert.ok(names.has(metric), `${panel.title}: ${metric} is not on /metrics`);
          used.add(metric);
        }
      }
    }
    for (const business of ['rfq_rfqs_final_total', 'rfq_quotes_total', 'rfq_selections_total', 'rfq_fills_total', 'rfq_settlement_seconds_bucket', 'rfq_maker_response_seconds_bucket', 'rfq_maker_failures_total', 'rfq_venue_weight_last_minute', 'rfq_outbox_lag_seconds']) {
      assert.ok(used.has(business), `the dashboard shows ${business}`);
    }
  });
});
