/**
 * The local platform as one Web-standard fetch handler: createPlatform starts the engines, opens the database
 * with every area's migrations, builds the directory and the context every area is given (http/context.ts),
 * then mounts each area's routes under its prefix behind the auth middleware (http/auth.ts) and the input
 * rules (http/input-guard.ts). Errors become the platform's error bodies here; the observability area answers
 * in its own shape.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { UpgradeHandler } from 'parley-kit/server';
// engines
import { ChatModelRegistry } from './engines/chat/registry.js';
import type { ChatEngine } from './engines/chat/types.js';
import { createLocalChatEngine } from './engines/chat/local.js';
import { createOpenAICompatibleChatEngine } from './engines/chat/openai-compatible.js';
import { SpeechCatalog } from './engines/speech/catalog.js';
import type { SpeechEngine } from './engines/speech/types.js';
import { createEspeakSpeechEngine } from './engines/speech/espeak.js';
import { TranscriptionCatalog } from './engines/transcription/catalog.js';
import type { TranscriptionEngine } from './engines/transcription/types.js';
import { createPocketsphinxEngine } from './engines/transcription/pocketsphinx.js';
import { OcrCatalog } from './engines/ocr/catalog.js';
import type { OcrEngine } from './engines/ocr/types.js';
import { createLocalOcrEngine } from './engines/ocr/local.js';
import { ClassifierCatalog } from './engines/classifier/catalog.js';
import { createLexiconClassifier } from './engines/classifier/lexicon-engine.js';
import { createEmbeddingCatalog } from './engines/embeddings/catalog.js';
// store
import { openDb, type AreaMigrations } from './store/open-db.js';
import type { Db } from './store/db.js';
import { setLeaseTiming, type LeaseTiming } from './store/leases.js';
// http
import { PlatformHttpError, badRequest, genericError } from './http/errors.js';
import { authenticate } from './http/auth.js';
import type { Caller } from './http/caller.js';
import type { PlatformContext, PlatformEnv } from './http/context.js';
import { DEFAULT_JSON_LIMIT } from './http/validation.js';
import { urlGuard } from './http/input-guard.js';
import { createPlatformMetrics, watchRequests, type PlatformMetrics } from './http/watch.js';
import { createProbes, withRequestId } from './http/probes.js';
// areas: their routes, the services the context carries, their migrations
import { modelRoutes } from './models/routes.js';
import { agentRoutes } from './agents/routes.js';
import { createAgentStore } from './agents/store.js';
import { conversationRoutes } from './conversations/routes.js';
import { createConversationStore } from './conversations/store.js';
import { speechRoutes } from './speech/routes.js';
import { DEFAULT_MAX_AUDIO_BYTES, transcriptionRoutes } from './transcription/routes.js';
import { clientSessionRoutes } from './realtime/routes.js';
import { realtimeTranscriptionEndpoint } from './realtime/endpoint.js';
import { DEFAULT_REALTIME_FLOOD_LIMITS, type RealtimeFloodLimits } from 'parley-kit/server';
import { ClientSecretStore } from './realtime/client-secrets.js';
import { MIGRATIONS as REALTIME } from './realtime/migrations.js';
import { ocrRoutes } from './ocr/routes.js';
import { DEFAULT_MAX_OCR_BYTES } from './ocr/document-input.js';
import { connectorRoutes } from './connectors/routes.js';
import { MIGRATIONS as CONNECTORS } from './connectors/migrations.js';
import { observabilityRoutes } from './observability/routes.js';
import { observabilityErrorResponse } from './observability/errors.js';
import { MIGRATIONS as DATASETS } from './observability/dataset-migrations.js';
import { MIGRATIONS as OBSERVABILITY } from './observability/migrations.js';
import { registryRoutes } from './registries/routes.js';
import { MIGRATIONS as REGISTRIES } from './registries/migrations.js';
import { adminRoutes } from './tenancy/routes.js';
import { createDirectory, type MemberKey } from './tenancy/directory.js';
import { createUsageLedger } from './tenancy/usage.js';
import { MIGRATIONS as TENANCY } from './tenancy/migrations.js';
import { identityRoutes } from './identity/routes.js';
import { classifierRoutes } from './classifiers/routes.js';
import { chatCompletionRoutes } from './completions/routes.js';
import { createFimCatalog } from './completions/infill.js';
import { embeddingRoutes } from './embeddings/routes.js';
import { fileRoutes, signedFileRoutes } from './files/routes.js';
import { MIGRATIONS as FILES } from './files/migrations.js';
import { voiceRoutes } from './voices/routes.js';
import { MIGRATIONS as VOICES } from './voices/migrations.js';
import { batchRoutes } from './batch/routes.js';
import { MIGRATIONS as BATCH } from './batch/migrations.js';
import { fineTuningRoutes } from './fine-tuning/routes.js';
import { MIGRATIONS as FINE_TUNING } from './fine-tuning/migrations.js';
import { libraryRoutes, signedLibraryRoutes } from './libraries/routes.js';
import { MIGRATIONS as LIBRARIES } from './libraries/migrations.js';

export interface PlatformOptions {
  /** Key callers send as `Authorization: Bearer <key>` (or `x-api-key`). */
  apiKey: string;
  /** Key for `/v1/admin/*`; it is accepted on every other route too. */
  adminKey?: string;
  /** More users of the default workspace, each with its own key (plain members: no workspace admin permissions). */
  members?: MemberKey[];
  /** Directory of the durable database; omit to keep everything in memory (tests). */
  dataDir?: string;
  /**
   * A PostgreSQL server to keep everything on instead (`postgres://user:password@host:5432/db`); `dataDir` is then
   * not used. Several platform processes on one database serve one platform (state, realtime secrets, jobs).
   */
  databaseUrl?: string;
  /**
   * Leases of background jobs (batch, dataset imports, library documents, fine-tuning): how long a lease lasts,
   * how often it is renewed, how often a process on PostgreSQL looks for work (default 30 s, 10 s, 5 s).
   */
  jobLeases?: Partial<LeaseTiming>;
  /** Chat engines; default: the local deterministic model, plus an OpenAI-compatible server when `chatUrl` is set. */
  chatEngines?: ChatEngine[];
  /** Delay between streamed tokens of the local chat model (visible streaming in demos; 0 in tests). */
  tokenDelayMs?: number;
  /** An OpenAI-compatible chat-completions server (Ollama, llama.cpp server), e.g. `http://127.0.0.1:11434/v1`. */
  chatUrl?: string;
  chatModel?: string;
  chatApiKey?: string;
  /** Text-to-speech engines; default: espeak-ng in a worker thread (started on first use). */
  speechEngines?: SpeechEngine[];
  /** Speech-to-text engines; default: Debian's pocketsphinx as a child process per request. */
  transcriptionEngines?: TranscriptionEngine[];
  /** Cap on transcription audio (upload or `file_url`) in bytes; default 25 MB (413 above it). */
  maxAudioBytes?: number;
  /** Hosts (`host` or `host:port`) that transcription `file_url` may fetch from; default none (422). */
  transcriptionUrlAllowlist?: string[];
  /** OCR engines; default: pdfjs text layers + a tesseract.js worker pool (started on first use). */
  ocrEngines?: OcrEngine[];
  /** Cap on an OCR document (decoded `data:` URL or fetched) in bytes; default 50 MB (413 above it). */
  maxOcrBytes?: number;
  /** Hosts (`host` or `host:port`) that OCR `document_url`/`image_url` may fetch from; default none (422). */
  ocrUrlAllowlist?: string[];
  /** Cap on JSON request bodies in bytes (413 above it). */
  maxJsonBytes?: number;
  /** Cap on an uploaded file (POST /v1/files) in bytes; default 512 MB (413 above it). */
  maxFileBytes?: number;
  /** Realtime transcription WebSocket: a session with no client message for this long gets error 408 and is closed (default 30 s). */
  realtimeIdleTimeoutMs?: number;
  /** Realtime transcription WebSocket: longest session, then error 408 and close (default 15 min). */
  realtimeMaxSessionMs?: number;
  /** Realtime transcription WebSocket: larger frames get error 413 and are dropped (default 1 MiB; above 4× ws closes with 1009). */
  realtimeMaxMessageBytes?: number;
  /**
   * Realtime transcription WebSocket: flood caps per session (defaults: 100 messages/s with bursts of 400, 20
   * refused messages, then error and close 1008; reading stops while 1 MiB waits unread, closed after 15 s of that).
   */
  realtimeFlood?: Partial<RealtimeFloodLimits>;
  /** Where unexpected errors are reported (default: console.error). */
  onError?: (error: unknown) => void;
  /** Receives one JSON access-log line per request (http/watch.ts); default none. */
  accessLog?: (line: string) => void;
}

