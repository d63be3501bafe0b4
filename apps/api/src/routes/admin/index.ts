import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { adminAccountRoutes } from './accounts.js';
import { adminDeliveryRoutes } from './deliveries.js';
import { adminHistoryRoutes } from './history.js';
import { adminOperationRoutes } from './operations.js';
import { adminSessionRoutes } from './session.js';

/** /api/admin: operators only (admin role, granted with `pnpm admin:grant <email>`). */
export const adminRoutes: FastifyPluginAsyncZod<{ deps: ApiDeps }> = async (app, { deps }) => {
  await app.register(adminSessionRoutes, { deps });
  await app.register(adminOperationRoutes, { deps });
  await app.register(adminDeliveryRoutes, { deps });
  await app.register(adminAccountRoutes, { deps });
  await app.register(adminHistoryRoutes, { deps });
};
