// Invariants: the ledger (and custody against the chain) checks, green or red with the violations.
import { call } from './api.js';
import { h, time } from './dom.js';
import { pageFrame } from './page.js';
import { act } from './ui.js';

export const invariantsPage = {
  path: 'invariants',
  title: 'Invariants',
  pollMs: 5000,
  mount(main) {
    const frame = pageFrame(main, 'Invariants', 'Each check is one query over the ledger (custody is also read on-chain). A violation is a bug: keep the output and find the cause before correcting anything.');
    const again = h('button', { type: 'button' }, 'Check now');
    again.addEventListener('click', () => act(frame.messages, again, refresh, () => 'Checked.'));
    frame.top.append(again);
    async function refresh() {
      const result = await call('GET', '/invariants');
      const checkedAt = Date.now();
      frame.render({ result, minute: Math.floor(checkedAt / 60000) }, ({ result: r }) => [
        h(
          'div',
          { className: `verdict ${r.ok ? 'ok' : 'violated'}`, role: 'status', dataset: { ok: String(r.ok) } },
          h('strong', {}, r.ok ? 'All invariants hold' : `${r.violations.length} violation(s)`),
          h('span', { className: 'muted' }, ' · checked ', time(checkedAt)),
        ),
        r.violations.length === 0 ? null : h(
          'table',
          { className: 'violations' },
          h('caption', {}, 'Violations'),
          h('thead', {}, h('tr', {}, ['Check', 'Detail'].map((l) => h('th', { scope: 'col' }, l)))),
          h('tbody', {}, r.violations.map((v) => h('tr', {}, h('td', {}, h('strong', {}, v.check)), h('td', {}, h('pre', { className: 'detail' }, JSON.stringify(v.detail, null, 1)))))),
        ),
      ]);
    }
    return { refresh, failed: frame.failed };
  },
};
