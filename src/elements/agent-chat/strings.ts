/**
 * Every word `<agent-chat>` and its markdown renderer show or announce, in one place (kept apart from the
 * other elements' words, so each bundle carries only its own). These are the English ones, built in; other
 * languages come from the locale catalogues (src/elements/locales/, `registerLocale()`), chosen by the
 * element's `lang`. Hosts change any word with a partial object in the element's `strings` property, which
 * wins over the language.
 */
import type { PlatformErrorShape, VoiceInputError } from '../../client/contracts.js';
import { chatErrorKind } from '../internal/error-kinds.js';
import type { ChatErrorKind } from '../internal/error-kinds.js';
import { localize } from '../internal/locale-registry.js';
import type { LocaleHost } from '../internal/locale-registry.js';
import { counter } from '../internal/locale-format.js';
import { attachmentTrayEnglish } from './attachment-tray.strings.js';
import { toolApprovalEnglish } from './tool-approval.strings.js';
import { replyActionsEnglish } from './reply-actions.strings.js';
import { conversationListEnglish } from './conversation-list.strings.js';
import { searchBarEnglish } from './search-bar.strings.js';

/** The user-visible strings of `<agent-chat>` (and the markdown renderer it uses). */
export interface AgentChatStrings {
  /** Heading of the chat when no agent name is known and no `header` slot is given. */
  title: string;
  /** Accessible name of the message list. */
  transcriptLabel: string;
  /** Label of the message box. */
  inputLabel: string;
  inputPlaceholder: string;
  send: string;
  stop: string;
  retry: string;
  regenerate: string;
  edit: string;
  editLabel: string;
  saveAndSend: string;
  cancel: string;
  newConversation: string;
  conversations: string;
  closeConversations: string;
  noConversations: string;
  deleteConversation: (title: string) => string;
  untitledConversation: string;
  /** @deprecated Not shown any more: every message of a conversation is in the transcript (search finds them). Kept so existing overrides still type-check. */
  showEarlier: (count: number) => string;
  /** The header button that opens the search over the conversation's messages. */
  search: string;
  /** Label of the search field. */
  searchLabel: string;
  searchPrevious: string;
  searchNext: string;
  closeSearch: string;
  /** The search's state line (a polite live region): which match is shown, of how many ("3 of 12 matches"). */
  searchMatches: (current: number, total: number) => string;
  searchNoMatches: string;
  emptyState: string;
  you: string;
  assistant: string;
  /** Accessible name of the launcher button. */
  openChat: string;
  closeChat: string;
  /** Accessible name of the launcher panel. */
  chatPanelLabel: string;
  thinking: string;
  interrupted: string;
  /** The notice while a message waits for the connection (the page is offline). */
  offlineWaiting: string;
  /** The note under a user message that waits for the connection. */
  waitingToSend: string;
  /** The notice's button that drops the waiting message instead of sending it. */
  cancelWaiting: string;
  handoff: (agentName: string) => string;
  functionCall: (name: string) => string;
  toolExecution: (name: string) => string;
  functionArguments: string;
  functionResult: string;
  functionPending: string;
  /** Announced in the live region when a message went out, and when its reply's first words arrive. */
  sendingAnnouncement: string;
  writingAnnouncement: string;
  /** Announced in the live region when a reply finished. */
  replyAnnouncement: (text: string) => string;
  /** Title of the confirm dialog for a link whose text shows another host than it opens. */
  linkWarningTitle: string;
  linkWarningBody: (shownHost: string, realHost: string) => string;
  openLink: string;
  /** Placeholder for a remote image that was not loaded. */
  imageBlocked: (host: string, alt: string) => string;
  errorMessage: (error: PlatformErrorShape) => string;
  /** Button under a finished reply that reads it aloud, and the same button while it is reading. */
  readAloud: string;
  stopReading: string;
  /** Accessible name of the microphone button, and the same button while it is listening. */
  speakMessage: string;
  stopListening: string;
  /** The toggle for hands-free turns (listen, send, speak the reply, listen again). */
  handsFree: string;
  /** The voice state line (a polite live region). */
  voiceListening: string;
  voiceThinking: string;
  voiceSpeaking: string;
  /** Why voice input stopped, and what to do about it (default: the microphone controller's own words, which say that). */
  voiceErrorMessage: (error: VoiceInputError) => string;
  /** Accessible name of the suggested first messages (`starters`) shown on an empty chat. */
  startersLabel: string;
  /** The question over a client tool's call that needs the visitor's consent (`requiresApproval`). */
  approvalQuestion: (name: string) => string;
  /** Announced in the live region when a call asks for consent. */
  approvalAnnouncement: (name: string) => string;
  /** The consent buttons. */
  allowTool: string;
  denyTool: string;
  /** Announced when the visitor declined a call. */
  toolDeclined: (name: string) => string;
  /** The line shown while a tool runs on the platform (a connector): its function's name. */
  toolRunning: (name: string) => string;
  /** The same line while the platform searches the agent's document libraries (`document_library`). */
  searchingDocuments: string;
  /** Accessible name of the button that attaches images and PDFs (it opens the file picker). */
  attach: string;
  /** Accessible name of the list of files attached to the message being written. */
  attachmentsLabel: string;
  /** Text in place of an image sent with a message (its alternative text: the API keeps no image names). */
  attachedImage: string;
  /** Accessible name of the button that removes an attached file. */
  removeAttachment: (name: string) => string;
  /** Announced when a file is attached, and when one is removed. */
  attachmentAdded: (name: string) => string;
  attachmentRemoved: (name: string) => string;
  /** A file's size as shown and said ("1.2 MB"). */
  fileSize: (bytes: number) => string;
  /** Why a file was not attached (shown and announced): over the size limit, a type not accepted, one file too many, unreadable. */
  attachmentTooLarge: (name: string, size: number, limit: number) => string;
  attachmentWrongType: (name: string, types: string) => string;
  attachmentTooMany: (name: string, limit: number) => string;
  attachmentUnreadable: (name: string) => string;
  /** Button under a finished reply that copies it (as markdown), and the one on each code block. */
  copyReply: string;
  copyCode: string;
  /** Announced (and shown on the button) once something was copied, or when the browser refused. */
  copied: string;
  copyFailed: string;
  /** The thumbs under a finished reply (toggle buttons), the comment form after a thumbs-down, and its thanks. */
  goodReply: string;
  badReply: string;
  feedbackComment: string;
  sendFeedback: string;
  skipFeedback: string;
  feedbackThanks: string;
  /** The collapsed list of a reply's sources (`count` of them), a document's page, and the button that shows it in the tied viewer. */
  sources: (count: number) => string;
  sourcePage: (page: number) => string;
  showInDocument: (page: number) => string;
}

