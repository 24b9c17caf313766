/** The ids and timestamps the platform makes, and the UUID check of ids it is given. */
import { randomUUID } from 'node:crypto';

/** Prefixed ids as the platform makes them: `conv_`, `msg_`, `fc_`, `handoff_`, `tool_exec_`, `ag_` + 32 hex. */
export type IdPrefix = 'conv' | 'msg' | 'fc' | 'handoff' | 'tool_exec' | 'ag';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

/** The `id` of a completion, moderation, classification or embedding answer: 32 hex characters. */
export const completionId = (): string => randomUUID().replace(/-/g, '');

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether `s` is a UUID (any case). */
export const isUuid = (s: string) => UUID_RE.test(s);

let lastMicros = 0;
/**
 * Now as ISO-8601 with microseconds and `Z` (`2025-06-16T09:19:56.901953Z`).
 * Strictly increasing within the process, so entries made in one millisecond keep their order.
 */
export function isoNow(): string {
  let micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  if (micros <= lastMicros) micros = lastMicros + 1;
  lastMicros = micros;
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString(); // 2025-06-16T09:19:56.901Z
  return `${base.slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`;
}
