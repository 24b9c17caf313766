/**
 * German: every string of the four elements. Loaded by itself when an element's language is `de` (or
 * `de-AT`, `de-CH`, …). To add a language, copy this file (see docs/guides/languages.md).
 */
import { chatErrorKind, clock, counter, fileSizeIn, numberIn, speakerNumber, speechErrorKind } from '../internal/locale.js';
import type { ChatErrorKind, CompleteLocaleCatalogue, SpeechErrorKind } from '../internal/locale.js';
import type { VoiceInputErrorKind } from '../../client/contracts.js';
import type { OcrErrorKind } from '../doc-ocr-viewer/events.js';

const count = counter('de');
const num = numberIn('de');
const fileSize = fileSizeIn('de');

const CHAT_ERRORS: Record<ChatErrorKind, string> = {
  unavailable: 'Dieser Assistent ist auf dieser Seite nicht verfügbar.',
  'no-sound': 'Auf diesem Gerät kann kein Ton wiedergegeben werden.',
  network: 'Der Chat-Dienst ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  cut: 'Die Antwort wurde abgebrochen, bevor sie fertig war.',
  forbidden: 'Dieser Chat darf das nicht. Laden Sie die Seite neu und versuchen Sie es erneut.',
  'not-found': 'Die Unterhaltung oder der Agent wurde nicht gefunden.',
  'too-long': 'Die Nachricht ist zu lang.',
  rejected: 'Die Anfrage wurde nicht angenommen.',
  'rate-limited': 'Zu viele Anfragen. Versuchen Sie es gleich noch einmal.',
  server: 'Beim Chat-Dienst ist ein Problem aufgetreten; die Antwort konnte nicht fertiggestellt werden.',
  other: 'Etwas ist schiefgelaufen.',
};

const VOICE_ERRORS: Record<VoiceInputErrorKind, string> = {
  'permission-denied': 'Der Zugriff auf das Mikrofon wurde verweigert. Erlauben Sie das Mikrofon für diese Website im Browser und versuchen Sie es erneut.',
  'no-microphone': 'Es wurde kein Mikrofon gefunden. Schließen Sie eines an und versuchen Sie es erneut.',
  unsupported: 'Dieser Browser kann hier kein Audio aufnehmen.',
  'audio-not-started': 'Das Mikrofon konnte nicht starten.',
  'microphone-busy': 'Das Mikrofon konnte nicht gestartet werden: Möglicherweise verwendet es eine andere Anwendung.',
  network: 'Die Verbindung zum Transkriptionsdienst wurde unterbrochen.',
  platform: 'Die Transkription ist fehlgeschlagen.',
};

const SPEECH_ERRORS: Record<SpeechErrorKind, string> = {
  unavailable: 'Die Sprachausgabe ist auf dieser Seite nicht verfügbar.',
  'no-sound': 'Auf diesem Gerät kann kein Ton wiedergegeben werden.',
  network: 'Der Sprachdienst ist nicht erreichbar.',
  cut: 'Das Audio wurde abgebrochen, bevor es fertig war.',
  forbidden: 'Das Vorlesen dieses Textes ist nicht erlaubt.',
  rejected: 'Die Sprachanfrage wurde nicht angenommen.',
  'rate-limited': 'Zu viele Anfragen. Versuchen Sie es gleich noch einmal.',
  busy: 'Der Sprachdienst ist ausgelastet oder nicht installiert.',
  other: 'Der Text konnte nicht vorgelesen werden.',
};

const copyFailed = 'Kopieren nicht möglich: Der Browser hat den Zugriff auf die Zwischenablage verweigert.';

