/**
 * Bounds on content fields. Deployments may change them (see @ingest/config); the API
 * and the workers must use the same ones, since a worker validates every payload again.
 */
export interface ContentLimits {
  titleMaxChars: number;
  excerptMaxChars: number;
  bodyMaxParagraphs: number;
  paragraphMaxChars: number;
  categoryMaxChars: number;
  descriptionMaxChars: number;
  tagsMax: number;
  tagMaxChars: number;
  urlMaxChars: number;
  readMinutesMax: number;
  durationSecondsMax: number;
}

export const DEFAULT_CONTENT_LIMITS: ContentLimits = {
  titleMaxChars: 300,
  excerptMaxChars: 1_000,
  bodyMaxParagraphs: 500,
  paragraphMaxChars: 50_000,
  categoryMaxChars: 64,
  descriptionMaxChars: 2_000,
  tagsMax: 20,
  tagMaxChars: 50,
  urlMaxChars: 2_048,
  readMinutesMax: 600,
  durationSecondsMax: 86_400,
};

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX_CHARS = 120;
/** Slugs derived from a title are cut to this length, leaving room for a `-N` suffix. */
export const DERIVED_SLUG_MAX_CHARS = 80;
