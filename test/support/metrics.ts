/**
 * The value of a series in Prometheus text, 0 when it is not there yet. Every series also
 * carries its registry's default labels, so a line reads `name{...} value`.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith(`${name}{`) &&
        Object.entries(labels).every(([label, value]) => candidate.includes(`${label}="${value}"`)),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
