import { describe, expect, it } from 'vitest';
import { succeededFigure } from './event-log-figures.js';

describe('the succeeded events the log keeps', () => {
  it('are counted up to the bound, and estimated past it', () => {
    expect(succeededFigure({ count: 120, exact: true }, 5_000_000, 30)).toEqual({
      count: 120,
      exact: true,
      estimate: null,
    });
    // The log's rows less the other statuses counted.
    expect(succeededFigure({ count: 10_000, exact: false }, 2_000_000, 1_500)).toEqual({
      count: 10_000,
      exact: false,
      estimate: 1_998_500,
    });
  });

  it('are not estimated where the statistics contradict the count', () => {
    // Never analysed, or analysed before the log grew: the count's bound stands alone.
    expect(succeededFigure({ count: 10_000, exact: false }, null, 0).estimate).toBeNull();
    expect(succeededFigure({ count: 10_000, exact: false }, 9_000, 0).estimate).toBeNull();
    expect(succeededFigure({ count: 10_000, exact: false }, 10_400, 500).estimate).toBeNull();
  });
});