/** The local platform as a Web-standard fetch handler, plus the upgrade handler of its WebSocket route. */
export interface Platform {
  fetch(request: Request): Promise<Response>;
  /**
   * Takes HTTP upgrades of `/v1/audio/transcriptions/realtime` (realtime transcription WebSocket) and returns
   * false for any other path; pass it to the Node adapter: `serveFetch(platform.fetch, { upgrade: [platform.handleUpgrade] })`.
   */
  handleUpgrade: UpgradeHandler;
  /** Resolves once the database is open and migrated. */
  ready(): Promise<void>;
  /** Closes open realtime sockets, stops the engines and closes the database. */
  close(): Promise<void>;
}

/**
 * Every area's migrations, in the order they apply, by the name each area's versions are counted under
 * (names of databases made before the areas moved: observability's datasets count as `datasets`).
 * createPlatform opens its database with them; so do the store tests.
 */
export const AREA_MIGRATIONS: AreaMigrations = {
  tenancy: TENANCY, connectors: CONNECTORS, datasets: DATASETS, registries: REGISTRIES, files: FILES, voices: VOICES,
  batch: BATCH, 'fine-tuning': FINE_TUNING, libraries: LIBRARIES, observability: OBSERVABILITY, realtime: REALTIME,
};

export function defaultChatEngines(options: Pick<PlatformOptions, 'tokenDelayMs' | 'chatUrl' | 'chatModel' | 'chatApiKey'>): ChatEngine[] {
  const engines: ChatEngine[] = [createLocalChatEngine({ tokenDelayMs: options.tokenDelayMs ?? 0 })];
  if (options.chatUrl) {
    engines.push(createOpenAICompatibleChatEngine({ baseUrl: options.chatUrl, model: options.chatModel, apiKey: options.chatApiKey }));
  }
  return engines;
}

