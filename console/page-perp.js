// Perp executions: each perp accept as the executor drove it at the venue (phase, the quote in
// play and its backups, the RFQ's outcome), with every venue call and decision for audit.
import { badge, h, short, time } from './dom.js';
import { filteredList, pageFrame } from './page.js';

const PHASES = ['', 'checking', 'makerSending', 'takerSending', 'resolving', 'cleanup', 'refused', 'ignored', 'done'];

function calls(e) {
  return h(
    'details',
    {},
    h('summary', {}, `${e.calls.length} call(s)`),
    h('ol', { className: 'calls' }, e.calls.map((c) => h('li', {}, h('strong', {}, c.kind), c.quoteId ? [' ', short(c.quoteId)] : null, ' ', time(c.startedAt), c.error ? h('span', { className: 'error' }, ` ${c.error}`) : null, c.request || c.reply ? h('pre', { className: 'detail' }, JSON.stringify({ request: c.request, reply: c.reply }, null, 1)) : null))),
  );
}

export const perpPage = {
  path: 'perp',
  title: 'Perp executions',
  pollMs: 3000,
  mount(main) {
    const frame = pageFrame(main, 'Perp executions', 'Each accepted perp quote as executed at the venue: the maker order placed, the taker order sent once, backups promoted when a maker fails. Open ones are still being driven.');
    const refresh = filteredList(frame, {
      path: '/perp/executions',
      limit: 50,
      noun: 'execution',
      filters: [{ label: 'Phase', name: 'phase', options: PHASES }],
      className: 'perp',
      headers: ['Created', 'RFQ', 'Instrument', 'Taker', 'Phase', 'RFQ outcome', 'Accepted / in play', 'Backups', 'Taker order', 'Calls'],
      empty: 'No perp executions.',
      row: (e) =>
        h(
          'tr',
          { dataset: { execution: e.executionId, rfq: e.rfqId, phase: e.phase } },
          h('td', {}, time(e.createdAt)),
          h('td', {}, short(e.rfqId)),
          h('td', {}, e.instrumentId),
          h('td', {}, h('code', { className: 'address' }, e.takerAddress)),
          h('td', {}, badge(e.phase), e.open ? h('span', { className: 'muted' }, ' open') : null),
          h('td', {}, badge(e.rfqStatus), e.rfqFailureCode ? h('span', { className: 'muted' }, ` ${e.rfqFailureCode}`) : null),
          h('td', {}, short(e.quoteId), e.currentQuoteId !== e.quoteId ? [' → ', short(e.currentQuoteId)] : null),
          h('td', {}, e.cascade.length === 0 ? h('span', { className: 'muted' }, 'none') : e.cascade.map((q) => short(q))),
          h('td', {}, e.takerSentAt ? ['sent ', time(e.takerSentAt)] : h('span', { className: 'muted' }, 'not sent'), e.cloid ? [' ', short(e.cloid)] : null),
          h('td', {}, calls(e)),
        ),
    });
    return { refresh, failed: frame.failed };
  },
};
