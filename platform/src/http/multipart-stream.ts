/**
 * Reading a multipart/form-data request as a stream (busboy): the text fields are gathered (small), and
 * the one file part a route stores is handed to `onFile` chunk by chunk as it arrives, so a 1 GB upload
 * is never held in memory. The file cap is counted while the file streams (413); the other rules are
 * multipart.ts's (415, the input rules of input-guard.ts → 422). Other file parts are read and dropped,
 * and named in `otherFiles` so the route can refuse them.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { genericError, invalidField } from './errors.js';
import { checkForm } from './input-guard.js';
import { FORM_OVERHEAD, checkMultipartHead, type MultipartLimits } from './multipart.js';

/** The file part being streamed. */
export interface FilePart {
  filename: string;
  /** The part's own Content-Type. */
  mimeType: string;
  /** The file's bytes, as they arrive; past the cap the iteration throws the 413. */
  chunks: AsyncIterable<Uint8Array>;
}

/** The form once the whole body was read. */
export interface StreamedForm<T> {
  /** Text fields by name (the last value of a repeated name). */
  fields: Map<string, string>;
  /** What `onFile` made of the file part, with the part; undefined when there was none. */
  file?: { filename: string; mimeType: string; result: T };
  /** Names of file parts that are not the route's file field. */
  otherFiles: string[];
}

/**
 * Streams the form of `request`: `onFile` consumes the `limits.fileField` part (backpressure holds the
 * body while it is busy). Errors: 415 (not multipart), 413 (declared or counted over the cap), 422
 * (malformed, input rules); an error of `onFile` is thrown as it is, and the rest of the body is not read.
 */
export async function streamMultipart<T>(request: Request, limits: MultipartLimits, onFile: (part: FilePart) => Promise<T>): Promise<StreamedForm<T>> {
  const { type, limit, tooLarge } = checkMultipartHead(request, limits);
  if (!request.body) throw invalidField(['body'], 'Malformed multipart/form-data body', 'value_error');

  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': type }, defParamCharset: 'utf8', limits: { fieldSize: FORM_OVERHEAD, fields: 100, files: 20, parts: 200 } });
  } catch {
    throw invalidField(['body'], 'Malformed multipart/form-data body', 'value_error');
  }
  const source = Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>);
  const form: StreamedForm<T> = { fields: new Map(), otherFiles: [] };
  const names = new FormData(); // names and file names, checked by the input rules at the end
  let total = 0;
  let fileWork: Promise<void> = Promise.resolve();

  return new Promise<StreamedForm<T>>((resolve, reject) => {
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      source.destroy();
      parser.destroy();
      reject(err);
    };
    source.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > limit) fail(tooLarge());
    });
    source.on('error', fail);
    // busboy refuses a part header with a control character (a NUL in a file name) here too.
    parser.on('error', (err) => fail(invalidField(['body'], `Malformed multipart/form-data body (${String((err as Error)?.message ?? err).slice(0, 100)})`, 'value_error')));
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(genericError(413, `Form field '${name.slice(0, 100)}' is longer than ${FORM_OVERHEAD} bytes`, 'invalid_request_error', 'request_too_large', name.slice(0, 100)));
      form.fields.set(name, value);
      names.append(name, value);
    });
    parser.on('file', (name, stream, info) => {
      const filename = info.filename ?? '';
      names.append(name, new File([], filename));
      if (name !== limits.fileField || form.file) {
        form.otherFiles.push(name);
        stream.resume();
        return;
      }
      const entry = { filename, mimeType: info.mimeType, result: undefined as T };
      form.file = entry;
      fileWork = onFile({ filename, mimeType: info.mimeType, chunks: capped(stream, limits.maxFileBytes, tooLarge) })
        .then((result) => { entry.result = result; })
        .catch((err) => { stream.resume(); fail(err); });
    });
    parser.on('close', () => {
      if (failed) return;
      fileWork.then(() => {
        if (failed) return;
        try {
          checkForm(names);
        } catch (err) {
          return fail(err);
        }
        resolve(form);
      }, fail);
    });
    source.pipe(parser);
  });
}

/** The file stream's chunks, throwing the 413 once more than `maxBytes` came. */
async function* capped(stream: AsyncIterable<Buffer>, maxBytes: number, tooLarge: () => Error): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge();
    yield chunk;
  }
}
