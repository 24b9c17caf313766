/**
 * The bearer token a page uses toward the relay: fetched from `POST {relay}/session`, kept in
 * memory only, refreshed shortly before it expires, resumed after a reload with a resume token.
 */
import type { HistoryStoreApi, SessionResponse } from './contracts.js';
import { PlatformError, isOriginRefusal } from './errors.js';
import { fetchWithRetry, retryPolicy, type RetryOptions } from './retry.js';

/** Anything that gives the client a bearer token: a {@link RelaySession}, or a site's own function. */
export interface TokenSource {
  /** A token valid now (fetched or refreshed when needed). */
  getToken(): Promise<string>;
  /** Forgets the current token (it was refused), so the next `getToken()` gets a new one. */
  invalidate?(): void;
  /** The optional routes the relay serves for this session, as its last session answer listed them (`SessionResponse.features`). */
  readonly features?: readonly string[];
}

/** Where resume tokens are kept across reloads (the history store has these two methods). */
export type ResumeTokenStore = Pick<HistoryStoreApi, 'getResumeToken' | 'setResumeToken'>;

export interface RelaySessionOptions {
  /** The relay's base URL; the session endpoint is `{relayUrl}/session`. */
  relayUrl: string;
  /** fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
  /** Keeps the resume token so a reload gets a token for the same session (the relay ties conversations to it). */
  store?: ResumeTokenStore;
  /** Refresh this long before expiry (default: 60 s or 10 % of the token's lifetime, whichever is shorter). */
  refreshMarginMs?: number;
  /** Retries of the session request (429/503/network, before any answer). */
  retry?: RetryOptions;
  /** Clock (tests). */
  now?: () => number;
}

interface HeldToken { token: string; expiresAt: number; issuedAt: number }

/**
 * A relay session: `getToken()` gives a valid bearer token, asking the relay only when there is
 * none yet or it is about to expire. Concurrent callers share one request (single flight).
 *
 * - First token: `{resume_token}` when the store has one for this relay URL, else `{}`; if the
 *   relay refuses the resume token (401/403), a fresh session is asked for with `{}`.
 * - Refresh: `{token}` with the current token; if refused (401/403), resume or start afresh as above.
 * - Every answer's `resume_token` is saved to the store. The bearer token itself is never stored.
 */
export class RelaySession implements TokenSource {
  readonly relayUrl: string;
  #held: HeldToken | null = null;
  #inflight: Promise<string> | null = null;
  #sessionId: string | null = null;
  #features: readonly string[] = [];
  readonly #fetch: typeof fetch;
  readonly #store?: ResumeTokenStore;
  readonly #margin?: number;
  readonly #retry;
  readonly #now: () => number;

  constructor(options: RelaySessionOptions) {
    this.relayUrl = options.relayUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#store = options.store;
    this.#margin = options.refreshMarginMs;
    this.#retry = retryPolicy(options.retry);
    this.#now = options.now ?? Date.now;
  }

  /** The relay's id of this session (known after the first token). */
  get sessionId(): string | null {
    return this.#sessionId;
  }

  /** The optional routes the relay serves for this session (`SessionResponse.features`; known after the first token). */
  get features(): readonly string[] {
    return this.#features;
  }

  /** A token valid for at least the refresh margin; fetches or refreshes it when needed. */
  getToken(): Promise<string> {
    const held = this.#held;
    if (held && this.#now() < held.expiresAt - this.#marginFor(held)) return Promise.resolve(held.token);
    if (!this.#inflight) {
      this.#inflight = this.#obtain(held).finally(() => {
        this.#inflight = null;
      });
    }
    return this.#inflight;
  }

  /** Drops the token in memory (e.g. the relay answered 401); the next `getToken()` asks again. */
  invalidate(): void {
    this.#held = null;
  }

  #marginFor(held: HeldToken): number {
    if (this.#margin != null) return this.#margin;
    return Math.min(60_000, Math.max(0, held.expiresAt - held.issuedAt) * 0.1);
  }

  async #obtain(held: HeldToken | null): Promise<string> {
    if (held && this.#now() < held.expiresAt) {
      const refreshed = await this.#post({ token: held.token }, true);
      if (refreshed) return refreshed;
    }
    const resumeToken = await this.#store?.getResumeToken(this.relayUrl).catch(() => undefined);
    if (resumeToken) {
      const resumed = await this.#post({ resume_token: resumeToken }, true);
      if (resumed) return resumed;
    }
    return (await this.#post({}, false)) as string;
  }

  /** Posts to the session endpoint; null when `mayBeRefused` and the relay answered 401/403. */
  async #post(body: Record<string, string>, mayBeRefused: boolean): Promise<string | null> {
    const url = `${this.relayUrl}/session`;
    const res = await fetchWithRetry(
      (signal) => this.#fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body), signal }),
      this.#retry,
    );
    if (!res.ok) {
      const error = await PlatformError.fromResponse(res);
      // A refused token is answered by asking afresh; a refused page origin will be refused again, so it ends here.
      if (mayBeRefused && (res.status === 401 || res.status === 403) && !isOriginRefusal(error)) return null;
      throw error;
    }
    let session: SessionResponse;
    try {
      session = await res.json() as SessionResponse;
    } catch (error) {
      throw new PlatformError({ status: res.status, type: 'invalid_response', code: null, retryAfter: null, message: 'The relay answered with something that is not a session' }, { cause: error });
    }
    const expiresAt = Date.parse(session.expires_at);
    if (typeof session.token !== 'string' || !session.token || Number.isNaN(expiresAt)) {
      throw new PlatformError({ status: res.status, type: 'invalid_response', code: null, retryAfter: null, message: 'The relay answered with a session without a token or expiry' });
    }
    this.#held = { token: session.token, expiresAt, issuedAt: this.#now() };
    this.#sessionId = session.session_id ?? null;
    this.#features = Array.isArray(session.features) ? session.features.filter((f) => typeof f === 'string') : [];
    if (session.resume_token) {
      // Losing the resume token only costs a fresh session after a reload; it must not fail the request.
      await this.#store?.setResumeToken(this.relayUrl, session.resume_token).catch(() => {});
    }
    return session.token;
  }
}
