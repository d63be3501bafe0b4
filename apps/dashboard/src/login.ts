// The login form: operators only. The API sets the session cookie; the page then loads
// the dashboard, which the server serves only with a valid operator session.
import { adminApi, ApiError } from './api';
import { el } from './dom';

const BASE = import.meta.env.BASE_URL;
export const OPERATOR_KEY = 'ingest.operator';

/** Why the page was sent here, by a fixed key: the query string is never shown as such. */
const REASONS: Record<string, string> = {
  expired: 'Your session has ended; log in again.',
  forbidden: 'This account is no longer an operator.',
  'logged-out': 'You are logged out.',
};

export function renderLogin(root: HTMLElement): void {
  const email = el('input', {
    id: 'login-email',
    type: 'email',
    name: 'email',
    autocomplete: 'username',
    required: true,
    testid: 'login-email',
  });
  const password = el('input', {
    id: 'login-password',
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
    testid: 'login-password',
  });
  const submit = el(
    'button',
    { type: 'submit', class: 'primary', testid: 'login-submit' },
    'Log in',
  );
  const reason = REASONS[new URLSearchParams(location.search).get('reason') ?? ''];
  const message = el('p', { class: 'notice', role: 'status', testid: 'login-message' }, reason);
  const error = el('p', { class: 'error', role: 'alert', testid: 'login-error', hidden: true });
  const form = el(
    'form',
    { class: 'card login', testid: 'login-form' },
    el('h1', {}, 'Ingest operators'),
    reason === undefined ? null : message,
    el('label', { for: 'login-email' }, 'Email'),
    email,
    el('label', { for: 'login-password' }, 'Password'),
    password,
    submit,
    error,
  );
  form.addEventListener('submit', (submitted) => {
    submitted.preventDefault();
    submit.disabled = true;
    error.hidden = true;
    adminApi
      .login(email.value, password.value)
      .then(({ account }) => {
        sessionStorage.setItem(OPERATOR_KEY, account.email);
        location.assign(BASE);
      })
      .catch((failure: unknown) => {
        error.textContent =
          failure instanceof ApiError ? failure.message : 'Logging in failed; try again.';
        error.hidden = false;
        submit.disabled = false;
        password.select();
      });
  });
  root.replaceChildren(el('main', { class: 'login-page' }, form));
  email.focus();

  // SameSite=Strict keeps the cookie off a navigation that started on another site, so a
  // logged-in operator following a link lands here: go on to the dashboard if so.
  adminApi.queue().then(
    () => location.replace(BASE),
    () => undefined,
  );
}
