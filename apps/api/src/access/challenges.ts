import { AppError } from '@ingest/contracts';

/** Challenges a 401 carries (RFC 9110): how to authenticate on this route. */
export const CHALLENGES = {
  bearer: 'Bearer realm="ingest"',
  apiKey: 'ApiKey realm="ingest", header="x-api-key"',
} as const;

/** 401 UNAUTHENTICATED, with the challenges of the schemes the route accepts. */
export const unauthenticated = (message: string, ...challenges: string[]): AppError =>
  new AppError('UNAUTHENTICATED', message, {
    headers: { 'www-authenticate': challenges.join(', ') },
  });
