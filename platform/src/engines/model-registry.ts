import type { ModelCard } from 'parley-kit/types';

/** What a registry needs of an engine: the model cards it serves, and optionally how to stop it. */
export interface ModelEngine {
  models(): ModelCard[];
  close?(): Promise<void>;
}

/**
 * Models that appear and disappear while the platform runs (fine-tuned models), consulted after the
 * engines' own models. Lookups stay synchronous: a source keeps its models in memory.
 */
export interface RuntimeModels<E extends ModelEngine> {
  /** The engine and card serving `model` (its id), or undefined. */
  resolve(model: string): { engine: E; card: ModelCard } | undefined;
  models(): ModelCard[];
  /** Deletes the model for good; false when `model` is not one of this source's. */
  delete(model: string): Promise<boolean>;
}

/** Models of one kind of engine (chat, speech, transcription), found by id or alias; the first engine claiming a name wins. */
export class ModelRegistry<E extends ModelEngine> {
  private readonly byName = new Map<string, { engine: E; card: ModelCard }>();
  private readonly cards: ModelCard[] = [];
  private readonly runtime: RuntimeModels<E>[] = [];

  constructor(readonly engines: E[]) {
    for (const engine of engines) {
      for (const card of engine.models()) {
        this.cards.push(card);
        for (const name of [card.id, ...card.aliases]) {
          if (!this.byName.has(name)) this.byName.set(name, { engine, card });
        }
      }
    }
  }

  /** Adds a source of runtime models; the engines' own models still win on a name clash. */
  attach(source: RuntimeModels<E>): void {
    this.runtime.push(source);
  }

  /** The engine and card serving `model` (id or alias), or undefined. */
  resolve(model: string): { engine: E; card: ModelCard } | undefined {
    const found = this.byName.get(model);
    if (found) return found;
    for (const source of this.runtime) {
      const hit = source.resolve(model);
      if (hit) return hit;
    }
    return undefined;
  }

  /** The engines' models served from the start (never a runtime model). */
  resolveBuiltIn(model: string): { engine: E; card: ModelCard } | undefined {
    return this.byName.get(model);
  }

  models(): ModelCard[] {
    return [...this.cards, ...this.runtime.flatMap((s) => s.models())];
  }

  /** Deletes a runtime model (built-in models cannot be deleted); false when no runtime source has `model`. */
  async delete(model: string): Promise<boolean> {
    for (const source of this.runtime) {
      if (await source.delete(model)) return true;
    }
    return false;
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close?.()));
  }
}
