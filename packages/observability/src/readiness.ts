import { settleWithin } from './within.js';

export type Probe = () => Promise<unknown>;

export interface Readiness {
  ready: boolean;
  checks: Record<string, 'ok' | 'failed'>;
}

const answers = async (probe: Probe, timeoutMs: number): Promise<boolean> =>
  (await settleWithin(
    probe().then(() => true),
    timeoutMs,
  )) === true;

/** Runs every probe at once; ready when each answers within `timeoutMs`. */
export async function checkReadiness(
  probes: Record<string, Probe>,
  timeoutMs = 1_000,
): Promise<Readiness> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((name) => answers(probes[name]!, timeoutMs)));
  const checks = Object.fromEntries(
    names.map((name, index) => [name, results[index] ? 'ok' : 'failed'] as const),
  );
  return { ready: results.every(Boolean), checks };
}
