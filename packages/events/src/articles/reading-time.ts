const WORDS_PER_MINUTE = 200;

/** Minutes to read `paragraphs` at WORDS_PER_MINUTE; at least 1. */
export function readingMinutes(
  paragraphs: readonly string[],
  max = Number.MAX_SAFE_INTEGER,
): number {
  let words = 0;
  for (const paragraph of paragraphs) {
    const matches = paragraph.match(/\S+/g);
    words += matches?.length ?? 0;
  }
  return Math.min(max, Math.max(1, Math.ceil(words / WORDS_PER_MINUTE)));
}
