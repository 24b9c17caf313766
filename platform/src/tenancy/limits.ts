/**
 * The organization's rate limit and monthly spend limit: durable records in PGlite, enforced on every
 * authenticated request (except the admin API itself, so an administrator can always lift a limit).
 *
 * - Rate: a token bucket per organization holding `requests_per_second` tokens, refilled at that rate (in this
 *   process on PGlite; in the organization's row on PostgreSQL, shared by every process on the database);
 *   an empty bucket → 429 `Rate limit exceeded` with `Retry-After` (whole seconds until a token is back).
 *   Per-model token limits are recorded and reported but not enforced.
 * - Spend: once the month's recorded cost (usage ledger) reaches the limit → 429 with `code:
 *   "spend_limit_reached"` and `Retry-After` until the next month starts (UTC).
 */
import { z } from 'zod';
import type { Db } from '../store/db.js';
import { PlatformHttpError, genericError, invalidField } from '../http/errors.js';
import { CURRENCY, costBetween, monthPeriod } from './usage.js';

/** Requests per second allowed until an administrator sets another limit. */
export const DEFAULT_REQUESTS_PER_SECOND = 1000;

const TokenLimits = z.object({ tokens_per_minute: z.int().min(0), tokens_per_month: z.int().min(0) });

/** One item of the record's `tokens_limits_by_model` array: the limits of one model. */
export interface ModelTokenLimits { model: string; tokens_per_minute: number; tokens_per_month: number }

/**
 * `POST /v1/admin/rate-limit` (a local extension: the record is otherwise read-only). `tokens_limits_by_model`
 * is the array the record shows (`[{model, tokens_per_minute, tokens_per_month}]`) or a map keyed by model.
 */
export const RateLimitSchema = z.object({
  requests_per_second: z.int().min(1).max(1_000_000),
  tokens_limits_by_model: z.union([
    z.array(TokenLimits.extend({ model: z.string().min(1) })),
    z.record(z.string().min(1), TokenLimits),
  ]).nullish(),
});

/** `POST /v1/admin/spend-limit`: an amount (number) in the billing currency, or `no_monthly_limit: true`. */
export const SpendLimitSchema = z.object({
  amount: z.number().min(0).nullish(),
  no_monthly_limit: z.boolean().default(false),
});

interface LimitsRow { requests_per_second: number; tokens_limits_by_model: Record<string, z.output<typeof TokenLimits>>; monthly_spend_limit: number | null }

export class OrganizationLimits {
  private record: LimitsRow = { requests_per_second: DEFAULT_REQUESTS_PER_SECOND, tokens_limits_by_model: {}, monthly_spend_limit: null };
  private bucket = { tokens: DEFAULT_REQUESTS_PER_SECOND, at: 0 };
  private readAt = 0;

  constructor(private readonly db: Db, private readonly organizationId: string, private readonly now: () => number = Date.now) {}

  /** Reads the record (creating the default one on first start). */
  async load(): Promise<void> {
    await this.db.query(
      `insert into tenancy_limits (organization_id, requests_per_second, tokens_limits_by_model, monthly_spend_limit)
       values ($1, $2, '{}', null) on conflict do nothing`, [this.organizationId, DEFAULT_REQUESTS_PER_SECOND]);
    await this.read();
    this.bucket = { tokens: this.record.requests_per_second, at: this.now() };
  }

  private async read(): Promise<void> {
    const { rows } = await this.db.query<LimitsRow>('select * from tenancy_limits where organization_id = $1', [this.organizationId]);
    this.record = { ...rows[0], monthly_spend_limit: rows[0].monthly_spend_limit === null ? null : Number(rows[0].monthly_spend_limit) };
    this.readAt = Date.now();
  }

  /** On PostgreSQL another platform process may change the limits: the record is read again once a second at most. */
  private async fresh(): Promise<void> {
    if (this.db.kind === 'postgres' && Date.now() - this.readAt >= 1000) await this.read();
  }

  /** The rate limit record: `tokens_limits_by_model` is an array, one item per model. */
  rateLimit(): { requests_per_second: number; tokens_limits_by_model: ModelTokenLimits[] } {
    return {
      requests_per_second: this.record.requests_per_second,
      tokens_limits_by_model: Object.entries(this.record.tokens_limits_by_model).map(([model, l]) => ({ model, tokens_per_minute: l.tokens_per_minute, tokens_per_month: l.tokens_per_month })),
    };
  }

