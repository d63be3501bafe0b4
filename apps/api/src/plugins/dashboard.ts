import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiDeps } from '../deps.js';

/** /dashboard: the operators' page (apps/dashboard, built) and bull-board, admins only. */
export const dashboardPlugin = fp(
  async (_app: FastifyInstance, _options: { deps: ApiDeps }) => {},
  { name: 'dashboard' },
);
