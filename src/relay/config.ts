/**
 * The configuration of `parley-relay` (and `parley relay`): one table of settings, each readable from
 * a JSON file (`--config <path>` or `PARLEY_RELAY_CONFIG`), an environment variable and (except
 * secrets) a command-line flag. Flags override the environment, which overrides the file. Every value
 * is validated (valibot) with a message naming where it came from; unknown file keys are refused.
 *
 * No `node:` imports here: the CLI parses the flags and reads the file, this module only decides.
 */
import * as v from 'valibot';
import { normaliseOrigin } from './proxy/cors.js';
import { DEFAULT_ADDRESS_LIMITS, type AddressLimits } from './proxy/limits.js';
import { DEFAULT_REALTIME_FLOOD_LIMITS, type RealtimeFloodLimits } from './realtime-guard.js';
import { operatorSecretProblem } from './sessions/operator.js';
import { DEFAULT_RESUME_LIMITS } from './streams/resumable.js';
import { ALL_SCOPES, ANY, DEFAULT_SESSION_LIMITS, type RelayPolicy, type RelayScope, type SessionLimits } from './sessions/policy.js';
import type { RelayOptions } from './relay.js';
import { ATTACHMENT_TYPES, DEFAULT_ATTACHMENT_LIMITS, type AttachmentLimits } from './uploads/attachments.js';

/** The relay's settings after merging file, environment and flags. */
export interface RelayConfig {
  port: number;
  host: string;
  /** The platform's base URL. */
  upstream: string;
  /** The platform's key (secret: environment or file only). */
  platformApiKey?: string;
  /** Token signing secret, 32+ bytes (secret). Absent: random per process. */
  relaySecret?: string;
  /** Secret of the operator endpoint (secret). Absent: no operator endpoint. */
  operatorSecret?: string;
  allowedOrigins: string[];
  /** The origin pages of the relay's own site are served from; same-origin is judged against it. */
  publicOrigin?: string;
  agents: string[];
  models: string[];
  scopes: RelayScope[];
  tokenTtlSeconds: number;
  sessionLimits: SessionLimits;
  addressLimits: AddressLimits;
  /** Proxy hops in front of the relay whose `X-Forwarded-For` is believed (0: none). */
  trustProxy: number;
  /** Shared state in Redis (absent: in memory, this process only). */
  redisUrl?: string;
  /** Let pages name remote https files for OCR and transcription (the platform fetches them); default false. */
  allowRemoteFiles: boolean;
  /** Attachments of conversation bodies: count, bytes each and in all, types (uploads/attachments.ts). */
  attachments: AttachmentLimits;
  /** The observability dataset visitors' ratings of replies are written to (absent: feedback is off). */
  feedbackDataset?: string;
  /** How long a streamed reply's events are kept for resumption after it ends, and how many bytes per reply (resumable.ts). */
  resume: { ttlSeconds: number; maxBytesPerStream: number };
  /** Flood caps of realtime sockets: message rate, invalid messages, backpressure (realtime-guard.ts). */
  realtime: RealtimeFloodLimits;
  /** On SIGTERM/SIGINT, how long open replies and sockets may take to end before they are ended (drain.ts). */
  drainTimeoutSeconds: number;
  /** Port of `GET /metrics` (Prometheus), apart from the relay's (absent: no metrics). */
  metricsPort?: number;
  /** Address the metrics port binds (default 127.0.0.1). */
  metricsHost: string;
  /** One JSON line per request on stdout (default false). */
  accessLog: boolean;
  /** Client addresses in the access log (default false). */
  logAddresses: boolean;
}

/** Thrown for any invalid setting; the CLI prints the message and exits with code 2. */
export class RelayConfigError extends Error {}

type Kind = 'int' | 'string' | 'list' | 'bool';

