/**
 * Leases on background jobs (batch jobs, dataset imports, library documents, fine-tuning jobs), so that when
 * several platform processes share one PostgreSQL database each job runs in one process at a time, and a
 * job whose process died is taken over by another once its lease runs out.
 *
 * A job row carries `lease_owner` (the process holding it) and `lease_until` (database clock). A process
 * claims a job in one statement: the first claimable row whose lease is free or expired, locked with
 * `FOR UPDATE SKIP LOCKED` so two processes claiming at once take different rows. While it works on the job
 * it renews the lease every `renewMs`; a renewal that finds the lease taken (it was too slow) marks the lease
 * lost and the work stops at its next check. Work done releases the lease.
 *
 * PGlite is one process: a lease left in its database is stale by definition (the process that held it is
 * gone), so they are all cleared when it opens and a job interrupted by a restart resumes at once.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from './db.js';

/** The leased job tables (migrations of the `leases` area add the columns). */
export type LeasedTable = 'batch_jobs' | 'dataset_tasks' | 'library_documents' | 'fine_tuning_jobs';
const TABLES: LeasedTable[] = ['batch_jobs', 'dataset_tasks', 'library_documents', 'fine_tuning_jobs'];

export const MIGRATIONS: string[] = [
  // 1: lease columns on every job table.
  TABLES.map((t) => `alter table ${t} add column lease_owner text, add column lease_until timestamptz;`).join('\n'),
];

export interface LeaseTiming {
  /** How long a lease lasts without renewal: a dead holder's job is taken over this long after its last renewal. */
  leaseMs: number;
  /** How often a holder renews its leases. */
  renewMs: number;
  /** How often a runner on PostgreSQL looks for work other processes queued or left behind. */
  pollMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { leaseMs: 30_000, renewMs: 10_000, pollMs: 5_000 };

const timings = new WeakMap<Db, LeaseTiming>();
const owners = new WeakMap<Db, string>();

/** Sets the lease timing of the platform using `db` (PlatformOptions.jobLeases). */
export function setLeaseTiming(db: Db, timing: Partial<LeaseTiming>): void {
  timings.set(db, { ...DEFAULT_LEASE_TIMING, ...timing });
}

export function leaseTiming(db: Db): LeaseTiming {
  return timings.get(db) ?? DEFAULT_LEASE_TIMING;
}

/** Who holds leases taken through `db`: one name per platform (host, pid and a random part). */
export function leaseOwner(db: Db): string {
  let owner = owners.get(db);
  if (!owner) {
    owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    owners.set(db, owner);
  }
  return owner;
}

/** Which rows of a table are jobs waiting for (or in the middle of) work, and in which order they are taken. */
export interface JobQueue {
  table: LeasedTable;
  /** SQL condition on the row (no parameters) for "this job still has work to do". */
  pending: string;
  /** SQL order of the rows (oldest first). */
  order: string;
}

const FREE = `(lease_owner is null or lease_until < now())`;
const until = (n: number) => `now() + make_interval(secs => $${n}::double precision / 1000)`;

/** Claims the first pending job whose lease is free or expired; undefined when there is none. */
export function claimNext(db: Db, queue: JobQueue): Promise<Lease | undefined> {
  return take(db, queue);
}

/** Claims one job by id when it is pending and its lease is free, expired or already this platform's. */
export function claim(db: Db, queue: JobQueue, id: string): Promise<Lease | undefined> {
  return take(db, queue, id);
}

/** One statement: lock the chosen pending row (skipping rows another process is claiming) and lease it. */
async function take(db: Db, queue: JobQueue, id?: string): Promise<Lease | undefined> {
  const owner = leaseOwner(db);
  const { leaseMs } = leaseTiming(db);
  const choose = id === undefined
    ? `(${queue.pending}) and ${FREE} order by ${queue.order} limit 1`
    : `id = $3 and (${queue.pending}) and (${FREE} or lease_owner = $1)`;
  const { rows } = await db.query<{ id: string }>(
    `update ${queue.table} set lease_owner = $1, lease_until = ${until(2)}
      where id = (select id from ${queue.table} where ${choose} for update skip locked)
      returning id`,
    id === undefined ? [owner, leaseMs] : [owner, leaseMs, id],
  );
  return rows[0] && new Lease(db, queue.table, rows[0].id, owner);
}

/** Clears every lease (PGlite at open: no other process can hold one). */
export async function clearLeases(db: Db): Promise<void> {
  for (const table of TABLES) await db.query(`update ${table} set lease_owner = null, lease_until = null where lease_owner is not null`);
}

/** A held lease, renewed in the background until released. */
export class Lease {
  /** True once a renewal found the job taken by another process (or gone): stop working on it. */
  lost = false;
  private readonly timer: ReturnType<typeof setInterval>;
  private released = false;

  constructor(private readonly db: Db, readonly table: LeasedTable, readonly id: string, readonly owner: string) {
    this.timer = setInterval(() => { void this.renew().catch(() => undefined); }, leaseTiming(db).renewMs);
    this.timer.unref?.();
  }

  /** Extends the lease; false (and `lost`) when this platform no longer holds it. */
  async renew(): Promise<boolean> {
    if (this.db.closed) clearInterval(this.timer);
    if (this.released || this.lost || this.db.closed) return !this.lost;
    const { affectedRows } = await this.db.query(
      `update ${this.table} set lease_until = ${until(3)} where id = $1 and lease_owner = $2`, [this.id, this.owner, leaseTiming(this.db).leaseMs]);
    if (!affectedRows) this.lost = true;
    return !this.lost;
  }

  /** Stops renewing and frees the job for any process (a no-op once the database is closed). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    if (this.db.closed) return;
    await this.db.query(`update ${this.table} set lease_owner = null, lease_until = null where id = $1 and lease_owner = $2`, [this.id, this.owner]).catch(() => undefined);
  }
}

/**
 * Calls `wake` every `pollMs` while the database is open, on PostgreSQL only (jobs queued by another process,
 * or left by one that died); PGlite's only process wakes its runners itself. Returns a stop function.
 */
export function pollForWork(db: Db, wake: () => void): () => void {
  if (db.kind !== 'postgres') return () => {};
  const timer = setInterval(() => {
    if (db.closed) clearInterval(timer);
    else wake();
  }, leaseTiming(db).pollMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
