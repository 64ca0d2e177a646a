// Settlement anomalies: on-chain settlements the ledger could not apply normally, and chain logs
// the follower quarantined (kind HANDLER_FAILED). An open one can be marked handled; a quarantined
// log can be replayed through its handler once its cause is fixed (perp executions have their own
// page, page-perp.js).
import { call } from './api.js';
import { h, short, time } from './dom.js';
import { pageFrame } from './page.js';
import { act, confirmDialog } from './ui.js';

export const anomaliesPage = {
  path: 'anomalies',
  title: 'Settlement anomalies',
  pollMs: 5000,
  mount(main) {
    const frame = pageFrame(main, 'Settlement anomalies', 'Settlement events seen on-chain that the ledger did not apply normally (late, unknown quote, wrong legs…) and chain logs quarantined because their handler kept failing. Each needs an operator’s look: mark it handled once dealt with by hand, or replay a quarantined log once its cause is fixed.');
    const key = (a) => `${a.txHash}-${a.logIndex}`;

    const replay = async (a, button) => {
      const ok = await confirmDialog({ title: 'Replay quarantined log', message: `Run the ${a.detail.handler} handler again on log ${a.logIndex} of ${a.txHash}? Do this once its cause is fixed; it applies at most once.`, confirmLabel: 'Replay' });
      if (!ok) return;
      await act(frame.messages, button, () => call('POST', '/settlement-anomalies/replay', { body: { txHash: a.txHash, logIndex: a.logIndex } }), (r) => `Log ${r.logIndex} of ${r.txHash}: ${r.resolution}.`);
      frame.invalidate();
      await refresh().catch(frame.failed);
    };
    const handled = async (a, button) => {
      const ok = await confirmDialog({ title: 'Mark anomaly handled', message: `Mark log ${a.logIndex} of ${a.txHash} handled? Its effect is not applied: do that by hand first (e.g. a balance adjustment).`, confirmLabel: 'Mark handled' });
      if (!ok) return;
      await act(frame.messages, button, () => call('POST', '/settlement-anomalies/resolve', { body: { txHash: a.txHash, logIndex: a.logIndex } }), (r) => `Log ${r.logIndex}: ${r.resolution}.`);
      frame.invalidate();
      await refresh().catch(frame.failed);
    };
    const actions = (a) => {
      if (a.resolvedAt !== null) return h('span', { className: 'muted' }, `${a.resolution} `, time(a.resolvedAt));
      const buttons = [h('button', { type: 'button', dataset: { focus: `handled-${key(a)}` }, 'aria-label': `Mark ${a.txHash} #${a.logIndex} handled`, onclick: (e) => handled(a, e.currentTarget) }, 'Mark handled')];
      if (a.kind === 'HANDLER_FAILED') buttons.unshift(h('button', { type: 'button', dataset: { focus: `replay-${key(a)}` }, 'aria-label': `Replay ${a.txHash} #${a.logIndex}`, onclick: (e) => replay(a, e.currentTarget) }, 'Replay'));
      return buttons;
    };

    async function refresh() {
      const { anomalies } = await call('GET', '/settlement-anomalies');
      frame.render(anomalies, (list) =>
        h(
          'table',
          { className: 'anomalies' },
          h('caption', {}, `${list.length} anomal${list.length === 1 ? 'y' : 'ies'}`),
          h('thead', {}, h('tr', {}, ['Seen', 'Kind', 'RFQ', 'Quote', 'Transaction', 'Detail', 'Resolved / actions'].map((l) => h('th', { scope: 'col' }, l)))),
          h(
            'tbody',
            {},
            list.length === 0 ? h('tr', {}, h('td', { colspan: 7, className: 'muted' }, 'No anomalies.')) : list.map((a) =>
              h(
                'tr',
                {},
                h('td', {}, time(a.createdAt)),
                h('td', {}, h('strong', {}, a.kind)),
                h('td', {}, short(a.rfqId)),
                h('td', {}, short(a.quoteId)),
                h('td', {}, short(a.txHash), h('span', { className: 'muted' }, ` #${a.logIndex}`)),
                h('td', {}, h('pre', { className: 'detail' }, JSON.stringify(a.detail, null, 1))),
                h('td', {}, actions(a)),
              ),
            ),
          ),
        ),
      );
    }
    return { refresh, failed: frame.failed };
  },
};
