// The owner of the webhook-receivers scenario's endpoints, acting on the breaker as a person
// would: it watches each endpoint's state (GET /api/webhooks/endpoints/{id}) and notes
// every pause; once a paused endpoint's receiver takes deliveries again, it watches it a
// moment more, then resumes the endpoint (POST .../resume, with the account's token). Only
// the owner resumes: an endpoint seen paused stays so until it does. What it notes is what
// the breaker's checks judge (breaker-check.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { bearer, fetchClient } from '@ingest/test-harness';

export interface PauseRecord {
  /** The endpoint's receiver. */
  name: string;
  endpointId: string;
  /**
   * As the API told them (Date.now() scale): the first failed attempt of the streak the
   * breaker judged (from its reason), and the pause.
   */
  failingSince: number;
  pausedAt: number;
  /** Every `failingSince` the owner saw the endpoint with before the pause: the streaks. */
  streaksSeen: number[];
  /** The API's `pausedReason`. */
  reason: string;
  /** When the owner sent the resume; unset: never resumed. */
  resumeSentAt?: number;
  /** When the API had answered it. */
  resumedAt?: number;
}

export interface WatchedEndpoint {
  name: string;
  id: string;
  /** Whether its receiver takes deliveries at the moment. */
  takesDeliveries: () => boolean;
}

export interface Owner {
  /** Whether the endpoint is paused, as the owner last saw it. */
  isPaused(endpointId: string): boolean;
  /** Every pause seen, in order. */
  pauses: PauseRecord[];
  /** Resumes the API refused. */
  problems: string[];
  stop(): Promise<void>;
}

const LOOK_EVERY_MS = 250;
/**
 * How long a paused endpoint's receiver must have taken deliveries before its owner resumes
 * it: meanwhile nothing may reach it (its deliveries are held), which the checks hold it to.
 */
const WATCH_BEFORE_RESUME_MS = 3_000;

interface EndpointState {
  state: string;
  failingSince: string | null;
  pausedAt: string | null;
  pausedReason: string | null;
}

export function startOwner(
  baseUrl: string,
  token: string,
  watched: WatchedEndpoint[],
  log: (line: string) => void,
): Owner {
  const client = fetchClient(baseUrl, 5_000);
  const pauses: PauseRecord[] = [];
  const problems: string[] = [];
  /** Endpoint id -> its pause not yet resumed. */
  const open = new Map<string, PauseRecord>();
  /** Endpoint id -> since when its receiver has been seen taking deliveries while paused. */
  const takingSince = new Map<string, number>();
  /** Endpoint id -> the failure streaks seen since its last pause. */
  const streaks = new Map<string, number[]>();

  async function resume(endpoint: WatchedEndpoint, pause: PauseRecord): Promise<void> {
    pause.resumeSentAt = Date.now();
    const response = await client({
      method: 'POST',
      path: `/api/webhooks/endpoints/${endpoint.id}/resume`,
      headers: bearer(token),
    });
    if (response.status !== 200) {
      problems.push(`resuming ${endpoint.name}: ${response.status} ${response.text.slice(0, 200)}`);
      return;
    }
    pause.resumedAt = Date.now();
    open.delete(endpoint.id);
    takingSince.delete(endpoint.id);
    log(
      `endpoint ${endpoint.name} resumed by its owner, ${seconds(Date.now() - pause.pausedAt)} after its pause`,
    );
  }

  async function look(endpoint: WatchedEndpoint): Promise<void> {
    const response = await client({
      method: 'GET',
      path: `/api/webhooks/endpoints/${endpoint.id}`,
      headers: bearer(token),
    });
    if (response.status !== 200) return;
    const state = JSON.parse(response.text) as EndpointState;
    let pause = open.get(endpoint.id);
    const seen = streaks.get(endpoint.id) ?? [];
    const since = state.failingSince === null ? undefined : Date.parse(state.failingSince);
    if (pause === undefined && since !== undefined && seen.at(-1) !== since) {
      streaks.set(endpoint.id, [...seen, since]);
    }
    if (state.state !== 'paused' || state.pausedAt === null) {
      // A resume whose answer was lost took effect all the same.
      if (pause?.resumeSentAt !== undefined) {
        pause.resumedAt ??= Date.now();
        open.delete(endpoint.id);
        takingSince.delete(endpoint.id);
      }
      return;
    }
    if (pause === undefined) {
      const pausedAt = Date.parse(state.pausedAt);
      const reason = state.pausedReason ?? '';
      pause = {
        name: endpoint.name,
        endpointId: endpoint.id,
        failingSince: streakStart(reason) ?? Date.parse(state.failingSince ?? state.pausedAt),
        pausedAt,
        reason,
        streaksSeen: streaks.get(endpoint.id) ?? [],
      };
      streaks.delete(endpoint.id);
      pauses.push(pause);
      open.set(endpoint.id, pause);
      log(
        `endpoint ${endpoint.name} paused by the breaker, ${seconds(pausedAt - pause.failingSince)} after its first failed attempt`,
      );
    }
    if (!endpoint.takesDeliveries()) {
      takingSince.delete(endpoint.id);
      return;
    }
    const taking = takingSince.get(endpoint.id) ?? Date.now();
    takingSince.set(endpoint.id, taking);
    if (Date.now() - taking >= WATCH_BEFORE_RESUME_MS) await resume(endpoint, pause);
  }

  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      // A look that fails (the API busy, a timeout) is made again at the next round.
      await Promise.all(watched.map((endpoint) => look(endpoint).catch(() => undefined)));
      await sleep(LOOK_EVERY_MS);
    }
  })();
  return {
    isPaused: (endpointId) => open.has(endpointId),
    pauses,
    problems,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The start of the failure streak the breaker judged, as its reason gives it. The
 * endpoint's `failingSince` may have moved on by the time the owner looks: an attempt in
 * flight at the pause that succeeds clears it, a failure after that starts another.
 */
function streakStart(reason: string): number | undefined {
  const since = /failed since (\S+) \(WEBHOOK_BREAKER_AFTER\)/.exec(reason)?.[1];
  const at = since === undefined ? Number.NaN : Date.parse(since);
  return Number.isNaN(at) ? undefined : at;
}
