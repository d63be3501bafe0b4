// `pnpm bench [--soak] [--quick] [--only=capacity,latency,...] [--rate=N] [--cpu-prof]`
// `pnpm bench --index-costs [--quick]`: what each index of the event log costs the accept path
// `pnpm bench --history=N [--quick]`: the event log empty and with N events of history
import { availableParallelism } from 'node:os';

export const PHASES = [
  'capacity',
  'latency',
  'batches',
  'drain',
  'slugs',
  'lag',
  'hot-slugs',
  'footprint',
  'cli',
  'deliveries',
  'fairness',
  'stored-articles',
  'topology',
  'tracing',
] as const;
export type Phase = (typeof PHASES)[number];

export interface BenchOptions {
  phases: ReadonlySet<Phase>;
  soak: boolean;
  quick: boolean;
  cpuProfile: boolean;
  /** Runs the index-costs mode (phases/index-costs.ts) instead of the phases. */
  indexCosts: boolean;
  /** Events of history of the history mode (phases/history.ts), which runs instead of the phases. */
  history?: number;
  /** Rate for latency and footprint when this run does not measure capacity. */
  fallbackRate: number;
  /** Cores the measured side may use (support/cpu-ceiling.ts); undefined: no ceiling. */
  cpuCeiling: number | undefined;
  plan: BenchPlan;
}

