import { ModelRegistry } from '../model-registry.js';
import type { ChatEngine } from './types.js';

/** The chat models the platform serves, found by id or alias. */
export class ChatModelRegistry extends ModelRegistry<ChatEngine> {}