export function createPlatform(options: PlatformOptions): Platform {
  const report = options.onError ?? ((e: unknown) => console.error('[parley platform]', e));
  const chat = new ChatModelRegistry(options.chatEngines ?? defaultChatEngines(options));
  const speech = new SpeechCatalog(options.speechEngines ?? [createEspeakSpeechEngine()]);
  const transcription = new TranscriptionCatalog(options.transcriptionEngines ?? [createPocketsphinxEngine()]);
  const ocr = new OcrCatalog(options.ocrEngines ?? [createLocalOcrEngine()]);
  const database = openDb({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, areas: AREA_MIGRATIONS });
  const secrets = new ClientSecretStore(database);
  const realtime = realtimeTranscriptionEndpoint({
    keys: apiKeys(options),
    secrets,
    transcription,
    limits: {
      idleTimeoutMs: options.realtimeIdleTimeoutMs ?? 30_000,
      maxSessionMs: options.realtimeMaxSessionMs ?? 15 * 60_000,
      maxMessageBytes: options.realtimeMaxMessageBytes ?? 1024 * 1024,
      flood: { ...DEFAULT_REALTIME_FLOOD_LIMITS, ...options.realtimeFlood },
    },
    report,
  });
  // Probes and metrics (http/probes.ts, http/watch.ts): answered even before the database is open.
  const metrics = createPlatformMetrics();
  let openDatabase: Db | undefined;
  const probe = createProbes({ db: () => openDatabase, metrics, metricsKey: options.adminKey ?? options.apiKey });
  const opened = database.then(async (db) => {
    openDatabase = db;
    setLeaseTiming(db, options.jobLeases ?? {});
    // Processes starting together on one server seed the directory one at a time.
    const directory = await db.exclusive('directory', () => createDirectory(db, { apiKey: options.apiKey, adminKey: options.adminKey, members: options.members }));
    const ctx: PlatformContext = {
      directory,
      usage: createUsageLedger(db),
      db,
      conversations: createConversationStore(db),
      agents: createAgentStore(db),
      chat,
      speech,
      transcription,
      ocr,
      classifiers: new ClassifierCatalog([createLexiconClassifier()]),
      embeddings: createEmbeddingCatalog(),
      fim: createFimCatalog(),
      ocrInput: { maxBytes: options.maxOcrBytes ?? DEFAULT_MAX_OCR_BYTES, urlAllowlist: options.ocrUrlAllowlist ?? [] },
      audioInput: { maxAudioBytes: options.maxAudioBytes ?? DEFAULT_MAX_AUDIO_BYTES, urlAllowlist: options.transcriptionUrlAllowlist ?? [] },
      limits: { maxJsonBytes: options.maxJsonBytes ?? DEFAULT_JSON_LIMIT },
    };
    const stoppers: Array<() => Promise<void>> = [];
    return { db, stoppers, app: buildApp(ctx, options, secrets, report, stoppers, metrics) };
  });
  opened.catch(report);

  return {
    async fetch(request) {
      const probed = probe(request);
      // Probes answer before the app (and its watch middleware): they carry a request id all the same.
      if (probed) return probed.then((answer) => withRequestId(answer, request));
      const { app } = await opened;
      return app.fetch(request);
    },
    handleUpgrade: realtime.handleUpgrade,
    async ready() {
      await opened;
    },
    async close() {
      await realtime.close();
      const { db, stoppers } = await opened;
      await Promise.all(stoppers.map((stop) => stop()));
      await chat.close();
      await speech.close();
      await transcription.close();
      await ocr.close();
      await db.close();
    },
  };
}

/** The keys accepted on every route. */
const apiKeys = (options: PlatformOptions) =>
  new Set([options.apiKey, options.adminKey, ...(options.members ?? []).map((m) => m.apiKey)].filter((k): k is string => !!k));

