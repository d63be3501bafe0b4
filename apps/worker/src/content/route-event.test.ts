import { describe, expect, it } from 'vitest';
import { eventRow, testDeps } from '../../test/content-events.js';
import { routeEvent } from './route-event.js';

describe('routeEvent', () => {
  const route = (row: ReturnType<typeof eventRow>) => routeEvent(row, testDeps.config.content);

  it('routes by the recorded name, with the payload parsed by that name’s schema', () => {
    const row = eventRow('article.update', { slug: 'a', newSlug: 'b' });
    const { event, change } = route(row);
    expect(event).toBe('article.update');
    expect(change).toMatchObject({
      eventId: row.id,
      accountId: row.accountId,
      data: { slug: 'a', newSlug: 'b' },
    });
  });

  it('fails an event whose name has no event type, for good (AppError)', () => {
    for (const event of ['article.archive', 'toString', null]) {
      const row = eventRow('article.delete', { slug: 'a' }, { event });
      expect(() => route(row)).toThrow(expect.objectContaining({ code: 'UNKNOWN_EVENT' }));
    }
  });

  it('fails an event whose payload does not fit its name’s schema, for good', () => {
    // A delete's payload recorded under the name of a create.
    const row = eventRow('article.delete', { slug: 'a' }, { event: 'article.create' });
    expect(() => route(row)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
