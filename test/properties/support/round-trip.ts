import { EVENT_TYPES } from '@ingest/events';
import { SLUG_MAX_CHARS, SLUG_PATTERN, type ContentLimits } from '@ingest/contracts';
import fc from 'fast-check';
import { nearValidData, validArticleCreate, validHighlightCreate } from './content-arbitraries.js';
import { byteLength, parseLikeServer, toJsonText } from './json-text.js';

/** What the API parses a generated value into: RawJson leaves become their values. */
export const asSent = <T>(value: unknown): T => JSON.parse(toJsonText(value)) as T;

export type UniqueNames = ReturnType<typeof uniqueNames>;

/** Fresh names for one file's run: slugs and categories no one else has used. */
export function uniqueNames(tag: string) {
  let next = 0;
  return {
    /** A fresh slug; `long` ones reach the 120-character bound. */
    slug(long = false): string {
      next += 1;
      const slug = `rt-${tag}-${next}`;
      return long ? `${slug}-${'x'.repeat(SLUG_MAX_CHARS - slug.length - 1)}` : slug;
    },
    /**
     * `category` made unique to this run (so that this is its first use, whose spelling
     * the category keeps) by a suffix bearing `mark`, within 64 characters.
     */
    category(category: string, mark: string): string {
      next += 1;
      const suffix = `${mark}.${next}`;
      const room = 64 - suffix.length;
      let start = category.trimEnd();
      const end = category.slice(start.length).slice(0, 2);
      start = start.slice(0, room - end.length);
      if (!start.isWellFormed()) start = `${start.slice(0, -1)}x`;
      return `${start}${suffix}${end}`;
    },
  };
}

/** Whether the API accepts `data` for `event`, by its own schemas and its body limit. */
export function isAcceptable(
  limits: ContentLimits,
  event: 'article.create' | 'highlight.create',
  data: Record<string, unknown>,
  bodyLimit: number,
): boolean {
  const text = toJsonText({ event, data });
  return (
    EVENT_TYPES[event].dataSchema(limits).safeParse(asSent(data)).success &&
    byteLength(text) <= bodyLimit
  );
}

const isValidSlug = (value: unknown): boolean =>
  typeof value === 'string' && value.length <= SLUG_MAX_CHARS && SLUG_PATTERN.test(value);

/**
 * Data for `event` that the API must refuse: near-valid data, broken at least once. An
 * article gets a fresh slug in place of a valid one, so that a leak shows by its slug.
 */
export const refusedData = (
  limits: ContentLimits,
  event: 'article.create' | 'highlight.create',
  freshSlug: () => string,
) =>
  nearValidData[event]
    .map((data) =>
      event === 'article.create' &&
      typeof data === 'object' &&
      data !== null &&
      !Array.isArray(data) &&
      (!('slug' in data) || isValidSlug(data.slug))
        ? { ...data, slug: freshSlug() }
        : data,
    )
    .filter((data) => {
      const parsed = parseLikeServer(toJsonText({ event, data }));
      // Not JSON at all is refused too (400 INVALID_JSON).
      if (!parsed.ok) return true;
      return !EVENT_TYPES[event]
        .dataSchema(limits)
        .safeParse((parsed.value as { data: unknown }).data).success;
    });

export interface RoundTripSetup {
  limits: ContentLimits;
  names: UniqueNames;
  /** Marks this file's categories, for cleanup (category-marks.ts). */
  mark: string;
  bodyLimit: number;
}

export type Case = { sent: Record<string, unknown>; refused: unknown };

/**
 * article.create cases: valid data, naughty text and all, under a fresh slug (at times
 * 120 characters long) and with a category used for the first time; and beside it,
 * near-valid data that the API must refuse.
 */
export const articleCases = (setup: RoundTripSetup): fc.Arbitrary<Case> =>
  fc
    .record({
      data: validArticleCreate(fc.constant('placeholder')),
      longSlug: fc.boolean(),
      refused: refusedData(setup.limits, 'article.create', () => setup.names.slug()),
    })
    .map(({ data, longSlug, refused }) => {
      const sent: Record<string, unknown> = { ...data, slug: setup.names.slug(longSlug) };
      if (typeof sent.category === 'string') {
        sent.category = setup.names.category(sent.category, setup.mark);
      }
      return { sent, refused };
    })
    .filter(({ sent }) => isAcceptable(setup.limits, 'article.create', sent, setup.bodyLimit));

/**
 * highlight.create cases: valid data, with an `articleSlug` at times, which the check
 * replaces with one of the publisher's articles.
 */
export const highlightCases = (setup: RoundTripSetup): fc.Arbitrary<Case> =>
  fc
    .record({
      data: validHighlightCreate(fc.constant('replaced-by-the-check')),
      refused: refusedData(setup.limits, 'highlight.create', () => setup.names.slug()),
    })
    .map(({ data, refused }) => ({ sent: data, refused }))
    .filter(({ sent }) => isAcceptable(setup.limits, 'highlight.create', sent, setup.bodyLimit));
