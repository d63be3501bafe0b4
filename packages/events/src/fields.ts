// Field schemas the event types share. Content is stored exactly as sent: no trimming or
// rewriting, so that what a read returns equals what was sent.
import { SLUG_MAX_CHARS, SLUG_PATTERN, storableText, type ContentLimits } from '@ingest/contracts';
import { z } from 'zod';

export const SlugSchema = z
  .string()
  .max(SLUG_MAX_CHARS)
  .regex(SLUG_PATTERN, 'must be lower-case letters and digits in groups joined by single hyphens');

/**
 * An optimistic check: a publisher that read version N sends ifVersion N, and the change
 * applies only if nobody changed the record since. Bounded as the column (int4) is: a
 * larger number is no version, and PostgreSQL would refuse it as a parameter.
 */
export const ifVersionField = (record: 'article' | 'highlight') =>
  z
    .int32()
    .min(1)
    .optional()
    .meta({
      description: `Apply only if the ${record} is at this version (its \`version\` in reads, receipts and messages); otherwise the event fails with VERSION_CONFLICT and the receipt's error carries \`currentVersion\``,
    });

const notBlank = (value: string): boolean => value.trim() !== '';

// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
function isHttpUrl(value: string): boolean {
  if (WHITESPACE_OR_CONTROL.test(value) || !URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}

/** The content fields of articles and highlights, under the deployment's limits. */
export function contentFields(limits: ContentLimits) {
  return {
    text: (max: number) => storableText(0, max),
    title: storableText(1, limits.titleMaxChars).refine(notBlank, 'must not be blank'),
    // Checked, not parsed: z.url() would return the URL trimmed and without tabs or line
    // breaks, and content is stored exactly as sent.
    httpUrl: storableText(1, limits.urlMaxChars).refine(
      isHttpUrl,
      'must be an http(s) URL without spaces',
    ),
    nonBlank: (max: number) => storableText(1, max).refine(notBlank, 'must not be blank'),
  };
}

/**
 * The rule of every update: `null` clears an optional field, and an update must change at
 * least one of its fields.
 */
export function changeOf<Fields extends Record<string, z.ZodType>, Key extends z.ZodRawShape>(
  key: Key,
  fields: Fields,
) {
  return z
    .strictObject({ ...key, ...fields })
    .refine((data) => Object.keys(fields).some((field) => Reflect.get(data, field) !== undefined), {
      message: `must change at least one of: ${Object.keys(fields).join(', ')}`,
      path: [],
    });
}

/**
 * A `data` schema builder that builds once per limits object: routing looks the schema up
 * for every event, and the limits are the process's one configuration.
 */
export function perLimits<Schema>(build: (limits: ContentLimits) => Schema) {
  const built = new WeakMap<ContentLimits, Schema>();
  return (limits: ContentLimits): Schema => {
    const known = built.get(limits);
    if (known !== undefined) return known;
    const schema = build(limits);
    built.set(limits, schema);
    return schema;
  };
}