/** One setting: where it lives in the file, the environment and the command line, and what it must be. */
interface Setting {
  /** Path in the file, e.g. `sessionLimits.burst`. */
  key: string;
  env: string;
  /** Long flag name without dashes; absent for secrets (never on a command line, where `ps` shows it). */
  flag?: string;
  kind: Kind;
  /** What a valid value is, for messages and `--help`. */
  expect: string;
  schema: v.GenericSchema;
  help: string;
  /** Never echoed in messages. */
  secret?: boolean;
}

const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const nonEmpty = v.pipe(v.string(), v.minLength(1), v.maxLength(4096));
const httpUrl = v.pipe(v.string(), v.check((s) => isUrl(s, ['http:', 'https:'])));
const redisUrl = v.pipe(v.string(), v.check((s) => isUrl(s, ['redis:', 'rediss:'])));
const origin = v.pipe(v.string(), v.check((s) => normaliseOrigin(s) !== null));
/** An agent id or model name (`/` and `@` for names such as `org/model`), or `*`. */
const name = v.pipe(v.string(), v.regex(/^(\*|[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,199})$/));
const list = (item: v.GenericSchema) => v.array(item);
const secret = v.pipe(v.string(), v.minLength(1));

/** Every setting, in `--help` order. */
export const RELAY_SETTINGS: readonly Setting[] = [
  { key: 'port', env: 'PORT', flag: 'port', kind: 'int', expect: 'a whole number from 0 to 65535', schema: int(0, 65535), help: 'port (default 8789; 0 picks a free one)' },
  { key: 'host', env: 'PARLEY_RELAY_HOST', flag: 'host', kind: 'string', expect: 'an address to bind', schema: nonEmpty, help: 'address to bind (default 127.0.0.1)' },
  { key: 'upstream', env: 'PLATFORM_BASE_URL', flag: 'upstream', kind: 'string', expect: 'an http(s) URL', schema: httpUrl, help: 'the platform base URL (default https://api.mistral.ai)' },
  { key: 'platformApiKey', env: 'PLATFORM_API_KEY', kind: 'string', expect: 'a non-empty string', schema: secret, help: "the platform's key (required; stays on this server)", secret: true },
  { key: 'relaySecret', env: 'PARLEY_RELAY_SECRET', kind: 'string', expect: 'a string of 32 or more bytes', schema: v.pipe(v.string(), v.check((s) => new TextEncoder().encode(s).length >= 32)), help: 'token signing secret, 32+ bytes (default: random for this process)', secret: true },
  { key: 'operatorSecret', env: 'PARLEY_OPERATOR_SECRET', kind: 'string', expect: 'a string of 32 or more bytes without whitespace', schema: v.pipe(v.string(), v.check((s) => operatorSecretProblem(s) === undefined)), help: 'secret of the operator endpoint (session revocation), 32+ bytes (default: no endpoint)', secret: true },
  { key: 'allowedOrigins', env: 'PARLEY_ALLOWED_ORIGINS', flag: 'allow-origin', kind: 'list', expect: 'origins like https://shop.example', schema: list(origin), help: 'a page origin allowed to open sessions (repeatable)' },
  { key: 'publicOrigin', env: 'PARLEY_PUBLIC_ORIGIN', flag: 'public-origin', kind: 'string', expect: 'an origin like https://chat.example', schema: origin, help: "the relay's public origin; same-origin pages are judged against it" },
  { key: 'agents', env: 'PARLEY_AGENTS', flag: 'agent', kind: 'list', expect: "agent ids (or '*' for any)", schema: list(name), help: 'an agent sessions may talk to (repeatable; default none)' },
  { key: 'models', env: 'PARLEY_MODELS', flag: 'model', kind: 'list', expect: "model names (or '*' for any)", schema: list(name), help: 'a model sessions may use (repeatable; default none)' },
  { key: 'scopes', env: 'PARLEY_SCOPES', flag: 'scope', kind: 'list', expect: `scopes among ${ALL_SCOPES.join(', ')}`, schema: list(v.picklist(ALL_SCOPES)), help: `an operation sessions may use (repeatable; default conversations): ${ALL_SCOPES.join(', ')}` },
  { key: 'tokenTtlSeconds', env: 'PARLEY_TOKEN_TTL', flag: 'token-ttl', kind: 'int', expect: 'a whole number of seconds from 30 to 86400', schema: int(30, 86_400), help: 'session token lifetime in seconds (default 600)' },
  { key: 'sessionLimits.requestsPerMinute', env: 'PARLEY_SESSION_RPM', flag: 'session-rpm', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `requests per minute per session (default ${DEFAULT_SESSION_LIMITS.requestsPerMinute})` },
  { key: 'sessionLimits.burst', env: 'PARLEY_SESSION_BURST', flag: 'session-burst', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `requests at once per session (default ${DEFAULT_SESSION_LIMITS.burst})` },
  { key: 'sessionLimits.concurrentStreams', env: 'PARLEY_SESSION_STREAMS', flag: 'session-streams', kind: 'int', expect: 'a whole number from 1 to 1000', schema: int(1, 1000), help: `open streams per session (default ${DEFAULT_SESSION_LIMITS.concurrentStreams})` },
  { key: 'addressLimits.requestsPerMinute', env: 'PARLEY_ADDRESS_RPM', flag: 'address-rpm', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `requests per minute per client address (default ${DEFAULT_ADDRESS_LIMITS.requestsPerMinute})` },
  { key: 'addressLimits.burst', env: 'PARLEY_ADDRESS_BURST', flag: 'address-burst', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `requests at once per client address (default ${DEFAULT_ADDRESS_LIMITS.burst})` },
  { key: 'addressLimits.sessionsPerMinute', env: 'PARLEY_ADDRESS_SESSIONS_RPM', flag: 'address-sessions-rpm', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `sessions opened per minute per client address (default ${DEFAULT_ADDRESS_LIMITS.sessionsPerMinute})` },
  { key: 'addressLimits.sessionBurst', env: 'PARLEY_ADDRESS_SESSION_BURST', flag: 'address-session-burst', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `sessions opened at once per client address (default ${DEFAULT_ADDRESS_LIMITS.sessionBurst})` },
  { key: 'trustProxy', env: 'PARLEY_TRUST_PROXY', flag: 'trust-proxy', kind: 'int', expect: 'a whole number of proxy hops from 0 to 10', schema: int(0, 10), help: 'reverse proxies in front of the relay whose X-Forwarded-For is believed (default 0)' },
  { key: 'allowRemoteFiles', env: 'PARLEY_ALLOW_REMOTE_FILES', flag: 'allow-remote-files', kind: 'bool', expect: 'true or false', schema: v.boolean(), help: 'let pages name remote https files for OCR and transcription, which the platform then fetches (default: refused, 403)' },
  { key: 'attachments.maxCount', env: 'PARLEY_MAX_ATTACHMENTS', flag: 'max-attachments', kind: 'int', expect: 'a whole number from 0 to 100', schema: int(0, 100), help: `attachments (images, PDFs) per message; 0 refuses any (default ${DEFAULT_ATTACHMENT_LIMITS.maxCount})` },
  { key: 'attachments.maxBytes', env: 'PARLEY_MAX_ATTACHMENT_BYTES', flag: 'max-attachment-bytes', kind: 'int', expect: 'a whole number of bytes from 1 to 104857600', schema: int(1, 100 * 1024 * 1024), help: `bytes per attachment, decoded; larger → 413 (default ${DEFAULT_ATTACHMENT_LIMITS.maxBytes})` },
  { key: 'attachments.maxTotalBytes', env: 'PARLEY_MAX_ATTACHMENTS_TOTAL_BYTES', flag: 'max-attachments-total-bytes', kind: 'int', expect: 'a whole number of bytes from 1 to 209715200', schema: int(1, 200 * 1024 * 1024), help: `bytes of all the attachments of a message; the conversation body cap grows by their base64 size (default ${DEFAULT_ATTACHMENT_LIMITS.maxTotalBytes})` },
  { key: 'attachments.types', env: 'PARLEY_ATTACHMENT_TYPES', flag: 'attachment-type', kind: 'list', expect: `media types among ${ATTACHMENT_TYPES.join(', ')}`, schema: list(v.picklist(ATTACHMENT_TYPES as string[])), help: `a media type attachments may have, checked against their bytes (repeatable; default ${DEFAULT_ATTACHMENT_LIMITS.types.join(' ')})` },
  { key: 'feedbackDataset', env: 'PARLEY_FEEDBACK_DATASET', flag: 'feedback-dataset', kind: 'string', expect: 'a dataset id (letters, digits, _ and -)', schema: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/)), help: "write each visitor's rating of a reply (<agent-chat>'s thumbs) as a record of this observability dataset on the platform (default: off)" },
  { key: 'resume.ttlSeconds', env: 'PARLEY_RESUME_TTL', flag: 'resume-ttl', kind: 'int', expect: 'a whole number of seconds from 1 to 86400', schema: int(1, 86_400), help: `seconds a streamed reply is kept after it ends, for pages that lost the connection to resume it (default ${DEFAULT_RESUME_LIMITS.ttlSeconds})` },
  { key: 'resume.maxBytesPerStream', env: 'PARLEY_RESUME_MAX_BYTES', flag: 'resume-max-bytes', kind: 'int', expect: 'a whole number of bytes from 1024 to 1073741824', schema: int(1024, 1024 ** 3), help: `bytes kept per streamed reply for resumption; a longer reply cannot be resumed (default ${DEFAULT_RESUME_LIMITS.maxBytesPerStream})` },
  { key: 'realtime.messagesPerSecond', env: 'PARLEY_REALTIME_RATE', flag: 'realtime-rate', kind: 'int', expect: 'a whole number from 1 to 100000', schema: int(1, 100_000), help: `messages per second a session may send on its realtime sockets; faster → close 1008 (default ${DEFAULT_REALTIME_FLOOD_LIMITS.messagesPerSecond})` },
  { key: 'realtime.messageBurst', env: 'PARLEY_REALTIME_BURST', flag: 'realtime-burst', kind: 'int', expect: 'a whole number from 1 to 1000000', schema: int(1, 1_000_000), help: `realtime messages a session may send at once above that rate (default ${DEFAULT_REALTIME_FLOOD_LIMITS.messageBurst})` },
  { key: 'realtime.maxInvalidMessages', env: 'PARLEY_REALTIME_MAX_INVALID', flag: 'realtime-max-invalid', kind: 'int', expect: 'a whole number from 0 to 100000', schema: int(0, 100_000), help: `invalid realtime messages a session may send, each answered with an error event; the next → close 1008 (default ${DEFAULT_REALTIME_FLOOD_LIMITS.maxInvalidMessages})` },
  { key: 'realtime.maxBufferedBytes', env: 'PARLEY_REALTIME_MAX_BUFFERED_BYTES', flag: 'realtime-max-buffered-bytes', kind: 'int', expect: 'a whole number of bytes from 1024 to 268435456', schema: int(1024, 256 * 1024 * 1024), help: `bytes waiting for a page that does not read, above which the relay stops reading its socket and its upstream (default ${DEFAULT_REALTIME_FLOOD_LIMITS.maxBufferedBytes})` },
  { key: 'realtime.stallTimeoutMs', env: 'PARLEY_REALTIME_STALL_TIMEOUT_MS', flag: 'realtime-stall-timeout-ms', kind: 'int', expect: 'a whole number of ms from 100 to 3600000', schema: int(100, 3_600_000), help: `ms a page may stay over that before its socket is closed (1008) (default ${DEFAULT_REALTIME_FLOOD_LIMITS.stallTimeoutMs})` },
  { key: 'drainTimeoutSeconds', env: 'PARLEY_DRAIN_TIMEOUT', flag: 'drain-timeout', kind: 'int', expect: 'a whole number of seconds from 0 to 3600', schema: int(0, 3600), help: 'on SIGTERM or SIGINT, seconds open replies and realtime sockets get to end before they are ended; with Redis, pages resume their replies on another instance at once (default 30)' },
  { key: 'redisUrl', env: 'REDIS_URL', flag: 'redis', kind: 'string', expect: 'a redis:// or rediss:// URL', schema: redisUrl, help: 'shared state in Redis for several instances (default: in memory; a URL with a password belongs in REDIS_URL)', secret: true },
  { key: 'metricsPort', env: 'PARLEY_METRICS_PORT', flag: 'metrics-port', kind: 'int', expect: 'a whole number from 0 to 65535', schema: int(0, 65535), help: 'serve Prometheus metrics at GET /metrics on this port (default: no metrics; 0 picks a free one)' },
  { key: 'metricsHost', env: 'PARLEY_METRICS_HOST', flag: 'metrics-host', kind: 'string', expect: 'an address to bind', schema: nonEmpty, help: 'address the metrics port binds (default 127.0.0.1)' },
  { key: 'accessLog', env: 'PARLEY_ACCESS_LOG', flag: 'access-log', kind: 'bool', expect: 'true or false', schema: v.boolean(), help: 'one JSON line per request on stdout: request id, route, status, times, bytes, refusal (default: off)' },
  { key: 'logAddresses', env: 'PARLEY_LOG_ADDRESSES', flag: 'log-addresses', kind: 'bool', expect: 'true or false', schema: v.boolean(), help: 'put client addresses in the access log (default: off)' },
];

