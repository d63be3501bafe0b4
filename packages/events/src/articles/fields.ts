import type { ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { contentFields } from '../fields.js';

/** An article's fields as events send them, under the deployment's limits. */
export function articleFields(limits: ContentLimits) {
  const { text, title, httpUrl, nonBlank } = contentFields(limits);
  return {
    title,
    body: z
      .array(text(limits.paragraphMaxChars))
      .min(1, 'must have at least one paragraph')
      .max(limits.bodyMaxParagraphs),
    excerpt: text(limits.excerptMaxChars),
    cover: httpUrl,
    // A reference rather than content: matched ignoring case and surrounding space.
    category: nonBlank(limits.categoryMaxChars),
    readMinutes: z.int().min(1).max(limits.readMinutesMax),
  };
}
