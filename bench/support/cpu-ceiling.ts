// The CPU ceiling the measured side runs under: the service (or the floor), PostgreSQL and
// Redis share a cgroup whose CPU quota is `cores`, and the load generator (this process
// and the CLI it spawns) stays outside it, so that past capacity a figure measures the
// service and not the generator taking its cores. cgroup v1's `cpu` controller where it
// is mounted and writable, else v2's `cpu.max`; where neither is, a warning and no ceiling.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

const V1_ROOT = '/sys/fs/cgroup/cpu';
const V2_ROOT = '/sys/fs/cgroup';
const PERIOD_US = 100_000;

export interface CpuCeiling {
  /** What the report says: `1 core (cgroup v1)`, or why there is none. */
  readonly description: string;
  /** Moves a process (all of its threads) under the ceiling; its later children follow it. */
  place(pid: number): void;
  /** Moves what is still inside back to the root group and removes the group. */
  remove(): void;
}

/**
 * A PostgreSQL server's processes: the postmaster (the first line of `postmaster.pid` in
 * its data directory) and its children, the backends and auxiliary processes. Backends
 * started later are forked by the postmaster, and so follow it.
 */
export function postgresPids(dataDirectory: string): number[] {
  const postmaster = Number(
    readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // The parent pid is the 4th field, after the command name in parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

const writable = (path: string) => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

const v2HasCpu = () =>
  existsSync(join(V2_ROOT, 'cgroup.controllers')) &&
  readFileSync(join(V2_ROOT, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu');

export function createCpuCeiling(cores: number | undefined): CpuCeiling {
  const none = (why: string): CpuCeiling => ({ description: why, place() {}, remove() {} });
  if (cores === undefined) return none('none (--cpu-ceiling=off)');
  const quota = Math.round(cores * PERIOD_US);
  const name = `ingest-bench-${process.pid}`;
  let root: string;
  let version: string;
  if (existsSync(join(V1_ROOT, 'cpu.cfs_quota_us')) && writable(join(V1_ROOT, 'cgroup.procs'))) {
    root = V1_ROOT;
    version = 'v1';
    mkdirSync(join(root, name));
    writeFileSync(join(root, name, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(root, name, 'cpu.cfs_quota_us'), String(quota));
  } else if (v2HasCpu() && writable(join(V2_ROOT, 'cgroup.subtree_control'))) {
    root = V2_ROOT;
    version = 'v2';
    writeFileSync(join(root, 'cgroup.subtree_control'), '+cpu');
    mkdirSync(join(root, name));
    writeFileSync(join(root, name, 'cpu.max'), `${quota} ${PERIOD_US}`);
  } else {
    console.warn(
      'bench: no writable cgroup cpu controller (v1 /sys/fs/cgroup/cpu, v2 cpu.max): the ' +
        'service and the load generator share the cores, as before the ceiling',
    );
    return none('none: no writable cgroup cpu controller here');
  }
  const group = join(root, name);
  const plural = cores === 1 ? '' : 's';
  return {
    description: `${cores} core${plural} (cgroup ${version} cpu quota) for the service or floor, PostgreSQL and Redis; the load generator outside it`,
    place(pid) {
      try {
        writeFileSync(join(group, 'cgroup.procs'), String(pid));
      } catch (error) {
        // A process that has already exited has nothing left to cap.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    },
    remove() {
      const inside = readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
      for (const pid of inside) {
        try {
          writeFileSync(join(root, 'cgroup.procs'), pid);
        } catch {
          // Exited meanwhile.
        }
      }
      rmdirSync(group);
    },
  };
}
