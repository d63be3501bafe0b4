import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { isAppError } from '@ingest/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiDeps } from '../deps.js';
import { ADMIN_SESSION_COOKIE } from './authentication.js';
import { bullBoardPlugin } from './dashboard/bull-board.js';
import { findDashboardDist } from './dashboard/dist-folder.js';
import { sendProblem } from './problem.js';

const BASE = '/dashboard/';
const LOGIN = `${BASE}login`;
const hide = { schema: { hide: true } };

/**
 * The page holds no data (it fetches everything from the operator API), so a tight
 * policy costs nothing: scripts, styles and calls from this origin only, no framing.
 */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; " +
    "form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

type Visitor = 'operator' | 'anonymous' | 'expired' | 'forbidden';

/** Who asks for the page: an operator, or why not (the login page says so). */
async function visitorOf(request: FastifyRequest): Promise<Visitor> {
  try {
    await request.server.requireAdmin(request);
    return 'operator';
  } catch (error) {
    // Anything but a refusal (the database away, say) is the error handler's to render.
    if (!isAppError(error)) throw error;
    if (error.code === 'FORBIDDEN') return 'forbidden';
    return request.cookies[ADMIN_SESSION_COOKIE] === undefined ? 'anonymous' : 'expired';
  }
}

async function pagesPlugin(app: FastifyInstance, { dist }: { dist: string | undefined }) {
  async function sendPage(request: FastifyRequest, reply: FastifyReply) {
    const html =
      dist === undefined
        ? undefined
        : await readFile(join(dist, 'index.html'), 'utf8').catch(() => undefined);
    if (html === undefined) {
      return sendProblem(request, reply, {
        code: 'UNAVAILABLE',
        detail:
          'The dashboard is not built: run `pnpm --filter @ingest/dashboard build` (or `pnpm build`)',
      });
    }
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(html);
  }

  app.get('/dashboard', hide, async (_request, reply) => reply.redirect(BASE));
  // The app itself only with an operator session; without one, the login page. A page
  // shown to anyone would leak nothing (every figure comes from the operator API, which
  // checks each call), but a redirect is the clearer answer.
  app.get(BASE, hide, async (request, reply) => {
    const visitor = await visitorOf(request);
    if (visitor === 'operator') return sendPage(request, reply);
    return reply.redirect(visitor === 'anonymous' ? LOGIN : `${LOGIN}?reason=${visitor}`);
  });
  app.get(LOGIN, hide, sendPage);

  // Hashed file names: public, and cacheable for good. Only a plain file name is served
  // (the build writes nothing else there): @fastify/static's own wildcard answers 500 to
  // a directory, an empty name or a NUL, so anything else matches no route.
  if (dist === undefined) {
    app.get(`${BASE}assets/:file`, hide, sendPage);
  } else {
    await app.register(fastifyStatic, {
      root: join(dist, 'assets'),
      serve: false,
      index: false,
      immutable: true,
      maxAge: '365d',
    });
    app.get<{ Params: { file: string } }>(`${BASE}assets/:file`, hide, async (request, reply) => {
      const { file } = request.params;
      if (!ASSET_NAME.test(file)) return reply.callNotFound();
      return reply.sendFile(file);
    });
  }
}

/** What the dashboard's build names its assets: hashed names, no directories. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** /dashboard: the operators' page (apps/dashboard, built) and bull-board, admins only. */
export const dashboardPlugin = fp(
  async (app: FastifyInstance, { deps }: { deps: ApiDeps }) => {
    const dist = findDashboardDist();
    if (dist === undefined) deps.logger.warn('apps/dashboard not found: /dashboard answers 503');
    await app.register(pagesPlugin, { dist });
    await app.register(bullBoardPlugin, { deps });
  },
  { name: 'dashboard' },
);
