// `pnpm bench [--soak] [--quick] [--only=capacity,latency,...] [--rate=N] [--cpu-prof]`

export const PHASES = ['capacity', 'latency', 'drain', 'lag', 'hot-slugs', 'footprint'] as const;
export type Phase = (typeof PHASES)[number];

export interface BenchOptions {
  phases: ReadonlySet<Phase>;
  soak: boolean;
  quick: boolean;
  cpuProfile: boolean;
  /** Rate for latency and footprint when this run does not measure capacity. */
  fallbackRate: number;
  plan: BenchPlan;
}

export interface HotSlugBurst {
  slugs: number;
  updatesPerSlug: number;
}

/** How long and how hard each phase runs. */
export interface BenchPlan {
  connections: number;
  stepSeconds: number;
  /** Unjudged load before a search or a latency run: JIT, pools. */
  warmupSeconds: number;
  settleMs: number;
  searchStartRate: number;
  searchGrowth: number;
  bisections: number;
  latencySeconds: number;
  drainEvents: number;
  drainDeadlineSeconds: number;
  lagRate: number;
  lagSeconds: number;
  soakSeconds: number;
  /** Load before the soak's first sample, so that it starts from a steady state. */
  soakWarmupSeconds: number;
  /** Bursts of article.update, round robin over `slugs` hot slugs of one account. */
  hotSlugBursts: HotSlugBurst[];
  /** How long after a burst's last 202 its updates may take to be applied. */
  hotSlugDeadlineSeconds: number;
  /** Tries of an owner's update behind another account's burst about the same slug. */
  isolationTries: number;
  isolationForeignEvents: number;
  /** Longest wait, after a foreign burst, for all of it to finish before the next try. */
  isolationSettleSeconds: number;
  /** No new foreign try starts after this long: a service that misses every deadline ends. */
  isolationBudgetSeconds: number;
  /** Added to the watchdog when hot-slugs runs: its length on a service missing every deadline. */
  hotSlugsWatchdogSeconds: number;
  /** The watchdog stops the run, cleaning up, after this long. */
  watchdogSeconds: number;
}

const DEFAULT_PLAN: BenchPlan = {
  connections: 256,
  stepSeconds: 3,
  warmupSeconds: 3,
  settleMs: 500,
  searchStartRate: 500,
  searchGrowth: 1.5,
  bisections: 2,
  latencySeconds: 10,
  drainEvents: 20_000,
  drainDeadlineSeconds: 20,
  // Moderate for this 2-core machine: well under one service worker's drain rate (about
  // 2,000/s here), so the figure is the time to apply an event, not a growing backlog.
  lagRate: 100,
  lagSeconds: 15,
  soakSeconds: 45,
  soakWarmupSeconds: 3,
  hotSlugBursts: [
    { slugs: 1, updatesPerSlug: 1_000 },
    { slugs: 10, updatesPerSlug: 200 },
    { slugs: 100, updatesPerSlug: 30 },
  ],
  hotSlugDeadlineSeconds: 30,
  isolationTries: 20,
  isolationForeignEvents: 1_000,
  isolationSettleSeconds: 30,
  isolationBudgetSeconds: 240,
  hotSlugsWatchdogSeconds: 480,
  watchdogSeconds: 540,
};

/** For iterating on the bench itself: the same phases, shorter and smaller. */
const QUICK_PLAN: Partial<BenchPlan> = {
  stepSeconds: 2,
  warmupSeconds: 1,
  bisections: 1,
  latencySeconds: 4,
  drainEvents: 4_000,
  lagSeconds: 5,
  soakSeconds: 15,
  hotSlugBursts: [
    { slugs: 1, updatesPerSlug: 300 },
    { slugs: 10, updatesPerSlug: 100 },
  ],
  hotSlugDeadlineSeconds: 15,
  isolationTries: 5,
  isolationSettleSeconds: 15,
  isolationBudgetSeconds: 100,
  hotSlugsWatchdogSeconds: 240,
};

export const USAGE = `usage: pnpm bench [--soak] [--quick] [--only=${PHASES.join(',')}] [--rate=N] [--cpu-prof]
  --soak        footprint soak of 5 minutes instead of ${DEFAULT_PLAN.soakSeconds} s
  --quick       shorter steps and fewer events, for iterating on the bench
  --only=...    run only these phases (figures of the others are left out)
  --rate=N      rate for latency and footprint when capacity is not measured (default 1000)
  --cpu-prof    run the API and service workers under --cpu-prof; profiles go to bench/results/profiles`;

export function parseOptions(argv: string[]): BenchOptions {
  let phases = new Set<Phase>(PHASES);
  let soak = false;
  let quick = false;
  let cpuProfile = false;
  let fallbackRate = 1_000;
  for (const arg of argv) {
    const [name, value] = arg.split('=', 2);
    if (name === '--soak') soak = true;
    else if (name === '--quick') quick = true;
    else if (name === '--cpu-prof') cpuProfile = true;
    else if (name === '--rate' && value !== undefined && /^\d+$/.test(value)) {
      fallbackRate = Number(value);
    } else if (name === '--only' && value !== undefined) {
      const wanted = value.split(',').filter(Boolean);
      const unknown = wanted.filter((phase) => !(PHASES as readonly string[]).includes(phase));
      if (unknown.length > 0 || wanted.length === 0) {
        throw new Error(`unknown phase ${unknown.join(', ')}\n${USAGE}`);
      }
      phases = new Set(wanted as Phase[]);
    } else if (arg !== '--') throw new Error(`unknown option ${arg}\n${USAGE}`);
  }
  const plan = { ...DEFAULT_PLAN, ...(quick ? QUICK_PLAN : {}) };
  if (soak) {
    plan.soakSeconds = 300;
    // Past JOB_KEEP_COMPLETED_SECONDS (60 s by default), after which Redis drops finished
    // jobs as fast as new ones finish: memory from there on is the steady state.
    plan.soakWarmupSeconds = 75;
    plan.watchdogSeconds += 400;
  }
  if (phases.has('hot-slugs')) plan.watchdogSeconds += plan.hotSlugsWatchdogSeconds;
  return { phases, soak, quick, cpuProfile, fallbackRate, plan };
}
