/**
 * What `work` resolves to, or undefined when it fails or takes longer than `timeoutMs`:
 * for probes and scrapes, which must answer on time even when a service hangs.
 */
export async function settleWithin<Value>(
  work: Promise<Value>,
  timeoutMs: number,
): Promise<Value | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)),
  );
  try {
    return await Promise.race([work.catch(() => undefined), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `read` shared by the gauges collected at one scrape: the first gauge starts it, the
 * others wait for the same answer, and the next scrape reads again. Undefined when the
 * read fails or takes longer than `timeoutMs` (settleWithin).
 */
export function oneReadPerScrape<Value>(
  read: () => Promise<Value>,
  timeoutMs: number,
): () => Promise<Value | undefined> {
  let reading: Promise<Value | undefined> | undefined;
  return () =>
    (reading ??= settleWithin(read(), timeoutMs).finally(() => {
      reading = undefined;
    }));
}