/** The fairness phase's part (c): see support/fairness-neighbours.ts. */
export interface FairnessNeighboursPlan {
  backlog: number;
  /** The noisy account's steady publishing: a little over the shipped per-account limit. */
  noisyRate: number;
  noisyPollConnections: number;
  idleSeconds: number;
  aloneSeconds: number;
  contestSeconds: number;
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
  /**
   * Tries of a rate before a search counts it failed (the start rate is tried at least
   * twice): one stall of the shared disk fails a step near the knee.
   */
  stepTries: number;
  latencySeconds: number;
  drainEvents: number;
  drainDeadlineSeconds: number;
  /** Slugs: creates of each drain (named slugs, derived, one title), and its window. */
  slugEvents: number;
  slugDeadlineSeconds: number;
  /** Articles stored before the populated drain of the stored-articles phase. */
  storedArticles: number;
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
  /** Deliveries: events of each of its content drains (eight, each filled anew). */
  deliveryDrainEvents: number;
  /**
   * Deliveries: the window of each of its drains, content or deliveries. Shorter than the
   * drain phase's: a drain with endpoints runs at a fraction of one without, and the rate
   * (first finished to last) is the same over part of a backlog as over all of it.
   */
  deliveryDrainDeadlineSeconds: number;
  /**
   * Deliveries: article.create a second while delivery lag is measured, at most: half of
   * what one worker sustains with the endpoints, as the phase's drains measured it, when
   * that is less. And how long.
   */
  deliveryLagRate: number;
  deliveryLagSeconds: number;
  /** Added to the watchdog when deliveries runs: about twice its length. */
  deliveriesWatchdogSeconds: number;
  /** Batches: events a batch call carries, and calls in flight (issue 32: 100 from 32). */
  batchSize: number;
  batchConnections: number;
  /** Batches: each closed-loop run's counted window, after a second's ramp-in. */
  batchSeconds: number;
  /** Batches: closed-loop runs of batches and of single events, in turns. */
  batchTurns: number;
  /** Added to the watchdog when batches runs: about twice its length. */
  batchesWatchdogSeconds: number;
  /** CLI: article.create lines in the file `ingest publish --file` sends, and as many by the reference. */
  cliEvents: number;
  /** CLI: a reference publish of this many first, not counted: the API's JIT and pools. */
  cliWarmupEvents: number;
  /** CLI: calls in flight, the CLI's `--concurrency` and the reference loop's. */
  cliConcurrency: number;
  /** CLI: how long after a publish ends its events may take to be applied (else it fails). */
  cliApplyDeadlineSeconds: number;
  /** Added to the watchdog when cli runs: about twice its length on a busy machine. */
  cliWatchdogSeconds: number;
  /** Index costs: the first search, from this rate, finds where the narrow ones start. */
  indexCostCalibrationRate: number;
  /** Index costs: each search starts at this fraction of the calibration's capacity... */
  indexCostStartFraction: number;
  /** ...and rises by this factor a step, then bisects once: about 5% resolution. */
  indexCostGrowth: number;
  indexCostStepSeconds: number;
  /** Index costs: the all-indexes reference is measured again after this many variants. */
  indexCostReferenceEvery: number;
  /** The watchdog's limit in the index-costs mode, which runs instead of the phases. */
  indexCostWatchdogSeconds: number;
  /** Fairness (a): each closed-loop polling run, service and reference alike. */
  fairnessPollSeconds: number;
  /** Fairness (b): each open-loop step past capacity. */
  fairnessOverloadSeconds: number;
  fairnessNeighbours: FairnessNeighboursPlan;
  /** Added to the watchdog when fairness runs: about twice its length. */
  fairnessWatchdogSeconds: number;
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
  stepTries: 1,
  latencySeconds: 10,
  drainEvents: 20_000,
  drainDeadlineSeconds: 20,
  slugEvents: 10_000,
  slugDeadlineSeconds: 30,
  storedArticles: 1_000_000,
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
  // Five content drains of 4,000 events (a fill of 2-6 s, a drain of 4-10 s), a delivery
  // drain and the lag run: 122 s on 2 cores with 1.15 cores of other work; less alone.
  // The warm-up drain and the filter's two (issue 46) add at most 16 s each.
  deliveryDrainEvents: 4_000,
  deliveryDrainDeadlineSeconds: 10,
  deliveryLagRate: 100,
  deliveryLagSeconds: 8,
  deliveriesWatchdogSeconds: 330,
  // A capacity search when the capacity phase did not run (about a minute), warm-ups,
  // four closed-loop runs of 5 s, 10 s of latency, two drains of 20,000 creates and the
  // CLI's publish of as many: about three minutes on 2 cores.
  batchSize: 100,
  batchConnections: 32,
  batchSeconds: 5,
  batchTurns: 2,
  batchesWatchdogSeconds: 360,
  // A warm-up, two references, the keyed loop, the CLI and its resume, each publish
  // followed until its events are applied: about two and a half minutes on 2 cores.
  cliEvents: 20_000,
  cliWarmupEvents: 4_000,
  cliConcurrency: 32,
  cliApplyDeadlineSeconds: 120,
  cliWatchdogSeconds: 360,
  // About 4.5 minutes on 2 cores: build and set-up, a calibration, then 8 variants and 4
  // references of about 18 s each (warm-up and 4 steps of 1 + 2 s). On a busy machine the
  // references scatter and searches take more steps: 411 s in one such run, hence 10 min.
  indexCostCalibrationRate: 2_000,
  indexCostStartFraction: 0.85,
  indexCostGrowth: 1.1,
  indexCostStepSeconds: 2,
  indexCostReferenceEvery: 3,
  indexCostWatchdogSeconds: 600,
  // (a) 8 runs of 5 s; (b) 4 steps of 1 + 5 s; (c) a seed, 30 s idle, a fill of 50,000
  // events, 5 s alone and 35 s of contest: about 3.5 minutes on 2 cores.
  fairnessPollSeconds: 5,
  fairnessOverloadSeconds: 5,
  fairnessNeighbours: {
    backlog: 50_000,
    // The shipped per-account limit is 12,000 a minute: 200/s. A little over it.
    noisyRate: 220,
    noisyPollConnections: 16,
    idleSeconds: 30,
    // The backlog drains at about 1,000/s here net of the noisy publishing: both windows
    // must end before it does.
    aloneSeconds: 5,
    contestSeconds: 35,
  },
  fairnessWatchdogSeconds: 420,
  watchdogSeconds: 540,
};

