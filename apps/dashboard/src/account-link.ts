// An account's handle, wherever accounts are listed, as a link to its page. Lists render
// `accountLink`; one listener on the document opens whichever link is clicked, so a list
// needs no callback of its own.
import { el } from './dom';

const ATTRIBUTE = 'data-account-open';

/** The handle (or, without one, the short id) as a button that opens the account's page. */
export const accountLink = (accountId: string, label: string): HTMLButtonElement =>
  el(
    'button',
    {
      type: 'button',
      class: 'link',
      testid: 'account-open',
      title: accountId,
      [ATTRIBUTE]: accountId,
    },
    label,
  );

/**
 * Calls `open` with the account of any link clicked. It listens in the capture phase and
 * stops the click there: a link inside a clickable row (an event's) opens the account,
 * not the row.
 */
export function onAccountLinks(open: (accountId: string) => void): void {
  document.addEventListener(
    'click',
    (click) => {
      const link = click.target instanceof Element ? click.target.closest(`[${ATTRIBUTE}]`) : null;
      const accountId = link?.getAttribute(ATTRIBUTE);
      if (accountId == null) return;
      click.stopPropagation();
      open(accountId);
    },
    true,
  );
}
