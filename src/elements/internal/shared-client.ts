import { PlatformError, getClient } from '../../client/index.js';
import { HistoryStore } from '../../store/index.js';
import type { HistoryStoreApi, ParleyClientApi } from '../../client/contracts.js';

let sharedStore: Promise<HistoryStoreApi | undefined> | null = null;

/** The page's one history store (IndexedDB); undefined where IndexedDB is unavailable (private mode, blocked). */
export function openSharedStore(): Promise<HistoryStoreApi | undefined> {
  sharedStore ??= HistoryStore.open().then((store) => store, () => undefined);
  return sharedStore;
}

/**
 * The page's one client for a relay URL, always created with the shared store, which keeps the relay's
 * resume token: whichever element asks first, a reload gets the same relay session back (and with it
 * the visitor's conversations).
 */
export async function sharedClient(relayUrl: string): Promise<ParleyClientApi> {
  const store = await openSharedStore();
  return getClient(new URL(relayUrl, document.baseURI).href.replace(/\/+$/, ''), { store });
}

/** What an element without a `relay-url` fails with. */
export function noRelayUrl(): PlatformError {
  return new PlatformError({ status: 0, type: 'client_error', code: null, retryAfter: null, message: 'relay-url is not set' });
}

/** {@link sharedClient} for an element's `relay-url`, or {@link noRelayUrl}'s error. */
export function relayClient(relayUrl: string | undefined | null): Promise<ParleyClientApi> {
  return relayUrl ? sharedClient(relayUrl) : Promise.reject(noRelayUrl());
}