/** For iterating on the bench itself: the same phases, shorter and smaller. */
const QUICK_PLAN: Partial<BenchPlan> = {
  stepSeconds: 2,
  warmupSeconds: 1,
  bisections: 1,
  latencySeconds: 4,
  drainEvents: 4_000,
  slugEvents: 3_000,
  storedArticles: 100_000,
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
  deliveryDrainEvents: 1_500,
  deliveryDrainDeadlineSeconds: 6,
  deliveryLagSeconds: 4,
  deliveriesWatchdogSeconds: 160,
  batchSeconds: 3,
  batchTurns: 1,
  batchesWatchdogSeconds: 180,
  cliEvents: 4_000,
  cliWarmupEvents: 1_000,
  cliWatchdogSeconds: 150,
  indexCostStepSeconds: 1,
  indexCostWatchdogSeconds: 360,
  fairnessPollSeconds: 3,
  fairnessOverloadSeconds: 3,
  fairnessNeighbours: {
    backlog: 10_000,
    noisyRate: 220,
    noisyPollConnections: 16,
    idleSeconds: 10,
    aloneSeconds: 3,
    contestSeconds: 6,
  },
  fairnessWatchdogSeconds: 200,
};

/** One core for the load generator, the rest for the service and its engines. */
const DEFAULT_CPU_CEILING = Math.max(0.5, availableParallelism() - 1);

export const USAGE = `usage: pnpm bench [--soak] [--quick] [--only=${PHASES.join(',')}] [--rate=N] [--cpu-prof] [--cpu-ceiling=CORES|off]
       pnpm bench --index-costs [--quick]
       pnpm bench --history=N [--quick]
  --soak        footprint soak of 5 minutes instead of ${DEFAULT_PLAN.soakSeconds} s (--soak=600: 10 minutes)
  --quick       shorter steps and fewer events, for iterating on the bench
  --only=...    run only these phases (figures of the others are left out)
  --rate=N      rate for latency and footprint when capacity is not measured (default 1000)
  --cpu-prof    run the API and service workers under --cpu-prof; profiles go to bench/results/profiles
  --cpu-ceiling the cores the service (or floor), PostgreSQL and Redis share, the load generator
                outside them (default ${DEFAULT_CPU_CEILING}: all cores but one); off: no ceiling
  --index-costs accept capacity with each index of webhook_logs dropped in turn, against all of
                them; writes results/index-costs.{md,json} (no other phase runs)
  --history=N   the event log empty, then with N events over 40 days (and the stored articles
                beside them for its drains), then a retention run;
                writes results/history-N.{md,json} (no other phase runs)`;

/**
 * The history mode's watchdog: set-up and measurements (the drains 300 s of it: four of at
 * most a fill, the drain window and two article stores), plus the fill at 2,500 events/s.
 */
const historyWatchdogSeconds = (events: number) => 1_200 + Math.ceil(events / 2_500);