/** The file's own keys besides the settings: `$schema` is ignored, for editors. */
const IGNORED_FILE_KEYS = new Set(['$schema']);

/** `parseArgs` options of the CLI: every setting's flag, plus `--config` and `--help`. */
export function relayCliOptions() {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  };
  for (const s of RELAY_SETTINGS) {
    if (s.flag) options[s.flag] = s.kind === 'bool' ? { type: 'boolean' } : { type: 'string', ...(s.kind === 'list' ? { multiple: true } : {}) };
  }
  return options;
}

/** The `--help` text. */
export function relayHelp(name = 'parley-relay'): string {
  const flags = RELAY_SETTINGS.filter((s) => s.flag).map((s) => [s.kind === 'bool' ? `--${s.flag}` : `--${s.flag} <${s.kind === 'int' ? 'n' : 'value'}>`, s.help]);
  const envs = RELAY_SETTINGS.map((s) => [s.env, s.flag ? `= --${s.flag}` : s.help]);
  const pad = (rows: string[][]) => rows.map(([a, b]) => `  ${a!.padEnd(32)}${b}`).join('\n');
  return `Usage: ${name} [options]

The token relay: pages get short-lived session tokens from POST /session and reach the platform's
allowed paths under /v1 (realtime WebSocket included); the platform key stays on this server.

Locked down by default: sessions may only hold conversations, with the agents and models you name
(--agent, --model); speech, transcription, OCR and model or agent reads need --scope.

Options:
  --config <path>                 a JSON file of settings (or PARLEY_RELAY_CONFIG)
${pad(flags)}
  -h, --help                      this text

Environment (flags override the environment, which overrides the file):
${pad(envs)}
  PARLEY_RELAY_CONFIG             = --config
  Lists in the environment are separated by commas or spaces.

Config file (JSON; unknown keys are refused; secrets belong here or in the environment, never in flags):
${wrap(RELAY_SETTINGS.map((s) => s.key), 100)}
  e.g. { "allowedOrigins": ["https://shop.example"], "agents": ["ag_123"], "scopes": ["conversations", "speech"],
         "sessionLimits": { "requestsPerMinute": 30 }, "trustProxy": 1, "redisUrl": "redis://127.0.0.1:6379" }
`;
}

