// What a PromQL expression reads, for tests that hold the rules and the dashboard to the
// series the service serves.

const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/**
 * The series names an expression reads: what is left once strings, label matchers, ranges,
 * grouping clauses (`by (...)`, `on (...)`, ...) and function calls' names are taken out.
 */
export function seriesNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\w+/g, ' ');
  return [...bare.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)]
    .map((match) => match[1] ?? '')
    .filter((name) => !PROMQL_WORDS.has(name.toLowerCase()));
}
