import type { ApiConfig } from '@ingest/config';
import type { Database } from '@ingest/db';
import type { Logger } from '@ingest/logger';
import type { Redis } from 'ioredis';

/** Everything the API needs from outside; server.ts builds it, tests build their own. */
export interface ApiDeps {
  config: ApiConfig;
  db: Database;
  /** A fail-fast (producer) connection, for rate limiting. */
  redis: Redis;
  logger: Logger;
}
