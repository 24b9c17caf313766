import type { ModelCard } from '../../../client/types.js';
import type { TranscriptionEngine } from './types.js';

/** The speech-to-text models the platform serves, found by id or alias (never resolvable as chat or TTS models). */
export class TranscriptionCatalog {
  private readonly byModel = new Map<string, { engine: TranscriptionEngine; card: ModelCard }>();
  private readonly cards: ModelCard[] = [];

  constructor(readonly engines: TranscriptionEngine[]) {
    for (const engine of engines) {
      for (const card of engine.models()) {
        this.cards.push(card);
        for (const name of [card.id, ...card.aliases]) if (!this.byModel.has(name)) this.byModel.set(name, { engine, card });
      }
    }
  }

  resolveModel(model: string): { engine: TranscriptionEngine; card: ModelCard } | undefined {
    return this.byModel.get(model);
  }

  models(): ModelCard[] {
    return [...this.cards];
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close?.()));
  }
}
