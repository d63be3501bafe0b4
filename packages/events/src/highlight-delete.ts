import { AppError, failed, succeeded, type ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import type { ApplyScope, Change, EventType, Outcomes } from './event-type.js';
import { ifVersionField } from './fields.js';
import { highlightLine } from './highlight-update.js';
import { highlightMessage } from './highlights/message.js';
import { keyOf, readOwnHighlights } from './highlights/rows.js';
import { versionConflict } from './version-check.js';

const schema = z.strictObject({
  id: z.uuid().meta({ description: "The highlight's id: its create's receipt's result.id" }),
  ifVersion: ifVersionField('highlight'),
});
const dataSchema = (_limits: ContentLimits) => schema;

type Delete = Change<z.output<typeof schema>>;

const message = highlightMessage('highlight.deleted', {
  version: 1,
  description: 'A highlight was deleted: the highlight as it was last',
});

/**
 * Reads every highlight the deletes address in one statement, decides each delete in
 * order (a second delete of one highlight finds it gone), and deletes them in one more.
 * The event log keeps every payload the highlight was made from.
 */
async function apply({ tx, outbox }: ApplyScope, changes: Delete[]): Promise<Outcomes> {
  const found = await readOwnHighlights(
    tx,
    changes.map(({ accountId, data }) => ({ accountId, id: data.id })),
  );
  const deleted = new Set<string>();
  const ids: string[] = [];
  const outcomes: Outcomes = new Map();
  for (const { eventId, accountId, data } of changes) {
    const key = keyOf({ accountId, id: data.id });
    const highlight = deleted.has(key) ? undefined : found.get(key);
    if (highlight === undefined) {
      const missing = new AppError('HIGHLIGHT_NOT_FOUND', `You have no highlight ${data.id}`);
      outcomes.set(eventId, failed(missing));
      continue;
    }
    const conflict = versionConflict(`highlight ${data.id}`, data.ifVersion, highlight.version);
    if (conflict !== undefined) {
      outcomes.set(eventId, failed(conflict));
      continue;
    }
    deleted.add(key);
    ids.push(highlight.id);
    // The delete is the highlight's last change: it has a version of its own.
    const version = highlight.version + 1;
    outbox.push(message.entry(eventId, highlight, version));
    outcomes.set(eventId, succeeded({ type: 'highlight', id: data.id, deleted: true, version }));
  }
  if (ids.length > 0) await tx.highlight.deleteMany({ where: { id: { in: ids } } });
  return outcomes;
}

export const highlightDelete = {
  name: 'highlight.delete',
  scope: 'highlight:delete',
  version: 1,
  description: 'Delete one of your highlights, found by id',
  dataSchema,
  example: { id: '0192f0c4-6b1a-7c3e-9a51-2d8e4f6a7b90' },
  orderKeys: (data) => [highlightLine(data.id)],
  message,
  apply,
} satisfies EventType<'highlight.delete', Delete['data'], 'highlight:delete'>;