  async setRateLimit(body: z.output<typeof RateLimitSchema>) {
    const given = body.tokens_limits_by_model;
    const tokens = !given ? this.record.tokens_limits_by_model
      : Array.isArray(given) ? Object.fromEntries(given.map(({ model, ...l }) => [model, l])) : given;
    await this.db.query('update tenancy_limits set requests_per_second = $2, tokens_limits_by_model = $3, bucket_tokens = null, bucket_at = null where organization_id = $1',
      [this.organizationId, body.requests_per_second, JSON.stringify(tokens)]);
    this.record = { ...this.record, requests_per_second: body.requests_per_second, tokens_limits_by_model: tokens };
    this.bucket = { tokens: body.requests_per_second, at: this.now() };
    return this.rateLimit();
  }

  async spendLimit() {
    await this.fresh();
    const limit = this.record.monthly_spend_limit;
    const usage = await this.monthCost();
    return {
      limits: {
        completion: {
          monthly_limit_reached: limit !== null && usage >= limit,
          no_monthly_limit: limit === null,
          usage, usage_limit: limit, total_usage: usage,
          monthly_limit: limit, monthly_usage: usage,
        },
        currency: CURRENCY.code,
        last_payment_failure: false,
        last_payment_failure_protection: null,
      },
    };
  }

  async setSpendLimit(body: z.output<typeof SpendLimitSchema>) {
    if (!body.no_monthly_limit && (body.amount === undefined || body.amount === null)) {
      throw invalidField(['body', 'amount'], 'Field required unless no_monthly_limit is true', 'missing');
    }
    const limit = body.no_monthly_limit ? null : body.amount!;
    await this.db.query('update tenancy_limits set monthly_spend_limit = $2 where organization_id = $1', [this.organizationId, limit]);
    this.record = { ...this.record, monthly_spend_limit: limit };
    return this.spendLimit();
  }

  /** Takes one request from the bucket and checks the spend limit; throws 429 when over either. */
  async admit(): Promise<void> {
    await this.fresh();
    const rps = this.record.requests_per_second;
    const now = this.now();
    const left = this.db.kind === 'postgres' ? await this.takeShared(rps) : this.takeLocal(rps, now);
    if (left < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - left) / rps));
      throw new PlatformHttpError(429, genericError(429, 'Rate limit exceeded', 'rate_limited', '1300').body, { 'retry-after': String(retryAfter) });
    }

    const limit = this.record.monthly_spend_limit;
    if (limit !== null && (await this.monthCost()) >= limit) {
      const next = new Date(monthPeriod(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1).end).getTime();
      throw new PlatformHttpError(429, genericError(429, `Monthly spend limit of ${limit} ${CURRENCY.code} reached`, 'rate_limited', 'spend_limit_reached').body,
        { 'retry-after': String(Math.max(1, Math.ceil((next - now) / 1000))) });
    }
  }

  /** This process's bucket (PGlite: one process): the tokens there were before taking one (taken when ≥ 1). */
  private takeLocal(rps: number, now: number): number {
    this.bucket.tokens = Math.min(rps, this.bucket.tokens + ((now - this.bucket.at) / 1000) * rps);
    this.bucket.at = now;
    const before = this.bucket.tokens;
    if (before >= 1) this.bucket.tokens -= 1;
    return before;
  }

  /**
   * The bucket in the organization's row, on PostgreSQL: every platform process on the database takes from
   * it, refilled by the server's clock. One statement (the row lock orders concurrent takers): the tokens
   * there were before taking one, taken only when there was a whole one.
   */
  private async takeShared(rps: number): Promise<number> {
    const { rows } = await this.db.query<{ before: number }>(
      `with now as (select extract(epoch from clock_timestamp()) * 1000 as ms),
       current as (
         select least($2::float8, coalesce(l.bucket_tokens, $2::float8) + greatest(0, now.ms - coalesce(l.bucket_at, now.ms)) / 1000.0 * $2::float8) as tokens, now.ms
         from tenancy_limits l, now where l.organization_id = $1 for update of l
       )
       update tenancy_limits set
         bucket_tokens = case when current.tokens >= 1 then current.tokens - 1 else current.tokens end,
         bucket_at = current.ms
       from current where organization_id = $1
       returning current.tokens as before`, [this.organizationId, rps]);
    return rows[0]?.before ?? rps;
  }

  private monthCost(): Promise<number> {
    const d = new Date(this.now());
    const { start, end } = monthPeriod(d.getUTCFullYear(), d.getUTCMonth() + 1);
    return costBetween(this.db, start, end);
  }
}
