import { describe, expect, it } from 'vitest';
import { ConfigError, loadApiConfig, loadWorkerConfig } from './index.js';

const SECRET = 's'.repeat(32);
const api = (env: Record<string, string>) => loadApiConfig({ JWT_SECRET: SECRET, ...env }).tracing;

describe('tracing settings (OTEL_*)', () => {
  it('are off unless an OTLP endpoint is named', () => {
    expect(api({})).toEqual({ enabled: false });
    expect(api({ OTEL_TRACES_SAMPLER: 'always_on' })).toEqual({ enabled: false });
  });

  it('post to <endpoint>/v1/traces, or to the traces endpoint as given', () => {
    expect(api({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      enabled: true,
      url: 'http://collector:4318/v1/traces',
      serviceName: 'ingest-api',
      sampler: 'parentbased_always_on',
    });
    expect(
      api({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/in',
      }),
    ).toMatchObject({ url: 'https://traces.example/in' });
  });

  it('name each process its own service unless OTEL_SERVICE_NAME says', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadWorkerConfig(env).tracing).toMatchObject({ serviceName: 'ingest-worker' });
    expect(api({ ...env, OTEL_SERVICE_NAME: 'edge-api' })).toMatchObject({
      serviceName: 'edge-api',
    });
  });

  it('read the sampler, headers and resource attributes', () => {
    expect(
      api({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D,tenant = blue',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
      }),
    ).toMatchObject({
      sampler: 'parentbased_traceidratio',
      ratio: 0.01,
      headers: { 'x-api-key': 'abc=', tenant: 'blue' },
      resourceAttributes: { 'deployment.environment': 'prod' },
    });
  });

  it('stay off when disabled, whatever the endpoint', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(api({ ...env, OTEL_SDK_DISABLED: 'true' })).toEqual({ enabled: false });
    expect(api({ ...env, OTEL_TRACES_EXPORTER: 'none' })).toEqual({ enabled: false });
  });

  it('refuse what they cannot honour, naming it', () => {
    const refused = (env: Record<string, string>) => () => api(env);
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(refused({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(refused({ OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(ConfigError);
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});
