import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  DEFAULT_COST,
  refusalOf,
  tenantOfAccount,
  tenantOfAddress,
  type Admission,
  type FairAdmission,
  type Queued,
  type Refusal,
  type RefusalReason,
  type RefusalReport,
  type ShareBook,
  type Slot,
  type Tenant,
} from '@ingest/fairness';
import { sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Held from admission until the answer (or until the request stops holding anything). */
    admissionSlot: Slot;
    /** Set when the request was refused before any work: its answer is counted, not logged. */
    refusedFor: RefusalReason | null;
  }
  interface FastifyContextConfig {
    /**
     * `false`: never queued nor refused by admission control (probes and scrapes); a
     * number: the places the route's requests hold (DEFAULT_COST when unset).
     */
    admission?: false | number;
  }
  interface FastifyInstance {
    /** Answers a refusal: counted by reason, summed up in the log, never logged alone. */
    refuse(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): FastifyReply;
  }
}

export interface AdmissionPluginOptions {
  admission: FairAdmission;
  shares: ShareBook;
  refusals: RefusalReport;
}

const tenantOf = (request: FastifyRequest): Tenant =>
  request.principal === null
    ? tenantOfAddress(request.ip)
    : tenantOfAccount(request.principal.accountId);

/**
 * Admission control (@ingest/fairness) on every route but probes and scrapes. It runs before
 * the body is read (preParsing), after authentication (the routes' onRequest hooks) has
 * named the tenant: a request that waits holds its socket and nothing else, and one that
 * is refused costs its headers and a small answer.
 */
export const admissionPlugin = fp(
  async (app: FastifyInstance, options: AdmissionPluginOptions) => {
    const { admission, refusals, shares } = options;
    const queued = new WeakMap<FastifyRequest, Queued>();
    app.decorateRequest('admissionSlot', null);
    app.decorateRequest('refusedFor', null);
    app.decorate('refuse', (request: FastifyRequest, reply: FastifyReply, refusal: Refusal) => {
      request.refusedFor = refusal.reason;
      refusals.refused(refusal.reason, request.principal?.accountId);
      return sendProblem(request, reply, refusal);
    });

    app.addHook('preParsing', async (request, reply, payload) => {
      const cost = request.routeOptions.config.admission ?? DEFAULT_COST;
      if (cost === false) return payload;
      const { principal } = request;
      const weight = principal === null ? 1 : shares.shareOf(principal.accountId).weight;
      const admitted = admission.admit(tenantOf(request), cost, weight);
      let decision: Admission;
      if (admitted.admitted === 'waiting') {
        queued.set(request, admitted);
        decision = await admitted.outcome;
        queued.delete(request);
      } else decision = admitted;
      if (decision.admitted) {
        request.admissionSlot = decision.slot;
        if (decision.slot !== null) releaseIfAbandoned(request, reply, admission);
      } else if (!request.raw.destroyed) app.refuse(request, reply, refusalOf(decision, cost));
      return payload;
    });

    // A request holds its places until it has its answer (its work is done), whether or
    // not its client is still there to receive it: one that left mid-way still has its
    // query or its batch in flight, and letting others in meanwhile would pile them up in
    // the pool behind it.
    app.addHook('onSend', async (request, _reply, payload) => {
      releaseAdmission(request, admission);
      return payload;
    });
    // Gone while waiting: it leaves its queue, holding nothing (the hook sends nothing).
    app.addHook('onRequestAbort', async (request) => queued.get(request)?.cancel());
    app.addHook('onClose', async () => refusals.flush());
  },
  { name: 'admission' },
);

/**
 * Should a request whose client has gone never reach its answer (a handler that hangs),
 * its places come back after this long anyway: a place lost is lost to every tenant.
 */
const ABANDONED_MS = 30_000;

function releaseIfAbandoned(
  request: FastifyRequest,
  reply: FastifyReply,
  admission: FairAdmission,
): void {
  reply.raw.once('close', () => {
    if (request.admissionSlot === null) return;
    setTimeout(() => releaseAdmission(request, admission), ABANDONED_MS).unref();
  });
}

/**
 * The request no longer holds anything the API has little of: answered, or waiting only
 * for its outcome (`Prefer: wait`), which costs a timer, not a place.
 */
export function releaseAdmission(request: FastifyRequest, admission: FairAdmission): void {
  admission.finish(request.admissionSlot);
  request.admissionSlot = null;
}
