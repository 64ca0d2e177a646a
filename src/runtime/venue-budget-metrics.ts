/**
 * `/metrics` for the venue weight budget: weight spent and refused by priority (counters of this
 * node), the 429s it read, and the cluster's weight over the last minute against the budget.
 */
import { Gauge, type Registry } from 'prom-client';
import { PRIORITY_NAMES, VENUE_PRIORITIES } from '../domain/venue/request-weight.ts';
import type { VenueBudget } from '../venue/venue-budget.ts';

export function registerVenueBudgetMetrics(registry: Registry, budget: VenueBudget): void {
  const byPriority = (name: string, help: string, read: (stats: ReturnType<VenueBudget['stats']>) => Record<1 | 2 | 3 | 4, number>) =>
    new Gauge({
      name,
      help,
      labelNames: ['priority'],
      registers: [registry],
      collect() {
        const values = read(budget.stats());
        for (const priority of VENUE_PRIORITIES) this.set({ priority: PRIORITY_NAMES[priority] }, values[priority]);
      },
    });
  // Gauges holding running totals: prom-client counters cannot be set from a snapshot.
  byPriority('rfq_venue_weight_spent_total', 'Venue request weight this node spent, by priority (send, execution, quote, background)', (s) => s.spent);
  byPriority('rfq_venue_weight_refused_total', 'Venue request weight this node refused before sending, by priority, for want of budget', (s) => s.refused);
  new Gauge({
    name: 'rfq_venue_too_many_requests_total',
    help: 'HTTP 429 replies this node read from the venue',
    registers: [registry],
    collect() {
      this.set(budget.stats().tooManyRequests);
    },
  });
  new Gauge({
    name: 'rfq_venue_weight_last_minute',
    help: 'Venue request weight the nodes spent over the last minute, as this node sees it',
    registers: [registry],
    collect() {
      this.set(budget.stats().usedLastMinute);
    },
  });
  new Gauge({
    name: 'rfq_venue_weight_per_min',
    help: 'The venue request weight budget per minute (RFQ_VENUE_WEIGHT_PER_MIN)',
    registers: [registry],
    collect() {
      this.set(budget.weightPerMin);
    },
  });
}
