/**
 * How a batch request reaches the platform: as an HTTP request to the platform's own route for the job's
 * endpoint, made on behalf of the job's creator (so validation, engines, errors and usage are exactly those of
 * a direct call). The endpoints follow the SDK's ApiEndpoint enum.
 */
import type { Caller } from '../http/caller.js';

/** The endpoints a batch job may target (the SDK's ApiEndpoint). */
export const BATCH_ENDPOINTS = [
  '/v1/chat/completions', '/v1/embeddings', '/v1/fim/completions', '/v1/moderations', '/v1/chat/moderations',
  '/v1/ocr', '/v1/classifications', '/v1/chat/classifications', '/v1/conversations', '/v1/audio/transcriptions',
] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** The endpoints that take a job-level `agent_id` (chat completions then run on `/v1/agents/completions`). */
export const AGENT_ENDPOINTS: readonly BatchEndpoint[] = ['/v1/chat/completions', '/v1/conversations'];

/** Runs one request through the platform as `caller` (no API key: the caller is already known). */
export type Dispatch = (caller: Caller, request: Request) => Promise<Response>;

/** Where internal requests are addressed; only the path matters to the routes. */
const INTERNAL_ORIGIN = 'http://batch.internal';

/**
 * The HTTP request of one batch line: the line's body with the job's `model` (or `agent_id`) filled in when the
 * line has none. Transcriptions take multipart only, so their body becomes form fields (arrays repeat the field).
 */
export function lineRequest(endpoint: BatchEndpoint, job: { model: string | null; agentId: string | null }, lineBody: Record<string, unknown>): Request {
  const body = { ...lineBody };
  let path: string = endpoint;
  if (job.agentId && endpoint === '/v1/chat/completions') {
    path = '/v1/agents/completions';
    body.agent_id ??= job.agentId;
  } else if (job.agentId && endpoint === '/v1/conversations') {
    body.agent_id ??= job.agentId;
  } else if (job.model) {
    body.model ??= job.model;
  }
  if (endpoint !== '/v1/audio/transcriptions') {
    return new Request(INTERNAL_ORIGIN + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
  }
  return new Request(INTERNAL_ORIGIN + path, { method: 'POST', body: form });
}
