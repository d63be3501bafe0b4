// CPU used over a measurement, in cores: by each of the bench's processes, and by the
// whole machine (PostgreSQL, Redis, the runner and anything else running). On two
// shared cores this is what explains a figure: a process at 1.0 core is bound by its
// own event loop; a machine at 2.0 cores is bound by the machine.
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ, in which /proc reports CPU time; 100 on every mainstream kernel. */
const TICKS_PER_SECOND = 100;

function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return Number.NaN; // the process is gone
  }
}

/**
 * CPU of this process's children that have exited and been waited for (cutime + cstime):
 * the kernel adds a child's time to its parent's when the parent reaps it. A child that
 * exits during a measurement has no /proc entry left to read by its end; this is its CPU.
 */
function exitedChildrenTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]); // cutime + cstime
}

function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, n) => sum + n, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

export interface CpuUse {
  machineCores: number;
  /** Cores used by each named process or group. */
  cores: Record<string, number>;
  /** The machine's use less the bench's own: other work sharing the cores. */
  otherCores: number;
}

/**
 * A running process by its pid, or the runner's children that exit during the measurement
 * (a command run to completion, such as the CLI), counted as they are reaped: only a
 * child reaped before `stop` counts, and every such child does.
 */
export type MeteredProcess = { name: string; pid: number } | { name: string; exitedChildren: true };

const ticksOf = (proc: MeteredProcess) =>
  'pid' in proc ? processTicks(proc.pid) : exitedChildrenTicks();

/**
 * Starts measuring. `group` names processes found by a query at the start and at the
 * end (PostgreSQL backends of the bench database, which come and go with pools); one
 * born in between counts from zero.
 */
export async function startCpuMeter(
  processes: MeteredProcess[],
  group?: { name: string; pids: () => Promise<number[]> },
) {
  const started = performance.now();
  const machineStart = machineTicks();
  const starts = processes.map((proc) => ({ proc, ticks: ticksOf(proc) }));
  const groupStart = new Map((await (group?.pids() ?? [])).map((pid) => [pid, processTicks(pid)]));
  return {
    async stop(): Promise<CpuUse> {
      const groupTicks = (await (group?.pids() ?? [])).reduce(
        (sum, pid) => sum + (processTicks(pid) - (groupStart.get(pid) ?? 0) || 0),
        0,
      );
      const seconds = (performance.now() - started) / 1000;
      const asCores = (ticks: number) => ticks / TICKS_PER_SECOND / seconds;
      const machine = machineTicks();
      const cores = Object.fromEntries([
        ...starts.map(({ proc, ticks }) => [proc.name, asCores(ticksOf(proc) - ticks) || 0]),
        ...(group ? [[group.name, asCores(groupTicks)]] : []),
      ]) as Record<string, number>;
      const machineCores = asCores(machine.busy - machineStart.busy);
      const ours = Object.values(cores).reduce((sum, n) => sum + n, 0);
      return { machineCores, cores, otherCores: Math.max(0, machineCores - ours) };
    },
  };
}

export function describeCpu(use: CpuUse): string {
  const parts = Object.entries(use.cores).map(([name, n]) => `${name} ${n.toFixed(2)}`);
  return (
    `cpu cores: ${parts.join(', ')}; other work ${use.otherCores.toFixed(2)}; ` +
    `machine ${use.machineCores.toFixed(2)}`
  );
}

/** How much of the machine other work took over these measurements: the figures' noise. */
export function otherWorkNote(history: CpuUse[]): string[] {
  if (history.length === 0) return [];
  const others = history.map((use) => use.otherCores);
  const mean = others.reduce((sum, n) => sum + n, 0) / others.length;
  const max = Math.max(...others);
  const verdict = max > 0.25 ? ': figures taken while it was high are depressed' : '';
  return [
    `Other work on the machine (not the bench's processes, Redis or its database's ` +
      `backends) used ${mean.toFixed(2)} cores on average over ${others.length} measurements, ` +
      `${max.toFixed(2)} at most${verdict}. Per-step CPU is in the run's output and in latest.json.`,
  ];
}
