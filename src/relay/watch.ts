/**
 * What the relay tells its host about each request, for metrics and the access log (the Node adapter's
 * node/watch.ts turns it into both): the request id, the route's name (never the raw path), why it was
 * refused, the session it minted, and where the time went. Also the request id itself and the run-time
 * check of `trustProxy`. No `node:` imports: the edge build has this too.
 */
import type { RelayError } from './errors.js';
import { requestIdFrom } from '../server/request-id.js';

/** What `POST {base}/session` is doing. */
export type SessionRequestKind = 'new' | 'resume' | 'refresh';

/** Why the relay refused a request by itself (`parley_relay_refusals_total{reason}`, the log's `refusal`). */
export type RefusalReason = 'origin' | 'policy' | 'rate' | 'revoked' | 'auth' | 'size' | 'timeout' | 'store' | 'invalid';

/** Every reason, in the order the README lists them. */
export const REFUSAL_REASONS: readonly RefusalReason[] = ['origin', 'policy', 'rate', 'revoked', 'auth', 'size', 'timeout', 'store', 'invalid'];

/** One request as the relay saw it; written to `RelayEnv.record` when the host asks for it (sets it to null). */
export interface RequestRecord {
  /** Sent upstream and answered as `X-Request-Id`. */
  requestId: string;
  /** The route's name: a route-table name (`conversations.start`…), `session`, `streams.resume`, `healthz`…, or `unknown`. */
  route: string;
  refusal: RefusalReason | null;
  /** The kind of session token minted (`POST /session` answered 200), else null. */
  session: SessionRequestKind | null;
  /** The relay's own time until the answer's head, ms (the upstream's wait excluded). */
  ownMs: number;
  /** Time waiting for the upstream's answer head, ms (0: no upstream call). */
  upstreamMs: number;
  /** The client address (after `trustProxy`). */
  clientIp: string;
}

const REASON_BY_CODE: Record<string, RefusalReason> = {
  origin_not_allowed: 'origin', origin_mismatch: 'origin', origin_required: 'origin',
  scope_not_allowed: 'policy', agent_not_allowed: 'policy', model_not_allowed: 'policy', tool_not_allowed: 'policy',
  remote_file_not_allowed: 'policy', file_id_not_allowed: 'policy', session_refused: 'policy',
  rate_limited: 'rate', too_many_streams: 'rate',
  state_store_unavailable: 'store',
};

/** The refusal reason of an error the relay answered, or null when it is no refusal (the upstream failed, the client left). */
export function refusalReason(error: RelayError): RefusalReason | null {
  const named = error.reason ?? REASON_BY_CODE[error.code];
  if (named) return named as RefusalReason;
  const status = error.status;
  if (status === 401) return 'auth';
  if (status === 408) return 'timeout';
  if (status === 413) return 'size';
  if (status === 429) return 'rate';
  return status >= 400 && status < 499 ? 'invalid' : null;
}

/**
 * The request's id: the `X-Request-Id` a trusted proxy set (`trusted`: `trustProxy` is on), when it is sane;
 * otherwise a new UUID. Without a trusted proxy a client's own id is not taken (it could mimic another's in logs).
 */
export function requestIdOf(request: Request, trusted: boolean): string {
  return requestIdFrom(trusted ? request.headers.get('x-request-id') : null);
}

/**
 * The run-time check of `trustProxy`: a proxy in front always adds `X-Forwarded-For`, so a request without
 * one came around it (or there is none), and any client reaching the relay that way can spoof its address.
 * Warns once, naming the fix. Health probes (a load balancer's) are not checked.
 */
export function createProxyCheck(hops: number, warn: (message: string) => void): ((request: Request) => void) | undefined {
  if (hops <= 0) return undefined;
  let warned = false;
  return (request) => {
    if (warned || request.headers.has('x-forwarded-for')) return;
    warned = true;
    warn(`trustProxy is ${hops} but a request arrived without X-Forwarded-For: it did not come through a proxy, and a client `
      + 'that reaches the relay directly can set X-Forwarded-For to any address (rate limits by address then do not hold). '
      + 'Fix: let only your proxy reach the relay (bind it to 127.0.0.1 or a private address), or drop --trust-proxy.');
  };
}
