import type { Readable } from 'node:stream';

/**
 * The lines a child process writes, in the order they arrive, with a way to wait for one.
 * A line split across two reads is joined again before anyone sees it.
 */
export class OutputLines {
  readonly lines: string[] = [];
  private readonly listeners = new Set<() => void>();
  private ended = false;

  follow(stream: Readable): void {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      this.add(parts);
    });
    stream.on('end', () => this.add([partial]));
  }

  /** No more lines will come (the process has closed its output): waiters stop waiting. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /**
   * The first line matching `pattern`, once there is one. Rejects after `timeoutMs`, or as
   * soon as the output has ended without one; `describe` says whose output it was.
   */
  waitFor(pattern: RegExp, timeoutMs: number, describe: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        cleanup();
        const last = this.lines.slice(-20).join('\n');
        reject(new Error(`${describe} ${why}; its last lines:\n${last}`));
      };
      const check = () => {
        const line = this.lines.find((candidate) => pattern.test(candidate));
        if (line !== undefined) {
          cleanup();
          resolve(line);
        } else if (this.ended) fail(`exited without logging ${pattern}`);
      };
      const timer = setTimeout(
        () => fail(`did not log ${pattern} within ${timeoutMs} ms`),
        timeoutMs,
      );
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  private add(lines: string[]): void {
    const kept = lines.filter((line) => line !== '');
    if (kept.length === 0) return;
    this.lines.push(...kept);
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
