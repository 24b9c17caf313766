import type { ModelCard } from '../../client/types.js';

/** What a registry needs of an engine: the model cards it serves, and optionally how to stop it. */
export interface ModelEngine {
  models(): ModelCard[];
  close?(): Promise<void>;
}

/** Models of one kind of engine (chat, speech, transcription), found by id or alias; the first engine claiming a name wins. */
export class ModelRegistry<E extends ModelEngine> {
  private readonly byName = new Map<string, { engine: E; card: ModelCard }>();
  private readonly cards: ModelCard[] = [];

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

  /** The engine and card serving `model` (id or alias), or undefined. */
  resolve(model: string): { engine: E; card: ModelCard } | undefined {
    return this.byName.get(model);
  }

  models(): ModelCard[] {
    return [...this.cards];
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close?.()));
  }
}
