// Small DOM helpers: elements built with textContent only (API data is never parsed as HTML),
// times in the operator's zone with UTC on hover, amounts exactly as the API wrote them.

/** h('button', { type: 'button', onclick }, 'Approve'): attributes, `on*` listeners, children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (key === 'className') element.className = value;
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const localFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false, timeZoneName: 'short',
});

/** A <time> in the operator's zone; hovering shows UTC. `ms` is unix milliseconds. */
export function time(ms) {
  if (ms === undefined || ms === null) return h('span', { className: 'muted' }, '—');
  const date = new Date(ms);
  const utc = date.toISOString().replace('T', ' ').replace('.000Z', ' UTC').replace(/\.(\d{3})Z$/, '.$1 UTC');
  return h('time', { datetime: date.toISOString(), title: utc }, localFormat.format(date));
}

/** Unix seconds (fields named ...Deadline). */
export const timeSecs = (secs) => (secs === undefined || secs === null ? time(null) : time(secs * 1000));

/** An amount string exactly as the API gave it; never converted to a number. */
export const amount = (value, token) => h('span', { className: 'amount' }, value ?? '—', token ? h('span', { className: 'token' }, ` ${token}`) : null);

export const badge = (status) => h('span', { className: `badge status-${String(status).toLowerCase()}` }, status);

/** Long ids and hashes shortened for the table, whole on hover and for copying. */
export const short = (value) => (value ? h('code', { title: value, className: 'id' }, value.length > 18 ? `${value.slice(0, 10)}…${value.slice(-6)}` : value) : h('span', { className: 'muted' }, '—'));

export function table(columns, rows, { empty = 'Nothing here.', caption } = {}) {
  return h(
    'table',
    {},
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', className: c.className }, c.label)))),
    h('tbody', {}, rows.length === 0 ? h('tr', {}, h('td', { colspan: columns.length, className: 'muted' }, empty)) : rows.map((row) => rowOf(columns, row))),
  );
}

function rowOf(columns, row) {
  if (row instanceof Node) return row;
  return h('tr', { dataset: row.__key ? { key: row.__key } : undefined }, columns.map((c) => h('td', { className: c.className }, c.cell(row))));
}

/**
 * Replaces `region`'s content, keeping keyboard focus on the "same" control (same data-focus
 * attribute) so a live refresh never throws the operator's focus away.
 */
export function replaceContent(region, ...children) {
  const focused = document.activeElement?.closest?.('[data-focus]')?.dataset.focus;
  region.replaceChildren();
  append(region, children);
  if (focused) region.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
}

/** A labelled form field; returns the wrapper, the control is `field.control`. */
export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 10)}`;
  control.id = id;
  const hintId = hint ? `${id}-hint` : null;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  const wrapper = h('div', { className: 'field' }, h('label', { for: id }, label), control, hint ? h('small', { id: hintId }, hint) : null);
  wrapper.control = control;
  return wrapper;
}
