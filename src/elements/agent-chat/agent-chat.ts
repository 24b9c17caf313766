import { html, nothing } from 'lit';
import type { PropertyValues, TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { ChatSessionApi, ClientTool, PlatformErrorShape, VoiceInputOptions } from '../../client/contracts.js';
import type { InputContentChunk, Tool } from '../../client/types.js';
import type { AgentChatStrings, ShownStrings } from './strings.js';
import type { TranscriptItem } from './transcript.js';
// The bundle puts these modules in this order: it was chosen for the gzipped size (scripts/bundle-sizes.mjs),
// measured: the session, the transcript (its placeholders, scrolling and view), the words, voice and search,
// then the composer and what borrows its message box, then the base class and the styles.
import { parseHostList } from '../internal/links.js';
import { originRefusalOf } from '../internal/origin-refusal.js';
import { AUDIO_NOT_STARTED, refusalKind } from '../../client/errors.js';
import { ChatSessionController } from './controllers/chat-session-controller.js';
import { TranscriptPlaceholdersController } from './controllers/transcript-placeholders-controller.js';
import { TranscriptScrollController } from './controllers/transcript-scroll-controller.js';
import { renderTranscript } from './transcript-view.js';
import { contentText } from '../../client/message-content.js';
import { resolveAgentChatStrings } from './strings.js';
import { VoiceOutController } from './controllers/voice-out-controller.js';
import { VoiceInController } from './controllers/voice-in-controller.js';
import { SearchController } from './controllers/search-controller.js';
import { markdownLoading, markdownPlainText } from '../internal/markdown-directive.js';
import { ComposerController } from './controllers/composer-controller.js';
import { MessageEditController } from './controllers/message-edit-controller.js';
import { ConversationListController } from './controllers/conversation-list-controller.js';
import { LauncherController } from './controllers/launcher-controller.js';
import { LinkWarningController } from './controllers/link-warning-controller.js';
import { StartersController, parseStarters } from './controllers/starters-controller.js';
import { ToolApprovalController } from './controllers/tool-approval-controller.js';
import { ReplyExtrasController } from './controllers/reply-extras-controller.js';
import { LiveRegionController } from '../internal/live-region.js';
import { ParleyElement } from '../internal/parley-element.js';
import { agentChatStyles } from './agent-chat.styles.js';

export type { ParleyHandsFreeChangedDetail, ParleyVoiceFinalDetail, ParleyVoiceStartDetail } from './voice-events.js';
export type { ParleyFeedbackDetail } from './feedback-events.js';

/** Longest text read out by the live region for one reply. */
const ANNOUNCE_LIMIT = 600;
/** The properties a session is created from: a change creates a new one. */
const SESSION_OPTIONS = ['relayUrl', 'agentId', 'model', 'agentVersion', 'handoffExecution', 'instructions', 'toolDefinitions', 'resume'];

/**
 * A chat with an agent or a model through a Parley relay: streamed markdown replies, stop, retry,
 * regenerate, edit-and-resend, a conversation list kept in IndexedDB, function calls, client tools and
 * handoffs. Inline by default; `mode="launcher"` shows a floating button that opens the chat in a panel.
 *
 * The element holds view state only: a `ChatSession` (from the client layer) does the talking and
 * the storing. Elements on one page share one client per relay URL.
 *
 * @tagname agent-chat
 * @summary Chat with a Parley agent or model, inline or from a floating launcher.
 *
 * With `voice-input`, a microphone button beside the send button takes a spoken message (live words in
 * the message box, sent when the speaker stops), and a "Hands-free" toggle runs whole spoken turns:
 * listen, send, speak the reply, listen again; talking over the reply interrupts it. The microphone
 * and transcription code is loaded on first use.
 *
 * @slot header - Replaces the title in the header (the header's buttons stay).
 * @slot empty - Shown while the conversation has no messages.
 * @slot launcher-icon - Icon inside the launcher button (`mode="launcher"`).
 *
 * @csspart base - The wrapper of everything.
 * @csspart launcher - The floating button that opens and closes the panel (`mode="launcher"`).
 * @csspart panel - The chat itself (the floating panel in launcher mode).
 * @csspart header - The header bar.
 * @csspart title - The heading in the header.
 * @csspart history-button - Button that shows the conversation list.
 * @csspart new-button - Button that starts a new conversation.
 * @csspart close-button - Button that closes the launcher panel.
 * @csspart conversation-list - The list of saved conversations.
 * @csspart conversation - One row of the conversation list.
 * @csspart conversation-button - The button that resumes a conversation.
 * @csspart delete-button - The button that deletes a conversation.
 * @csspart transcript - The scrolling list of messages.
 * @csspart empty - The default empty state.
 * @csspart starters - The suggested first messages of an empty chat (a labelled group).
 * @csspart starter - One suggested first message (a button that sends it).
 * @csspart tool-approval - A client tool's call asking the visitor's consent: its name, its arguments, Allow and Deny.
 * @csspart allow-button - Runs the tool of a call asking for consent.
 * @csspart deny-button - Declines a call asking for consent (the model is told the visitor declined).
 * @csspart tool-progress - The status line of the tools the platform runs now ("Running track_order…"), a polite live region.
 * @csspart search-button - Button that opens the search over the conversation's messages (`aria-expanded`).
 * @csspart search - The search bar (field, state line, previous / next / close buttons).
 * @csspart search-input - The search field: Enter goes to the next match, Shift+Enter to the previous one, Escape closes.
 * @csspart search-status - The search's state line ("3 of 12 matches"), a polite live region.
 * @csspart search-previous-button - Goes to the previous match.
 * @csspart search-next-button - Goes to the next match.
 * @csspart search-close-button - Closes the search.
 * @csspart message - A message (user or assistant); also `message-user` / `message-assistant`. Every message of
 *   the conversation is in the transcript; off-screen ones are not laid out (`content-visibility: auto`), and
 *   replies older than the newest 40 messages show their text as it is (class `placeholder` on the bubble)
 *   until they come within a screen of the view or the search opens. The
 *   current search match's message has the class `search-current`; the matches are styled with
 *   `::highlight(parley-search)` and `::highlight(parley-search-current)` (CSS Custom Highlight API).
 * @csspart message-user - A message of the user.
 * @csspart message-assistant - A message of the assistant.
 * @csspart bubble - The bubble around a message's text.
 * @csspart message-actions - The buttons under a message.
 * @csspart edit-button - Edits a user message and sends it again.
 * @csspart regenerate-button - Asks again for the last reply.
 * @csspart read-aloud-button - Reads a finished reply aloud (and stops reading it).
 * @csspart copy-button - Copies a finished reply as markdown (its sources listed under it); says "Copied". Each code
 *   block of a reply has its own copy button (class `parley-copy-code`, inside the `pre`).
 * @csspart feedback-button - The thumbs under a finished reply (toggle buttons, `aria-pressed`); also `feedback-up-button` / `feedback-down-button`.
 * @csspart feedback-up-button - Rates the reply good (pressed again: takes the rating back).
 * @csspart feedback-down-button - Rates the reply bad and opens the comment form.
 * @csspart feedback-form - The optional comment after a thumbs-down (sent or skipped; Escape skips).
 * @csspart feedback-comment - The comment box.
 * @csspart feedback-send-button - Sends the rating with the comment.
 * @csspart feedback-skip-button - Sends the rating without a comment.
 * @csspart sources - The collapsed list of a reply's sources (`<details>`), numbered as the markers (`[1]`) in its text.
 * @csspart source - One source: title (a link for a web page), host, page of a document, description.
 * @csspart source-page-button - Shows a document source's page in the `document-viewer`, its passage highlighted.
 * @csspart interrupted - The note under a reply that was cut off.
 * @csspart tool-call - A function call or tool execution (collapsible).
 * @csspart handoff - The divider shown when another agent takes over.
 * @csspart thinking - Shown while waiting for the first words of a reply.
 * @csspart notice - A notice from the session (e.g. old conversations removed).
 * @csspart offline-notice - The notice that a message waits for the connection (with `notice`).
 * @csspart cancel-waiting-button - The offline notice's button that drops the waiting message.
 * @csspart waiting - The note under a user message that waits for the connection.
 * @csspart error - The error message shown in words.
 * @csspart retry-button - Sends the failed turn again (after a voice input error: listens again).
 * @csspart composer - The form with the message box.
 * @csspart input - The message box.
 * @csspart send-button - The send button.
 * @csspart attach-button - Opens the file picker to attach images and PDFs (files can also be dropped on the composer or pasted into the message box).
 * @csspart attachments - The list of files attached to the message being written, above the message box.
 * @csspart attachment - One attached file: thumbnail or type, name, size.
 * @csspart remove-attachment-button - Removes an attached file.
 * @csspart attachment-notice - Why a file was not attached (too big, a type not accepted, one too many).
 * @csspart sent-attachments - The files sent with a user message, in the transcript (image thumbnails, document names).
 * @csspart stop-button - Stops the reply being streamed.
 * @csspart mic-button - The microphone button (`voice-input`): starts listening, and while listening (`aria-pressed="true"`) stops and uses what was heard. A ring around it follows the input level.
 * @csspart voice-bar - The row with the hands-free toggle and the voice state line (`voice-input`).
 * @csspart hands-free-button - The hands-free toggle (`aria-pressed`).
 * @csspart voice-status - The voice state line ("Listening…", "Thinking…", "Speaking… (talk to interrupt)"), a polite live region.
 * @csspart link-dialog - The dialog that asks before opening a link that shows another host than it opens.
 *
 * @cssproperty [--parley-font-family=system-ui] - Font of the chat.
 * @cssproperty [--parley-font-family-code=ui-monospace] - Font of code.
 * @cssproperty [--parley-font-size=15px] - Base font size.
 * @cssproperty [--parley-color-text=#1d1d1f] - Text colour.
 * @cssproperty [--parley-color-muted=#545458] - Secondary text colour.
 * @cssproperty [--parley-color-background=#ffffff] - Background of the panel.
 * @cssproperty [--parley-color-surface=#f4f4f6] - Background of hovered rows and notices.
 * @cssproperty [--parley-color-border=#d2d2d7] - Borders.
 * @cssproperty [--parley-color-accent=#0b57d0] - Buttons, links, the launcher.
 * @cssproperty [--parley-color-on-accent=#ffffff] - Text on the accent colour.
 * @cssproperty [--parley-color-user-bubble=var(--parley-color-accent)] - Background of the user's messages.
 * @cssproperty [--parley-color-on-user-bubble=var(--parley-color-on-accent)] - Text of the user's messages.
 * @cssproperty [--parley-color-assistant-bubble=var(--parley-color-surface)] - Background of replies.
 * @cssproperty [--parley-color-error=#b3261e] - Error text.
 * @cssproperty [--parley-radius=12px] - Corner radius of the panel and bubbles.
 * @cssproperty [--parley-gap=0.75rem] - Spacing between messages and around the panel's content.
 * @cssproperty [--parley-focus-ring=2px solid var(--parley-color-accent)] - Outline of focused controls.
 * @cssproperty [--parley-height=32rem] - Height of the inline chat.
 * @cssproperty [--parley-panel-width=min(24rem, 100vw - 2.5rem)] - Width of the launcher panel.
 * @cssproperty [--parley-panel-height=min(36rem, 100vh - 7rem)] - Height of the launcher panel.
 * @cssproperty [--parley-launcher-size=3.5rem] - Size of the launcher button.
 * @cssproperty [--parley-launcher-inset=1.25rem] - Distance of the launcher from the viewport's corner.
 * @cssproperty [--parley-z-index=2147483000] - Stacking of the launcher and its panel.
 *
 * @fires {CustomEvent<ParleyMessageSentDetail>} parley-message-sent - The user sent a message (`detail.text`, `detail.kind`: `send` or `edit`, `detail.attachments`: how many files went with it).
 * @fires {CustomEvent<ParleyFeedbackDetail>} parley-feedback - The visitor rated a reply (`detail.conversationId`, `messageId`, `rating`: `up`, `down`, or null when taken back; `comment`).
 * @fires {CustomEvent<ParleyReplyFinishedDetail>} parley-reply-finished - A reply finished streaming (`detail.entryId`, `detail.text`).
 * @fires {CustomEvent<ParleyErrorDetail>} parley-error - A turn or request failed (`detail.error`: status, type, code, message, retryAfter).
 * @fires {CustomEvent<ParleyConversationChangedDetail>} parley-conversation-changed - The conversation shown changed (`detail.conversationId`).
 * @fires {CustomEvent<ParleyOpenChangedDetail>} parley-open-changed - The launcher panel opened or closed (`detail.open`).
 * @fires {CustomEvent<ParleySpeechStartDetail>} parley-speech-start - A reply started being read aloud (`detail.text`: its markdown).
 * @fires {CustomEvent<ParleySpeechFirstAudioDetail>} parley-speech-first-audio - The first audio of a reply is scheduled (`detail.latencyMs`).
 * @fires {CustomEvent<ParleySpeechEndDetail>} parley-speech-end - Reading aloud ended or was stopped.
 * @fires {CustomEvent<ParleySpeechErrorDetail>} parley-speech-error - Reading aloud failed (`detail.error`; `detail.error.code` `audio_not_started`: no sound can be played on this device, its AudioContext did not start).
 * @fires {CustomEvent<ParleyVoiceStartDetail>} parley-voice-start - The chat began listening for a spoken message (`detail.handsFree`).
 * @fires {CustomEvent<ParleyVoiceFinalDetail>} parley-voice-final - The final text of a spoken message (`detail.text`), before it is sent or left in the message box.
 * @fires {CustomEvent<ParleyHandsFreeChangedDetail>} parley-hands-free-changed - Hands-free turns were turned on or off (`detail.on`), also when an error or typing ended them.
 */
export class AgentChat extends ParleyElement {
  static override styles = [ParleyElement.styles, agentChatStyles];

  /** Base URL of the Parley relay, e.g. `/api` or `https://example.com/parley`. */
  @property({ attribute: 'relay-url' }) relayUrl = '';

  /** Id of the agent to talk to (takes precedence over `model`). */
  @property({ attribute: 'agent-id' }) agentId = '';

  /** Model to talk to when no agent is given. */
  @property() model = '';

  /** Version number or alias of the agent (default: its current version). */
  @property({ attribute: 'agent-version' }) agentVersion = '';

  /** `inline` (default) shows the chat in place; `launcher` shows a floating button that opens it in a panel. */
  @property({ reflect: true }) mode: 'inline' | 'launcher' = 'inline';

  /** Whether the launcher panel is open (`mode="launcher"` only). */
  @property({ type: Boolean, reflect: true }) open = false;

  /** Hosts whose images replies may show, separated by spaces (`"cdn.example.com img.example.com"`). Other images are not loaded. */
  @property({ attribute: 'allow-image-hosts' }) allowImageHosts = '';

  /**
   * The id of a `<doc-ocr-viewer>` on the page showing the document the chat answers from: a source of a reply
   * that names a page of it gets a button that shows that page there, with the quoted passage highlighted.
   */
  @property({ attribute: 'document-viewer' }) documentViewer = '';

  /** Who runs handoffs between agents: `server` (default) or `client`. */
  @property({ attribute: 'handoff-execution' }) handoffExecution: 'server' | 'client' | '' = '';

  /** Instructions for a model conversation (ignored with `agent-id`: an agent carries its own). */
  @property() instructions = '';

  /**
   * Which conversation to show when the element starts: `latest` (default) reopens the most recent
   * conversation with this agent or model from the page's history, so a reload lands where the visitor
   * was; `none` starts a new one.
   */
  @property() resume: 'latest' | 'none' = 'latest';

  /** Heading of the chat (default: the name of the agent speaking, else "Chat"). */
  @property() heading = '';

  /**
   * Functions the page runs when the agent calls a function of that name; their results go back to the
   * agent as `function.result`. Changes take effect on the next call.
   */
  @property({ attribute: false }) tools: Record<string, ClientTool> | null = null;

  /**
   * Suggested first messages, shown as buttons on an empty chat (a press sends one). As an attribute: a
   * JSON array of strings, or the messages separated by `|`. Empty (default): the agent's own, the strings
   * of its `metadata.starters`, when the relay lets the page read the agent.
   */
  @property({ converter: { fromAttribute: (value) => parseStarters(value) } }) starters: string[] = [];

  /** Definitions of the page's `tools`, sent when starting a model conversation (an agent carries its own). */
  @property({ attribute: false }) toolDefinitions: Tool[] | null = null;

  /** A chat session to use instead of creating one from the attributes (tests, advanced hosts). The host disposes it. */
  @property({ attribute: false }) session: ChatSessionApi | null = null;

  /**
   * Files per message the visitor may attach (pick, drop or paste; images and PDFs by default); `0` turns
   * attachments off (no attach button). A file past the count is refused with a sentence saying the limit.
   */
  @property({ type: Number, attribute: 'max-attachments' }) maxAttachments = 4;

  /** Bytes per attached file (default 10 MB, 10 485 760); a bigger file is refused, before anything is sent, with a sentence naming its size and the limit. */
  @property({ type: Number, attribute: 'max-attachment-bytes' }) maxAttachmentBytes = 10 * 1024 * 1024;

  /**
   * Media types the visitor may attach, separated by commas or spaces (`image/*` takes every image). Images are
   * sent as `image_url` chunks and anything else as `document_url` (the platform reads PDFs); the relay checks
   * the bytes against the type. Default: PNG, JPEG, GIF, WebP and PDF.
   */
  @property({ attribute: 'attachment-types' }) attachmentTypes = 'image/png,image/jpeg,image/gif,image/webp,application/pdf';

  /** Overrides of the element's words (see `AgentChatStrings`), for translation. */
  @property({ attribute: false }) strings: Partial<AgentChatStrings> | null = null;

  /**
   * Speaks replies aloud as they stream, sentence by sentence (through the relay's `/v1/audio/speech`).
   * Typing or sending stops the voice at once. Every finished reply also has a "Read aloud" button.
   */
  @property({ type: Boolean, attribute: 'speak-replies' }) speakReplies = false;

  /** Voice id or slug for reading replies aloud (default: the platform's). */
  @property() voice = '';

  /**
   * Shows a microphone button beside the send button and the hands-free toggle: the user says a message
   * instead of typing it (through the relay's realtime transcription). Escape stops listening.
   */
  @property({ type: Boolean, attribute: 'voice-input' }) voiceInput = false;

  /**
   * Whether a spoken message is sent as soon as the speaker stops (default). `voice-autosend="false"`
   * leaves the words in the message box for editing instead.
   */
  @property({
    attribute: 'voice-autosend',
    converter: { fromAttribute: (value) => value !== 'false' },
  })
  voiceAutosend = true;

  /**
   * Hands-free turns: listen, send what was said, speak the reply, listen again, until turned off.
   * Talking over the reply silences it and becomes the next message (barge-in). Typing, Stop, Escape or a
   * microphone error turns it off. Shows the voice controls as `voice-input` does.
   */
  @property({ type: Boolean, reflect: true, attribute: 'hands-free' }) handsFree = false;

  /**
   * Microphone and transcription settings of voice input: `deviceId`; `echoCancellation`,
   * `noiseSuppression`, `autoGainControl` (the browser's defaults, on: they keep a spoken reply from
   * interrupting itself through loudspeakers); `endOfUtteranceMs` (the silence that ends a message,
   * default 800); `model` (the realtime transcription model). Used from the next time it listens.
   */
  @property({ attribute: false }) voiceOptions: Pick<
    VoiceInputOptions, 'deviceId' | 'echoCancellation' | 'noiseSuppression' | 'autoGainControl' | 'endOfUtteranceMs' | 'model'
  > | null = null;

  /** The words as last resolved: once per update, not per use (finding the language walks up the page). */
  #words: ShownStrings | null = null;
  #warnedTools = false;
  /** The voice error last announced (each is announced once). */
  #announcedVoiceError: unknown = null;

  // One controller per behaviour (controllers/); the element relays between them.

  readonly #live = new LiveRegionController(this);

  readonly #chat: ChatSessionController = new ChatSessionController(this, {
    listShown: () => this.#list.shown,
    conversationChanged: () => {
      if (this.#search.open) this.#search.close(false);
      if (!this.#busy) this.#edit.end();
      this.#transcriptScroll.stickToBottom = true;
    },
    replyFinished: (reply) => this.#replyFinished(reply),
    replyGrew: () => {
      const reply = this.#voiceOut.speaksReplies ? this.#chat.streamingReply : null;
      if (reply) this.#voiceOut.follow(reply.id, reply.text, false);
    },
    turnEnded: () => this.#voiceIn.replyEnded(!!this.#voiceOut.speaker?.speakingId),
    progress: (step, error) => this.#announceProgress(step, error),
  });

  readonly #transcriptScroll = new TranscriptScrollController(this, () => this.renderRoot.querySelector('.transcript'));

  /** Which replies render in full and which as placeholders (every message is in the page at first paint). */
  readonly #placeholders = new TranscriptPlaceholdersController(this, {
    transcript: () => this.renderRoot.querySelector('.transcript'),
    hold: () => this.#transcriptScroll.stickToBottom,
  });

  readonly #voiceOut = new VoiceOutController(this, {
    replyText: (id) => contentText((this.#chat.state.entries.find((e) => e.id === id) as { content?: string } | undefined)?.content ?? ''),
    speakingChanged: (speaking) => this.#voiceIn.replySpeaking(speaking),
    noSound: (error) => this.#chat.showError(error),
  });

  readonly #voiceIn: VoiceInController = new VoiceInController(this, {
    draft: () => this.#composer.draft,
    setDraft: (text) => {
      this.#composer.draft = text;
    },
    said: (text) => this.#composer.said(text),
    bargeIn: () => this.stop(), // silences the voice, and stops the reply if it still streams
  });

  readonly #composer: ComposerController = new ComposerController(this, {
    chat: this.#chat, voiceIn: this.#voiceIn, voiceOut: this.#voiceOut, announce: (text) => this.#live.announce(text), words: () => this.#text,
  });

  readonly #launcher = new LauncherController(this);

  readonly #edit = new MessageEditController(this, this.#chat, this.#transcriptScroll);

  readonly #starters = new StartersController(this);

  readonly #tools = new ToolApprovalController(this, {
    chat: this.#chat, live: this.#live, words: () => this.#text, focusComposer: () => this.#composer.focus(),
  });

  readonly #list: ConversationListController = new ConversationListController(this, this.#chat, {
    // The transcript leaves the page for the list: back to it, only the newest replies render in full again.
    shown: () => this.#placeholders.reset(),
    back: () => {
      this.#edit.end();
      this.#transcriptScroll.stickToBottom = true;
    },
  });

  readonly #search = new SearchController(this, {
    list: this.#list,
    placeholders: this.#placeholders,
    scroll: this.#transcriptScroll,
    words: () => this.#text,
  });

  readonly #links = new LinkWarningController(this);

  readonly #extras = new ReplyExtrasController(this, {
    announce: (message) => this.#live.announce(message), words: () => this.#text,
    conversationId: () => this.#chat.state.conversationId,
    imageHosts: () => parseHostList(this.allowImageHosts),
  });

  readonly #onTranscriptClick = (event: MouseEvent): void => {
    this.#links.onClick(event);
    this.#extras.onClick(event);
  };

  get #text(): ShownStrings {
    return (this.#words ??= resolveAgentChatStrings(this.strings, this));
  }

  get #busy(): boolean {
    return this.#chat.busy;
  }

  // ---------------------------------------------------------------- lifecycle (the controllers connect and clean up themselves)

  protected override willUpdate(changed: PropertyValues): void {
    // A new language, catalogue or `strings` requests an update (locale.ts): the words are resolved again.
    this.#words = null;
    if (changed.has('session')) this.#chat.sessionPropertyChanged(!!changed.get('session'));
    if (SESSION_OPTIONS.some((k) => changed.has(k))) this.#chat.optionsChanged();
    // Before rendering, so the toggle and the state line render once, together.
    if (changed.has('handsFree')) this.#handsFreeChanged(changed.get('handsFree') === undefined);
    if (['tools', 'toolDefinitions', 'model', 'agentId'].some((k) => changed.has(k))) this.#warnToolsWithoutDefinitions();
    const voiceError = this.#voiceIn.error;
    if (voiceError !== this.#announcedVoiceError) {
      this.#announcedVoiceError = voiceError;
      if (voiceError) this.#live.announce(this.#text.voiceErrorMessage(voiceError));
    }
  }

  /** Also waits, the first time replies (files sent, starters, the conversation list, the search bar) are shown, for their code, loaded then, to render them. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const complete = await super.getUpdateComplete();
    await Promise.all([markdownLoading(), this.#composer.loading, this.#starters.loading, this.#list.loading, this.#search.loading]);
    return complete;
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has('open') || changed.has('mode')) this.#launcher.changed(changed.has('open') && changed.get('open') !== undefined);
    if (changed.has('speakReplies') && this.speakReplies) void this.#voiceOut.load();
  }

  /**
   * A model conversation only calls the page's `tools` it was told about: without `toolDefinitions` the
   * model never calls them (an agent carries its own definitions). Said once in the console.
   */
  #warnToolsWithoutDefinitions(): void {
    const named = Object.keys(this.tools ?? {});
    if (this.#warnedTools || !named.length || this.agentId || !this.model || this.toolDefinitions?.length) return;
    this.#warnedTools = true;
    console.warn(`[parley] <agent-chat model="${this.model}"> has tools (${named.join(', ')}) but no toolDefinitions: a model conversation calls only the functions defined in toolDefinitions (an agent carries its own).`);
  }

  /** Sending, the first words of a reply, and failures, announced once each in the polite live region. */
  #announceProgress(step: 'sending' | 'writing' | 'failed', error?: PlatformErrorShape): void {
    const t = this.#text;
    if (step === 'sending') this.#live.announce(t.sendingAnnouncement);
    else if (step === 'writing') this.#live.announce(t.writingAnnouncement);
    else if (error) {
      this.#live.announce(t.errorMessage(error));
      // The transcript shrinks for the error box: keep its last messages in view.
      this.#transcriptScroll.stickToBottom = true;
      // What went wrong in detail is for the site owner (the visitor sees the sentence above); a refusal retrying
      // cannot fix already has its console line, naming the setting (client/errors.ts).
      if (error.message && !refusalKind(error)) console.warn('[parley] <agent-chat> request failed:', error);
    }
  }

  #replyFinished(reply: (TranscriptItem & { kind: 'assistant' }) | null): void {
    const text = reply?.text ?? '';
    if (text) {
      const spoken = markdownPlainText(text, ANNOUNCE_LIMIT + 1);
      this.#live.announce(this.#text.replyAnnouncement(spoken.length > ANNOUNCE_LIMIT ? `${spoken.slice(0, ANNOUNCE_LIMIT)}…` : spoken));
    }
    this.emit('parley-reply-finished', { conversationId: this.#chat.state.conversationId, entryId: reply?.entry.id ?? null, text });
    if (this.#voiceOut.speaksReplies && reply) this.#voiceOut.follow(reply.entry.id, text, true);
  }

  #handsFreeChanged(initial: boolean): void {
    const on = this.handsFree && !!this.relayUrl;
    if (on) void this.#voiceOut.load();
    else if (!this.speakReplies) this.#voiceOut.silence();
    this.#voiceIn.handsFreeChanged(on);
    if (!initial) this.emit('parley-hands-free-changed', { on: this.handsFree });
  }

  // ---------------------------------------------------------------- actions

  /**
   * Sends `text` as the user (what the send button does), with `attachments` (what the composer holds when
   * the send button is pressed). Ignored while a reply is streaming.
   * @param text - The message, sent trimmed; blank text with no attachment sends nothing.
   * @param attachments - Files sent with it (images as `image_url`, others as `document_url`, as `data:` URLs),
   *   checked against `max-attachments`, `max-attachment-bytes` and `attachment-types`: if one is refused,
   *   nothing is sent and the chat says why.
   */
  async send(text: string, attachments: readonly File[] = []): Promise<void> {
    const message = text.trim();
    if (!this.#chat.session || (!message && !attachments.length) || this.#busy) return;
    let content: string | InputContentChunk[] = message;
    if (attachments.length) {
      const chunks = await this.#composer.content(message, attachments);
      if (!chunks || this.#busy) return;
      this.#composer.clearAttachments();
      content = chunks;
    }
    this.#transcriptScroll.stickToBottom = true;
    this.emit('parley-message-sent', { text: message, conversationId: this.#chat.state.conversationId, kind: 'send', attachments: attachments.length });
    await this.#chat.send(content);
  }

  /** Stops the reply being streamed (and any reply being read aloud); what arrived stays, marked as interrupted. */
  stop(): void {
    this.#voiceOut.silence();
    this.#chat.stop();
  }

  /** Opens the launcher panel (`mode="launcher"`). */
  show(): void {
    this.open = true;
  }

  /** Closes the launcher panel and returns focus to the launcher button. */
  hide(): void {
    this.open = false;
  }

  #onPanelKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    if (this.#voiceIn.phase !== 'off' || this.handsFree) {
      event.preventDefault();
      this.#voiceIn.stop(true); // what was heard is dropped
      if (!this.speakReplies) this.#voiceOut.silence();
    } else if (this.#busy) {
      event.preventDefault();
      this.stop();
    } else if (this.mode === 'launcher' && this.open) {
      event.preventDefault();
      this.#launcher.close();
    }
  }

  async #retry(): Promise<void> {
    if (this.#voiceIn.error) this.#voiceIn.retry(); // the microphone failed: the user fixed it (or not), listen again
    else await this.#chat.retry();
  }

  async #regenerate(entryId: string): Promise<void> {
    if (!this.#chat.session || this.#busy) return;
    this.#transcriptScroll.stickToBottom = true;
    await this.#chat.regenerate(entryId);
  }

  #newConversation(): void {
    if (!this.#chat.session) return;
    if (this.#busy) this.stop();
    this.#voiceOut.silence();
    this.#chat.reset();
    this.#composer.clearAttachments();
    this.#list.hide();
    this.#edit.end();
    this.#composer.focus();
  }

  readonly #onTranscriptScroll = (): void => {
    this.#transcriptScroll.onScroll();
    this.#placeholders.renderNear();
  };

  // ---------------------------------------------------------------- render

  protected override render(): TemplateResult {
    const t = this.#text;
    return html`
      <div part="base" class="base">
        ${this.#launcher.renderButton(t)}
        ${this.#launcher.renderPanel(t, (launcher) => this.#renderPanelContent(t, launcher), this.#onPanelKeydown)}
        ${this.#live.render()}
        ${this.#links.render(t)}
      </div>
    `;
  }

  #renderPanelContent(t: ShownStrings, launcher: boolean): TemplateResult {
    const chat = this.#chat;
    return html`
          ${this.#renderHeader(t, launcher)}
          ${this.#search.shown ? this.#search.render(t) : nothing}
          ${this.#list.shown
            ? this.#list.render(t)
            : renderTranscript({
                chat,
                placeholders: this.#placeholders,
                edit: this.#edit,
                voiceOut: this.#voiceOut,
                starters: this.#starters,
                composer: this.#composer,
                tools: this.#tools,
                extras: this.#extras,
                busy: this.#busy,
                readAloud: !!this.relayUrl,
                imageHosts: parseHostList(this.allowImageHosts),
                regenerate: (entryId) => void this.#regenerate(entryId),
                click: this.#onTranscriptClick,
                scroll: this.#onTranscriptScroll,
              }, t)}
          ${chat.state.notice ? html`<p part="notice" class="notice">${chat.state.notice}</p>` : nothing}
          ${chat.state.waiting?.length
            ? html`<p part="notice offline-notice" class="notice" role="status">${t.offlineWaiting}
                <button part="cancel-waiting-button" class="quiet" type="button" @click=${() => chat.cancelWaiting()}>${t.cancelWaiting}</button></p>`
            : nothing}
          ${this.#renderError(t)}
          ${this.#composer.render(t)}
    `;
  }

  #renderHeader(t: ShownStrings, launcher: boolean): TemplateResult {
    const title = this.heading || this.#chat.state.agentName || t.title;
    return html`<header part="header">
      <slot name="header"><h2 part="title" class="title" title=${title}>${title}</h2></slot>
      <div class="header-actions">
        <button
          part="history-button"
          class="quiet"
          type="button"
          aria-pressed=${this.#list.shown ? 'true' : 'false'}
          @click=${this.#list.toggle}
        >
          ${t.conversations}
        </button>
        <button
          part="search-button"
          class="quiet search-toggle"
          type="button"
          aria-expanded=${this.#search.shown ? 'true' : 'false'}
          aria-controls="search"
          @click=${this.#search.toggle}
        >
          ${t.search}
        </button>
        <button part="new-button" class="quiet" type="button" @click=${this.#newConversation}>${t.newConversation}</button>
        ${launcher
          ? html`<button part="close-button" class="quiet" type="button" aria-label=${t.closeChat} @click=${() => this.#launcher.close()}>✕</button>`
          : nothing}
      </div>
    </header>`;
  }

  #renderError(t: ShownStrings): TemplateResult | typeof nothing {
    const voiceError = this.#voiceIn.error;
    const error = this.#chat.state.error ?? this.#chat.localError;
    if (!voiceError && !error) return nothing;
    // The relay refuses this page's origin, a model, agent or scope, a size or a type: a neutral sentence only (the
    // site owner's details are in the console and the parley-error event), and no retry, which would be refused the same way.
    // No sound on this device (a reply read aloud): retrying cannot help either.
    const refusal = originRefusalOf(voiceError) ?? (refusalKind(error) || error?.code === AUDIO_NOT_STARTED ? error : null);
    // Announced once, politely, through the live region (announceProgress); the details go to the console and the event.
    if (refusal) return html`<div part="error" class="error"><p>${t.errorMessage(refusal)}</p></div>`;
    return html`<div part="error" class="error">
      <p>${voiceError ? t.voiceErrorMessage(voiceError) : t.errorMessage(error!)}</p>
      <button part="retry-button" type="button" @click=${this.#retry}>${t.retry}</button>
    </div>`;
  }
}
