/**
 * Ids and times of the entries a page makes (its messages, its tools' results), before the server names
 * them. Apart from chat-entries.ts (which re-exports them) so the client-tool code loaded later
 * (client-tools.ts) shares them with the first load without importing the rest.
 */

/** Prefix of the ids given to entries the server has not named yet (the user's message before the history says its id). */
export const LOCAL_ID_PREFIX = 'local_';

let counter = 0;

/** A temporary id for an entry created in the page. */
export function localId(): string {
  counter += 1;
  return `${LOCAL_ID_PREFIX}${Date.now().toString(36)}_${counter.toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Whether an id is a temporary one from {@link localId}. */
export function isLocalId(id: string): boolean {
  return id.startsWith(LOCAL_ID_PREFIX);
}

/** The current time as the wire writes it (ISO-8601 with `Z`). */
export function nowIso(): string {
  return new Date().toISOString();
}
