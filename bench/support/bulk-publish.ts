// The two publishers the cli phase compares: the `ingest` CLI's bulk command, run as a
// user runs it (the built bundle under node, a child process), and a plain loop in the
// runner that sends the same kind of events with as many calls in flight.
import { once } from 'node:events';
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT, runCommand, spawnProcess } from '@ingest/test-harness';
import { articleCreate } from './article-payloads.js';
import { LOG_DIR } from './paths.js';

/** What `pnpm build` makes of packages/client/src/cli/main.ts; its package's `bin`. */
export const CLI_ENTRY = 'packages/client/dist/cli/main.js';

/**
 * Sends of one body at most, and the wait before sending again an answer that asks for a
 * retry (429, 503: the API sheds load with Retry-After: 2): what Retry-After says plus up
 * to 250 ms of jitter, as the CLI's client does. Without it the calls a shed second
 * refused (all those in flight) would all come back in the same millisecond.
 */
const LOOP_SENDS = 6;
const RETRY_STATUSES = new Set([429, 503]);
const JITTER_MS = 250;
const retryAfterMs = (header: string | null) =>
  (Number(header) > 0 ? Number(header) * 1000 : 0) + Math.random() * JITTER_MS;

/** The `n`-th line of a run: one `article.create` as the API takes it, slug unique per tag. */
export const createLine = (tag: string, n: number): string =>
  JSON.stringify({ event: 'article.create', data: articleCreate(tag, n) });

export interface LoopPublish {
  seconds: number;
  /** Sends answered 429 or 503 (shed), waited on and sent again. */
  resent: number;
}

/**
 * POSTs each body to the content endpoint with `apiKey`, `concurrency` at a time, with the
 * global fetch and nothing else (nothing recorded; an Idempotency-Key only when `keyOf`
 * names one for the body's index). Throws on any other answer than 202, or a retry one
 * `LOOP_SENDS` times.
 */
export async function publishLoop(
  baseUrl: string,
  apiKey: string,
  bodies: string[],
  concurrency: number,
  keyOf?: (index: number) => string,
): Promise<LoopPublish> {
  const url = `${baseUrl}/api/webhooks/content`;
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  let next = 0;
  let resent = 0;
  const post = async (body: string, index: number) => {
    const keyed = keyOf === undefined ? headers : { ...headers, 'idempotency-key': keyOf(index) };
    for (let send = 1; ; send += 1) {
      const response = await fetch(url, { method: 'POST', headers: keyed, body });
      const answer = await response.text();
      if (response.status === 202) return;
      if (!RETRY_STATUSES.has(response.status) || send >= LOOP_SENDS) {
        throw new Error(`reference publish: answered ${response.status} ${answer.slice(0, 300)}`);
      }
      resent += 1;
      await sleep(retryAfterMs(response.headers.get('retry-after')));
    }
  };
  const client = async () => {
    while (next < bodies.length) {
      const index = next;
      next += 1;
      await post(bodies[index] ?? '', index);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, client));
  return { seconds: (performance.now() - started) / 1000, resent };
}

export interface CliRun {
  code: number | null;
  /** From the spawn to the exit: node's start, the file's digest, the sends, the results file. */
  seconds: number;
  /** Its whole output: progress lines, then the summary table. */
  output: string;
  logFile: string;
}

let runs = 0;

/**
 * The CLI's environment in the bench: the API at `baseUrl` and `apiKey`, its settings in
 * `configDir`; empty is unset to the CLI, so nothing from the runner's own environment
 * signs or logs in.
 */
export const cliEnvironment = (baseUrl: string, apiKey: string, configDir: string) => ({
  INGEST_URL: baseUrl,
  INGEST_API_KEY: apiKey,
  INGEST_TOKEN: '',
  INGEST_SIGNING_SECRET: '',
  XDG_CONFIG_HOME: configDir,
});

/** Whether the built CLI's `publish --help` names `option` (a flag another branch may add). */
export async function cliPublishHas(option: string): Promise<boolean> {
  const help = await runCommand(process.execPath, [CLI_ENTRY, 'publish', '--help']);
  if (help.code !== 0) throw new Error(`ingest publish --help exited ${help.code}: ${help.stderr}`);
  return help.stdout.includes(option);
}

/**
 * Runs the built CLI with `args` to its exit, its output to a log file of its own; kills
 * it after `timeoutMs`, or when the runner exits first (the watchdog, Ctrl-C).
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CliRun> {
  if (!existsSync(join(REPO_ROOT, CLI_ENTRY))) {
    throw new Error(`${CLI_ENTRY} is missing: pnpm build makes it`);
  }
  const name = `cli-${(runs += 1)}`;
  const logFile = join(LOG_DIR, `${name}.log`);
  const started = performance.now();
  const proc = spawnProcess({ name, nodeArgs: [CLI_ENTRY, ...args], env, logFile });
  const closed = once(proc.child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  const orphaned = () => proc.child.kill('SIGKILL');
  process.once('exit', orphaned);
  const timer = setTimeout(() => void proc.stop('SIGKILL'), timeoutMs);
  try {
    const [code] = await closed;
    const seconds = (performance.now() - started) / 1000;
    if (seconds * 1000 >= timeoutMs) throw new Error(`${name} was killed after ${timeoutMs} ms`);
    return { code, seconds, output: readFileSync(logFile, 'utf8'), logFile };
  } finally {
    clearTimeout(timer);
    process.off('exit', orphaned);
  }
}

/**
 * A figure of the summary table the CLI prints as it ends (`published (new events)  20000`,
 * `time  12.3 s`), as a number; throws when the output has no such line.
 */
export function summaryFigure(run: CliRun, label: string): number {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^${escaped} {2,}([\\d.]+)`, 'm').exec(run.output);
  if (match?.[1] === undefined) {
    throw new Error(`the CLI's summary has no "${label}" line; see ${run.logFile}`);
  }
  return Number(match[1]);
}

/** Where the lines a log file gets from now on start. */
export const logOffset = (path: string): number => statSync(path).size;

/** The API's answers logged from `offset` on (its "request completed" lines), by status. */
export function answersSince(path: string, offset: number): Record<string, number> {
  const fd = openSync(path, 'r');
  try {
    const text = Buffer.alloc(Math.max(0, fstatSync(fd).size - offset));
    readSync(fd, text, 0, text.length, offset);
    const counts: Record<string, number> = {};
    for (const [, status = ''] of text.toString('utf8').matchAll(/"statusCode":(\d{3})/g)) {
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  } finally {
    closeSync(fd);
  }
}
