import { settleWithin } from './within.js';

export type Probe = () => Promise<unknown>;

export interface Readiness<Name extends string = string> {
  ready: boolean;
  checks: Record<Name, 'ok' | 'failed'>;
}

const answers = async (probe: Probe, timeoutMs: number): Promise<boolean> =>
  (await settleWithin(
    probe().then(() => true),
    timeoutMs,
  )) === true;

/** Runs every probe at once; ready when each answers within `timeoutMs`. */
export async function checkReadiness<Name extends string>(
  probes: Record<Name, Probe>,
  timeoutMs = 1_000,
): Promise<Readiness<Name>> {
  const names = Object.keys(probes) as Name[];
  const results = await Promise.all(names.map((name) => answers(probes[name], timeoutMs)));
  const checks = Object.fromEntries(
    names.map((name, index) => [name, results[index] ? 'ok' : 'failed'] as const),
  ) as Record<Name, 'ok' | 'failed'>;
  return { ready: results.every(Boolean), checks };
}
