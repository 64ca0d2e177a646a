// Live RFQs and their quotes, newest first: every account's, makers named, filtered by status,
// instrument and taker; refreshed every second so a status change shows without a reload.
import { call } from './api.js';
import { amount, badge, field, h, short, time } from './dom.js';
import { pageFrame, select } from './page.js';

const STATUSES = ['', 'PENDING', 'QUOTED', 'SETTLED', 'FAILED', 'CANCELLED'];

function quotesTable(rfq) {
  if (rfq.quotes.length === 0) return h('p', { className: 'muted quotes-none' }, 'No quotes yet.');
  return h(
    'table',
    { className: 'quotes' },
    h('caption', {}, `Quotes on ${rfq.id}`),
    h('thead', {}, h('tr', {}, ['Received', 'Quote', 'Maker', 'Mode', 'Maker pays', 'Maker receives', 'Taker total', 'Status'].map((l) => h('th', { scope: 'col' }, l)))),
    h(
      'tbody',
      {},
      rfq.quotes.map((q) =>
        h(
          'tr',
          { dataset: { quote: q.quoteId }, className: q.quoteId === rfq.selectedQuoteId || (rfq.fills ?? []).some((f) => f.quoteId === q.quoteId) ? 'selected' : undefined },
          h('td', {}, time(q.receivedAt)),
          h('td', {}, short(q.quoteId), q.version > 1 ? h('span', { className: 'muted' }, ` v${q.version}`) : null),
          h('td', {}, h('code', { className: 'address' }, q.makerAddress)),
          h('td', {}, q.settlementMode),
          h('td', { className: 'num' }, amount(q.makerPays.amount, q.makerPays.token)),
          h('td', { className: 'num' }, amount(q.makerReceives.amount, q.makerReceives.token)),
          h('td', { className: 'num' }, amount(q.takerTotal)),
          h('td', {}, badge(q.status)),
        ),
      ),
    ),
  );
}

// A SWEEP RFQ's legs: one per selected quote, in rank order, each settling or failing on its own.
function legsTable(rfq) {
  const [base, quote] = rfq.instrumentId.split('-');
  return h(
    'table',
    { className: 'legs' },
    h('caption', {}, `Legs of ${rfq.id} (sweep, at least ${rfq.minFillQty} ${base})`),
    h('thead', {}, h('tr', {}, ['Leg', 'Quote', 'Base', 'Quote amount', 'Status', 'Transaction'].map((l) => h('th', { scope: 'col' }, l)))),
    h(
      'tbody',
      {},
      rfq.fills.map((f, i) =>
        h(
          'tr',
          { dataset: { leg: f.quoteId } },
          h('td', {}, String(i + 1)),
          h('td', {}, short(f.quoteId)),
          h('td', { className: 'num' }, amount(f.baseQty, base)),
          h('td', { className: 'num' }, amount(f.quoteQty, quote)),
          h('td', {}, badge(f.status)),
          h('td', {}, f.txHash ? short(f.txHash) : h('span', { className: 'muted' }, '—')),
        ),
      ),
    ),
  );
}

function rfqRows(rfq) {
  const failure = rfq.failureCode ? h('div', { className: 'failure' }, `${rfq.failureCode}: ${rfq.failureReason ?? ''}`) : null;
  return [
    h(
      'tr',
      { className: 'rfq', dataset: { rfq: rfq.id, status: rfq.status } },
      h('td', {}, time(rfq.createdAt)),
      h('td', {}, short(rfq.id)),
      h('td', {}, h('code', { className: 'address' }, rfq.takerAddress)),
      h('td', {}, rfq.instrumentId),
      h('td', {}, rfq.side, rfq.fill === 'SWEEP' ? h('div', { className: 'muted' }, 'sweep') : null),
      h('td', { className: 'num' }, amount(rfq.baseQty)),
      h('td', { className: 'num' }, rfq.quoteLimit ? amount(rfq.quoteLimit) : h('span', { className: 'muted' }, '—')),
      h('td', {}, time(rfq.auctionEndsAt)),
      h('td', { className: 'status-cell' }, badge(rfq.status), failure, rfq.txHash ? h('div', {}, 'tx ', short(rfq.txHash)) : null),
    ),
    ...(rfq.fills ? [h('tr', { className: 'legs-row' }, h('td', { colspan: 9 }, legsTable(rfq)))] : []),
    h('tr', { className: 'quotes-row' }, h('td', { colspan: 9 }, quotesTable(rfq))),
  ];
}

export const rfqsPage = {
  path: 'rfqs',
  title: 'RFQs',
  pollMs: 1000,
  mount(main) {
    const frame = pageFrame(main, 'RFQs and quotes', 'Every account’s requests for quote, newest first, with every quote and its maker. Updates every second.');
    const filters = { status: '', instrumentId: '', account: '' };
    const cursors = []; // stack of cursors of the pages before the one shown
    let cursor;
    const statusSelect = select(STATUSES.map((s) => [s, s || 'any']), '', { name: 'status' });
    const instrumentSelect = select([['', 'any']], '', { name: 'instrumentId' });
    const accountInput = h('input', { name: 'account', type: 'text', pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x…', size: 44 });
    const form = h(
      'form',
      { className: 'filters', 'aria-label': 'Filter RFQs' },
      field('Status', statusSelect),
      field('Instrument', instrumentSelect),
      field('Taker address', accountInput),
      h('button', { type: 'submit' }, 'Apply'),
    );
    const apply = () => {
      filters.status = statusSelect.value;
      filters.instrumentId = instrumentSelect.value;
      filters.account = accountInput.value.trim();
      cursors.length = 0;
      cursor = undefined;
      frame.invalidate();
      void refresh().catch((error) => frame.failed(error));
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (form.reportValidity()) apply();
    });
    statusSelect.addEventListener('change', apply);
    instrumentSelect.addEventListener('change', apply);
    frame.top.append(form);

    let instrumentsLoaded = false;
    async function refresh() {
      if (!instrumentsLoaded) {
        const { instruments } = await call('GET', '/instruments');
        instrumentSelect.append(...instruments.map((i) => h('option', { value: i.instrumentId }, i.instrumentId)));
        instrumentsLoaded = true;
      }
      const page = await call('GET', '/rfqs', { params: { ...filters, cursor, limit: 25 } });
      frame.render(page, (p) => {
        const older = h('button', { type: 'button', disabled: !p.hasMore, dataset: { focus: 'older' }, onclick: () => { cursors.push(cursor); cursor = p.nextCursor; frame.invalidate(); void refresh().catch(frame.failed); } }, 'Older');
        const newer = h('button', { type: 'button', disabled: cursors.length === 0, dataset: { focus: 'newer' }, onclick: () => { cursor = cursors.pop(); frame.invalidate(); void refresh().catch(frame.failed); } }, 'Newer');
        return [
          h(
            'table',
            { className: 'rfqs' },
            h('caption', {}, `${p.items.length} RFQ${p.items.length === 1 ? '' : 's'}${cursors.length ? ' (older page)' : ''}`),
            h('thead', {}, h('tr', {}, ['Created', 'RFQ', 'Taker', 'Instrument', 'Side', 'Base qty', 'Quote limit', 'Auction ends', 'Status'].map((l) => h('th', { scope: 'col' }, l)))),
            h('tbody', {}, p.items.length === 0 ? h('tr', {}, h('td', { colspan: 9, className: 'muted' }, 'No RFQs match.')) : p.items.flatMap(rfqRows)),
          ),
          h('div', { className: 'pager' }, newer, older),
        ];
      });
    }
    return { refresh, failed: frame.failed };
  },
};
