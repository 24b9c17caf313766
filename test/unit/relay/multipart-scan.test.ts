import { describe, expect, it } from 'vitest';
import { boundaryOf, createMultipartScanner, type PartHead } from '../../../src/relay/uploads/multipart-scan.js';
import { RelayError } from '../../../src/relay/errors.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Scans `body` cut at the given offsets; returns each part as `name[filename]=first bytes` (want 8 bytes of each). */
function scan(body: string, cuts: number[] = [], boundary = 'XyZ'): string[] {
  const seen: string[] = [];
  const scanner = createMultipartScanner(boundary, {
    want: () => 8,
    onPart: (head: PartHead, first: Uint8Array, complete: boolean) => {
      seen.push(`${head.name}${head.filename !== undefined ? `[${head.filename}]` : ''}=${decoder.decode(first)}${complete ? '' : '…'}`);
    },
  });
  const bytes = encoder.encode(body);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    scanner.push(bytes.subarray(at, cut));
    at = cut;
  }
  scanner.end();
  return seen;
}

const FORM = 'preamble to ignore\r\n--XyZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nvoxtral\r\n'
  + '--XyZ  \r\ncontent-disposition: form-data; name="file"; filename="a %22b%22.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n-XyZ\r\n--Xy\r\n'
  + '--XyZ\r\nContent-Disposition: form-data; name="empty"\r\n\r\n\r\n--XyZ--\r\nepilogue --XyZ\r\n';
const EXPECTED = ['model=voxtral', 'file[a %22b%22.wav]=RIFF\r\n-X…', 'empty='];

describe('the multipart scanner', () => {
  it('reports every part the same way wherever the body is cut (every 1- and 2-cut split)', () => {
    expect(scan(FORM)).toEqual(EXPECTED);
    const n = encoder.encode(FORM).length;
    for (let i = 0; i <= n; i++) {
      expect(scan(FORM, [i]), `cut at ${i}`).toEqual(EXPECTED);
      for (let j = i; j <= n; j += 7) expect(scan(FORM, [i, j]), `cuts at ${i}, ${j}`).toEqual(EXPECTED);
    }
  });

  it('opens the form at the first "--boundary" anywhere, as the platform does: no part hides in a preamble', () => {
    const body = 'junk--XyZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nsecret-model\r\n--XyZ--\r\n';
    expect(scan(body)).toEqual(['model=secret-m…']);
  });

  it('finds the boundary parameter, quoted or not', () => {
    expect(boundaryOf('multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxk')).toBe('----WebKitFormBoundary7MA4YWxk');
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(boundaryOf('multipart/form-data')).toBeNull();
    // Anything another parser could read differently is refused: escapes, two boundaries, odd characters.
    expect(boundaryOf('multipart/form-data; boundary="a\\"b"')).toBeNull();
    expect(boundaryOf('multipart/form-data; boundary=a; boundary=b')).toBeNull();
    expect(boundaryOf('multipart/form-data; boundary=a"b')).toBeNull();
    expect(boundaryOf(`multipart/form-data; boundary=${'x'.repeat(71)}`)).toBeNull();
    expect(boundaryOf(null)).toBeNull();
  });

  it.each([
    ['a body with no closing boundary', '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nx'],
    ['a part without Content-Disposition', '--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--'],
    ['a part with an empty header block', '--XyZ\r\n\r\nx\r\n--XyZ--'],
    ['text after a boundary', '--XyZ junk\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--XyZ--'],
    ['a preamble over the header cap', `${'p'.repeat(9000)}\r\n--XyZ--`],
    ['a bare LF hiding a header', '--XyZ\r\nX-A: b\nContent-Disposition: form-data; name="model"\r\nContent-Disposition: form-data; name="x"\r\n\r\nm\r\n--XyZ--'],
    ['a bare CR hiding a header', '--XyZ\r\nContent-Disposition: form-data; name="x"\r\nX-A: b\rXContent-Disposition: form-data; name="model"\r\n\r\nm\r\n--XyZ--'],
    ['two Content-Disposition headers', '--XyZ\r\nContent-Disposition: form-data; name="x"\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n--XyZ--'],
    ['a name given twice', '--XyZ\r\nContent-Disposition: form-data; name="x"; name="model"\r\n\r\nm\r\n--XyZ--'],
    ['an encoded name*', '--XyZ\r\nContent-Disposition: form-data; name="x"; name*=utf-8\'\'model\r\n\r\nm\r\n--XyZ--'],
    ['a backslash-quote', '--XyZ\r\nContent-Disposition: form-data; filename="a\\"; name="model"\r\n\r\nm\r\n--XyZ--'],
    ['a base64 transfer encoding', '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Transfer-Encoding: base64\r\n\r\nUklGRg==\r\n--XyZ--'],
    ['a field name with odd characters', '--XyZ\r\nContent-Disposition: form-data; name="mod%65l"\r\n\r\nm\r\n--XyZ--'],
    ['a parameter that cannot be read', '--XyZ\r\nContent-Disposition: form-data; name="x" garbage; name="model"\r\n\r\nm\r\n--XyZ--'],
    ['a delimiter followed by other text', '--XyZ\r\nContent-Disposition: form-data; name="x"\r\n\r\nm\r\n--XyZ-not\r\n--XyZ--'],
  ])('refuses %s with a 400 invalid_multipart', (_, body) => {
    let error: unknown;
    try {
      scan(body);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).status).toBe(400);
    expect((error as RelayError).code).toBe('invalid_multipart');
  });
});
