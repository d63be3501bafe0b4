// The API and worker processes of a run: started through the shared startAppProcess
// helper, watched for exits nobody asked for, and all killed at the end.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../support/processes.js';
import { startAppProcess, type AppProcess } from '../support/worker-process.js';

const run = promisify(execFile);

export interface Managed {
  name: string;
  app: AppProcess;
  /** Set before we stop it, so that its exit is not reported as a crash. */
  expectedExit: boolean;
}

export class ProcessGroup {
  readonly started: Managed[] = [];
  /** Processes that exited without being asked to, with their last lines. */
  readonly unexpectedExits: string[] = [];

  constructor(private readonly log: (line: string) => void) {}

  /**
   * Starts an app entry and waits for its ready line. On a loaded machine a start can
   * miss the helper's 20 s deadline: the process it left behind is killed, and it is
   * tried once more.
   */
  async launch(
    name: string,
    entry: string,
    ready: RegExp,
    env: Record<string, string>,
  ): Promise<Managed> {
    let app: AppProcess;
    try {
      app = await startAppProcess(entry, ready, env);
    } catch (first) {
      await this.killStrays();
      this.log(`${name} did not start (${(first as Error).message.split('\n')[0]}); once more`);
      app = await startAppProcess(entry, ready, env).catch(async (error: Error) => {
        await this.killStrays();
        throw new Error(`${name} did not start: ${error.message}`);
      });
    }
    const managed: Managed = { name, app, expectedExit: false };
    this.started.push(managed);
    app.child.once('exit', (code, signal) => {
      if (managed.expectedExit) return;
      const last = app.lines.slice(-8).join('\n    ');
      this.unexpectedExits.push(
        `${name} exited by itself (code ${code}, signal ${signal}):\n    ${last}`,
      );
      this.log(`!! ${name} exited unexpectedly (code ${code}, signal ${signal})`);
    });
    return managed;
  }

  async stop(managed: Managed | undefined, signal: NodeJS.Signals): Promise<void> {
    if (managed === undefined) return;
    managed.expectedExit = true;
    await managed.app.stop(signal);
  }

  async killAll(): Promise<void> {
    await Promise.all(this.started.map((managed) => this.stop(managed, 'SIGKILL').catch(() => {})));
    await this.killStrays();
  }

  /** Our own children running an app entry that we do not track (a start that timed out). */
  private async killStrays(): Promise<void> {
    const tracked = new Set(this.started.map((managed) => managed.app.child.pid));
    const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]).catch(
      () => ({ stdout: '' }),
    );
    for (const line of stdout.split('\n')) {
      const [pid, ...args] = line.trim().split(/\s+/);
      const command = args.join(' ');
      if (pid === undefined || tracked.has(Number(pid))) continue;
      if (!command.includes(`${REPO_ROOT}apps/`)) continue;
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  logs(): Array<{ name: string; lines: string[] }> {
    return this.started.map((managed) => ({ name: managed.name, lines: managed.app.lines }));
  }

  linesMatching(pattern: RegExp): string[] {
    return this.started.flatMap((managed) =>
      managed.app.lines.filter((line) => pattern.test(line)),
    );
  }
}
