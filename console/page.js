// What every page shares: a heading, a message line for action results, a data region that a
// refresh replaces only when the data changed (focus kept), and a line for refresh failures.
import { call } from './api.js';
import { field, h, replaceContent } from './dom.js';
import { messageArea, showError } from './ui.js';

export function pageFrame(main, title, intro) {
  const messages = messageArea();
  const loadError = h('div', { className: 'load-error', 'aria-live': 'polite' });
  const data = h('div', { className: 'data', 'aria-busy': 'true' }, h('p', { className: 'muted' }, 'Loading…'));
  const top = h('div', { className: 'page-top' });
  main.replaceChildren(h('h1', {}, title), intro ? h('p', { className: 'intro' }, intro) : null, top, messages, loadError, data);
  let last = null;
  return {
    top,
    messages,
    data,
    /** Renders when `snapshot` differs from the last one drawn. */
    render(snapshot, draw) {
      loadError.replaceChildren();
      data.setAttribute('aria-busy', 'false');
      const key = JSON.stringify(snapshot);
      if (key === last) return;
      last = key;
      replaceContent(data, draw(snapshot));
    },
    /** Forget the last snapshot (after an action, so the next refresh redraws). */
    invalidate() {
      last = null;
    },
    failed(error) {
      if (error?.unreachable) return; // the banner says so; keep showing the last data
      showError(loadError, error);
    },
  };
}

/** A <select> of options [value, label]; `value` preselected. */
export function select(options, value, attributes = {}) {
  return h('select', attributes, options.map(([v, label]) => h('option', { value: v, selected: v === value ? true : undefined }, label)));
}

/**
 * A labelled filter <select> in the page's top bar; changing it redraws at once. `state.value`
 * holds the choice ('' for any).
 */
export function filterSelect(frame, { label, name, options, value, refresh }) {
  const state = { value };
  const control = select(options.map((o) => [o, o || 'any']), value, { name });
  control.addEventListener('change', () => {
    state.value = control.value;
    frame.invalidate();
    void refresh().catch(frame.failed);
  });
  frame.top.append(h('form', { className: 'filters', 'aria-label': `Filter ${label.toLowerCase()}`, onsubmit: (e) => e.preventDefault() }, field(label, control)));
  return state;
}

/** A list page's table: caption, column headers, one `row(item)` per item, or a muted empty line. */
export function listTable({ className, caption, headers, items, empty, row }) {
  return h(
    'table',
    { className },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((l) => h('th', { scope: 'col' }, l)))),
    h('tbody', {}, items.length === 0 ? h('tr', {}, h('td', { colspan: headers.length, className: 'muted' }, empty)) : items.map(row)),
  );
}

/**
 * A filtered list page: one filter <select> per `filters` entry ({ label, name, options }), and a
 * refresh that reads GET `path` (a page envelope) with the chosen filters and the newest `limit`
 * items, drawn as a listTable whose caption counts `noun`s. Returns that refresh.
 */
export function filteredList(frame, { path, limit, noun, filters, className, headers, empty, row }) {
  const chosen = filters.map((f) => [f.name, filterSelect(frame, { ...f, value: '', refresh: () => refresh() })]);
  async function refresh() {
    const params = { limit, ...Object.fromEntries(chosen.map(([name, state]) => [name, state.value])) };
    const page = await call('GET', path, { params });
    frame.render(page, (p) =>
      listTable({ className, caption: `${p.items.length} ${noun}(s)${p.hasMore ? ` (newest ${limit})` : ''}`, headers, items: p.items, empty, row }),
    );
  }
  return refresh;
}
