// Withdrawals: approve or reject a PENDING one, resolve an UNRESOLVED one; each after a confirmation.
import { call } from './api.js';
import { amount, badge, field, h, short, time } from './dom.js';
import { pageFrame, select } from './page.js';
import { act, confirmDialog } from './ui.js';

const STATUSES = ['', 'PENDING', 'APPROVED', 'PROCESSING', 'COMPLETED', 'FAILED', 'UNRESOLVED'];

export const withdrawalsPage = {
  path: 'withdrawals',
  title: 'Withdrawals',
  pollMs: 2000,
  mount(main) {
    const frame = pageFrame(main, 'Withdrawals', 'Approve hands a withdrawal to the custody broadcaster; reject ends it FAILED and releases the funds; an UNRESOLVED one is settled by hand after checking the chain.');
    let status = 'PENDING';
    const statusSelect = select(STATUSES.map((s) => [s, s || 'any']), status, { name: 'status' });
    statusSelect.addEventListener('change', () => {
      status = statusSelect.value;
      frame.invalidate();
      void refresh().catch(frame.failed);
    });
    frame.top.append(h('form', { className: 'filters', 'aria-label': 'Filter withdrawals', onsubmit: (e) => e.preventDefault() }, field('Status', statusSelect)));

    const decide = async (w, button, kind) => {
      if (kind === 'approve') {
        const ok = await confirmDialog({ title: 'Approve withdrawal', message: `Send ${w.amount} ${w.token} from custody to ${w.toAddress}? (${w.withdrawalId})`, confirmLabel: 'Approve' });
        if (!ok) return;
        await act(frame.messages, button, () => call('POST', `/withdrawals/${w.withdrawalId}/approve`, { body: {} }), (r) => `Withdrawal ${r.withdrawalId} approved: now ${r.status}.`);
      } else if (kind === 'reject') {
        const reason = h('input', { name: 'reason', maxlength: 500, required: true, autocomplete: 'off' });
        const values = await confirmDialog({ title: 'Reject withdrawal', message: `Reject ${w.amount} ${w.token} to ${w.toAddress}? The funds are released to the user.`, confirmLabel: 'Reject', danger: true, fields: [{ name: 'reason', label: 'Reason (shown to the user)', control: reason }] });
        if (!values) return;
        await act(frame.messages, button, () => call('POST', `/withdrawals/${w.withdrawalId}/reject`, { body: { reason: values.reason } }), (r) => `Withdrawal ${r.withdrawalId} rejected: ${r.status} (${r.failureReason}).`);
      } else {
        const outcome = select([['COMPLETED', 'COMPLETED: the transfer is on-chain'], ['FAILED', 'FAILED: nothing was sent; release the funds']], 'COMPLETED', { name: 'outcome', required: true });
        const txHash = h('input', { name: 'txHash', pattern: '0x[0-9a-fA-F]{64}', placeholder: '0x… (the transfer, when COMPLETED)', size: 70, autocomplete: 'off' });
        const values = await confirmDialog({
          title: 'Resolve withdrawal',
          message: `Settle ${w.withdrawalId} (${w.amount} ${w.token} to ${w.toAddress}) by hand. Check the chain first.`,
          confirmLabel: 'Resolve',
          danger: true,
          fields: [{ name: 'outcome', label: 'Outcome', control: outcome }, { name: 'txHash', label: 'Transaction hash', control: txHash }],
        });
        if (!values) return;
        const body = { outcome: values.outcome, ...(values.txHash ? { txHash: values.txHash } : {}) };
        await act(frame.messages, button, () => call('POST', `/withdrawals/${w.withdrawalId}/resolve`, { body }), (r) => `Withdrawal ${r.withdrawalId} resolved: ${r.status}.`);
      }
      frame.invalidate();
      await refresh().catch(frame.failed);
    };

    async function refresh() {
      const page = await call('GET', '/withdrawals', { params: { status, limit: 100 } });
      frame.render(page, (p) =>
        h(
          'table',
          { className: 'withdrawals' },
          h('caption', {}, `${p.items.length} withdrawal(s)${status ? ` ${status}` : ''}${p.hasMore ? ' (newest 100)' : ''}`),
          h('thead', {}, h('tr', {}, ['Created', 'Withdrawal', 'To', 'Amount', 'Status', 'Transaction', 'Reason', 'Actions'].map((l) => h('th', { scope: 'col' }, l)))),
          h(
            'tbody',
            {},
            p.items.length === 0 ? h('tr', {}, h('td', { colspan: 8, className: 'muted' }, 'No withdrawals.')) : p.items.map((w) =>
              h(
                'tr',
                { dataset: { withdrawal: w.withdrawalId, status: w.status } },
                h('td', {}, time(w.createdAt)),
                h('td', {}, short(w.withdrawalId)),
                h('td', {}, h('code', { className: 'address' }, w.toAddress)),
                h('td', { className: 'num' }, amount(w.amount, w.token)),
                h('td', {}, badge(w.status)),
                h('td', {}, short(w.txHash)),
                h('td', {}, w.failureReason ?? ''),
                h(
                  'td',
                  { className: 'actions' },
                  w.status === 'PENDING' ? [
                    h('button', { type: 'button', className: 'primary', dataset: { focus: `approve-${w.withdrawalId}` }, 'aria-label': `Approve ${w.withdrawalId}`, onclick: (e) => decide(w, e.currentTarget, 'approve') }, 'Approve'),
                    h('button', { type: 'button', className: 'danger', dataset: { focus: `reject-${w.withdrawalId}` }, 'aria-label': `Reject ${w.withdrawalId}`, onclick: (e) => decide(w, e.currentTarget, 'reject') }, 'Reject'),
                  ] : null,
                  w.status === 'UNRESOLVED' ? h('button', { type: 'button', className: 'danger', dataset: { focus: `resolve-${w.withdrawalId}` }, 'aria-label': `Resolve ${w.withdrawalId}`, onclick: (e) => decide(w, e.currentTarget, 'resolve') }, 'Resolve') : null,
                ),
              ),
            ),
          ),
        ),
      );
    }
    return { refresh, failed: frame.failed };
  },
};
