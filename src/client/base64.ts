/** Base64 encoding shared by the client's requests (realtime audio, OCR data URLs). Isomorphic. */

/** Base64 of bytes (chunked: `String.fromCharCode` takes a bounded number of arguments). */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