/** `items` joined with commas into indented lines of at most `width` characters. */
function wrap(items: string[], width: number): string {
  const lines: string[] = [];
  let line = ' ';
  for (const item of items) {
    if (line.length + item.length + 2 > width) {
      lines.push(line.trimEnd());
      line = ' ';
    }
    line += ` ${item},`;
  }
  lines.push(line.slice(0, -1));
  return lines.join('\n');
}

/** Where the settings come from: parsed flags, the environment, and the config file's path and text. */
export interface RelayConfigSources {
  flags: Record<string, unknown>;
  env: Record<string, string | undefined>;
  /** Reads the config file (the CLI passes `readFileSync`); called only when a config path is given. */
  readFile?: (path: string) => string;
}

const DEFAULTS: RelayConfig = {
  port: 8789,
  host: '127.0.0.1',
  upstream: 'https://api.mistral.ai',
  allowedOrigins: [],
  agents: [],
  models: [],
  scopes: ['conversations'],
  tokenTtlSeconds: 600,
  sessionLimits: { ...DEFAULT_SESSION_LIMITS },
  addressLimits: { ...DEFAULT_ADDRESS_LIMITS },
  trustProxy: 0,
  allowRemoteFiles: false,
  attachments: { ...DEFAULT_ATTACHMENT_LIMITS, types: [...DEFAULT_ATTACHMENT_LIMITS.types] },
  resume: { ttlSeconds: DEFAULT_RESUME_LIMITS.ttlSeconds, maxBytesPerStream: DEFAULT_RESUME_LIMITS.maxBytesPerStream },
  realtime: { ...DEFAULT_REALTIME_FLOOD_LIMITS },
  drainTimeoutSeconds: 30,
  metricsHost: '127.0.0.1',
  accessLog: false,
  logAddresses: false,
};

