import type { ContentLimits } from '@ingest/contracts';
import { z } from 'zod';
import { contentFields, SlugSchema } from '../fields.js';

/** A highlight's fields as events send them, under the deployment's limits. */
export function highlightFields(limits: ContentLimits) {
  const { text, title, httpUrl, nonBlank } = contentFields(limits);
  return {
    title,
    videoUrl: httpUrl,
    thumbnailUrl: httpUrl,
    durationSeconds: z.int().min(1).max(limits.durationSecondsMax),
    description: text(limits.descriptionMaxChars),
    articleSlug: SlugSchema.meta({ description: 'Links the highlight to one of your articles' }),
    tags: z.array(nonBlank(limits.tagMaxChars)).max(limits.tagsMax),
  };
}
