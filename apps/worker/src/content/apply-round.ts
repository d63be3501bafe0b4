import {
  EVENT_NAMES,
  EVENT_TYPES,
  type ApplyScope,
  type Change,
  type EventData,
  type EventName,
  type Outcomes,
} from '@ingest/events';
import { stepsFailed, type Step } from './apply-plan.js';

/**
 * Applies one step of each of several lines (so their order among them does not matter):
 * every event type's changes in one call, types in the list's order. Throws ChangeFailed
 * naming the steps of a call that threw, or that left a change unanswered.
 */
export async function applyRound(scope: ApplyScope, steps: Step[]): Promise<Outcomes> {
  const byType = new Map<EventName, Step[]>();
  for (const step of steps) {
    const name = step.events[0]?.event;
    if (name !== undefined) byType.set(name, [...(byType.get(name) ?? []), step]);
  }
  const outcomes: Outcomes = new Map();
  for (const name of EVENT_NAMES) {
    const typed = byType.get(name) ?? [];
    if (typed.length === 0) continue;
    const changes = typed.flatMap(({ events }) => events.map(({ change }) => change));
    let answered: Outcomes;
    try {
      answered = await applyType(scope, name, changes);
    } catch (error) {
      throw stepsFailed(typed, error);
    }
    for (const { eventId } of changes) {
      const outcome = answered.get(eventId);
      if (outcome === undefined)
        throw stepsFailed(typed, new Error(`event ${eventId} was not answered`));
      outcomes.set(eventId, outcome);
    }
  }
  return outcomes;
}

const applyType = <Name extends EventName>(
  scope: ApplyScope,
  name: Name,
  changes: Array<Change<EventData<Name>>>,
): Promise<Outcomes> => EVENT_TYPES[name].apply(scope, changes);
