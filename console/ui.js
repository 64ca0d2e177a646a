// Feedback and confirmation: every action ends in a visible result or the API's code and message.
import { h, field } from './dom.js';

/** A page's message line: polite for results, assertive for errors. */
export function messageArea() {
  return h('div', { className: 'messages', 'aria-live': 'polite' });
}

export function showResult(area, text) {
  area.replaceChildren(h('p', { role: 'status', className: 'result ok' }, text));
}

export function showError(area, error) {
  const code = error?.code ?? 'ERROR';
  const status = error?.status ? ` (HTTP ${error.status})` : '';
  const details = error?.details?.errors?.map?.((e) => `${e.field}: ${e.message}`).join('; ');
  area.replaceChildren(
    h('p', { role: 'alert', className: 'result error' }, h('strong', {}, code), `: ${error?.message ?? String(error)}${status}`, details ? h('span', { className: 'details' }, ` — ${details}`) : null),
  );
}

/**
 * Runs `action` from `button`: disabled while it runs, then `success(result)` is shown in `area`,
 * or the error. Resolves with the result, or undefined after an error.
 */
export async function act(area, button, action, success) {
  if (button) button.disabled = true;
  area.replaceChildren(h('p', { role: 'status', className: 'result pending' }, 'Working…'));
  try {
    const result = await action();
    showResult(area, success(result));
    return result;
  } catch (error) {
    showError(area, error);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

let dialogOpen = false;
/** True while a confirmation is open: live refreshes wait, so the page does not move under it. */
export const isDialogOpen = () => dialogOpen;

/**
 * A modal confirmation (native <dialog>: focus trapped, Escape cancels). `fields` are extra
 * labelled controls (a reject reason, a resolve outcome). Resolves with their values, or null
 * when cancelled.
 */
export function confirmDialog({ title, message, confirmLabel = 'Confirm', danger = false, fields = [] }) {
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'button', className: 'secondary' }, 'Cancel');
    const confirm = h('button', { type: 'submit', className: danger ? 'danger' : 'primary' }, confirmLabel);
    const form = h('form', {}, h('h2', { id: 'dialog-title' }, title), h('p', {}, message), fields.map((f) => field(f.label, f.control, f.hint)), h('div', { className: 'buttons' }, cancel, confirm));
    const dialog = h('dialog', { 'aria-labelledby': 'dialog-title' }, form);
    let settled = false;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      dialogOpen = false;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      finish(Object.fromEntries(fields.map((f) => [f.name, f.control.value])));
    });
    cancel.addEventListener('click', () => finish(null));
    dialog.addEventListener('cancel', () => finish(null));
    dialog.addEventListener('close', () => finish(null));
    document.body.append(dialog);
    dialogOpen = true;
    dialog.showModal();
    (fields[0]?.control ?? confirm).focus();
  });
}
