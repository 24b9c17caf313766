/**
 * The relay refused the page's origin (`origin_not_allowed`): the site's setup, nothing the visitor can
 * fix. The client already told the site owner in the console; each element shows the visitor a neutral
 * sentence, and fires `parley-error` with the error (code `origin_not_allowed`) for the site's own code.
 */
import { isOriginRefusal } from '../../client/errors.js';
import type { PlatformErrorShape } from '../../client/contracts.js';
import type { ParleyElement } from './parley-element.js';

/** The refusal carried by a thrown value (a PlatformError or its shape, or a voice error's `cause`), or null. */
export function originRefusalOf(error: unknown): PlatformErrorShape | null {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (isOriginRefusal(e) && typeof (e as { status?: unknown }).status === 'number') {
      return plainShape(e as PlatformErrorShape);
    }
  }
  return null;
}

/**
 * For elements whose own error event is specific (`parley-speech-error`, …): also fires `parley-error`
 * when `error` is the origin refusal. Returns whether it was.
 */
export function emitOriginRefusal(host: ParleyElement, error: unknown): boolean {
  const refusal = originRefusalOf(error);
  if (refusal) host.emit('parley-error', { error: refusal });
  return refusal !== null;
}

function plainShape(e: PlatformErrorShape): PlatformErrorShape {
  return { status: e.status, type: e.type, code: e.code, message: e.message, retryAfter: e.retryAfter };
}
