// Tokens and instruments: list them, create or update one.
import { call } from './api.js';
import { badge, field, h, short, time } from './dom.js';
import { pageFrame, select } from './page.js';
import { act } from './ui.js';

export const referencePage = {
  path: 'reference',
  title: 'Tokens & instruments',
  pollMs: 5000,
  mount(main) {
    const frame = pageFrame(main, 'Tokens and instruments', 'A token’s decimals cannot change once set. A PUT replaces what it names: leaving the address empty clears it (and on-chain settlement of the token).');

    const symbol = h('input', { name: 'symbol', required: true, pattern: '[A-Z0-9]{1,16}', size: 10 });
    const decimals = h('input', { name: 'decimals', type: 'number', required: true, min: 0, max: 36, step: 1 });
    const address = h('input', { name: 'address', pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x… (none: not settleable on-chain)', size: 44 });
    const saveToken = h('button', { type: 'submit', className: 'primary' }, 'Save token');
    const tokenForm = h('form', { className: 'card', 'aria-labelledby': 'token-title' }, h('h2', { id: 'token-title' }, 'Token'), field('Symbol', symbol), field('Decimals', decimals), field('Address', address), saveToken);
    tokenForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!tokenForm.reportValidity()) return;
      const body = { decimals: Number(decimals.value), address: address.value.trim() || null };
      await act(frame.messages, saveToken, () => call('PUT', `/tokens/${symbol.value}`, { body }), (t) => `Token ${t.symbol} saved: ${t.decimals} decimals, address ${t.address ?? 'none'}.`);
      frame.invalidate();
      await refresh();
    });

    const base = h('input', { name: 'base', required: true, pattern: '[A-Z0-9]{1,16}', size: 8 });
    const quote = h('input', { name: 'quote', required: true, pattern: '[A-Z0-9]{1,16}', size: 8 });
    const type = select([['SPOT', 'SPOT'], ['PERP', 'PERP']], 'SPOT', { name: 'type' });
    const fee = h('input', { name: 'takerFeeTenthBp', type: 'number', required: true, min: 0, max: 100000, step: 1 });
    const minNotional = h('input', { name: 'minQuoteNotional', pattern: '\\d+(\\.\\d+)?', placeholder: 'quote-token units (optional)', size: 16 });
    const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: true, id: 'instrument-enabled' });
    const saveInstrument = h('button', { type: 'submit', className: 'primary' }, 'Save instrument');
    const instrumentForm = h(
      'form',
      { className: 'card', 'aria-labelledby': 'instrument-title' },
      h('h2', { id: 'instrument-title' }, 'Instrument'),
      field('Base', base), field('Quote', quote), field('Type', type),
      field('Taker fee (tenths of a bp)', fee, '250 = 25 bp = 0.25 %'),
      field('Minimum quote notional', minNotional),
      h('label', { className: 'inline', for: 'instrument-enabled' }, enabled, ' Enabled'),
      saveInstrument,
    );
    instrumentForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!instrumentForm.reportValidity()) return;
      const id = `${base.value}-${quote.value}-${type.value}`;
      const body = { base: base.value, quote: quote.value, type: type.value, takerFeeTenthBp: Number(fee.value), minQuoteNotional: minNotional.value || null, enabled: enabled.checked };
      await act(frame.messages, saveInstrument, () => call('PUT', `/instruments/${id}`, { body }), (i) => `Instrument ${i.instrumentId} saved: fee ${i.takerFeeTenthBp}, ${i.enabled ? 'enabled' : 'disabled'}.`);
      frame.invalidate();
      await refresh();
    });
    frame.top.append(h('div', { className: 'forms' }, tokenForm, instrumentForm));

    const editToken = (t) => {
      symbol.value = t.symbol;
      decimals.value = String(t.decimals);
      address.value = t.address ?? '';
      symbol.focus();
    };
    const editInstrument = (i) => {
      base.value = i.base;
      quote.value = i.quote;
      type.value = i.type;
      fee.value = String(i.takerFeeTenthBp);
      minNotional.value = i.minQuoteNotional ?? '';
      enabled.checked = i.enabled;
      base.focus();
    };

    async function refresh() {
      const [{ tokens }, { instruments }] = await Promise.all([call('GET', '/tokens'), call('GET', '/instruments')]);
      frame.render({ tokens, instruments }, (d) => [
        h('table', { className: 'tokens' }, h('caption', {}, 'Tokens'),
          h('thead', {}, h('tr', {}, ['Symbol', 'Decimals', 'Address', 'Updated', ''].map((l) => h('th', { scope: 'col' }, l)))),
          h('tbody', {}, d.tokens.map((t) => h('tr', {}, h('td', {}, h('strong', {}, t.symbol)), h('td', { className: 'num' }, String(t.decimals)), h('td', {}, t.address ? h('code', { className: 'address' }, t.address) : h('span', { className: 'muted' }, 'none (off-chain only)')), h('td', {}, time(t.updatedAt)),
            h('td', {}, h('button', { type: 'button', dataset: { focus: `token-${t.symbol}` }, 'aria-label': `Edit token ${t.symbol}`, onclick: () => editToken(t) }, 'Edit')))))),
        h('table', { className: 'instruments' }, h('caption', {}, 'Instruments'),
          h('thead', {}, h('tr', {}, ['Instrument', 'Type', 'Taker fee (0.1 bp)', 'Min quote notional', 'State', 'Updated', ''].map((l) => h('th', { scope: 'col' }, l)))),
          h('tbody', {}, d.instruments.map((i) => h('tr', {}, h('td', {}, h('strong', {}, i.instrumentId)), h('td', {}, i.type), h('td', { className: 'num' }, String(i.takerFeeTenthBp)), h('td', { className: 'num' }, i.minQuoteNotional ?? '—'), h('td', {}, badge(i.enabled ? 'ENABLED' : 'DISABLED')), h('td', {}, time(i.updatedAt)),
            h('td', {}, h('button', { type: 'button', dataset: { focus: `instrument-${i.instrumentId}` }, 'aria-label': `Edit instrument ${i.instrumentId}`, onclick: () => editInstrument(i) }, 'Edit')))))),
      ]);
    }
    return { refresh, failed: frame.failed };
  },
};
