/**
 * `GET {base}/healthz` and `GET {base}/readyz`: no token, no rate limit, nothing secret in the answer.
 *
 *   /healthz  200 `{"status":"ok"}` at once: the process answers (liveness; no dependency is asked).
 *   /readyz   200 `{"status":"ready","checks":{…}}` when the state store (Redis, when there is one) answers a PING
 *             and the upstream answers HTTP at all (any status below 500 to an unauthenticated `GET /v1/models`);
 *             else 503 in the error shape, code `not_ready`, its `checks` naming what failed.
 *
 * The checks run at most once per second whatever the probe rate (a visitor cannot make the relay hammer Redis
 * or the upstream through it), each bounded by 2 s.
 */
import type { RelayRuntime } from './runtime.js';

/** The outcome of one check: `ok`, or `failed` (the reason is not told: it could name hosts). */
export type CheckResult = 'ok' | 'failed';

/** What `/readyz` checked. `store` is absent when the state is in this process's memory. */
export interface ReadinessChecks {
  store?: CheckResult;
  upstream: CheckResult;
}

const CHECK_TIMEOUT_MS = 2_000;
const CHECK_REUSE_MS = 1_000;
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The health routes of one relay. */
export interface RelayHealth {
  healthz(): Response;
  readyz(): Promise<Response>;
}

export function createRelayHealth(runtime: RelayRuntime): RelayHealth {
  let last: { at: number; checks: Promise<ReadinessChecks> } | undefined;
  const check = (): Promise<ReadinessChecks> => {
    const now = performance.now();
    if (last && now - last.at < CHECK_REUSE_MS) return last.checks;
    const checks = runChecks(runtime);
    last = { at: now, checks };
    return checks;
  };
  return {
    healthz: () => new Response('{"status":"ok"}', { status: 200, headers: JSON_HEADERS }),
    async readyz() {
      const checks = await check();
      const failed = Object.entries(checks).filter(([, result]) => result === 'failed').map(([name]) => name);
      if (!failed.length) return new Response(JSON.stringify({ status: 'ready', checks }), { status: 200, headers: JSON_HEADERS });
      const body = {
        object: 'error', message: `Not ready: ${failed.map((name) => `${name === 'store' ? 'the state store (Redis)' : 'the upstream'} cannot be reached`).join('; ')}`,
        type: 'server_error', param: null, code: 'not_ready', checks,
      };
      return new Response(JSON.stringify(body), { status: 503, headers: { ...JSON_HEADERS, 'retry-after': '1' } });
    },
  };
}

async function runChecks(runtime: RelayRuntime): Promise<ReadinessChecks> {
  const ping = runtime.store.ping?.bind(runtime.store);
  const [store, upstream] = await Promise.all([
    ping ? settle(bounded(ping())) : undefined,
    settle(upstreamAnswers(runtime)),
  ]);
  return store === undefined ? { upstream } : { store, upstream };
}

/** Whether the upstream answers HTTP (any status below 500) to a request without the key. */
async function upstreamAnswers(runtime: RelayRuntime): Promise<void> {
  const url = `${runtime.upstream.baseUrl.replace(/\/+$/, '')}/v1/models`;
  const response = await runtime.upstream.fetch(new Request(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) }));
  await response.body?.cancel();
  if (response.status >= 500) throw new Error(`upstream answered ${response.status}`);
}

function bounded(promise: Promise<unknown>): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function settle(promise: Promise<unknown>): Promise<CheckResult> {
  try {
    await promise;
    return 'ok';
  } catch {
    return 'failed';
  }
}
