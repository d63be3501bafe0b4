export { createDatabase, type Database, type DatabaseOptions } from './client.js';
export { checkDatabase } from './reachability.js';
export { readDeploymentId } from './deployment.js';
export { reportPoolerSessions } from './pooler-sessions.js';
export { createReadReplica, type ReadReplica, type ReadReplicaOptions } from './read-replica.js';
export { uniqueViolationOf, violatesUniqueColumn, type UniqueViolation } from './errors.js';
export { Prisma, PrismaClient } from './generated/prisma/client.js';
export type {
  AccountModel as Account,
  ApiKeyModel as ApiKey,
  WebhookEndpointModel as WebhookEndpoint,
} from './generated/prisma/models.js';
export { databaseFailureOf, postgresCodeOf, type DatabaseFailure } from './failures.js';
export {
  createGroupCommit,
  type GroupCommit,
  type GroupCommitOptions,
  type Submitted,
} from './group-commit.js';
export type { Waiting } from './waiting.js';
export { readCustomShares } from './queue-shares.js';