/** `stoppers` collects what the app starts in the background, to be stopped on close before the engines. */
function buildApp(
  ctx: PlatformContext, options: PlatformOptions, secrets: ClientSecretStore, report: (e: unknown) => void, stoppers: Array<() => Promise<void>>,
  metrics: PlatformMetrics,
): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  // First, so every answer (refusals included) gets its request id and is counted.
  app.use('*', watchRequests(metrics, options.accessLog));

  app.onError((err, c) => errorResponse(err, c, report));
  app.notFound((c) => c.json(genericError(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}`, 'invalid_request_error', 'not_found').body, 404));

  // Requests the platform makes to itself for a caller (batch lines): the caller is preset, no key is read (http/auth.ts).
  const presetCallers = new WeakMap<Request, Caller>();
  const auth = authenticate(ctx.directory, presetCallers);
  app.use('/v1/*', auth);
  app.use('/v2/*', auth);
  // Input rules for every route's path and query (bodies are checked by readJson and readMultipart): input-guard.ts.
  app.use('*', urlGuard);
  // The admin API is documented under `/api/admin` (key in `x-api-key`); it is the same API as `/v1/admin`.
  app.all('/api/admin/*', (c) => {
    const url = new URL(c.req.url);
    url.pathname = `/v1/admin${url.pathname.slice('/api/admin'.length)}`;
    const { method, headers, body } = c.req.raw;
    return app.fetch(new Request(url, { method, headers, body, duplex: 'half' } as RequestInit));
  });

  // Each area under its prefix; the order is the order routes are matched in.
  app.route('/v1/models', modelRoutes(ctx));
  app.route('/v1/agents', agentRoutes(ctx));
  app.route('/v1/conversations', conversationRoutes(ctx));
  app.route('/v1/audio/speech', speechRoutes(ctx));
  app.route('/v1/audio/transcriptions', transcriptionRoutes(ctx));
  app.route('/v1/client/sessions', clientSessionRoutes(ctx, secrets));
  app.route('/v1/ocr', ocrRoutes(ctx));
  app.route('/v1/connectors', connectorRoutes(ctx));
  app.route('/v1/observability', observabilityRoutes(ctx));
  app.route('/v2', registryRoutes(ctx));
  app.route('/v1/admin', adminRoutes(ctx));
  app.route('/v1/users/me', identityRoutes(ctx));
  // Moderations and classifications (`/v1/moderations`, `/v1/chat/classifications`…), chat, agent and FIM completions.
  app.route('/v1', classifierRoutes(ctx));
  app.route('/v1', chatCompletionRoutes(ctx));
  app.route('/v1/embeddings', embeddingRoutes(ctx));
  app.route('/v1/files', fileRoutes(ctx, { maxFileBytes: options.maxFileBytes }));
  app.route('/signed/files', signedFileRoutes(ctx));
  app.route('/v1/audio/voices', voiceRoutes(ctx));
  app.route('/v1/batch', batchRoutes(ctx, {
    report,
    dispatch: async (caller, request) => {
      presetCallers.set(request, caller);
      return app.fetch(request);
    },
    onStop: (stop) => stoppers.push(stop),
  }));
  app.route('/v1/fine_tuning', fineTuningRoutes(ctx));
  app.route('/v1/libraries', libraryRoutes(ctx));
  app.route('/signed/libraries', signedLibraryRoutes(ctx));
  return app;
}

/**
 * The last line of defence behind the input rules (input-guard.ts): failures only a caller's input can cause
 * (still reported, as a rule that let them through is missing) become 400 instead of 500.
 */
function clientCausedFailure(err: unknown): PlatformHttpError | null {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL: 22P05 untranslatable character (NUL), 22021 invalid byte sequence, 54001 statement too complex (stack depth).
  if (code === '22P05' || code === '22021') return badRequest('The request contains a character the platform cannot store');
  if (code === '54001' || (err instanceof RangeError && /call stack/i.test(err.message))) return badRequest('The request is nested too deeply');
  return null;
}

function errorResponse(err: unknown, c: Context, report: (e: unknown) => void): Response {
  // The shared guards (input-guard.ts) run before the observability sub-app, which answers in its own shape.
  if (err instanceof Error && c.req.path.startsWith('/v1/observability/')) {
    try { return observabilityErrorResponse(err, c); } catch { /* not one it writes */ }
  }
  if (err instanceof PlatformHttpError) {
    return c.json(err.body, err.status as 400, err.headers);
  }
  report(err);
  const refused = clientCausedFailure(err);
  if (refused) return c.json(refused.body, refused.status as 400);
  const body = genericError(500, 'Internal server error', 'server_error', 'internal_error').body;
  return c.json(body, 500);
}
