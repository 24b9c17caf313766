/**
 * The Node side of a graceful restart (`served.drain()`, called by `parley-relay` on SIGTERM and SIGINT):
 * the listening socket is closed at once (a load balancer's new connections go to another instance), idle
 * keep-alive connections are closed as they go idle, upgrades are refused with 503, and the relay drains
 * (drain.ts: 503 for new requests, pages handed over to another instance with Redis, the rest ended at the
 * deadline). The process may exit once it resolves.
 */
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { ServedFetch, UpgradeHandler } from '../../server/node-serve.js';
import { relayDraining, type DrainOptions, type DrainReport } from '../drain.js';
import { within } from '../../server/within.js';
import { refuse } from '../realtime.js';
import type { Relay } from '../relay.js';

/** How long, after the streams ended, their last bytes (and sockets' close frames) may take to leave, ms. */
const GRACE_MS = 2_000;
/** How often idle keep-alive connections are closed while draining, ms. */
const SWEEP_MS = 100;

/** Options of `served.drain()`. */
export type ServedDrainOptions = Omit<DrainOptions, 'alsoWaitFor'>;

/** The relay's upgrade handler, refusing every upgrade with 503 once `draining()` says so. */
export function upgradeUnlessDraining(handleUpgrade: UpgradeHandler, draining: () => boolean): UpgradeHandler {
  return (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!draining()) return handleUpgrade(request, socket, head);
    refuse(socket, relayDraining());
    return true;
  };
}

/** Drains `relay` served by `served` (see the module comment); resolves once every connection is closed. */
export async function drainServed(served: ServedFetch, relay: Partial<Pick<Relay, 'drain'>>, options: ServedDrainOptions): Promise<DrainReport> {
  const closed = served.stopListening();
  const sweep = setInterval(served.closeIdle, SWEEP_MS);
  try {
    let report: DrainReport = { handedOver: 0, endedAtDeadline: 0 };
    if (relay.drain) report = await relay.drain({ ...options, alsoWaitFor: closed });
    else await within(closed, options.timeoutMs, options.signal);
    // Not cut short by the signal: the error events and close frames just written are what the pages are told.
    await within(closed, GRACE_MS);
    return report;
  } finally {
    clearInterval(sweep);
    await served.close();
  }
}