/** Merges file, environment and flags (in that order of precedence, lowest first) into a validated config. */
export function resolveRelayConfig(sources: RelayConfigSources): RelayConfig {
  const configPath = flagString(sources.flags.config) ?? nonBlank(sources.env.PARLEY_RELAY_CONFIG);
  const file = configPath ? readConfigFile(configPath, sources.readFile) : {};
  const config = structuredClone(DEFAULTS) as unknown as Record<string, unknown>;
  for (const setting of RELAY_SETTINGS) {
    const found = valueFromFlags(setting, sources.flags) ?? valueFromEnv(setting, sources.env) ?? valueFromFile(setting, file, configPath);
    if (!found) continue;
    if (!v.safeParse(setting.schema, found.value).success) {
      const got = setting.secret ? 'something else (not shown)' : show(found.value);
      throw new RelayConfigError(`${found.source} must be ${setting.expect}, got ${got}`);
    }
    setPath(config, setting.key, found.value);
  }
  return config as unknown as RelayConfig;
}

/** The `createRelay` options of a config (without the store, which the CLI makes). */
export function relayOptionsOf(config: RelayConfig): RelayOptions {
  if (!config.platformApiKey) throw new RelayConfigError("the relay needs the platform's key in PLATFORM_API_KEY (or platformApiKey in the config file); it stays on this server");
  return {
    upstream: { baseUrl: config.upstream, apiKey: config.platformApiKey },
    basePath: '',
    secret: config.relaySecret,
    allowedOrigins: config.allowedOrigins,
    publicOrigin: config.publicOrigin,
    policy: policyOf(config),
    tokenTtlSeconds: config.tokenTtlSeconds,
    limits: config.addressLimits,
    trustProxy: config.trustProxy,
    operatorSecret: config.operatorSecret,
    allowRemoteFiles: config.allowRemoteFiles,
    attachments: { ...config.attachments, types: [...config.attachments.types] },
    ...(config.feedbackDataset ? { feedback: { datasetId: config.feedbackDataset } } : {}),
    resume: { ...config.resume },
    realtime: { ...config.realtime },
  };
}

