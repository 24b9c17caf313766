/**
 * One client per relay URL on a page: every element pointing at the same relay shares its client,
 * and so its session token, its refresh and its retries.
 */
import { ParleyClient, type ParleyClientOptions } from './client.js';
import { RelaySession, type ResumeTokenStore } from './session.js';

/** Options of {@link getClient}: a client's options, plus where the relay session keeps its resume token. */
export type SharedClientOptions = Omit<ParleyClientOptions, 'baseUrl'> & {
  /** Keeps the relay session's resume token across reloads (e.g. the HistoryStore). */
  store?: ResumeTokenStore;
};

const clients = new Map<string, ParleyClient>();

/** `https://x.test/relay/` and `https://x.test/relay` are one relay. */
function keyOf(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '');
}

/**
 * The page's client for `baseUrl`, created on first use. Without `getToken` or `session`, the
 * client gets a {@link RelaySession} on `baseUrl` (tokens from `POST {baseUrl}/session`).
 * Options are only read when the client is created; later calls get the same client whatever they pass.
 */
export function getClient(baseUrl: string, options: SharedClientOptions = {}): ParleyClient {
  const key = keyOf(baseUrl);
  let client = clients.get(key);
  if (!client) {
    const { store, ...rest } = options;
    const session = rest.session ?? (rest.getToken ? undefined : new RelaySession({ relayUrl: key, fetch: rest.fetch, store, retry: rest.retry }));
    client = new ParleyClient({ ...rest, baseUrl: key, session });
    clients.set(key, client);
  }
  return client;
}

/** Drops the shared client of `baseUrl` (e.g. the visitor signed out); the next `getClient` makes a new one. */
export function forgetClient(baseUrl: string): void {
  clients.delete(keyOf(baseUrl));
}
