/**
 * The browser history cache (IndexedDB). Importing it touches nothing; `HistoryStore.open()` does.
 */
export { HistoryStore } from './history-store.js';
export type { HistoryStoreOptions } from './history-store.js';
export { SCHEMA_VERSION } from './schema.js';
