/**
 * What the platform really served, recorded per request in PGlite so the admin usage report and the
 * spend limit are computed from it: who called, which model, how many tokens (chat) or how many
 * characters (speech), seconds (transcription) or pages (OCR), and what that cost.
 *
 * Prices are the local platform's own table (EUR), not the real price list: the point is a report
 * whose numbers follow from the requests made.
 */
import type { Db } from '../store/db.js';

export interface UsageEvent {
  userId: string;
  workspaceId: string;
  /** The model id that served the request (after alias resolution). */
  model: string;
  /** e.g. `conversations`, `audio.speech`, `audio.transcriptions`, `ocr`. */
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  /** For requests not billed by tokens: what `quantity` counts. */
  unit?: UsageUnit;
  quantity?: number;
  /** ISO time. */
  at: string;
}

export type UsageUnit = 'characters' | 'seconds' | 'pages';

export interface UsageLedger {
  record(event: UsageEvent): Promise<void>;
}

/** EUR per prompt token, per completion token, and per unit of the other meters. */
export const PRICES = {
  promptToken: 0.1 / 1e6,
  completionToken: 0.3 / 1e6,
  characters: 0.016 / 1e3,
  seconds: 0.001 / 60,
  pages: 1 / 1e3,
} as const;

export const CURRENCY = { code: 'EUR', symbol: '€' } as const;

/** What an event costs under {@link PRICES}. */
export function costOf(e: Pick<UsageEvent, 'promptTokens' | 'completionTokens' | 'unit' | 'quantity'>): number {
  const units = e.unit ? PRICES[e.unit] * (e.quantity ?? 0) : 0;
  return e.promptTokens * PRICES.promptToken + e.completionTokens * PRICES.completionToken + units;
}