export function parseOptions(argv: string[]): BenchOptions {
  let phases = new Set<Phase>(PHASES);
  let soak = false;
  let soakSeconds: number | undefined;
  let quick = false;
  let cpuProfile = false;
  let indexCosts = false;
  let history: number | undefined;
  let only = false;
  let fallbackRate = 1_000;
  let cpuCeiling: number | undefined = DEFAULT_CPU_CEILING;
  for (const arg of argv) {
    const [name, value] = arg.split('=', 2);
    if (name === '--soak') {
      soak = true;
      if (value !== undefined) {
        if (!/^[1-9]\d*$/.test(value)) throw new Error(`--soak=SECONDS takes a number\n${USAGE}`);
        soakSeconds = Number(value);
      }
    } else if (name === '--quick') quick = true;
    else if (name === '--cpu-prof') cpuProfile = true;
    else if (name === '--index-costs') indexCosts = true;
    else if (name === '--history' && value !== undefined && /^[1-9][\d_]*$/.test(value)) {
      history = Number(value.replaceAll('_', ''));
    } else if (name === '--rate' && value !== undefined && /^\d+$/.test(value)) {
      fallbackRate = Number(value);
    } else if (name === '--cpu-ceiling' && value === 'off') cpuCeiling = undefined;
    else if (name === '--cpu-ceiling' && value !== undefined && /^\d+(\.\d+)?$/.test(value)) {
      cpuCeiling = Number(value);
      if (cpuCeiling < 0.1) throw new Error(`--cpu-ceiling takes at least 0.1 cores\n${USAGE}`);
    } else if (name === '--only' && value !== undefined) {
      const wanted = value.split(',').filter(Boolean);
      const unknown = wanted.filter((phase) => !(PHASES as readonly string[]).includes(phase));
      if (unknown.length > 0 || wanted.length === 0) {
        throw new Error(`unknown phase ${unknown.join(', ')}\n${USAGE}`);
      }
      phases = new Set(wanted as Phase[]);
      only = true;
    } else if (arg !== '--') throw new Error(`unknown option ${arg}\n${USAGE}`);
  }
  if (indexCosts && (only || soak || cpuProfile)) {
    throw new Error(`--index-costs runs alone (with --quick at most)\n${USAGE}`);
  }
  if (history !== undefined && (only || soak || cpuProfile || indexCosts)) {
    throw new Error(`--history runs alone (with --quick at most)\n${USAGE}`);
  }
  const plan = { ...DEFAULT_PLAN, ...(quick ? QUICK_PLAN : {}) };
  const common = { soak, quick, cpuProfile, indexCosts, fallbackRate, cpuCeiling, plan };
  if (history !== undefined) {
    plan.watchdogSeconds = historyWatchdogSeconds(history);
    // Two more bisections than the phases': about 2.6% steps instead of 10%, so that a
    // ratio of two capacities is not rounded to 0.82, 0.90 or 1.11.
    plan.bisections += 2;
    // A rate fails only when two steps at it fail: with one try, a single commit stall of
    // 50-100 ms failed a step and capped that search (a search of the empty log found 3783/s
    // after failing 3980/s once, where its other search passed 4422/s).
    plan.stepTries = 2;
    return { ...common, phases: new Set(), history };
  }
  if (indexCosts) {
    plan.watchdogSeconds = plan.indexCostWatchdogSeconds;
    return { ...common, phases: new Set() };
  }
  if (soak) {
    plan.soakSeconds = soakSeconds ?? 300;
    // Past JOB_KEEP_COMPLETED_SECONDS (60 s by default), after which Redis drops finished
    // jobs as fast as new ones finish: memory from there on is the steady state.
    plan.soakWarmupSeconds = 75;
    plan.watchdogSeconds += plan.soakSeconds + 100;
  }
  if (phases.has('hot-slugs')) plan.watchdogSeconds += plan.hotSlugsWatchdogSeconds;
  // Six fills and drains of at most the window each.
  if (phases.has('slugs')) plan.watchdogSeconds += 6 * (plan.slugDeadlineSeconds + 20);
  if (phases.has('deliveries')) plan.watchdogSeconds += plan.deliveriesWatchdogSeconds;
  if (phases.has('cli')) plan.watchdogSeconds += plan.cliWatchdogSeconds;
  if (phases.has('batches')) plan.watchdogSeconds += plan.batchesWatchdogSeconds;
  if (phases.has('fairness')) plan.watchdogSeconds += plan.fairnessWatchdogSeconds;
  // Storing the articles (about a minute for a million here) and three drains.
  if (phases.has('stored-articles')) plan.watchdogSeconds += 300;
  // Two capacity searches in turns and four drains.
  if (phases.has('topology')) plan.watchdogSeconds += 420;
  // The same again: tracing at 1% against off.
  if (phases.has('tracing')) plan.watchdogSeconds += 420;
  return { ...common, phases };
}
