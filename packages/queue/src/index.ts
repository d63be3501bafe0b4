export { connectRedis, createRedisConnection, type RedisRole } from './redis-connection.js';
export { checkRedis, describeRedisUrl } from './reachability.js';
