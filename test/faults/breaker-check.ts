// The breaker's verdict, from the owner's notes (endpoint-owner.ts) and what the receivers
// got: an endpoint is paused only once every attempt has failed for the window, and the
// one meant to be (down) is; nothing reaches a paused endpoint until its owner resumes it,
// and after the resume nothing it has answered with a 2xx comes again; each pause is told
// once, in an endpoint.paused notice to the account's other endpoints that take notices.
import type { DeliveriesSnapshot, MessageRow } from './deliveries-queries.js';
import type { PauseRecord } from './endpoint-owner.js';
import {
  accepted,
  NOTICE_TYPE,
  passesFilter,
  type EndpointRecord,
  type Recipients,
  type RunRecord,
} from './endpoint-records.js';
import type { ReceivedRequest } from './webhook-receivers.js';

/** Around a pause's bounds, as the owner saw them: who may have been paused as a notice was written. */
const PAUSE_SLACK_MS = 1_000;
/**
 * An attempt whose job read its endpoint just before the pause still goes out: on a busy
 * machine, its request may reach the receiver this long after.
 */
export const IN_FLIGHT_AT_PAUSE_MS = 2_000;

/** A 2xx this long before a streak was seen may have been recorded after it, ending it. */
const LATE_SUCCESS_MS = 5_000;

export interface PauseReport {
  name: string;
  /** From the streak's first failed attempt to the pause. */
  tookMs: number;
  /** From the first streak the owner saw (since the last pause) to the pause. */
  seenMs?: number;
  /** From the pause to the resume; unset: never resumed. */
  pausedForMs?: number;
  /** Requests its receiver got from the resume on, and of them those again after a 2xx. */
  afterResume: number;
  againAfterResume: number;
  /** Of those, requests whose job had lost its lock (run twice at once). */
  lockLostAfterResume: number;
}

export interface BreakerReport {
  windowMs: number;
  pauses: PauseReport[];
}

const iso = (ms: number) => new Date(ms).toISOString();

const noticeOf = (message: MessageRow) => {
  const { data } = JSON.parse(message.body) as {
    data?: { endpointId?: string; pausedAt?: string };
  };
  return { endpointId: data?.endpointId ?? '?', pausedAt: data?.pausedAt ?? '?' };
};

/** The pause a notice tells of, as the owner saw it. */
const pauseTold = (message: MessageRow, run: RunRecord): PauseRecord | undefined => {
  const { endpointId, pausedAt } = noticeOf(message);
  return run.pauses.find((p) => p.endpointId === endpointId && p.pausedAt === Date.parse(pausedAt));
};

/**
 * Who a notice is for: the account's other endpoints that subscribe to notices and whose
 * filter passes one. Those paused then are not told (they cannot take it): an endpoint the
 * owner saw paused about then may or may not have been.
 */
export function noticeRecipients(
  message: MessageRow,
  endpoints: EndpointRecord[],
  run: RunRecord,
  problems: string[],
): Recipients {
  const pause = pauseTold(message, run);
  if (pause === undefined) {
    const { endpointId, pausedAt } = noticeOf(message);
    problems.push(
      `notice ${message.id} tells of a pause of ${endpointId} at ${pausedAt} that no one saw`,
    );
    return { must: new Set(), may: new Set() };
  }
  const listeners = endpoints.filter(
    (e) => e.id !== pause.endpointId && e.events.includes(NOTICE_TYPE) && passesFilter(e, null),
  );
  const pausedThen = (endpoint: EndpointRecord) =>
    run.pauses.some(
      (p) =>
        p.endpointId === endpoint.id &&
        p.pausedAt - PAUSE_SLACK_MS <= pause.pausedAt &&
        pause.pausedAt <= (p.resumedAt ?? Infinity) + PAUSE_SLACK_MS,
    );
  const ids = (list: EndpointRecord[]) => new Set(list.map((endpoint) => endpoint.id));
  return {
    must: ids(listeners.filter((endpoint) => !pausedThen(endpoint))),
    may: ids(listeners.filter(pausedThen)),
  };
}

export function checkBreaker(
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  run: RunRecord,
  problems: string[],
): BreakerReport {
  for (const endpoint of endpoints.filter((candidate) => candidate.expectPause === true)) {
    if (run.pauses.some((pause) => pause.endpointId === endpoint.id)) continue;
    problems.push(
      `the breaker never paused ${endpoint.name}, down far longer than its ${run.breakerAfterMs} ms`,
    );
  }
  const pauses = run.pauses.map((pause): PauseReport => {
    const requests = endpoints.find((e) => e.id === pause.endpointId)?.requests ?? [];
    checkNotices(pause, snapshot, endpoints, run, problems);
    const firstSeen = Math.min(...pause.streaksSeen);
    return {
      name: pause.name,
      ...checkStreak(pause, firstSeen, requests, run, problems),
      ...(Number.isFinite(firstSeen) ? { seenMs: pause.pausedAt - firstSeen } : {}),
      ...(pause.resumeSentAt === undefined
        ? {}
        : { pausedForMs: pause.resumeSentAt - pause.pausedAt }),
      ...checkHeld(pause, requests, snapshot, run, problems),
    };
  });
  return { windowMs: run.breakerAfterMs, pauses };
}

