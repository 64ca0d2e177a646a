// Settlement anomalies: on-chain settlements the ledger could not apply normally (perp
// executions have their own page, page-perp.js).
import { call } from './api.js';
import { h, short, time } from './dom.js';
import { pageFrame } from './page.js';

export const anomaliesPage = {
  path: 'anomalies',
  title: 'Settlement anomalies',
  pollMs: 5000,
  mount(main) {
    const frame = pageFrame(main, 'Settlement anomalies', 'Settlement events seen on-chain that the ledger did not apply normally (late, unknown quote, wrong legs…). Each needs an operator’s look.');
    async function refresh() {
      const { anomalies } = await call('GET', '/settlement-anomalies');
      frame.render(anomalies, (list) =>
        h(
          'table',
          { className: 'anomalies' },
          h('caption', {}, `${list.length} anomal${list.length === 1 ? 'y' : 'ies'}`),
          h('thead', {}, h('tr', {}, ['Seen', 'Kind', 'RFQ', 'Quote', 'Transaction', 'Detail'].map((l) => h('th', { scope: 'col' }, l)))),
          h(
            'tbody',
            {},
            list.length === 0 ? h('tr', {}, h('td', { colspan: 6, className: 'muted' }, 'No anomalies.')) : list.map((a) =>
              h(
                'tr',
                {},
                h('td', {}, time(a.createdAt)),
                h('td', {}, h('strong', {}, a.kind)),
                h('td', {}, short(a.rfqId)),
                h('td', {}, short(a.quoteId)),
                h('td', {}, short(a.txHash), h('span', { className: 'muted' }, ` #${a.logIndex}`)),
                h('td', {}, h('pre', { className: 'detail' }, JSON.stringify(a.detail, null, 1))),
              ),
            ),
          ),
        ),
      );
    }
    return { refresh, failed: frame.failed };
  },
};
