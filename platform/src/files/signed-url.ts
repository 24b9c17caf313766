/**
 * Signed download URLs of files: `GET /signed/files/{file_id}/content?expires=<unix s>&signature=<hex>`,
 * served without an API key (outside `/v1`, so the auth middleware does not apply). The signature is
 * HMAC-SHA256 under the platform's own secret (files/store.ts `urlSecret`) over the file id and expiry,
 * so a URL cannot be extended or pointed at another file; expired or forged → 403.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Path of a signed download (the URL's origin is the platform's own). */
export const signedContentPath = (fileId: string) => `/signed/files/${encodeURIComponent(fileId)}/content`;

/** Hex HMAC-SHA256 of `fileId` and `expires` (unix seconds). */
export function signFileUrl(secret: Uint8Array, fileId: string, expires: number): string {
  return createHmac('sha256', secret).update(`${fileId}\n${expires}`).digest('hex');
}

/**
 * Why a signed URL is refused, or undefined when it is valid now. `renewal` names where a new URL comes from
 * (said when the URL has expired).
 */
export function checkSignedUrl(
  secret: Uint8Array, fileId: string, expires: string | undefined, signature: string | undefined,
  renewal = 'GET /v1/files/{file_id}/url', now = Date.now() / 1000,
): string | undefined {
  if (!expires || !/^\d+$/.test(expires) || !signature || !/^[0-9a-f]{64}$/.test(signature)) return 'The URL is not a signed file URL (expires and signature are required)';
  const expected = Buffer.from(signFileUrl(secret, fileId, Number(expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'The URL signature is not valid';
  if (Number(expires) <= now) return `The signed URL has expired; ask ${renewal} for a new one`;
  return undefined;
}
