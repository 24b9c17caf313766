/**
 * Campaigns: a named selection of completion events (the events of the workspace matching
 * `search_params`, newest first, at most `max_nb_events`) to be judged by one judge. The selection is
 * made when the campaign is created, so a campaign is COMPLETED as soon as it exists; its judge is kept
 * as it was then (a later change or deletion of the judge does not change the campaign).
 * The selected events are what from-campaign imports copy into a dataset.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { isoNow } from '../http/ids.js';
import type { Judge } from './judges.js';
import { offset, type Page, type PageRequest } from './datasets.js';
import type { FilterPayload } from './filters.js';

/** Campaign as answered. */
export interface Campaign {
  id: string;
  created_at: string;
  updated_at: string;
  deleted_at: null;
  name: string;
  owner_id: string;
  workspace_id: string;
  description: string;
  max_nb_events: number;
  search_params: FilterPayload;
  judge: Judge;
}

interface Row { id: string; created_at: string; updated_at: string; owner_id: string; workspace_id: string; name: string; description: string; record: { max_nb_events: number; search_params: FilterPayload; judge: Judge } }

const COLUMNS = 'id, created_at, updated_at, owner_id, workspace_id, name, description, record';

const toCampaign = (row: Row): Campaign => ({
  id: row.id, created_at: row.created_at, updated_at: row.updated_at, deleted_at: null, name: row.name, owner_id: row.owner_id,
  workspace_id: row.workspace_id, description: row.description, max_nb_events: row.record.max_nb_events,
  search_params: row.record.search_params, judge: row.record.judge,
});

export class CampaignStore {
  constructor(private readonly db: Db) {}

  /** Creates the campaign with the ids of the events it selected (in their order). */
  async create(input: {
    workspaceId: string; ownerId: string; name: string; description: string; maxNbEvents: number; searchParams: FilterPayload; judge: Judge; eventIds: string[];
  }): Promise<Campaign> {
    return this.db.transaction(async (tx) => {
      const now = isoNow();
      const { rows } = await tx.query<Row>(
        `insert into campaigns (id, workspace_id, owner_id, name, description, record, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $7) returning ${COLUMNS}`,
        [randomUUID(), input.workspaceId, input.ownerId, input.name, input.description,
          { max_nb_events: input.maxNbEvents, search_params: input.searchParams, judge: input.judge }, now],
      );
      const campaign = toCampaign(rows[0]);
      for (const [position, eventId] of input.eventIds.entries()) {
        await tx.query('insert into campaign_events (campaign_id, position, event_id) values ($1, $2, $3)', [campaign.id, position, eventId]);
      }
      return campaign;
    });
  }

  async get(workspaceId: string, id: string): Promise<Campaign | null> {
    const { rows } = await this.db.query<Row>(`select ${COLUMNS} from campaigns where id = $1 and workspace_id = $2`, [id, workspaceId]);
    return rows[0] ? toCampaign(rows[0]) : null;
  }

  /** Campaigns newest first; `q` is a case-insensitive substring of the name or the description. */
  async list(workspaceId: string, page: PageRequest, q?: string): Promise<Page<Campaign>> {
    const params: unknown[] = [workspaceId];
    let where = 'workspace_id = $1';
    if (q) {
      params.push(`%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
      where += ' and (name ilike $2 or description ilike $2)';
    }
    const count = await this.db.query<{ n: number }>(`select count(*)::integer as n from campaigns where ${where}`, params);
    const { rows } = await this.db.query<Row>(
      `select ${COLUMNS} from campaigns where ${where} order by seq desc limit ${page.pageSize} offset ${offset(page)}`, params);
    return { results: rows.map(toCampaign), count: count.rows[0].n };
  }

  /** False when unknown. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { affectedRows } = await this.db.query('delete from campaigns where id = $1 and workspace_id = $2', [id, workspaceId]);
    return (affectedRows ?? 0) > 0;
  }

  /** Ids of the events the campaign selected, in selection order (a page of them, or all without `page`). */
  async eventIds(campaignId: string, page?: PageRequest): Promise<Page<string>> {
    const count = await this.db.query<{ n: number }>('select count(*)::integer as n from campaign_events where campaign_id = $1', [campaignId]);
    const limit = page ? ` limit ${page.pageSize} offset ${offset(page)}` : '';
    const { rows } = await this.db.query<{ event_id: string }>(
      `select event_id from campaign_events where campaign_id = $1 order by position${limit}`, [campaignId]);
    return { results: rows.map((r) => r.event_id), count: count.rows[0].n };
  }
}
