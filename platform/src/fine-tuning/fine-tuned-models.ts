/**
 * The fine-tuned models of the platform, kept in memory (loaded once from the database, then updated with
 * every change) so that the chat registry can resolve `ft:…` ids synchronously, like built-in models.
 * Attached to `ctx.chat` as its runtime source: conversations, chat completions and `GET /v1/models` then
 * see fine-tuned models without knowing about them.
 */
import type { FineTunedModelCard, ModelCard } from 'parley-kit/types';
import type { ChatModelRegistry } from '../engines/chat/registry.js';
import type { ChatEngine } from '../engines/chat/types.js';
import type { RuntimeModels } from '../engines/model-registry.js';
import type { Db } from '../store/db.js';
import { adaptedChatEngine } from './adapted-engine.js';
import { ExampleMemory } from './example-memory.js';
import { completionModel, fineTunedCard, type CompletionFineTunedModel, type FineTunedModelRecord } from './jobs.js';
import { allModels, deleteModel, insertModel, saveModelRecord, type StoredModel } from './store.js';

interface Served { record: FineTunedModelRecord; examples: StoredModel['examples']; engine: ChatEngine; card: FineTunedModelCard; base: ModelCard }

/** Fine-tuned chat models: in-memory index over the `fine_tuned_models` table. */
export class FineTunedModels implements RuntimeModels<ChatEngine> {
  private readonly served = new Map<string, Served>();

  constructor(private readonly db: Db, private readonly chat: ChatModelRegistry) {}

  /** Loads every stored model with one query; call once, right after the database opened (fine-tuning/routes.ts). */
  async load(): Promise<void> {
    for (const stored of await allModels(this.db)) this.serve(stored);
  }

  /**
   * Serves what the database holds now: models other platform processes on the same PostgreSQL database
   * trained, changed or deleted (the trainer calls it every few seconds there). Examples are read only for
   * models new to this process.
   */
  async refresh(): Promise<void> {
    const { rows } = await this.db.query<{ record: FineTunedModelRecord }>('select record from fine_tuned_models order by seq');
    const stored = new Set(rows.map((r) => r.record.id));
    for (const id of [...this.served.keys()]) if (!stored.has(id)) this.served.delete(id);
    const fresh: string[] = [];
    for (const { record } of rows) {
      const s = this.served.get(record.id);
      if (!s) fresh.push(record.id);
      else if (JSON.stringify(s.record) !== JSON.stringify(record)) this.serve({ record, examples: s.examples });
    }
    if (!fresh.length) return;
    const { rows: added } = await this.db.query<StoredModel>('select record, examples from fine_tuned_models where id = any($1::text[]) order by seq', [fresh]);
    for (const model of added) this.serve(model);
  }

  resolve(model: string): { engine: ChatEngine; card: ModelCard } | undefined {
    const s = this.served.get(model);
    return s && { engine: s.engine, card: s.card };
  }

  models(): ModelCard[] {
    return [...this.served.values()].map((s) => s.card);
  }

  /** The id of the built-in model serving `model` (an id or alias of a base chat model), or undefined for any other name. */
  baseOf(model: string): string | undefined {
    return this.chat.resolveBuiltIn(model)?.card.id;
  }

  /** The PATCH/archive view of a model of `workspaceId`, or undefined. */
  get(workspaceId: string, id: string): CompletionFineTunedModel | undefined {
    const s = this.served.get(id);
    return s && s.record.workspace_id === workspaceId ? completionModel(s.record, s.base.capabilities) : undefined;
  }

  /** Stores and serves a model a job produced. */
  async add(stored: StoredModel): Promise<void> {
    await insertModel(this.db, stored);
    this.serve(stored);
  }

  /** Changes name, description or `archived` of a model of `workspaceId`; undefined when there is no such model. */
  async update(workspaceId: string, id: string, change: Partial<Pick<FineTunedModelRecord, 'name' | 'description' | 'archived'>>): Promise<CompletionFineTunedModel | undefined> {
    const s = this.served.get(id);
    if (!s || s.record.workspace_id !== workspaceId) return undefined;
    const record = { ...s.record, ...change };
    await saveModelRecord(this.db, record);
    this.serve({ record, examples: s.examples });
    return completionModel(record, s.base.capabilities);
  }

  async delete(model: string): Promise<boolean> {
    if (!this.served.has(model)) return false;
    await deleteModel(this.db, model);
    this.served.delete(model);
    return true;
  }

  private serve(stored: StoredModel): void {
    // A base served by an engine this platform no longer runs (e.g. an OpenAI-compatible server not configured any more) leaves the model unserved.
    const base = this.chat.resolveBuiltIn(stored.record.root_version);
    if (!base) {
      this.served.delete(stored.record.id);
      return;
    }
    const card = fineTunedCard(stored.record, base.card);
    const engine = adaptedChatEngine(card, { engine: base.engine, model: base.card.id }, new ExampleMemory([...stored.examples]));
    this.served.set(stored.record.id, { record: stored.record, examples: stored.examples, engine, card, base: base.card });
  }
}
