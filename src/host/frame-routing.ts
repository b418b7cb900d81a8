import type { ChildScope } from './slot.js';

/** Requests a server may make of its client that lanegate relays to a lane. */
const RELAYED = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);
/** A child polling a task the lane's client holds for it: relayed only from a child that serves that lane alone. */
const CLIENT_TASK_POLLS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel']);

export type ServerRequestRoute = { kind: 'answer' } | { kind: 'relay'; lane: string } | { kind: 'hazard' } | { kind: 'refuse' };

/**
 * Where a request a child sent goes. Pure. Over stdio such a request names no related request, so
 * it can be relayed only from a child that serves exactly one lane so far; on a child several lanes
 * use it is a hazard (it cannot be routed without risking a cross-lane leak).
 */
export const routeServerRequest = (scope: ChildScope, method: string): ServerRequestRoute => {
  if (method === 'ping') return { kind: 'answer' };
  if (scope.contested) return { kind: 'hazard' };
  if (scope.sole !== undefined && RELAYED.has(method)) return { kind: 'relay', lane: scope.sole };
  if (scope.lanes !== 'all' && scope.sole !== undefined && CLIENT_TASK_POLLS.has(method)) return { kind: 'relay', lane: scope.sole };
  return { kind: 'refuse' };
};

export type NotificationRoute =
  | { kind: 'to_call' }
  | { kind: 'to_lane'; lane: string }
  | { kind: 'list_changed' }
  | { kind: 'resource_updated' }
  | { kind: 'acknowledged' }
  | { kind: 'hazard' }
  | { kind: 'drop' };

/**
 * Where a notification a child sent goes. Pure. Progress goes only to the call whose (gateway-made)
 * token it carries, never broadcast; a progress frame no call owns on a contested child is a hazard.
 * A log line names no call: it reaches a lane only from a child serving that lane alone.
 * A resource update goes to the holders of a subscription to its URI on that child.
 */
export const routeNotification = (scope: ChildScope, method: string, ownedToken: boolean): NotificationRoute => {
  if (method === 'notifications/progress')
    return ownedToken ? { kind: 'to_call' } : scope.contested ? { kind: 'hazard' } : { kind: 'drop' };
  if (method === 'notifications/message') {
    const only = scope.lanes !== 'all' && scope.lanes.length === 1 ? scope.lanes[0] : undefined;
    return only !== undefined ? { kind: 'to_lane', lane: only } : { kind: 'drop' };
  }
  if (method.endsWith('/list_changed')) return { kind: 'list_changed' };
  // To the holders of a subscription to that URI on that child, and no one else.
  if (method === 'notifications/resources/updated') return { kind: 'resource_updated' };
  // A 2026-07-28 child acknowledging one of the host's own listens (never passed on).
  if (method === 'notifications/subscriptions/acknowledged') return { kind: 'acknowledged' };
  return { kind: 'drop' };
};
