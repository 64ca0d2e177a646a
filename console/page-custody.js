// Custody transfers: every transaction custody signs (withdrawals, payouts, xchange executions,
// approvals) with each signed attempt (original, fee replacements, cancel), so an operator can
// see why a withdrawal is UNRESOLVED before resolving it, and cancel a stuck one.
import { call } from './api.js';
import { amount, badge, h, short, time } from './dom.js';
import { filteredList, pageFrame } from './page.js';
import { act, confirmDialog } from './ui.js';

const STATUSES = ['', 'QUEUED', 'SIGNED', 'SENT', 'CONFIRMED', 'REVERTED', 'CANCELLED', 'UNRESOLVED'];
const PURPOSES = ['', 'withdrawal', 'payout', 'xchange', 'approval'];

function attempts(t) {
  if (t.attempts.length === 0) return h('span', { className: 'muted' }, 'not signed yet');
  return h('ol', { className: 'attempts' }, t.attempts.map((a) => h('li', {}, `${a.kind} `, short(a.txHash), ' ', time(a.signedAt))));
}

export const custodyPage = {
  path: 'custody',
  title: 'Custody transfers',
  pollMs: 3000,
  mount(main) {
    const frame = pageFrame(main, 'Custody transfers', 'Transactions custody signs, with every signed attempt. A SIGNED or SENT one that is stuck can be cancelled (a zero-value replacement at its nonce); an UNRESOLVED withdrawal is then resolved on the Withdrawals page.');
    const cancel = async (t, button) => {
      const ok = await confirmDialog({ title: 'Cancel custody transaction', message: `Replace ${t.transferId} (nonce ${t.nonce}) with a zero-value transaction? If the original is mined first, the cancel fails and the transfer stands.`, confirmLabel: 'Cancel transaction', danger: true });
      if (!ok) return;
      await act(frame.messages, button, () => call('POST', `/custody/transfers/${t.transferId}/cancel`, { body: {} }), (r) => `Custody transfer ${r.transferId}: cancel signed (${r.status}).`);
      frame.invalidate();
      await refresh().catch(frame.failed);
    };

    const refresh = filteredList(frame, {
      path: '/custody/transfers',
      limit: 100,
      noun: 'transfer',
      filters: [{ label: 'Status', name: 'status', options: STATUSES }, { label: 'Purpose', name: 'purpose', options: PURPOSES }],
      className: 'custody',
      headers: ['Created', 'Purpose', 'For', 'To', 'Amount', 'Status', 'Nonce', 'Attempts', 'Last error', 'Actions'],
      empty: 'No custody transfers.',
      row: (t) =>
        h(
          'tr',
          { dataset: { transfer: t.transferId, owner: t.ownerId, status: t.status } },
          h('td', {}, time(t.createdAt)),
          h('td', {}, t.purpose),
          h('td', {}, short(t.ownerId)),
          h('td', {}, h('code', { className: 'address' }, t.toAddress)),
          h('td', { className: 'num' }, amount(t.amount, t.token)),
          h('td', {}, badge(t.status), t.escalatedAt ? h('span', { className: 'muted' }, ' escalated ', time(t.escalatedAt)) : null),
          h('td', { className: 'num' }, t.nonce ?? '—'),
          h('td', {}, attempts(t)),
          h('td', {}, t.lastError ?? ''),
          h(
            'td',
            { className: 'actions' },
            t.status === 'SIGNED' || t.status === 'SENT'
              ? h('button', { type: 'button', className: 'danger', dataset: { focus: `cancel-${t.transferId}` }, 'aria-label': `Cancel ${t.transferId}`, onclick: (e) => cancel(t, e.currentTarget) }, 'Cancel')
              : null,
          ),
        ),
    });
    return { refresh, failed: frame.failed };
  },
};