/** The policy of new sessions a config grants. */
export function policyOf(config: RelayConfig): RelayPolicy {
  return { scopes: [...config.scopes], agents: [...config.agents], models: [...config.models], limits: { ...config.sessionLimits } };
}

/** The effective policy, one line per subject, for the start-up banner. */
export function describeRelayConfig(config: RelayConfig, store: string): string[] {
  const names = (items: string[]) => items.includes(ANY) ? 'any (*)' : items.join(' ');
  const lines = [
    `  upstream       ${redactUrl(config.upstream)}`,
    `  origins        ${config.allowedOrigins.join(' ') || '(none listed: only same-origin pages; add --allow-origin)'}`,
    `  public origin  ${config.publicOrigin ?? '(not set: same-origin only for pages on localhost or an IP address; set --public-origin)'}`,
    `  agents         ${config.agents.length ? names(config.agents) : '(none)'}`,
    `  models         ${config.models.length ? names(config.models) : '(none)'}`,
    `  scopes         ${config.scopes.join(' ') || '(none)'}`,
    `  token          ${config.tokenTtlSeconds} s`,
    `  session limits ${config.sessionLimits.requestsPerMinute}/min, burst ${config.sessionLimits.burst}, ${config.sessionLimits.concurrentStreams} open streams`,
    `  address limits ${config.addressLimits.requestsPerMinute}/min, burst ${config.addressLimits.burst}; sessions ${config.addressLimits.sessionsPerMinute}/min, burst ${config.addressLimits.sessionBurst}`,
    `  trusted hops   ${config.trustProxy ? `${config.trustProxy} proxy hop${config.trustProxy > 1 ? 's' : ''} (X-Forwarded-For believed from them)` : '0 (X-Forwarded-For ignored; behind a reverse proxy set --trust-proxy)'}`,
    `  remote files   ${config.allowRemoteFiles ? 'allowed (pages may name https files; the platform fetches them)' : 'refused (pages upload files; set --allow-remote-files to let them name URLs)'}`,
    `  attachments    ${config.attachments.maxCount ? `${config.attachments.maxCount} per message, ${Math.round(config.attachments.maxBytes / 1024)} KB each, ${Math.round(config.attachments.maxTotalBytes / 1024)} KB in all: ${config.attachments.types.join(' ')}` : 'refused (--max-attachments 0)'}`,
    `  feedback       ${config.feedbackDataset ? `ratings written to dataset ${config.feedbackDataset}` : '(off: set --feedback-dataset to keep visitors\' ratings in a dataset)'}`,
    `  resumption     replies kept ${config.resume.ttlSeconds} s after they end, up to ${Math.round(config.resume.maxBytesPerStream / 1024)} KB each (--resume-ttl, --resume-max-bytes)`,
    `  realtime       ${config.realtime.messagesPerSecond} messages/s per session, burst ${config.realtime.messageBurst}, ${config.realtime.maxInvalidMessages} invalid; reading paused over ${Math.round(config.realtime.maxBufferedBytes / 1024)} KB unread, closed after ${config.realtime.stallTimeoutMs} ms`,
    `  store          ${store}`,
    `  restarts       on SIGTERM: replies and sockets get ${config.drainTimeoutSeconds} s to end${config.redisUrl ? ' (pages resume theirs at once on another instance on this Redis, when there is one)' : ''} (--drain-timeout)`,
    `  operator       ${config.operatorSecret ? 'endpoint enabled (PARLEY_OPERATOR_SECRET)' : '(no endpoint: set PARLEY_OPERATOR_SECRET to revoke sessions from outside)'}`,
  ];
  if (!config.agents.length && !config.models.length) {
    lines.push('  note           no agent and no model is configured: pages can open sessions but reach nothing (add --agent or --model)');
  }
  const missing = ALL_SCOPES.filter((s) => s !== 'conversations' && !config.scopes.includes(s));
  if (missing.length) lines.push(`  not allowed    ${missing.join(' ')} (add --scope to allow)`);
  return lines;
}

