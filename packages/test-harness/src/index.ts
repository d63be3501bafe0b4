// The test and benchmark harness; see README.md. The private PostgreSQL cluster is its own
// entry (`@ingest/test-harness/private-postgres`): it loads the schema engine.
export {
  bearer,
  createApiKey,
  createPublisher,
  logIn,
  newAccountFields,
  registerAccount,
  type AccountFields,
  type CreatedApiKey,
  type PublisherAccount,
  type RegisteredAccount,
} from './accounts.js';
export {
  fetchClient,
  injectClient,
  type ApiClient,
  type ApiRequest,
  type ApiResponse,
  type HttpMethod,
  type InjectFunction,
} from './api-client.js';
export { freePort } from './free-port.js';
export { startPrivateRedis, type PrivateRedis } from './private-redis.js';
export {
  startPrivateRedisCluster,
  type ClusterNodeState,
  type PrivateRedisCluster,
} from './private-redis-cluster.js';
export { ProcessGroup, type ProcessGroupOptions } from './processes/process-group.js';
export { runCommand, runTsEntry, type Finished, type RunOptions } from './processes/run-command.js';
export {
  spawnProcess,
  startProcess,
  typeScriptEntry,
  type ProcessOptions,
  type Readiness,
  type RunningProcess,
  type StartOptions,
} from './processes/running-process.js';
export { REPO_ROOT } from './repo-root.js';
export { describeCommit, runProvenance, type RunProvenance } from './run-provenance.js';
export { seededRandom } from './seeded-random.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
