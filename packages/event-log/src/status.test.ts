import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UNFINISHED_STATUSES, unfinished } from './status.js';

const schema = readFileSync(
  fileURLToPath(new URL('../../../prisma/schema.prisma', import.meta.url)),
  'utf8',
);

describe('the unfinished predicate', () => {
  it('is the predicate the partial index is declared with, so the planner can use it', () => {
    expect(schema).toContain(`map: "webhook_logs_unfinished_idx", where: raw("${unfinished()}")`);
  });

  it('names exactly the unfinished statuses', () => {
    expect(unfinished('w')).toBe(
      `w.status IN (${UNFINISHED_STATUSES.map((status) => `'${status}'`).join(', ')})`,
    );
  });
});
