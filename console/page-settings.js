// Operator settings: one validated form (non-negative integers, the unit in each name).
import { call } from './api.js';
import { field, h } from './dom.js';
import { pageFrame } from './page.js';
import { act, showError } from './ui.js';

const HINTS = {
  maxWindowMs: 'Longest auction window (ms); requested windows are clamped to [1000, this].',
  settlementHeadroomSecs: 'settlementDeadline = ceil(auctionEndsAt / 1000) + this (s).',
  makerFailureThreshold: 'Failed settlements within the window that suspend a maker.',
  makerFailureWindowMs: 'That window (ms).',
  makerSuspensionBaseMs: 'First suspension (ms); doubles on each repeat.',
};

export const settingsPage = {
  path: 'settings',
  title: 'Settings',
  // The form is the page: it is loaded once, not refreshed under the operator's typing.
  pollMs: 3600000,
  mount(main) {
    const frame = pageFrame(main, 'Settings', 'Stored in the database; every node applies a change within a second.');
    let loaded = false;
    async function refresh() {
      if (loaded) return;
      const settings = await call('GET', '/settings');
      loaded = true;
      const inputs = Object.entries(settings).map(([key, value]) => h('input', { name: key, type: 'number', min: 0, step: 1, required: true, value: String(value), inputmode: 'numeric' }));
      const save = h('button', { type: 'submit', className: 'primary' }, 'Save settings');
      const form = h('form', { className: 'card settings', 'aria-label': 'Operator settings' }, inputs.map((input) => field(input.name, input, HINTS[input.name])), save);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        if (!form.reportValidity()) return;
        const body = {};
        for (const input of inputs) {
          if (!/^\d+$/.test(input.value)) return showError(frame.messages, { code: 'INVALID_REQUEST', message: `${input.name} must be a whole number` });
          body[input.name] = Number(input.value);
        }
        const saved = await act(frame.messages, save, () => call('PUT', '/settings', { body }), (r) => `Settings saved: ${Object.entries(r).map(([k, v]) => `${k}=${v}`).join(', ')}.`);
        if (saved) for (const input of inputs) input.value = String(saved[input.name]);
      });
      frame.render(settings, () => form);
    }
    return { refresh, failed: frame.failed };
  },
};
