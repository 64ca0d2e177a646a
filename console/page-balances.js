// Balance adjustments (ledger ADJUSTMENT, no tokens move) and, on the embedded devnet only, the faucet.
import { call } from './api.js';
import { field, h } from './dom.js';
import { pageFrame, select } from './page.js';
import { act, confirmDialog } from './ui.js';

export const balancesPage = {
  path: 'balances',
  title: 'Balance adjustments',
  pollMs: 3600000,
  mount(main) {
    const frame = pageFrame(main, 'Balance adjustments', 'An adjustment posts a ledger ADJUSTMENT (signed amount in token units; the user is created if new). It moves no tokens on-chain, so custody no longer matches the ledger until tokens follow.');
    const address = h('input', { name: 'address', required: true, pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x…', size: 44, autocomplete: 'off' });
    const token = select([], '', { name: 'token', required: true });
    const amountInput = h('input', { name: 'amount', required: true, pattern: '-?\\d+(\\.\\d+)?', placeholder: '250 or -50', size: 20, inputmode: 'decimal', autocomplete: 'off' });
    const memo = h('input', { name: 'memo', required: true, maxlength: 500, size: 40, autocomplete: 'off' });
    const submit = h('button', { type: 'submit', className: 'primary' }, 'Post adjustment');
    const form = h('form', { className: 'card', 'aria-labelledby': 'adjust-title' }, h('h2', { id: 'adjust-title' }, 'Adjust a balance'), field('Account address', address), field('Token', token), field('Amount (signed, token units)', amountInput), field('Memo', memo), submit);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      const body = { address: address.value.trim(), token: token.value, amount: amountInput.value.trim(), memo: memo.value };
      const ok = await confirmDialog({ title: 'Post adjustment', message: `Adjust ${body.address} by ${body.amount} ${body.token} (“${body.memo}”)?`, confirmLabel: 'Post adjustment', danger: body.amount.startsWith('-') });
      if (!ok) return;
      await act(frame.messages, submit, () => call('POST', '/balances/adjust', { body }), (r) => `Adjustment ${r.movementId} posted: ${r.balance.token} available ${r.balance.available}, locked ${r.balance.locked}, total ${r.balance.total}.`);
    });

    const faucetAddress = h('input', { name: 'address', required: true, pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x…', size: 44, autocomplete: 'off' });
    const faucetToken = select([], '', { name: 'token', required: true });
    const faucetAmount = h('input', { name: 'amount', required: true, pattern: '\\d+(\\.\\d+)?', size: 20, inputmode: 'decimal', autocomplete: 'off' });
    const mint = h('button', { type: 'submit' }, 'Mint on devnet');
    const faucet = h('form', { className: 'card', 'aria-labelledby': 'faucet-title' }, h('h2', { id: 'faucet-title' }, 'Devnet faucet'), h('p', { className: 'muted' }, 'Embedded stack only (elsewhere the node answers NOT_AVAILABLE): mints test tokens on-chain to an address.'), field('Address', faucetAddress), field('Token', faucetToken), field('Amount (token units)', faucetAmount), mint);
    faucet.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!faucet.reportValidity()) return;
      await act(frame.messages, mint, () => call('POST', '/devnet/faucet', { body: { address: faucetAddress.value.trim(), token: faucetToken.value, amount: faucetAmount.value.trim() } }), (r) => `Minted; transaction ${r.txHash}.`);
    });
    frame.top.append(h('div', { className: 'forms' }, form, faucet));

    let loaded = false;
    async function refresh() {
      if (loaded) return;
      const { tokens } = await call('GET', '/tokens');
      loaded = true;
      for (const s of [token, faucetToken]) s.replaceChildren(...tokens.map((t) => h('option', { value: t.symbol }, t.symbol)));
      frame.render(tokens.length, () => null);
    }
    return { refresh, failed: frame.failed };
  },
};