function readConfigFile(path: string, readFile: RelayConfigSources['readFile']): Record<string, unknown> {
  if (!readFile) throw new RelayConfigError(`cannot read the config file ${path} here`);
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new RelayConfigError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the error, which may be a secret: only its position is told.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new RelayConfigError(`the config file ${path} is not valid JSON${at === undefined ? '' : ` (near character ${at})`}`);
  }
  if (!isPlainObject(parsed)) throw new RelayConfigError(`the config file ${path} must hold a JSON object of settings`);
  checkKnownKeys(parsed, '', path);
  return parsed;
}

/** Refuses keys no setting has (typos would otherwise be silently ignored), at every level. */
function checkKnownKeys(object: Record<string, unknown>, prefix: string, path: string): void {
  for (const [key, value] of Object.entries(object)) {
    const full = prefix + key;
    if (!prefix && IGNORED_FILE_KEYS.has(key)) continue;
    const exact = RELAY_SETTINGS.some((s) => s.key === full);
    const group = RELAY_SETTINGS.some((s) => s.key.startsWith(`${full}.`));
    if (exact) continue;
    if (!group) {
      const known = RELAY_SETTINGS.filter((s) => s.key.startsWith(prefix) && !s.key.slice(prefix.length).includes('.')).map((s) => s.key.slice(prefix.length));
      const groups = [...new Set(RELAY_SETTINGS.filter((s) => s.key.startsWith(prefix) && s.key.slice(prefix.length).includes('.')).map((s) => s.key.slice(prefix.length).split('.')[0]!))];
      throw new RelayConfigError(`unknown key '${full}' in the config file ${path} (known here: ${[...known, ...groups].join(', ')})`);
    }
    if (!isPlainObject(value)) throw new RelayConfigError(`the config file ${path}: ${full} must be an object, got ${show(value)}`);
    checkKnownKeys(value, `${full}.`, path);
  }
}

