export type Probe = () => Promise<unknown>;

export interface Readiness {
  ready: boolean;
  checks: Record<string, 'ok' | 'failed'>;
}

async function answers(probe: Probe, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>(
    (resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)),
  );
  try {
    return await Promise.race([
      probe().then(
        () => true,
        () => false,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

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
