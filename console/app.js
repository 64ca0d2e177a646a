// The console shell: sign-in, navigation by URL hash, the connection banner, and the refresh
// loop that keeps the open page live (polling /admin/v1; it simply resumes once a restarted node
// answers again, so the page survives restarts without a reload).
import { ApiError, call, onReachability, token } from './api.js';
import { h, replaceContent } from './dom.js';
import { isDialogOpen, showError } from './ui.js';
import { rfqsPage } from './page-rfqs.js';
import { makersPage } from './page-makers.js';
import { withdrawalsPage } from './page-withdrawals.js';
import { depositsPage } from './page-deposits.js';
import { anomaliesPage } from './page-anomalies.js';
import { invariantsPage } from './page-invariants.js';
import { settingsPage } from './page-settings.js';
import { referencePage } from './page-reference.js';
import { balancesPage } from './page-balances.js';
import { custodyPage } from './page-custody.js';
import { perpPage } from './page-perp.js';

const PAGES = [rfqsPage, makersPage, withdrawalsPage, custodyPage, depositsPage, anomaliesPage, perpPage, invariantsPage, balancesPage, settingsPage, referencePage];
const root = document.getElementById('app');

let current = null; // { page, instance, timer }

function signInView(reason) {
  const input = h('input', { id: 'token', type: 'password', autocomplete: 'current-password', required: true, minlength: 1, spellcheck: 'false' });
  const messages = h('div', { 'aria-live': 'polite', className: 'messages' });
  const button = h('button', { type: 'submit', className: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { className: 'signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'rfq-service operator console'),
    h('p', {}, 'Enter the operator token (RFQ_ADMIN_TOKEN; the embedded stack writes it to admin-token in its data directory). It is kept only in this tab.'),
    h('div', { className: 'field' }, h('label', { for: 'token' }, 'Operator token'), input),
    button,
    messages,
  );
  if (reason) showError(messages, reason);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      await call('GET', '/settings', { bearer: input.value });
      token.set(input.value);
      if (!location.hash) location.hash = `#/${PAGES[0].path}`;
      showShell();
    } catch (error) {
      const shown = error instanceof ApiError && error.code === 'ADMIN_UNAUTHORIZED'
        ? new ApiError(error.status, error.code, 'wrong operator token: the node refused it')
        : error;
      showError(messages, shown);
      input.select();
    } finally {
      button.disabled = false;
    }
  });
  stopPage();
  replaceContent(root, form);
  input.focus();
}

function signOut(reason) {
  token.clear();
  signInView(reason);
}

const banner = h('div', { className: 'banner', role: 'status', 'aria-live': 'polite', hidden: true });
onReachability((reachable) => {
  banner.hidden = reachable;
  banner.textContent = reachable ? '' : 'The node is not answering; retrying every few seconds…';
  document.body.classList.toggle('offline', !reachable);
});

function nav(activePath) {
  return h(
    'nav',
    { 'aria-label': 'Console pages' },
    h('ul', {}, PAGES.map((p) => h('li', {}, h('a', { href: `#/${p.path}`, 'aria-current': p.path === activePath ? 'page' : undefined }, p.title)))),
    h('button', { type: 'button', className: 'secondary signout', onclick: () => signOut() }, 'Sign out'),
  );
}

function stopPage() {
  if (current) {
    clearTimeout(current.timer);
    current.stopped = true;
  }
  current = null;
}

function pageOfHash() {
  const path = location.hash.replace(/^#\/?/, '').split('?')[0];
  return PAGES.find((p) => p.path === path) ?? PAGES[0];
}

function showShell() {
  stopPage();
  const page = pageOfHash();
  const main = h('main', { id: 'main', tabindex: '-1' });
  replaceContent(root, h('header', {}, h('span', { className: 'brand' }, 'rfq-service · operator'), banner), h('div', { className: 'layout' }, nav(page.path), main));
  document.title = `${page.title} · rfq-service console`;
  const instance = page.mount(main);
  const state = { page, instance, timer: null, stopped: false };
  current = state;
  const loop = async () => {
    if (state.stopped) return;
    if (!isDialogOpen()) {
      try {
        await instance.refresh();
      } catch (error) {
        if (error instanceof ApiError && error.code === 'ADMIN_UNAUTHORIZED') return signOut(new ApiError(401, error.code, 'the node no longer accepts this operator token'));
        instance.failed?.(error);
      }
    }
    if (!state.stopped) state.timer = setTimeout(loop, page.pollMs ?? 2000);
  };
  void loop();
}

window.addEventListener('hashchange', () => {
  // Only '#/page' names a page; other fragments (the skip link's '#main') are in-page.
  if (!location.hash.startsWith('#/')) return;
  if (token.get()) {
    showShell();
    document.getElementById('main')?.focus();
  }
});

if (token.get()) showShell();
else signInView();
