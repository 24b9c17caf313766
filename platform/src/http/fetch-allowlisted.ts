/**
 * Fetching a caller-given URL (transcription `file_url`, OCR `document_url`/`image_url`) only from hosts the
 * operator allowed: the platform must not become an open proxy into the machine's network. Redirects are
 * not followed (they could leave the allowlist) and the body is read with a byte cap.
 */
import { BodyTooLargeError, readCapped } from 'parley-kit/server';

/**
 * Checks `raw` is an http(s) URL whose host (`host` or `host:port`) is on `allowlist`.
 * Returns the URL, or why not as a 422 `msg` and `type` (`option` names the PlatformOption to set).
 */
export function checkAllowlistedUrl(raw: string, allowlist: readonly string[], option: string): URL | { msg: string; type: 'url_parsing' | 'value_error' } {
  let url: URL | undefined;
  try { url = new URL(raw); } catch { /* below */ }
  if (!url || !/^https?:$/.test(url.protocol)) return { msg: 'Input should be a valid http(s) URL', type: 'url_parsing' };
  if (!allowlist.length) return { msg: `Fetching URLs is disabled on this local platform: no host is allowed (set the ${option} option)`, type: 'value_error' };
  if (!allowlist.includes(url.host) && !allowlist.includes(url.hostname)) {
    return { msg: `Host '${url.host}' is not on this platform's allowlist (option ${option}: ${allowlist.join(', ')})`, type: 'value_error' };
  }
  return url;
}

/** The URL could not be fetched (network error, non-2xx); the message says why. */
export class FetchFailedError extends Error {}

/** Fetches an allowlisted URL (30 s timeout, no redirects); throws {@link FetchFailedError} or `BodyTooLargeError`. */
export async function fetchCapped(url: URL, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'error', signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]) });
  } catch (err) {
    throw new FetchFailedError(err instanceof Error ? err.message : String(err));
  }
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    throw new FetchFailedError(`HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > maxBytes) {
    void res.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes);
  }
  return readCapped(res.body, maxBytes);
}
