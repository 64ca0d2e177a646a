// Makers: register or update (pairs, settlement modes, spender, adapter signer), deactivate or
// reactivate, lift a suspension, read a maker's failures, and watch one maker's details: its
// protection (market-maker protection per instrument: limits, tripped or armed, how long a trip
// stays frozen), its dead man's switch and its live WebSocket sessions on every node (cancel on
// disconnect held or not), from GET /admin/v1/makers/{address}, and its scorecard over a chosen
// window, from GET /admin/v1/makers/{address}/scorecard.
import { call } from './api.js';
import { badge, field, h, short, time } from './dom.js';
import { listTable, pageFrame, select } from './page.js';
import { act, confirmDialog } from './ui.js';

const MODES = ['permit2', 'promised', 'xchange', 'perp'];
/** The scorecard windows offered, in seconds; a day is the API's default. */
const WINDOWS = [[3600, '1 h'], [86_400, '24 h'], [604_800, '7 d'], [2_592_000, '30 d']];

export const makersPage = {
  path: 'makers',
  title: 'Makers',
  pollMs: 3000,
  mount(main) {
    const frame = pageFrame(main, 'Makers', 'Registered makers, their pairs and settlement modes, suspensions after failed settlements.');
    const address = h('input', { name: 'address', required: true, pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x…', size: 44, autocomplete: 'off' });
    const pairs = h('input', { name: 'pairs', required: true, pattern: '[A-Z0-9]{1,16}-[A-Z0-9]{1,16}(,\\s*[A-Z0-9]{1,16}-[A-Z0-9]{1,16})*', placeholder: 'ETH-USDC, BTC-USDC', size: 40 });
    const modeBoxes = MODES.map((m) => h('input', { type: 'checkbox', name: 'mode', value: m, id: `mode-${m}` }));
    const spender = h('input', { name: 'spender', pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x… (permit2: the maker’s wrapper)', size: 44 });
    const adapterSigner = h('input', { name: 'adapterSigner', pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x… (xchange)', size: 44 });
    const active = h('input', { type: 'checkbox', name: 'active', checked: true, id: 'maker-active' });
    const submit = h('button', { type: 'submit', className: 'primary' }, 'Register / update maker');
    const form = h(
      'form',
      { className: 'card', 'aria-labelledby': 'maker-form-title' },
      h('h2', { id: 'maker-form-title' }, 'Register or update a maker'),
      field('Maker address', address),
      field('Pairs', pairs, 'Comma separated, BASE-QUOTE.'),
      h('fieldset', {}, h('legend', {}, 'Settlement modes'), modeBoxes.map((box) => h('label', { className: 'inline', for: box.id }, box, ` ${box.value}`))),
      field('Spender', spender, 'Required for permit2: wrapperOf(maker) from the factory.'),
      field('Adapter signer', adapterSigner, 'Required for xchange.'),
      h('label', { className: 'inline', for: 'maker-active' }, active, ' Active (may quote)'),
      submit,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      const body = {
        active: active.checked,
        pairs: pairs.value.split(',').map((p) => p.trim()).filter(Boolean),
        settlementModes: modeBoxes.filter((b) => b.checked).map((b) => b.value),
        spender: spender.value.trim() || null,
        adapterSigner: adapterSigner.value.trim() || null,
      };
      const made = await act(frame.messages, submit, () => call('PUT', `/makers/${address.value.trim()}`, { body }), (m) => `Maker ${m.address} saved (${m.makerId}): ${m.active ? 'active' : 'inactive'}, ${m.pairs.join(', ')}, ${m.settlementModes.join(', ')}.`);
      if (made) {
        frame.invalidate();
        await refresh();
      }
    });
    frame.top.append(form);

    const failuresRegion = h('section', { 'aria-label': 'Maker failures', className: 'failures' });
    // The maker whose details are shown; re-read on every refresh, so a trip, a session ending or
    // the dead man's switch being pushed back shows without a click.
    let watched = null;
    let windowSecs = 86_400;
    const chooseWindow = (value) => {
      windowSecs = Number(value);
      frame.invalidate();
      void refresh().catch(frame.failed);
    };

    const edit = (m) => {
      address.value = m.address;
      pairs.value = m.pairs.join(', ');
      for (const box of modeBoxes) box.checked = m.settlementModes.includes(box.value);
      spender.value = m.spender ?? '';
      adapterSigner.value = m.adapterSigner ?? '';
      active.checked = m.active;
      address.focus();
    };

    const setActive = async (m, button, value) => {
      const ok = await confirmDialog({
        title: value ? 'Reactivate maker' : 'Deactivate maker',
        message: value ? `Let ${m.address} quote again?` : `Stop ${m.address} quoting? Its open quotes stay until they lapse.`,
        confirmLabel: value ? 'Reactivate' : 'Deactivate',
        danger: !value,
      });
      if (!ok) return;
      const body = { active: value, pairs: m.pairs, settlementModes: m.settlementModes, spender: m.spender, adapterSigner: m.adapterSigner };
      await act(frame.messages, button, () => call('PUT', `/makers/${m.address}`, { body }), (r) => `Maker ${r.address} is now ${r.active ? 'active' : 'inactive'}.`);
      frame.invalidate();
      await refresh();
    };

    const unsuspend = async (m, button) => {
      const ok = await confirmDialog({ title: 'Lift suspension', message: `Let ${m.address} quote again now, before its suspension runs out?`, confirmLabel: 'Lift suspension' });
      if (!ok) return;
      await act(frame.messages, button, () => call('POST', `/makers/${m.address}/unsuspend`), (r) => `Suspension of ${r.address} lifted.`);
      frame.invalidate();
      await refresh();
    };

    const showFailures = async (m, button) => {
      const result = await act(frame.messages, button, () => call('GET', `/makers/${m.address}/failures`), (r) => `${r.failures.length} failure(s) of ${r.address} listed below.`);
      if (!result) return;
      failuresRegion.replaceChildren(
        h('h2', {}, `Failures of ${result.address}`),
        h('p', {}, `Suspended ${result.suspensionCount} time(s); last suspended `, time(result.lastSuspendedAt), '; suspended until ', time(result.suspendedUntil), '.'),
        result.failures.length === 0
          ? h('p', { className: 'muted' }, 'No failed settlements.')
          : h('table', {}, h('thead', {}, h('tr', {}, ['When', 'RFQ', 'Quote', 'Reason'].map((l) => h('th', { scope: 'col' }, l)))), h('tbody', {}, result.failures.map((f) => h('tr', {}, h('td', {}, time(f.createdAt)), h('td', {}, short(f.rfqId)), h('td', {}, short(f.quoteId)), h('td', {}, f.reason))))),
      );
    };

    const watch = async (m, button) => {
      const detail = await act(frame.messages, button, () => call('GET', `/makers/${m.address}`), (r) => `Details of ${r.address} shown below.`);
      if (!detail) return;
      watched = m.address;
      frame.invalidate();
      await refresh();
    };

    async function refresh() {
      const [{ makers }, detail, scorecard] = await Promise.all([
        call('GET', '/makers'),
        watched ? call('GET', `/makers/${watched}`) : null,
        watched ? call('GET', `/makers/${watched}/scorecard`, { params: { windowSecs } }) : null,
      ]);
      frame.render({ makers, detail, scorecard, now: Math.floor(Date.now() / 10000) }, ({ makers: list }) => [
        h(
          'table',
          { className: 'makers' },
          h('caption', {}, `${list.length} maker(s)`),
          h('thead', {}, h('tr', {}, ['Address', 'Maker id', 'State', 'Pairs', 'Modes', 'Spender', 'Suspended until', 'Suspensions', 'Actions'].map((l) => h('th', { scope: 'col' }, l)))),
          h(
            'tbody',
            {},
            list.length === 0 ? h('tr', {}, h('td', { colspan: 9, className: 'muted' }, 'No makers registered.')) : list.map((m) => {
              const suspended = m.suspendedUntil !== null && m.suspendedUntil > Date.now();
              const state = suspended ? 'SUSPENDED' : m.active ? 'ACTIVE' : 'INACTIVE';
              return h(
                'tr',
                { dataset: { maker: m.address } },
                h('td', {}, h('code', { className: 'address' }, m.address)),
                h('td', {}, short(m.makerId)),
                h('td', {}, badge(state)),
                h('td', {}, m.pairs.join(', ')),
                h('td', {}, m.settlementModes.join(', ')),
                h('td', {}, short(m.spender)),
                h('td', {}, suspended ? time(m.suspendedUntil) : h('span', { className: 'muted' }, '—')),
                h('td', { className: 'num' }, String(m.suspensionCount)),
                h(
                  'td',
                  { className: 'actions' },
                  h('button', { type: 'button', dataset: { focus: `edit-${m.address}` }, 'aria-label': `Edit ${m.address}`, onclick: () => edit(m) }, 'Edit'),
                  h('button', { type: 'button', dataset: { focus: `active-${m.address}` }, 'aria-label': `${m.active ? 'Deactivate' : 'Reactivate'} ${m.address}`, onclick: (e) => setActive(m, e.currentTarget, !m.active) }, m.active ? 'Deactivate' : 'Reactivate'),
                  suspended ? h('button', { type: 'button', dataset: { focus: `lift-${m.address}` }, 'aria-label': `Lift suspension of ${m.address}`, onclick: (e) => unsuspend(m, e.currentTarget) }, 'Lift suspension') : null,
                  h('button', { type: 'button', dataset: { focus: `failures-${m.address}` }, 'aria-label': `Failures of ${m.address}`, onclick: (e) => showFailures(m, e.currentTarget) }, 'Failures'),
                  h('button', { type: 'button', dataset: { focus: `details-${m.address}` }, 'aria-label': `Details of ${m.address}`, onclick: (e) => watch(m, e.currentTarget) }, 'Details'),
                ),
              );
            }),
          ),
        ),
        detail ? protectionSection(detail) : null,
        scorecard ? scorecardSection(detail.address, scorecard, chooseWindow) : null,
        failuresRegion,
      ]);
    }
    return { refresh, failed: frame.failed };
  },
};

/** Absent values (no quote yet, no winner to compare with, no price marks) as a muted dash. */
const orDash = (value, format = String) => (value === null || value === undefined ? h('span', { className: 'muted' }, '—') : format(value));
const ms = (value) => `${value} ms`;
/** Signed, so a move against the maker never reads as one in its favour. */
const signedBps = (value) => `${value > 0 ? '+' : ''}${value} bp`;

/**
 * One maker's kill switches and protection: its dead man's switch, its market-maker protection per
 * instrument, and its live sessions on every node.
 */
function protectionSection(m) {
  const armed = m.cancelAllAfter.firesAt !== null;
  return h(
    'section',
    { 'aria-label': `Protection of ${m.address}`, className: 'protection', dataset: { maker: m.address } },
    h('h2', {}, `Protection of ${m.address}`),
    h(
      'p',
      { className: 'dead-mans-switch', dataset: { armed: String(armed) } },
      'Dead man’s switch (cancel-all-after): ',
      badge(armed ? 'ARMED' : 'DISARMED'),
      armed ? [' — cancels all the maker’s open quotes at ', time(m.cancelAllAfter.firesAt), ' unless the maker pushes it back.'] : ' — the maker has not armed it (POST /v1/rfq/maker/cancel-all-after).',
    ),
    h('p', { className: 'muted' }, 'Once the quotes selected on an instrument within the window reach a limit, the maker’s other quotes on it are cancelled and new ones refused until the maker resets it, or until it has been frozen for the time shown.'),
    listTable({
      className: 'protection',
      caption: `Market-maker protection on ${m.protection.length} instrument(s)`,
      headers: ['Instrument', 'Window', 'Max selected quotes', 'Max selected notional', 'Frozen for', 'State', 'Tripped at', 'Reason'],
      items: m.protection,
      empty: 'No protection configured (PUT /v1/rfq/maker/protection).',
      row: (p) =>
        h(
          'tr',
          { dataset: { instrument: p.instrumentId, tripped: String(p.triggeredAt !== null) } },
          h('td', {}, p.instrumentId),
          h('td', { className: 'num' }, `${p.windowMs} ms`),
          h('td', { className: 'num' }, p.maxSelectedQuotes === null ? '—' : String(p.maxSelectedQuotes)),
          h('td', { className: 'num' }, p.maxSelectedNotional ?? '—'),
          h('td', { className: 'num' }, p.frozenMs === null ? 'until reset' : ms(p.frozenMs)),
          h('td', {}, badge(p.triggeredAt === null ? 'ARMED' : 'TRIPPED')),
          h('td', {}, time(p.triggeredAt)),
          h('td', {}, p.reason ?? ''),
        ),
    }),
    listTable({
      className: 'sessions',
      caption: `${m.sessions.length} live WebSocket session(s)`,
      headers: ['Session', 'Node', 'Cancel on disconnect', 'Opened', 'Node heartbeat'],
      items: m.sessions,
      empty: 'No live sessions.',
      row: (s) =>
        h(
          'tr',
          { dataset: { session: s.sessionId } },
          h('td', {}, short(s.sessionId)),
          h('td', {}, short(s.nodeId)),
          h('td', {}, s.cancelOnDisconnect ? 'yes' : 'no'),
          h('td', {}, time(s.openedAt)),
          h('td', {}, time(s.nodeHeartbeatAt)),
        ),
    }),
  );
}

/** The scorecard columns: [field, heading, how a value is shown]; counts as the API gives them. */
const CARD = [
  ['rfqsSeen', 'RFQs seen', (c) => String(c.rfqsSeen)],
  ['rfqsQuoted', 'Quoted', (c) => String(c.rfqsQuoted)],
  ['firstQuoteP50', 'First quote p50', (c) => orDash(c.firstQuoteMs.p50, ms)],
  ['firstQuoteP99', 'First quote p99', (c) => orDash(c.firstQuoteMs.p99, ms)],
  ['wins', 'Wins', (c) => String(c.wins)],
  ['lostByMedian', 'Lost by (median)', (c) => orDash(c.lostByBps.median, (v) => `${v} bp`)],
  ['settled', 'Settled', (c) => String(c.settled)],
  ['failures', 'Failures', (c) => String(c.failures)],
  ['fades', 'Fades', (c) => String(c.fades)],
  ['lateRelays', 'Late relays', (c) => String(c.lateRelays)],
];

/** One maker's scorecard over the chosen window, with each fade and late relay and the market's move over it. */
function scorecardSection(address, card, chooseWindow) {
  const control = select(WINDOWS.map(([secs, label]) => [String(secs), label]), String(card.windowSecs), { id: 'scorecard-window', name: 'windowSecs', dataset: { focus: 'scorecard-window' }, onchange: (e) => chooseWindow(e.currentTarget.value) });
  return h(
    'section',
    { 'aria-label': `Scorecard of ${address}`, className: 'scorecard', dataset: { maker: address, windowSecs: String(card.windowSecs) } },
    h('h2', {}, `Scorecard of ${address}`),
    h('form', { className: 'filters', 'aria-label': 'Scorecard window', onsubmit: (e) => e.preventDefault() }, field('Window', control)),
    listTable({
      className: 'scorecard',
      caption: 'RFQs on its instruments from others, its quotes, wins and settlements in the window',
      headers: CARD.map(([, label]) => label),
      items: [card],
      row: (c) => h('tr', {}, CARD.map(([key, , show]) => h('td', { className: 'num', dataset: { field: key } }, show(c)))),
    }),
    listTable({
      className: 'moves',
      caption: `Fades and late relays, newest first (${card.moves.length}); the market’s move over the delay is positive in the maker’s favour`,
      headers: ['Quote', 'Kind', 'Delay', 'Market move'],
      items: card.moves,
      empty: 'No fades or late relays in the window.',
      row: (move) =>
        h(
          'tr',
          { dataset: { quote: move.quoteId, kind: move.kind } },
          h('td', {}, short(move.quoteId)),
          h('td', {}, move.kind),
          h('td', { className: 'num' }, ms(move.delayMs)),
          h('td', { className: 'num' }, orDash(move.marketMoveBps, signedBps)),
        ),
    }),
  );
}
