import underPressure from '@fastify/under-pressure';
import { AppError } from '@ingest/contracts';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const RETRY_AFTER_SECONDS = 2;

export interface LoadSheddingOptions {
  /** Milliseconds of event-loop lag past which requests are refused; 0: never. */
  maxEventLoopDelayMs: number;
  /** Event-loop utilisation (0-1) past which requests are refused; 0: never. */
  maxEventLoopUtilization: number;
}

/**
 * Beyond what the process can take, answering late helps nobody: latency grows without
 * bound and clients time out after the work is done. @fastify/under-pressure samples the
 * event loop; while it is saturated, requests are refused at once with 503 UNAVAILABLE
 * and Retry-After, which well-behaved bots back off on.
 */
export const loadSheddingPlugin = fp(
  async (app: FastifyInstance, options: LoadSheddingOptions) => {
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      maxEventLoopUtilization: options.maxEventLoopUtilization,
      // Over the last sample interval (1 s), not the plugin's default of the whole time
      // since start-up: an API that had idled for an hour would average a saturated
      // minute away and never shed.
      eventLoopUtilizationMode: 'interval',
      pressureHandler: async (request, _reply, type, value) => {
        request.log.warn({ pressure: type, value }, 'shedding load');
        throw new AppError('UNAVAILABLE', 'The service is overloaded; retry in a moment', {
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
        });
      },
    });
  },
  { name: 'load-shedding' },
);
