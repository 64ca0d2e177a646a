// Deposits: every custody inflow, attributed to an account or not.
import { call } from './api.js';
import { amount, badge, field, h, short, time } from './dom.js';
import { pageFrame, select } from './page.js';

export const depositsPage = {
  path: 'deposits',
  title: 'Deposits',
  pollMs: 3000,
  mount(main) {
    const frame = pageFrame(main, 'Deposits', 'Token transfers to custody: PENDING at the chain head, COMPLETED and credited once final. An unattributed deposit came from an address with no account; nobody was credited.');
    let view = 'all';
    const viewSelect = select([['all', 'all deposits'], ['unattributed', 'unattributed only']], view, { name: 'view' });
    viewSelect.addEventListener('change', () => {
      view = viewSelect.value;
      frame.invalidate();
      void refresh().catch(frame.failed);
    });
    frame.top.append(h('form', { className: 'filters', 'aria-label': 'Filter deposits', onsubmit: (e) => e.preventDefault() }, field('Show', viewSelect)));

    async function refresh() {
      const page = await call('GET', view === 'all' ? '/deposits' : '/deposits/unattributed', { params: { limit: 100 } });
      frame.render(page, (p) =>
        h(
          'table',
          { className: 'deposits' },
          h('caption', {}, `${p.items.length} deposit(s)${p.hasMore ? ' (newest 100)' : ''}`),
          h('thead', {}, h('tr', {}, ['Seen', 'Deposit', 'Account', 'From', 'Amount', 'Status', 'Transaction', 'Block'].map((l) => h('th', { scope: 'col' }, l)))),
          h(
            'tbody',
            {},
            p.items.length === 0 ? h('tr', {}, h('td', { colspan: 8, className: 'muted' }, 'No deposits.')) : p.items.map((d) =>
              h(
                'tr',
                { dataset: { deposit: d.depositId } },
                h('td', {}, time(d.createdAt)),
                h('td', {}, short(d.depositId)),
                h('td', {}, d.accountAddress ? h('code', { className: 'address' }, d.accountAddress) : h('span', { className: 'badge status-unattributed' }, 'UNATTRIBUTED')),
                h('td', {}, h('code', { className: 'address' }, d.fromAddress)),
                h('td', { className: 'num' }, amount(d.amount, d.token)),
                h('td', {}, badge(d.status)),
                h('td', {}, short(d.txHash)),
                h('td', { className: 'num' }, String(d.blockNumber)),
              ),
            ),
          ),
        ),
      );
    }
    return { refresh, failed: frame.failed };
  },
};
