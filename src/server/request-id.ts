/**
 * Request ids the relay and the local platform share: an incoming `X-Request-Id` is taken as it is when it is
 * 1–128 of letters, digits and `._:+=/-` (UUIDs, trace ids, base64), else a new UUID is made. No `node:` imports:
 * the relay's edge build uses it too.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:+=/-]{1,128}$/;

/** `given` when it is a sane request id, else a new UUID. */
export function requestIdFrom(given: string | null | undefined): string {
  return given != null && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}