/** The words of the parts `<agent-chat>` loads with `import()` (attachment chips, consent cards, copy, feedback, sources, the conversation list, the search bar). */
export type LaterWords = keyof typeof attachmentTrayEnglish | keyof typeof toolApprovalEnglish | keyof typeof replyActionsEnglish
  | keyof typeof conversationListEnglish | keyof typeof searchBarEnglish;

/**
 * The words as an element resolves them: those of its first load, and the later parts' only as a catalogue or
 * the host's `strings` give them. A later part completes them with its English (`{ ...english, ...words }`:
 * what the language or the host gives still wins).
 */
export type ShownStrings = Omit<AgentChatStrings, LaterWords> & Partial<AgentChatStrings>;

const count = counter('en');

const CHAT_ERRORS: Record<ChatErrorKind, string> = {
  unavailable: 'This assistant is not available on this page.',
  'no-sound': 'No sound can be played on this device.',
  network: 'The chat service could not be reached. Check your connection and try again.',
  cut: 'The reply was cut off before it finished.',
  forbidden: 'This chat is not allowed to do that. Reload the page and try again.',
  'not-found': 'The conversation or agent was not found.',
  'too-long': 'The message is too long.',
  rejected: 'The request was not accepted.',
  'rate-limited': 'Too many requests. Try again in a moment.',
  server: 'The chat service had a problem and could not finish the reply.',
  other: 'Something went wrong.',
};

