/**
 * What the client shares with servers that speak the same wire format (the local platform), without the
 * browser side of the client (chat state machine, history store, fetch-event-source): the text of
 * message content and the async event queue streams are built on. Exported as `parley-kit/wire`.
 */
export { contentText, textChunks, type MessageContent } from './message-content.js';
export { EventQueue } from './event-queue.js';
