import { ModelRegistry } from '../model-registry.js';
import type { ChatEngine } from './types.js';

/** The chat models the platform serves, found by id or alias; fine-tuned models join at runtime through {@link ModelRegistry.attach}. */
export class ChatModelRegistry extends ModelRegistry<ChatEngine> {}
