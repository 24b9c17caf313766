import { randomBytes, randomUUID } from 'node:crypto';

/** Prefixed ids as the platform makes them: `conv_`, `msg_`, `fc_`, `handoff_`, `tool_exec_`, `ag_` + 32 hex. */
export type IdPrefix = 'conv' | 'msg' | 'fc' | 'handoff' | 'tool_exec' | 'ag';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A 9-character alphanumeric `tool_call_id`, like the platform's. */
export function newToolCallId(): string {
  const bytes = randomBytes(9);
  let out = '';
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return out;
}

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
