// The form that sets an account's share (weight, cap on events in flight): it asks before
// it saves, since the share changes how every worker serves the account.
import type { AccountPage, AccountShare } from '@ingest/contracts';
import { adminApi, ApiError } from './api';
import { describeShare } from './account-sections';
import { el } from './dom';

const field = (label: string, control: HTMLElement) =>
  el('label', { class: 'field' }, el('span', {}, label), control);

/** `onSaved` runs once the API has taken the new share. */
export function shareForm(account: AccountPage, onSaved: () => void): HTMLFormElement {
  const weight = el('input', {
    name: 'weight',
    type: 'number',
    min: 1,
    step: 1,
    required: true,
    value: account.share.weight,
    testid: 'share-weight',
  });
  const maxInFlight = el('input', {
    name: 'maxInFlight',
    type: 'number',
    min: 1,
    step: 1,
    placeholder: 'no cap',
    value: account.share.maxInFlight ?? undefined,
    testid: 'share-max-in-flight',
  });
  const save = el(
    'button',
    { type: 'submit', class: 'primary', testid: 'share-save' },
    'Save share',
  );
  const error = el('p', { class: 'error', role: 'alert', testid: 'share-error', hidden: true });
  const form = el(
    'form',
    { class: 'filters', testid: 'share-form' },
    field('Weight', weight),
    field('Max in flight (empty: no cap)', maxInFlight),
    el('div', { class: 'actions' }, save),
    error,
  );

  form.addEventListener('submit', (submitted) => {
    submitted.preventDefault();
    const share: AccountShare = {
      weight: Number(weight.value),
      maxInFlight: maxInFlight.value === '' ? null : Number(maxInFlight.value),
    };
    const question =
      `Change the share of ${account.handle}?\n\n` +
      `From: ${describeShare(account.share)}\nTo: ${describeShare(share)}\n\n` +
      'This API applies it at once; other instances and the workers within 5 s.';
    if (!confirm(question)) return;
    save.disabled = true;
    error.hidden = true;
    adminApi
      .setShare(account.id, share)
      .then(onSaved, (failure: unknown) => {
        const problems = failure instanceof ApiError ? failure.fieldErrors : [];
        error.textContent = [
          failure instanceof Error ? failure.message : String(failure),
          ...problems.map((problem) => `${problem.path}: ${problem.message}`),
        ].join(' · ');
        error.hidden = false;
      })
      .finally(() => (save.disabled = false));
  });
  return form;
}