export function createUsageLedger(db: Db): UsageLedger {
  return {
    async record(e) {
      await db.query(
        `insert into tenancy_usage (user_id, workspace_id, model, endpoint, prompt_tokens, completion_tokens, unit, quantity, cost, at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [e.userId, e.workspaceId, e.model, e.endpoint, e.promptTokens, e.completionTokens, e.unit ?? null, e.quantity ?? 0, costOf(e), e.at],
      );
    },
  };
}

/** The calendar month (UTC) containing `at`, or the given month: `[start, end)` as ISO strings. */
export function monthPeriod(year: number, month: number): { start: string; end: string } {
  const iso = (d: Date) => `${d.toISOString().slice(0, 23)}000Z`;
  return { start: iso(new Date(Date.UTC(year, month - 1, 1))), end: iso(new Date(Date.UTC(year, month, 1))) };
}

/** Total cost recorded in `[start, end)`. */
export async function costBetween(db: Db, start: string, end: string): Promise<number> {
  const { rows } = await db.query<{ cost: number | null }>('select sum(cost) as cost from tenancy_usage where at >= $1 and at < $2', [start, end]);
  return Number(rows[0]?.cost ?? 0);
}

/** Blocks of the report computed from the ledger (each `{models, total_cost}`). */
const CATEGORIES = ['completion', 'audio', 'audio_characters', 'ocr', 'chat', 'connectors'] as const;
type Category = (typeof CATEGORIES)[number];

/** Speech is billed by characters (`audio_characters`), transcription by seconds (`audio`), OCR by pages, the rest by tokens. */
const categoryOf = (endpoint: string): Category =>
  endpoint === 'audio.speech' ? 'audio_characters' : endpoint.startsWith('audio') ? 'audio' : endpoint === 'ocr' ? 'ocr' : 'completion';

interface ModelUsage { requests: number; input_tokens: number; output_tokens: number; unit: UsageUnit | 'tokens'; quantity: number; cost: number }
interface Block { models: Record<string, ModelUsage>; total_cost: number }
const emptyBlock = (): Block => ({ models: {}, total_cost: 0 });

/** The report's `prices`: the local price table, one item per billing metric. */
const PRICE_LIST = [
  { event_type: 'api_tokens', billing_metric: 'input_tokens', billing_group: 'tokens', price: PRICES.promptToken },
  { event_type: 'api_tokens', billing_metric: 'output_tokens', billing_group: 'tokens', price: PRICES.completionToken },
  { event_type: 'api_audio_characters', billing_metric: 'audio_characters', billing_group: 'audio_characters', price: PRICES.characters },
  { event_type: 'api_audio_seconds', billing_metric: 'audio_seconds', billing_group: 'audio', price: PRICES.seconds },
  { event_type: 'api_pages', billing_metric: 'pages', billing_group: 'ocr', price: PRICES.pages },
].map((p) => ({ ...p, api_zone: 'global', service_tier: 'standard' }));

/**
 * `GET /v1/admin/usage`: cost and consumption of one month, per block and model, computed from the ledger
 * (optionally for one workspace). The blocks the platform records nothing for (connectors, chat, libraries,
 * fine-tuning, the `vibe_code` product) are present and empty; `vibe_usage` is the legacy integer, always 0.
 * `previous_month` / `next_month` are the starts of the neighbouring months (`next_month` null while it has
 * not begun).
 */
export async function usageReport(db: Db, query: { year: number; month: number; workspaceId?: string; now?: Date }) {
  const { start, end } = monthPeriod(query.year, query.month);
  const params: unknown[] = [start, end];
  let where = 'at >= $1 and at < $2';
  if (query.workspaceId) {
    params.push(query.workspaceId);
    where += ' and workspace_id = $3';
  }
  const { rows } = await db.query<{ endpoint: string; model: string; unit: UsageUnit | null; requests: number; prompt: number; completion: number; quantity: number; cost: number }>(
    `select endpoint, model, unit, count(*)::int as requests, sum(prompt_tokens)::int as prompt, sum(completion_tokens)::int as completion,
            sum(quantity) as quantity, sum(cost) as cost
     from tenancy_usage where ${where} group by endpoint, model, unit order by endpoint, model`, params);
  const report = Object.fromEntries(CATEGORIES.map((c) => [c, emptyBlock()])) as Record<Category, Block>;
  for (const r of rows) {
    const cat = report[categoryOf(r.endpoint)];
    const m = (cat.models[r.model] ??= { requests: 0, input_tokens: 0, output_tokens: 0, unit: r.unit ?? 'tokens', quantity: 0, cost: 0 });
    m.requests += r.requests;
    m.input_tokens += Number(r.prompt);
    m.output_tokens += Number(r.completion);
    m.quantity += r.unit ? Number(r.quantity) : Number(r.prompt) + Number(r.completion);
    m.cost += Number(r.cost);
    cat.total_cost += Number(r.cost);
  }
  const total = CATEGORIES.reduce((sum, c) => sum + report[c].total_cost, 0);
  const now = query.now ?? new Date();
  const previous = monthPeriod(query.year, query.month - 1).start;
  return {
    ...report,
    fine_tuning: { storage: {} as Record<string, number>, training: {} as Record<string, unknown> },
    libraries_api: { audio_seconds: emptyBlock(), pages: emptyBlock(), tokens: emptyBlock() },
    // The seed's `<product>_code` block and `<product>_usage` legacy integer; the product is Vibe.
    vibe_code: { audio: emptyBlock(), audio_characters: emptyBlock(), completion: emptyBlock(), connectors: emptyBlock(), ocr: emptyBlock() },
    vibe_usage: 0,
    currency: CURRENCY.code,
    currency_symbol: CURRENCY.symbol,
    prices: PRICE_LIST,
    date: start,
    start_date: start,
    end_date: end,
    previous_month: previous,
    next_month: Date.parse(end) <= now.getTime() ? end : null,
    workspace_id: query.workspaceId ?? null,
    total_cost: total,
  };
}
