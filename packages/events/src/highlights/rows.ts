import type { Tx } from '../event-type.js';
import type { HighlightState } from './message.js';

/** An account's highlight, addressed as events address it: by its id. */
export interface OwnHighlight {
  accountId: string;
  id: string;
}

export const keyOf = ({ accountId, id }: OwnHighlight) => `${accountId}/${id}`;

/**
 * The highlights these accounts own under these ids, with their articles, in one
 * statement, by `keyOf`. Another account's highlight is missing exactly like a missing one.
 */
export async function readOwnHighlights(
  tx: Tx,
  wanted: OwnHighlight[],
): Promise<Map<string, HighlightState>> {
  const rows = await tx.highlight.findMany({
    where: { OR: wanted.map(({ accountId, id }) => ({ accountId, id })) },
    include: { article: { select: { slug: true, title: true } } },
  });
  return new Map(rows.map((row) => [keyOf(row), row]));
}