const de: CompleteLocaleCatalogue = {
  agentChat: {
    title: 'Chat',
    transcriptLabel: 'Nachrichten',
    inputLabel: 'Nachricht',
    inputPlaceholder: 'Nachricht schreiben…',
    send: 'Senden',
    stop: 'Stopp',
    retry: 'Erneut versuchen',
    regenerate: 'Antwort neu erzeugen',
    edit: 'Bearbeiten',
    editLabel: 'Ihre Nachricht bearbeiten',
    saveAndSend: 'Speichern und senden',
    cancel: 'Abbrechen',
    newConversation: 'Neue Unterhaltung',
    conversations: 'Unterhaltungen',
    closeConversations: 'Zurück zum Chat',
    noConversations: 'Noch keine gespeicherten Unterhaltungen.',
    deleteConversation: (title) => `Unterhaltung löschen: ${title}`,
    untitledConversation: 'Unterhaltung ohne Titel',
    showEarlier: (n) => count(n, { one: '# frühere Nachricht anzeigen', other: '# frühere Nachrichten anzeigen' }),
    search: 'Suchen',
    searchLabel: 'Nachrichten durchsuchen',
    searchPrevious: 'Vorheriger Treffer',
    searchNext: 'Nächster Treffer',
    closeSearch: 'Suche schließen',
    searchMatches: (current, total) => `${count(current, { other: '#' })} von ${count(total, { one: '# Treffer', other: '# Treffern' })}`,
    searchNoMatches: 'Keine Treffer',
    emptyState: 'Stellen Sie eine Frage, um die Unterhaltung zu beginnen.',
    you: 'Sie',
    assistant: 'Assistent',
    openChat: 'Chat öffnen',
    closeChat: 'Chat schließen',
    chatPanelLabel: 'Chat',
    thinking: 'Denkt nach…',
    interrupted: 'Diese Antwort wurde unterbrochen.',
    offlineWaiting: 'Sie sind offline. Ihre Nachricht wird gesendet, sobald die Verbindung wieder besteht.',
    waitingToSend: 'Wartet auf die Verbindung …',
    cancelWaiting: 'Nicht senden',
    handoff: (name) => `An den Agenten ${name} übergeben`,
    functionCall: (name) => `${name} aufgerufen`,
    toolExecution: (name) => `${name} verwendet`,
    functionArguments: 'Argumente',
    functionResult: 'Ergebnis',
    functionPending: 'Warte auf das Ergebnis…',
    sendingAnnouncement: 'Nachricht gesendet. Warte auf die Antwort…',
    writingAnnouncement: 'Die Antwort wird geschrieben…',
    replyAnnouncement: (text) => `Antwort: ${text}`,
    linkWarningTitle: 'Diesen Link prüfen',
    linkWarningBody: (shown, real) => `Der Link zeigt ${shown} an, öffnet aber ${real}.`,
    openLink: 'Link öffnen',
    imageBlocked: (host, alt) => (alt ? `Bild „${alt}“ von ${host} nicht geladen` : `Bild von ${host} nicht geladen`),
    errorMessage: (error) => {
      const kind = chatErrorKind(error);
      if (kind === 'rate-limited' && error.retryAfter) {
        return `Zu viele Anfragen. Versuchen Sie es in ${count(Math.ceil(error.retryAfter), { one: '# Sekunde', other: '# Sekunden' })} erneut.`;
      }
      return CHAT_ERRORS[kind];
    },
    readAloud: 'Vorlesen',
    stopReading: 'Vorlesen beenden',
    speakMessage: 'Nachricht sprechen',
    stopListening: 'Zuhören beenden',
    handsFree: 'Freisprechen',
    voiceListening: 'Hört zu…',
    voiceThinking: 'Denkt nach…',
    voiceSpeaking: 'Spricht… (zum Unterbrechen einfach sprechen)',
    voiceErrorMessage: (error) => VOICE_ERRORS[error.kind] ?? VOICE_ERRORS.platform,
    startersLabel: 'Vorschläge',
    approvalQuestion: (name) => `${name} ausführen lassen?`,
    approvalAnnouncement: (name) => `${name} bittet um Ihre Erlaubnis, ausgeführt zu werden.`,
    allowTool: 'Erlauben',
    denyTool: 'Ablehnen',
    toolDeclined: (name) => `Abgelehnt: ${name} wurde nicht ausgeführt.`,
    toolRunning: (name) => `${name} wird ausgeführt…`,
    searchingDocuments: 'Die Dokumente werden durchsucht…',
    attach: 'Bilder oder PDFs anhängen',
    attachmentsLabel: 'Angehängte Dateien',
    attachedImage: 'Angehängtes Bild',
    removeAttachment: (name) => `${name} entfernen`,
    attachmentAdded: (name) => `${name} angehängt`,
    attachmentRemoved: (name) => `${name} entfernt`,
    fileSize,
    attachmentTooLarge: (name, size, limit) => `${name} ist ${fileSize(size)} groß; die Grenze liegt bei ${fileSize(limit)}.`,
    attachmentWrongType: (name, types) => `${name} kann nicht angehängt werden: erlaubt sind ${types}.`,
    attachmentTooMany: (name, limit) => `${name} wurde nicht angehängt: höchstens ${count(limit, { one: 'eine Datei', other: '# Dateien' })} pro Nachricht.`,
    attachmentUnreadable: (name) => `${name} konnte nicht gelesen werden.`,
    copyReply: 'Kopieren',
    copyCode: 'Code kopieren',
    copied: 'Kopiert',
    copyFailed: 'Kopieren nicht möglich: Markieren Sie den Text und kopieren Sie ihn selbst.',
    goodReply: 'Gute Antwort',
    badReply: 'Schlechte Antwort',
    feedbackComment: 'Was war falsch? (optional)',
    sendFeedback: 'Feedback senden',
    skipFeedback: 'Überspringen',
    feedbackThanks: 'Danke für Ihr Feedback.',
    sources: (n) => `Quellen (${num(n)})`,
    sourcePage: (n) => `Seite ${num(n)}`,
    showInDocument: (n) => `Seite ${num(n)} im Dokument zeigen`,
  },

  speechPlayer: {
    playerLabel: 'Sprachwiedergabe',
    play: 'Abspielen',
    pause: 'Pause',
    resume: 'Fortsetzen',
    stop: 'Stopp',
    voice: 'Stimme',
    defaultVoice: 'Standardstimme',
    rate: 'Tempo',
    progressLabel: 'Abgespielt',
    progressText: (played, received) => `${clock(played)} / ${clock(received)}`,
    rateOption: (rate) => `${num(rate)}×`,
    loading: 'Sprachausgabe wird vorbereitet…',
    playing: 'Wird abgespielt',
    paused: 'Pausiert',
    stopped: 'Gestoppt',
    ended: 'Fertig',
    nothingToSay: 'Es gibt keinen Text zum Vorlesen.',
    errorMessage: (error) => SPEECH_ERRORS[speechErrorKind(error)],
  },

  audioTranscriber: {
    transcriberLabel: 'Audio-Transkription',
    startRecording: 'Aufnahme starten',
    stopRecording: 'Aufnahme beenden',
    holdToTalk: 'Zum Sprechen gedrückt halten',
    releaseToStop: 'Zum Beenden loslassen',
    levelLabel: 'Mikrofonpegel',
    elapsedLabel: 'Aufnahmedauer',
    chooseFile: 'Audiodatei auswählen',
    dropHint: 'oder hier ablegen',
    cancel: 'Abbrechen',
    language: 'Sprache',
    autoLanguage: 'Automatisch',
    timesNeedAuto: 'Zeitangaben der Abschnitte gibt es nur mit „Automatisch“.',
    transcript: 'Transkript',
    segments: 'Abschnitte',
    copy: 'Kopieren',
    copied: 'Kopiert',
    copyFailed,
    clear: 'Leeren',
    emptyTranscript: 'Nehmen Sie Audio auf oder laden Sie eine Datei hoch, um hier den Text zu sehen.',
    microphone: 'Mikrofon',
    speaker: (id) => {
      const n = speakerNumber(id);
      return n ? `Sprecher ${n}` : id;
    },
    interruptedNote: 'Unterbrochen: Das ist der Text, der vor dem Abbruch empfangen wurde.',
    listening: 'Aufnahme läuft',
    finishing: 'Transkript wird fertiggestellt…',
    transcribingFile: (name) => `${name} wird transkribiert…`,
    cancelled: 'Abgebrochen',
    nothingHeard: 'Es war nichts zu hören.',
    finalAnnouncement: (text) => `Transkribiert: ${text}`,
    errorMessage: (kind) => {
      switch (kind) {
        case 'permission-denied':
          return 'Der Zugriff auf das Mikrofon ist blockiert. Erlauben Sie das Mikrofon für diese Website in den Website-Einstellungen des Browsers (das Symbol neben der Adresse) und versuchen Sie es erneut.';
        case 'no-microphone':
          return 'Es wurde kein Mikrofon gefunden. Schließen Sie eines an oder schalten Sie es in den Systemeinstellungen ein und versuchen Sie es erneut.';
        case 'audio-not-started':
          return 'Das Mikrofon konnte nicht starten.';
        case 'microphone-busy':
          return 'Das Mikrofon wird von einer anderen Anwendung verwendet. Schließen Sie diese und versuchen Sie es erneut.';
        case 'unsupported':
          return 'Aufnehmen ist in diesem Browser oder auf dieser Seite nicht möglich (dafür ist eine sichere https-Seite nötig). Sie können stattdessen eine Audiodatei hochladen.';
        case 'not-audio':
          return 'Diese Datei ist keine Audiodatei. Wählen Sie eine Audiodatei, zum Beispiel WAV, MP3, FLAC oder Ogg.';
        case 'too-large':
          return 'Diese Datei ist zu groß für die Transkription. Wählen Sie eine kürzere Aufnahme oder eine kleinere Datei.';
        case 'network':
          return 'Der Transkriptionsdienst ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.';
        case 'interrupted':
          return 'Die Transkription wurde unterbrochen, bevor sie fertig war. Der bisher empfangene Text bleibt erhalten.';
        case 'platform':
          return 'Der Transkriptionsdienst konnte dieses Audio nicht transkribieren. Versuchen Sie es erneut oder mit einer anderen Datei.';
        case 'not-available':
          return 'Die Transkription ist auf dieser Seite nicht verfügbar.';
      }
    },
  },

  docOcrViewer: {
    viewerLabel: 'Dokumentleser',
    chooseFile: 'PDF oder Bild auswählen',
    dropHint: 'oder hier ablegen oder einfügen',
    urlLabel: 'Dokument-URL',
    readUrl: 'Lesen',
    cancel: 'Abbrechen',
    progressLabel: 'Gelesene Seiten',
    working: (name, done, total) => `${name} wird gelesen…${total ? ` ${num(done)} von ${count(total, { one: '# Seite', other: '# Seiten' })}` : ''}`,
    done: (pages) => `${count(pages, { one: '# Seite', other: '# Seiten' })} gelesen.`,
    cancelled: 'Abgebrochen',
    pagesLabel: 'Seiten',
    pageTitle: (page) => `Seite ${num(page)}`,
    pageOf: (page, total) => `Seite ${num(page)} von ${num(total)}`,
    previousPage: 'Vorherige Seite',
    nextPage: 'Nächste Seite',
    emptyPage: '(kein Text)',
    showOriginal: 'Original anzeigen',
    originalOf: (page) => `Original von Seite ${num(page)}`,
    drawingOriginal: (page) => `Original von Seite ${num(page)} wird gezeichnet…`,
    originalUnavailable: (page) => `Das Original von Seite ${num(page)} konnte nicht gezeichnet werden.`,
    searchLabel: 'Im Text suchen',
    matches: (n, current) => (n === 0 ? 'Keine Treffer' : current ? `Treffer ${num(current)} von ${num(n)}` : count(n, { one: '# Treffer', other: '# Treffer' })),
    previousMatch: 'Vorheriger Treffer',
    nextMatch: 'Nächster Treffer',
    copyPage: 'Seite kopieren',
    copyAll: 'Alles kopieren',
    copied: 'Kopiert',
    copyFailed,
    download: '.md herunterladen',
    emptyResult: 'Wählen Sie ein PDF oder ein Bild aus, legen Sie es ab, fügen Sie es ein oder geben Sie seine URL an, um hier den Text zu sehen.',
    imageUnavailable: (alt) => `[Bild${alt ? `: ${alt}` : ''}]`,
    errorMessage: (_message, kind) => {
      const sentences: Record<OcrErrorKind, string> = {
        network: 'Der Dokumentdienst ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
        forbidden: 'Das Lesen von Dokumenten ist hier nicht erlaubt. Laden Sie die Seite neu und versuchen Sie es erneut.',
        'url-not-allowed': 'Dokumente können hier nicht von einer Webadresse gelesen werden. Laden Sie das Dokument herunter und wählen Sie dann die Datei.',
        'too-large': 'Das Dokument ist zu groß. Wählen Sie eine kleinere Datei oder eine mit weniger Seiten.',
        rejected: 'Das Dokument konnte nicht gelesen werden. Prüfen Sie, ob es ein lesbares PDF oder Bild ist oder ob seine URL auf eines verweist.',
        'rate-limited': 'Zu viele Anfragen. Versuchen Sie es gleich noch einmal.',
        busy: 'Der Dokumentdienst ist ausgelastet oder nicht installiert. Versuchen Sie es später erneut.',
        other: 'Beim Dokumentdienst ist ein Problem aufgetreten; das Dokument konnte nicht gelesen werden.',
      };
      return sentences[kind];
    },
    notAvailable: 'Das Lesen von Dokumenten ist auf dieser Seite nicht verfügbar.',
    notDocument: (type) => `Diese Datei ist weder ein PDF noch ein Bild (${type || 'unbekannter Typ'}). Wählen Sie eine PDF-, PNG-, JPEG- oder WebP-Datei.`,
  },
};

export default de;