type Found = { value: unknown; source: string };

function valueFromFlags(setting: Setting, flags: RelayConfigSources['flags']): Found | undefined {
  if (!setting.flag) return undefined;
  const raw = flags[setting.flag];
  if (raw === undefined) return undefined;
  const source = `--${setting.flag}`;
  if (setting.kind === 'list') return { value: (Array.isArray(raw) ? raw : [raw]).flatMap((item) => splitList(String(item))), source };
  if (setting.kind === 'bool' && typeof raw === 'boolean') return { value: raw, source };
  return { value: fromString(setting, String(raw)), source };
}

function valueFromEnv(setting: Setting, env: RelayConfigSources['env']): Found | undefined {
  const raw = nonBlank(env[setting.env]);
  if (raw === undefined) return undefined;
  return { value: setting.kind === 'list' ? splitList(raw) : fromString(setting, raw), source: setting.env };
}

function valueFromFile(setting: Setting, file: Record<string, unknown>, path: string | undefined): Found | undefined {
  let node: unknown = file;
  for (const part of setting.key.split('.')) node = isPlainObject(node) ? node[part] : undefined;
  if (node === undefined) return undefined;
  return { value: node, source: `${setting.key} in the config file ${path}` };
}

/** A flag or environment value as the setting's type (invalid numbers stay strings, to be refused with the value shown). */
function fromString(setting: Setting, raw: string): unknown {
  if (setting.kind === 'bool') {
    const word = raw.trim().toLowerCase();
    return ['true', '1', 'yes'].includes(word) ? true : ['false', '0', 'no'].includes(word) ? false : raw;
  }
  if (setting.kind !== 'int') return raw;
  return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
}

function splitList(raw: string): string[] {
  return raw.split(/[\s,]+/).filter(Boolean);
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  node[parts.at(-1)!] = value;
}

/** A Redis URL for display: its password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.href;
  } catch {
    return '(invalid URL)';
  }
}

function isUrl(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function flagString(value: unknown): string | undefined {
  return typeof value === 'string' ? nonBlank(value) : undefined;
}

function nonBlank(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
