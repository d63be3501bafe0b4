// A real Prometheus on loopback scrapes a real API and a real worker process under a short
// load: the rules in deploy/prometheus load and evaluate without error, every series a
// rule or the Grafana dashboard (deploy/grafana) reads is served, and every panel's query
// returns series.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from '@ingest/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearer, createKey, registerAccount, type RegisteredAccount } from './support/accounts.js';
import { registerAdmin } from './support/admin.js';
import { accept, articleData, finalReceipt, sendEvent, uniqueSlug } from './support/content.js';
import { seriesNames } from './support/promql.js';
import { startReceivers, type Receivers } from './support/receivers.js';
import { startTestApi, type TestApi } from './support/test-api.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const RULES = join(REPO_ROOT, 'deploy/prometheus/rules.yml');
const DASHBOARD = join(REPO_ROOT, 'deploy/grafana/ingest-dashboard.json');
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0',
};
const STEP_TIMEOUT_MS = 60_000;

interface Panel {
  title?: string;
  type: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string; refId: string }>;
}

interface RuleFile {
  groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}

/** Grafana's variables, as a query from this dashboard is run: any account, a 1m window. */
const asRun = (expr: string) =>
  expr.replaceAll('$__rate_interval', '1m').replaceAll('$account', '.*');

let api: TestApi;
let worker: WorkerProcess;
let receivers: Receivers;
let prometheus: ChildProcess;
let prometheusUrl: string;
let dataDir: string;
const prometheusLog: string[] = [];
let admin: RegisteredAccount;

