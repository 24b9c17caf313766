/**
 * The requests of a new batch job, from its input files (JSONL of the files API, purpose `batch`) and its
 * inline `requests`, in that order. Problems are the creator's to fix, so they are answered at creation:
 * an unknown file → 404, a file of another purpose or a line that is not `{custom_id?, body: {…}}` → 422.
 */
import type { Caller } from '../http/caller.js';
import { invalidField, notFound } from '../http/errors.js';
import { readFileBytes } from '../files/store.js';
import type { Db } from '../store/db.js';
import type { BatchLine } from './store.js';
import { parseJsonDocument } from '../http/input-guard.js';

/** Most requests in one job (the real service's limit). */
export const MAX_BATCH_REQUESTS = 100_000;

export interface BatchInput {
  lines: BatchLine[];
  /** Some input file is visible to its uploader only: the results must be too. */
  privateInput: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the job's input files and appends its inline requests. */
export async function readBatchInput(db: Db, caller: Caller, fileIds: string[], inline: BatchLine[]): Promise<BatchInput> {
  const lines: BatchLine[] = [];
  let privateInput = false;
  for (const [index, fileId] of fileIds.entries()) {
    const loc = ['body', 'input_files', index];
    const stored = await readFileBytes(db, caller.workspaceId, fileId, caller.userId);
    if (!stored) throw notFound(`File '${fileId}' not found`);
    if (stored.file.purpose !== 'batch') {
      throw invalidField(loc, `File '${fileId}' was uploaded with purpose '${stored.file.purpose}'; batch jobs read files uploaded with purpose 'batch'`, 'value_error', fileId);
    }
    privateInput ||= stored.file.visibility === 'user';
    const text = new TextDecoder().decode(stored.bytes).split(/\r?\n/);
    for (const [n, raw] of text.entries()) {
      if (!raw.trim()) continue;
      const where = `File '${fileId}' line ${n + 1}`;
      let record: unknown;
      try {
        record = parseJsonDocument(raw);
      } catch {
        throw invalidField(loc, `${where} is not valid JSON`, 'value_error', fileId);
      }
      if (!isObject(record) || !isObject(record.body)) throw invalidField(loc, `${where} must be an object with a "body" object ({"custom_id": "…", "body": {…}})`, 'value_error', fileId);
      const customId = record.custom_id;
      if (customId !== undefined && customId !== null && typeof customId !== 'string' && typeof customId !== 'number') {
        throw invalidField(loc, `${where}: "custom_id" must be a string`, 'value_error', fileId);
      }
      lines.push({ customId: customId === undefined || customId === null ? null : String(customId), body: record.body });
    }
    if (lines.length > MAX_BATCH_REQUESTS) break;
  }
  lines.push(...inline);
  if (lines.length > MAX_BATCH_REQUESTS) {
    throw invalidField(['body'], `A batch job holds at most ${MAX_BATCH_REQUESTS} requests`, 'too_long');
  }
  return { lines, privateInput };
}
