// The parts of an account's page that only show what the API answered: its recent events,
// their failures and refusals by code, who changed its share, its keys and its endpoints.
import type { AccountErrorCount, AccountPage, AccountShare } from '@ingest/contracts';
import { badge, el } from './dom';
import { formatTime } from './format';

/** A number is right-aligned in its cell. */
type Cell = Node | string | number;

const cellOf = (cell: Cell): HTMLElement =>
  typeof cell === 'number' ? el('td', { class: 'num' }, String(cell)) : el('td', {}, cell);

/** A table with its headings, or a muted line when it has no rows. */
function table(testid: string, headings: string[], rows: Cell[][], empty: string): HTMLElement {
  if (rows.length === 0) return el('p', { class: 'muted', testid: `${testid}-empty` }, empty);
  return el(
    'div',
    { class: 'table-wrap' },
    el(
      'table',
      { testid },
      el('thead', {}, el('tr', {}, ...headings.map((heading) => el('th', {}, heading)))),
      el(
        'tbody',
        {},
        ...rows.map((cells) => el('tr', { testid: `${testid}-row` }, ...cells.map(cellOf))),
      ),
    ),
  );
}

export const describeShare = (share: AccountShare): string =>
  `weight ${share.weight}${share.maxInFlight === null ? '' : ` · at most ${share.maxInFlight} at once`}`;

/** Accepted, applied, failed and rejected events of the last hour and the last day. */
export function activityTable({ activity }: AccountPage): HTMLElement {
  const row = (label: string, counts: AccountPage['activity']['lastHour']) => [
    label,
    counts.accepted,
    counts.applied,
    counts.failed,
    counts.rejected,
  ];
  return el(
    'div',
    {},
    table(
      'account-activity',
      ['Received', 'Accepted', 'Applied', 'Failed', 'Rejected'],
      [row('last hour', activity.lastHour), row('last 24 h', activity.lastDay)],
      '',
    ),
    activity.capped
      ? el('p', { class: 'muted' }, "The day's figures count its newest events only.")
      : null,
  );
}

/** Error codes with their counts in the last hour and the last day. */
export const codesTable = (testid: string, codes: AccountErrorCount[], empty: string) =>
  table(
    testid,
    ['Error code', 'Last hour', 'Last 24 h'],
    codes.map(({ code, lastHour, lastDay }) => [code, lastHour, lastDay]),
    empty,
  );

export const shareChangesTable = ({ shareChanges }: AccountPage): HTMLElement =>
  table(
    'share-changes',
    ['When', 'Operator', 'From', 'To'],
    shareChanges.map((change) => [
      formatTime(change.changedAt),
      change.operator.email,
      describeShare(change.from),
      describeShare(change.to),
    ]),
    'Its share has not been changed.',
  );

export const apiKeysTable = ({ apiKeys }: AccountPage): HTMLElement =>
  table(
    'account-keys',
    ['Name', 'Prefix', 'Scopes', 'Created', 'Last used', 'State'],
    apiKeys.map((key) => [
      key.name,
      el('span', { class: 'mono', title: key.id }, key.prefix),
      key.scopes.join(', '),
      formatTime(key.createdAt),
      formatTime(key.lastUsedAt),
      key.revokedAt === null ? 'active' : `revoked ${formatTime(key.revokedAt)}`,
    ]),
    'No API key.',
  );

export const endpointsTable = ({ endpoints }: AccountPage): HTMLElement =>
  table(
    'account-endpoints',
    ['URL', 'State', 'Delivered (24 h)', 'Failed (24 h)', 'Pending'],
    endpoints.map((endpoint) => [
      el('span', { class: 'mono', title: endpoint.id }, endpoint.url),
      badge(endpoint.state),
      endpoint.lastDay.succeeded,
      endpoint.lastDay.failed,
      endpoint.lastDay.pending,
    ]),
    'No webhook endpoint.',
  );
