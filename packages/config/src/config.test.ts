import { describe, expect, it } from 'vitest';
import { ConfigError, loadApiConfig, loadDatabaseUrl, loadWorkerConfig } from './index.js';

const SECRET = 's'.repeat(32);

describe('loadApiConfig', () => {
  it('uses the local defaults when only a secret is given', () => {
    const config = loadApiConfig({ JWT_SECRET: SECRET });
    expect(config.database.url).toBe('postgresql://postgres:postgres@127.0.0.1:5432/ingest');
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
    expect(config.http).toEqual({ host: '127.0.0.1', port: 3000, trustProxy: false });
    expect(config.auth).toMatchObject({
      jwtSecret: SECRET,
      jwtExpiresInSeconds: 3600,
      apiKeyQuota: 50,
    });
    expect(config.limits.authBodyBytes).toBe(16 * 1024);
  });

  it('treats empty variables as unset', () => {
    expect(loadApiConfig({ JWT_SECRET: SECRET, PORT: '', LOG_LEVEL: '' }).http.port).toBe(3000);
  });

  it('reads typed values', () => {
    const config = loadApiConfig({
      JWT_SECRET: SECRET,
      PORT: '8080',
      TRUST_PROXY: 'true',
      API_KEY_QUOTA: '7',
    });
    expect(config.http.port).toBe(8080);
    expect(config.http.trustProxy).toBe(true);
    expect(config.auth.apiKeyQuota).toBe(7);
  });

  it('reads where outgoing webhooks may go: strict by default, hosts and CIDRs as listed', () => {
    expect(loadApiConfig({ JWT_SECRET: SECRET }).webhooks).toMatchObject({
      allowHttp: false,
      allowedPrivateHosts: [],
      endpointQuota: 20,
    });
    const config = loadApiConfig({
      JWT_SECRET: SECRET,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: ' 127.0.0.1, ::1 ,10.0.0.0/8,receiver.internal,',
    });
    expect(config.webhooks.allowHttp).toBe(true);
    expect(config.webhooks.allowedPrivateHosts).toEqual([
      '127.0.0.1',
      '::1',
      '10.0.0.0/8',
      'receiver.internal',
    ]);
    expect(() =>
      loadApiConfig({ JWT_SECRET: SECRET, WEBHOOK_ALLOWED_PRIVATE_HOSTS: '10.0.0.0/99' }),
    ).toThrow(/WEBHOOK_ALLOWED_PRIVATE_HOSTS/);
    expect(() =>
      loadApiConfig({ JWT_SECRET: SECRET, WEBHOOK_ALLOWED_PRIVATE_HOSTS: 'http://x/' }),
    ).toThrow(ConfigError);
  });

  it('reads a Redis Cluster in place of REDIS_URL, with six queue shards by default', () => {
    expect(loadApiConfig({ JWT_SECRET: SECRET }).redis).toMatchObject({
      cluster: null,
      queueShards: 1,
    });
    const { redis } = loadWorkerConfig({
      REDIS_CLUSTER_NODES: 'rediss://ops:p%40ss@10.0.0.1:7000, 10.0.0.2:7001',
    });
    expect(redis.cluster).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      username: 'ops',
      password: 'p@ss',
      tls: true,
    });
    expect(redis.queueShards).toBe(6);
    expect(
      loadWorkerConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_QUEUE_SHARDS: '3' }).redis
        .queueShards,
    ).toBe(3);
    expect(() => loadWorkerConfig({ REDIS_CLUSTER_NODES: '10.0.0.1' })).toThrow(
      /REDIS_CLUSTER_NODES must be host:port pairs/,
    );
    expect(() => loadWorkerConfig({ REDIS_QUEUE_SHARDS: '0' })).toThrow(/REDIS_QUEUE_SHARDS/);
  });

  it('reads METRICS_TOKEN, and refuses one too short to be a secret', () => {
    expect(loadApiConfig({ JWT_SECRET: SECRET }).metrics.token).toBeNull();
    const token = 'm'.repeat(16);
    expect(loadApiConfig({ JWT_SECRET: SECRET, METRICS_TOKEN: token }).metrics.token).toBe(token);
    expect(() => loadApiConfig({ JWT_SECRET: SECRET, METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN must be at least 16 characters/,
    );
  });

  it('lists every problem in one error', () => {
    let error: unknown;
    try {
      loadApiConfig({
        JWT_SECRET: 'short',
        PORT: '99999',
        TRUST_PROXY: 'maybe',
        REDIS_URL: 'http://x',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems } = error as ConfigError;
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/JWT_SECRET must be at least 32 bytes/);
    expect(problems.join('\n')).toMatch(/PORT/);
    expect(problems.join('\n')).toMatch(/TRUST_PROXY must be true or false/);
    expect(problems.join('\n')).toMatch(/REDIS_URL must start with redis:\/\/ or rediss:\/\//);
  });

  it('refuses a missing secret, and the one earlier versions published', () => {
    expect(() => loadApiConfig({})).toThrow(/JWT_SECRET is required/);
    expect(() =>
      loadApiConfig({ JWT_SECRET: 'insecure-development-secret-do-not-use-in-production' }),
    ).toThrow(/published in the source of earlier versions/);
    // There is no switch to sign with a public secret any more.
    expect(() => loadApiConfig({ ALLOW_INSECURE_DEV_SECRET: 'true' })).toThrow(
      /JWT_SECRET is required/,
    );
  });
});

describe('loadWorkerConfig', () => {
  it('needs no secret', () => {
    expect(loadWorkerConfig({}).database.poolSize).toBe(10);
  });

  it('keeps webhook messages as long as the event log keeps events, unless told otherwise', () => {
    expect(loadWorkerConfig({}).webhooks.retentionDays).toBe(30);
    expect(loadWorkerConfig({ EVENT_LOG_RETENTION_DAYS: '7' }).webhooks.retentionDays).toBe(7);
    const own = loadWorkerConfig({ EVENT_LOG_RETENTION_DAYS: '7', WEBHOOK_RETENTION_DAYS: '90' });
    expect(own.webhooks.retentionDays).toBe(90);
    expect(own.eventLog.retentionDays).toBe(7);
    expect(loadWorkerConfig({ WEBHOOK_RETENTION_DAYS: '0' }).webhooks.retentionDays).toBe(0);
    expect(() => loadWorkerConfig({ WEBHOOK_RETENTION_DAYS: '-1' })).toThrow(
      /WEBHOOK_RETENTION_DAYS/,
    );
  });
});

describe('loadDatabaseUrl', () => {
  it('reads DATABASE_URL alone: no other setting can stop a migration', () => {
    const url = 'postgresql://app@db.internal:5432/ingest';
    expect(loadDatabaseUrl({ DATABASE_URL: url, WORKER_CONCURRENCY: 'abc', PORT: 'x' })).toBe(url);
    expect(loadDatabaseUrl({})).toBe('postgresql://postgres:postgres@127.0.0.1:5432/ingest');
  });

  it('goes around a pooler: DATABASE_DIRECT_URL when it is set', () => {
    const pooled = 'postgresql://app@pgbouncer:6432/ingest';
    const direct = 'postgresql://app@db.internal:5432/ingest';
    expect(loadDatabaseUrl({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct })).toBe(direct);
    expect(() => loadDatabaseUrl({ DATABASE_DIRECT_URL: 'redis://db' })).toThrow(
      /DATABASE_DIRECT_URL must start with postgres:\/\/ or postgresql:\/\//,
    );
    const { database } = loadWorkerConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct });
    expect(database).toMatchObject({ url: pooled, directUrl: direct });
    expect(loadWorkerConfig({ DATABASE_URL: direct }).database.directUrl).toBe(direct);
  });

  it('reports an unparseable URL as a ConfigError, not a TypeError from `new URL`', () => {
    expect(() => loadDatabaseUrl({ DATABASE_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadDatabaseUrl({ DATABASE_URL: 'not a url' })).toThrow(
      /^Invalid configuration:\n {2}- DATABASE_URL must be a URL$/,
    );
    expect(() => loadDatabaseUrl({ DATABASE_URL: 'mysql://db/ingest' })).toThrow(
      /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//,
    );
  });
});