/** Each pause told in one notice, when some other endpoint takes notices. */
function checkNotices(
  pause: PauseRecord,
  snapshot: DeliveriesSnapshot,
  endpoints: EndpointRecord[],
  run: RunRecord,
  problems: string[],
): void {
  const told = snapshot.messages.filter(
    (message) => message.type === NOTICE_TYPE && pauseTold(message, run) === pause,
  ).length;
  const listening = endpoints.some(
    (e) => e.id !== pause.endpointId && e.events.includes(NOTICE_TYPE) && passesFilter(e, null),
  );
  if (told > 1 || (listening && told === 0)) {
    problems.push(
      `the pause of ${pause.name} at ${iso(pause.pausedAt)} was told in ${told} notices, not 1`,
    );
  }
}

/**
 * The pause came after the window, counted from the start of the streak the breaker judged;
 * and that streak is the one the owner saw first, unless the receiver took something since.
 */
function checkStreak(
  pause: PauseRecord,
  firstSeen: number,
  requests: ReceivedRequest[],
  run: RunRecord,
  problems: string[],
): Pick<PauseReport, 'tookMs'> {
  const tookMs = pause.pausedAt - pause.failingSince;
  if (tookMs < run.breakerAfterMs) {
    problems.push(
      `the breaker paused ${pause.name} ${tookMs} ms into its failures, within its ${run.breakerAfterMs} ms`,
    );
  }
  const tookAny = requests.some(
    (r) =>
      accepted(r) && (r.closedAt ?? r.at) > firstSeen - LATE_SUCCESS_MS && r.at < pause.pausedAt,
  );
  if (firstSeen < pause.failingSince && !tookAny) {
    problems.push(
      `the breaker judged ${pause.name}'s failures from ${iso(pause.failingSince)}, though they had gone on since ${iso(firstSeen)} with no 2xx at its receiver: its streak restarted without a success`,
    );
  }
  return { tookMs };
}

/**
 * Nothing reached the endpoint while it was paused (past the attempts already under way),
 * and after its resume nothing it had taken came again, unless a job ran twice: its worker
 * killed after a 2xx it had no time to record, or stalled past its lock while another
 * worker took the job over (at least once). Before the resume, nothing the endpoint took
 * can have been cut so.
 */
function checkHeld(
  pause: PauseRecord,
  requests: ReceivedRequest[],
  snapshot: DeliveriesSnapshot,
  run: RunRecord,
  problems: string[],
): Pick<PauseReport, 'afterResume' | 'againAfterResume' | 'lockLostAfterResume'> {
  const resumed = pause.resumeSentAt ?? Infinity;
  const whilePaused = requests.filter(
    (r) => r.at > pause.pausedAt + IN_FLIGHT_AT_PAUSE_MS && r.at < resumed,
  );
  if (whilePaused.length > 0) {
    problems.push(
      `${pause.name} got ${whilePaused.length} requests while paused, before its owner resumed it (first: ${whilePaused[0]?.webhookId})`,
    );
  }
  const next = run.pauses.find(
    (p) => p.endpointId === pause.endpointId && p.pausedAt > pause.pausedAt,
  );
  const after = requests.filter((r) => r.at >= resumed && r.at < (next?.pausedAt ?? Infinity));
  const deliveryOf = (request: ReceivedRequest) =>
    snapshot.deliveries.find(
      (d) => d.endpointId === pause.endpointId && `msg_${d.messageId}` === request.webhookId,
    )?.id ?? '';
  const again = againAfterTaken(requests, after);
  const unexcused = again.filter((request) => !run.lockLost.includes(deliveryOf(request)));
  if (unexcused.length > 0 && !run.kills.some((kill) => kill >= resumed)) {
    problems.push(
      `${pause.name} got ${unexcused.length} messages again after a 2xx, after the resume, with no worker killed and no lock lost (first: ${unexcused[0]?.webhookId})`,
    );
  }
  return {
    afterResume: after.length,
    againAfterResume: again.length,
    lockLostAfterResume: again.length - unexcused.length,
  };
}

/** Of `some` requests, those for a webhook-id the receiver had answered with a 2xx before. */
function againAfterTaken(requests: ReceivedRequest[], some: ReceivedRequest[]) {
  const takenAt = new Map<string, number>();
  for (const request of requests.filter(accepted)) {
    const at = request.closedAt ?? request.at;
    takenAt.set(request.webhookId, Math.min(at, takenAt.get(request.webhookId) ?? at));
  }
  return some.filter((request) => request.at > (takenAt.get(request.webhookId) ?? Infinity));
}
