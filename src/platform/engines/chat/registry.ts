import type { ModelCard } from '../../../client/types.js';
import type { ChatEngine } from './types.js';

/** The chat models the platform serves, found by id or alias. */
export class ChatModelRegistry {
  private readonly byName = new Map<string, { engine: ChatEngine; card: ModelCard }>();
  private readonly cards: ModelCard[] = [];

  constructor(readonly engines: ChatEngine[]) {
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
  resolve(model: string): { engine: ChatEngine; card: ModelCard } | undefined {
    return this.byName.get(model);
  }

  models(): ModelCard[] {
    return [...this.cards];
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close?.()));
  }
}