async function query<Result>(path: string, params: Record<string, string> = {}) {
  const url = new URL(path, prometheusUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const response = await fetch(url);
  const body = (await response.json()) as { status: string; data: Result; error?: string };
  if (body.status !== 'success') throw new Error(`${url.href}: ${body.error ?? response.status}`);
  return body.data;
}

const instant = (expr: string) =>
  query<{ result: Array<{ metric: Record<string, string> }> }>('/api/v1/query', { query: expr });

const rules = (parse(await readFile(RULES, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
const panelQueries = dashboard.panels
  .flatMap((panel) => [panel, ...(panel.panels ?? [])])
  .flatMap((panel) =>
    (panel.targets ?? []).flatMap((target) =>
      target.expr === undefined ? [] : [{ panel: panel.title ?? '', expr: target.expr }],
    ),
  );

beforeAll(async () => {
  receivers = await startReceivers();
  api = await startTestApi(WEBHOOK_ENV);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const apiPort = (api.app.server.address() as AddressInfo).port;
  worker = await startWorkerProcess(api.tag, WEBHOOK_ENV);
  const ready = JSON.parse(await worker.waitForLine(/"msg":"worker ready"/)) as { http: string };

  dataDir = await mkdtemp(join(tmpdir(), 'ingest-prometheus-'));
  const config = join(dataDir, 'prometheus.yml');
  await writeFile(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [RULES],
      scrape_configs: [
        { job_name: 'ingest-api', static_configs: [{ targets: [`127.0.0.1:${apiPort}`] }] },
        {
          job_name: 'ingest-worker',
          static_configs: [{ targets: [new URL(ready.http).host] }],
        },
      ],
    }),
  );
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dataDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // Its log, for a failure to say why Prometheus did not start or scrape.
  prometheus.stderr?.on('data', (chunk: Buffer) => prometheusLog.push(chunk.toString()));
  admin = await registerAdmin(api);
}, STEP_TIMEOUT_MS);

afterAll(async () => {
  prometheus?.kill('SIGKILL');
  await worker?.stop();
  await api?.close();
  await receivers?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

/** Polls until `expr` returns at least one series. */
const seriesOf = (expr: string) =>
  expect
    .poll(async () => (await instant(expr)).result.length, { timeout: 20_000 })
    .toBeGreaterThan(0);

/**
 * A short load that makes every kind of series: applied, failed and rejected events, and
 * deliveries to an endpoint that fails. Returns with the queue paused over a backlog, for
 * the series that exist only while one waits; `resume` ends it.
 */
async function load(publisher: RegisteredAccount, key: string) {
  const path = `/failing-${uniqueSlug()}`;
  receivers.script(path, [{ status: 500 }]);
  const endpoint = await api.app.inject({
    method: 'POST',
    url: '/api/webhooks/endpoints',
    headers: bearer(publisher.token),
    payload: { url: `${receivers.base}${path}` },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);

  const slug = uniqueSlug();
  const finished = [
    await accept(api, key, 'article.create', articleData({ slug })),
    await accept(api, key, 'article.update', { slug, title: 'Changed' }),
    await accept(api, key, 'article.update', { slug: uniqueSlug(), title: 'No such article' }),
  ];
  for (const id of finished) await finalReceipt(api, key, id);
  // The update of no article failed for good, and is counted by its code.
  await seriesOf('ingest_events_failed_total{code="ARTICLE_NOT_FOUND"} > 0');
  expect((await sendEvent(api, key, 'article.create', { title: '' })).statusCode).toBe(400);
  await seriesOf('ingest_webhook_endpoint_failing_seconds');
  await seriesOf('ingest_webhook_attempt_seconds_bucket');

  const operate = (action: 'pause' | 'resume') =>
    api.app.inject({
      method: 'POST',
      url: `/api/admin/queue/${action}`,
      headers: bearer(admin.token),
    });
  expect((await operate('pause')).statusCode).toBe(200);
  const held: string[] = [];
  for (let i = 0; i < 5; i += 1)
    held.push(await accept(api, key, 'article.create', articleData({ slug: uniqueSlug() })));
  await seriesOf('ingest_account_queued_events');
  await expect.poll(async () => (await instant('ingest_queue_paused == 1')).result.length).toBe(2);
  return {
    async resume() {
      expect((await operate('resume')).statusCode).toBe(200);
      for (const id of held) expect((await finalReceipt(api, key, id)).status).toBe('succeeded');
    },
  };
}

describe('Prometheus against a real API and worker', () => {
  it(
    'evaluates every rule without error, serves every series the rules and the dashboard read, and answers every panel',
    { timeout: 3 * STEP_TIMEOUT_MS },
    async () => {
      await expect
        .poll(
          async () => {
            const { activeTargets } = await query<{
              activeTargets: Array<{ health: string }>;
            }>('/api/v1/targets').catch(() => ({ activeTargets: [] }));
            return activeTargets.map((target) => target.health);
          },
          { timeout: 30_000, message: prometheusLog.join('').slice(-2000) },
        )
        .toEqual(['up', 'up']);

      const publisher = await registerAccount(api);
      const { key } = await createKey(api, publisher);
      const backlog = await load(publisher, key);

      // Every rule has been evaluated since, and none failed (a bad expression, a vector
      // that cannot be matched one-to-one).
      await expect
        .poll(
          async () => {
            const { groups } = await query<{
              groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }>;
            }>('/api/v1/rules');
            return groups
              .flatMap((group) => group.rules)
              .filter((rule) => rule.health !== 'ok')
              .map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`);
          },
          { timeout: 20_000 },
        )
        .toEqual([]);

      const recorded = new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : [])));
      const read = new Set(
        [...rules.map((rule) => rule.expr), ...panelQueries.map((q) => asRun(q.expr))]
          .flatMap(seriesNames)
          .filter((name) => !recorded.has(name)),
      );
      // The names read came from the files: an empty list would prove nothing.
      expect(read.size).toBeGreaterThan(30);
      const served = new Set(
        (await instant('count by (__name__) ({__name__=~".+"})')).result.map(
          (series) => series.metric.__name__ ?? '',
        ),
      );
      expect([...read].filter((name) => !served.has(name))).toEqual([]);

      // A rate() needs two samples of a series: one that appeared at the last scrape, or
      // a scrape a loaded machine made late, answers at a later one.
      expect(panelQueries.length).toBeGreaterThan(20);
      await expect
        .poll(
          async () => {
            const empty = [];
            for (const { panel, expr } of panelQueries) {
              const { result } = await instant(asRun(expr));
              if (result.length === 0) empty.push(`${panel}: ${expr}`);
            }
            return empty;
          },
          { timeout: 20_000, interval: 1_000 },
        )
        .toEqual([]);

      await backlog.resume();
    },
  );

  it('reads the series names a PromQL expression names', () => {
    expect(seriesNames('sum by (le) (rate(foo_bucket{a="b"}[5m])) / on () bar offset 1h')).toEqual([
      'foo_bucket',
      'bar',
    ]);
  });
});
