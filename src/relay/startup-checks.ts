/**
 * Start-up checks of `parley-relay`: settings that work but are risky get a warning naming the fix. Settings that
 * cannot work are refused before this (config.ts: a short secret, a malformed URL; cli.ts: Redis unreachable),
 * with exit code 2. No `node:` imports.
 */
import { parseIp } from './proxy/client-address.js';
import type { RelayConfig } from './config.js';

/** The warnings a config deserves, each a sentence or two ending with the fix. */
export function startupWarnings(config: RelayConfig): string[] {
  const warnings: string[] = [];
  if (config.trustProxy > 0) {
    const hops = `${config.trustProxy} proxy hop${config.trustProxy > 1 ? 's' : ''}`;
    warnings.push(isLocalAddress(config.host)
      ? `--trust-proxy: X-Forwarded-For is believed from ${hops}; the relay listens on ${config.host}, so only a proxy on this machine `
        + 'should reach it. If nothing stands in front, any client can pick its address and escape the limits by address. '
        + 'Fix: keep a proxy in front (the relay warns once if a request arrives without X-Forwarded-For), or set --trust-proxy 0.'
      : `--trust-proxy: X-Forwarded-For is believed from ${hops}, and the relay listens on ${config.host}, where clients may reach it `
        + 'around the proxy and pick their address, escaping the limits by address. '
        + 'Fix: bind the relay where only the proxy reaches it (--host 127.0.0.1 or a private address), or set --trust-proxy 0.');
  }
  if (config.allowRemoteFiles) {
    warnings.push('--allow-remote-files: pages may name any https file for the platform to fetch (its bandwidth and time, any host its '
      + 'allowlist lets through). Fix: leave it off unless pages need it, and keep the platform\'s URL allowlist to the hosts you serve files from.');
  }
  if (config.redisUrl && !config.relaySecret) {
    warnings.push('Redis is set (several instances) but PARLEY_RELAY_SECRET is not: each instance signs with a random secret of its own, '
      + 'so a token minted by one is refused by the others (401) and every restart signs every page out. '
      + 'Fix: set PARLEY_RELAY_SECRET (32+ bytes), the same on every instance.');
  }
  if (config.redisUrl && !config.operatorSecret) {
    warnings.push('Redis is set (several instances) but PARLEY_OPERATOR_SECRET is not: there is no operator endpoint, so a session '
      + 'cannot be revoked from outside on all instances at once. Fix: set PARLEY_OPERATOR_SECRET (32+ bytes), the same on every instance.');
  }
  if (config.metricsPort !== undefined && !isLocalAddress(config.metricsHost)) {
    warnings.push(`--metrics-host ${config.metricsHost}: the metrics port answers anyone who reaches it (no secret). `
      + 'Fix: let only your Prometheus reach it (a firewall or a private address), or bind it to 127.0.0.1.');
  }
  return warnings;
}

/** Whether `host` is a loopback address or name (only this machine reaches it). */
function isLocalAddress(host: string): boolean {
  if (host === 'localhost') return true;
  const ip = parseIp(host);
  if (!ip) return false;
  if (ip.kind === 4) return ip.text.startsWith('127.');
  return ip.hextets.slice(0, 7).every((h) => h === 0) && ip.hextets[7] === 1;
}
