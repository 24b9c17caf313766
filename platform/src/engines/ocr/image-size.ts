/**
 * Pixel size of an encoded image read from its header (PNG, JPEG, GIF, BMP, WebP). Images are not decoded
 * with @napi-rs/canvas: it segfaults on truncated files. tesseract.js (WebAssembly) decodes them instead.
 */

/** `{width, height}`, or undefined when the header is missing, truncated or of another format. */
export function imageSize(b: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ascii = (at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));
  const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : undefined);
  if (b.length >= 24 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') return ok(view.getUint32(16), view.getUint32(20));
  if (b.length >= 10 && ascii(0, 4) === 'GIF8') return ok(view.getUint16(6, true), view.getUint16(8, true));
  if (b.length >= 26 && ascii(0, 2) === 'BM') return ok(Math.abs(view.getInt32(18, true)), Math.abs(view.getInt32(22, true)));
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8 ') return ok(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
    if (chunk === 'VP8L') { const bits = view.getUint32(21, true); return ok((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1); }
    if (chunk === 'VP8X') return ok((view.getUint32(24, true) & 0xffffff) + 1, (view.getUint32(27, true) & 0xffffff) + 1);
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let at = 2;
    while (at + 9 <= b.length) {
      if (b[at] !== 0xff) return undefined;
      const marker = b[at + 1];
      if (marker === 0xff) { at++; continue; }
      const length = view.getUint16(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return ok(view.getUint16(at + 7), view.getUint16(at + 5));
      }
      at += 2 + length;
    }
  }
  return undefined;
}
