import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { envInteger } from './env-fields.js';

const d = DEFAULT_CONTENT_LIMITS;

/** Bounds on content fields; API and workers must agree, so both read these. */
export const ContentEnvSchema = z.object({
  CONTENT_TITLE_MAX_CHARS: envInteger(d.titleMaxChars, { min: 1 }),
  CONTENT_EXCERPT_MAX_CHARS: envInteger(d.excerptMaxChars, { min: 1 }),
  CONTENT_BODY_MAX_PARAGRAPHS: envInteger(d.bodyMaxParagraphs, { min: 1 }),
  CONTENT_PARAGRAPH_MAX_CHARS: envInteger(d.paragraphMaxChars, { min: 1 }),
  CONTENT_CATEGORY_MAX_CHARS: envInteger(d.categoryMaxChars, { min: 1 }),
  CONTENT_DESCRIPTION_MAX_CHARS: envInteger(d.descriptionMaxChars, { min: 1 }),
  CONTENT_TAGS_MAX: envInteger(d.tagsMax, { min: 0 }),
  CONTENT_TAG_MAX_CHARS: envInteger(d.tagMaxChars, { min: 1 }),
  CONTENT_URL_MAX_CHARS: envInteger(d.urlMaxChars, { min: 10 }),
  CONTENT_READ_MINUTES_MAX: envInteger(d.readMinutesMax, { min: 1 }),
  CONTENT_DURATION_SECONDS_MAX: envInteger(d.durationSecondsMax, { min: 1 }),
});

export const contentLimitsFrom = (env: z.output<typeof ContentEnvSchema>): ContentLimits => ({
  titleMaxChars: env.CONTENT_TITLE_MAX_CHARS,
  excerptMaxChars: env.CONTENT_EXCERPT_MAX_CHARS,
  bodyMaxParagraphs: env.CONTENT_BODY_MAX_PARAGRAPHS,
  paragraphMaxChars: env.CONTENT_PARAGRAPH_MAX_CHARS,
  categoryMaxChars: env.CONTENT_CATEGORY_MAX_CHARS,
  descriptionMaxChars: env.CONTENT_DESCRIPTION_MAX_CHARS,
  tagsMax: env.CONTENT_TAGS_MAX,
  tagMaxChars: env.CONTENT_TAG_MAX_CHARS,
  urlMaxChars: env.CONTENT_URL_MAX_CHARS,
  readMinutesMax: env.CONTENT_READ_MINUTES_MAX,
  durationSecondsMax: env.CONTENT_DURATION_SECONDS_MAX,
});
