/**
 * Undo steps registered as things are set up, run last-first exactly once, whichever
 * way the run ends: success, a failed phase, Ctrl-C or the watchdog. A step that fails
 * or hangs does not keep the others from running.
 */
export class Cleanup {
  private readonly steps: Array<{ name: string; undo: () => Promise<unknown> }> = [];
  private running: Promise<void> | undefined;

  add(name: string, undo: () => Promise<unknown>): void {
    this.steps.push({ name, undo });
  }

  runAll(log: (line: string) => void): Promise<void> {
    this.running ??= (async () => {
      for (const { name, undo } of this.steps.reverse()) {
        const timeout = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('timed out after 20 s')), 20_000).unref(),
        );
        await Promise.race([undo(), timeout]).catch((error: unknown) =>
          log(`cleanup: ${name} failed: ${(error as Error).message}`),
        );
      }
    })();
    return this.running;
  }
}