const errorMessage = (error: PlatformErrorShape): string => {
  const kind = chatErrorKind(error);
  if (kind === 'rate-limited' && error.retryAfter) {
    return `Too many requests. Try again in ${count(Math.ceil(error.retryAfter), { one: '# second', other: '# seconds' })}.`;
  }
  return CHAT_ERRORS[kind];
};

/** English words of what an empty chat shows and of the transcript (the first load). */
const shownEnglish: ShownStrings = {
  title: 'Chat',
  transcriptLabel: 'Messages',
  inputLabel: 'Message',
  inputPlaceholder: 'Write a message…',
  send: 'Send',
  stop: 'Stop',
  retry: 'Try again',
  regenerate: 'Regenerate reply',
  edit: 'Edit',
  editLabel: 'Edit your message',
  saveAndSend: 'Save and send',
  cancel: 'Cancel',
  newConversation: 'New conversation',
  conversations: 'Conversations',
  showEarlier: (n) => `Show ${count(n, { one: '# earlier message', other: '# earlier messages' })}`,
  search: 'Search',
  emptyState: 'Ask anything to start the conversation.',
  you: 'You',
  assistant: 'Assistant',
  openChat: 'Open chat',
  closeChat: 'Close chat',
  chatPanelLabel: 'Chat',
  thinking: 'Thinking…',
  interrupted: 'This reply was interrupted.',
  offlineWaiting: 'You’re offline. Your message will be sent when the connection is back.',
  waitingToSend: 'Waiting for the connection…',
  cancelWaiting: 'Don’t send',
  handoff: (name) => `Passed to the ${name} agent`,
  functionCall: (name) => `Called ${name}`,
  toolExecution: (name) => `Used ${name}`,
  functionArguments: 'Arguments',
  functionResult: 'Result',
  functionPending: 'Waiting for the result…',
  sendingAnnouncement: 'Message sent. Waiting for the reply…',
  writingAnnouncement: 'The reply is being written…',
  replyAnnouncement: (text) => `Reply: ${text}`,
  linkWarningTitle: 'Check this link',
  linkWarningBody: (shown, real) => `The link shows ${shown} but opens ${real}.`,
  openLink: 'Open link',
  imageBlocked: (host, alt) => (alt ? `Image "${alt}" from ${host} not loaded` : `Image from ${host} not loaded`),
  errorMessage,
  readAloud: 'Read aloud',
  stopReading: 'Stop reading',
  speakMessage: 'Speak a message',
  stopListening: 'Stop listening',
  handsFree: 'Hands-free',
  voiceListening: 'Listening…',
  voiceThinking: 'Thinking…',
  voiceSpeaking: 'Speaking… (talk to interrupt)',
  voiceErrorMessage: (error) => error.message,
  startersLabel: 'Suggestions',
  toolRunning: (name) => `Running ${name}…`,
  searchingDocuments: 'Searching the documents…',
  attach: 'Attach images or PDFs',
  copyCode: 'Copy code',
};

/**
 * English defaults of `<agent-chat>`: the first load's, and those of the parts loaded later, which come with
 * their code (attachment-tray.strings.ts, tool-approval.strings.ts, reply-actions.strings.ts, conversation-list.strings.ts,
 * search-bar.strings.ts).
 */
export const defaultAgentChatStrings: AgentChatStrings = /*#__PURE__*/ Object.assign(
  {}, shownEnglish, attachmentTrayEnglish, toolApprovalEnglish, replyActionsEnglish, conversationListEnglish, searchBarEnglish,
);

/**
 * The words of an `<agent-chat>`: in `host`'s language when it is given (see locale.ts; English until
 * another language's catalogue has loaded), with the host's overrides applied over them. English of the
 * first load only: the later parts add theirs (ShownStrings).
 */
export function resolveAgentChatStrings(overrides?: Partial<AgentChatStrings> | null, host?: LocaleHost | null): ShownStrings {
  return localize<ShownStrings>(host, 'agentChat', shownEnglish, overrides);
}
