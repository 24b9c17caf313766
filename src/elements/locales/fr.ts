/**
 * French: every string of the four elements. Loaded by itself when an element's language is `fr` (or
 * `fr-CA`, `fr-BE`, …). To add a language, copy this file (see docs/guides/languages.md).
 */
import { chatErrorKind, clock, counter, fileSizeIn, numberIn, speakerNumber, speechErrorKind } from '../internal/locale.js';
import type { ChatErrorKind, CompleteLocaleCatalogue, SpeechErrorKind } from '../internal/locale.js';
import type { VoiceInputErrorKind } from '../../client/contracts.js';
import type { OcrErrorKind } from '../doc-ocr-viewer/events.js';

const count = counter('fr');
const num = numberIn('fr');
const fileSize = fileSizeIn('fr');
/** French puts a no-break space before `:` and inside « ». */
const NBSP = '\u00a0';

const CHAT_ERRORS: Record<ChatErrorKind, string> = {
  unavailable: 'Cet assistant n’est pas disponible sur cette page.',
  'no-sound': 'Aucun son ne peut être joué sur cet appareil.',
  network: 'Le service de discussion est injoignable. Vérifiez votre connexion et réessayez.',
  cut: 'La réponse a été coupée avant la fin.',
  forbidden: 'Cette discussion n’a pas le droit de faire cela. Rechargez la page et réessayez.',
  'not-found': 'La conversation ou l’agent est introuvable.',
  'too-long': 'Le message est trop long.',
  rejected: 'La demande n’a pas été acceptée.',
  'rate-limited': 'Trop de demandes. Réessayez dans un instant.',
  server: 'Le service de discussion a rencontré un problème et n’a pas pu terminer la réponse.',
  other: 'Une erreur s’est produite.',
};

const VOICE_ERRORS: Record<VoiceInputErrorKind, string> = {
  'permission-denied': 'L’accès au micro est refusé. Autorisez le micro pour ce site dans le navigateur, puis réessayez.',
  'no-microphone': 'Aucun micro n’a été trouvé. Branchez-en un, puis réessayez.',
  unsupported: 'Ce navigateur ne peut pas enregistrer de son ici.',
  'audio-not-started': 'Le micro n’a pas pu démarrer.',
  'microphone-busy': `Le micro n’a pas pu démarrer${NBSP}: une autre application l’utilise peut-être.`,
  network: 'La connexion au service de transcription a été perdue.',
  platform: 'La transcription a échoué.',
};

const SPEECH_ERRORS: Record<SpeechErrorKind, string> = {
  unavailable: 'La synthèse vocale n’est pas disponible sur cette page.',
  'no-sound': 'Aucun son ne peut être joué sur cet appareil.',
  network: 'Le service de synthèse vocale est injoignable.',
  cut: 'L’audio a été coupé avant la fin.',
  forbidden: 'La lecture de ce texte n’est pas autorisée.',
  rejected: 'La demande de synthèse vocale n’a pas été acceptée.',
  'rate-limited': 'Trop de demandes. Réessayez dans un instant.',
  busy: 'Le service de synthèse vocale est occupé ou n’est pas installé.',
  other: 'Le texte n’a pas pu être lu.',
};

const copyFailed = `Copie impossible${NBSP}: le navigateur a refusé l’accès au presse-papiers.`;

const fr: CompleteLocaleCatalogue = {
  agentChat: {
    title: 'Discussion',
    transcriptLabel: 'Messages',
    inputLabel: 'Message',
    inputPlaceholder: 'Écrivez un message…',
    send: 'Envoyer',
    stop: 'Arrêter',
    retry: 'Réessayer',
    regenerate: 'Générer une autre réponse',
    edit: 'Modifier',
    editLabel: 'Modifier votre message',
    saveAndSend: 'Enregistrer et envoyer',
    cancel: 'Annuler',
    newConversation: 'Nouvelle conversation',
    conversations: 'Conversations',
    closeConversations: 'Retour à la discussion',
    noConversations: 'Aucune conversation enregistrée pour l’instant.',
    deleteConversation: (title) => `Supprimer la conversation${NBSP}: ${title}`,
    untitledConversation: 'Conversation sans titre',
    showEarlier: (n) => count(n, { one: 'Afficher # message précédent', other: 'Afficher les # messages précédents' }),
    search: 'Rechercher',
    searchLabel: 'Rechercher dans les messages',
    searchPrevious: 'Résultat précédent',
    searchNext: 'Résultat suivant',
    closeSearch: 'Fermer la recherche',
    searchMatches: (current, total) => `${count(current, { other: '#' })} sur ${count(total, { one: '# résultat', other: '# résultats' })}`,
    searchNoMatches: 'Aucun résultat',
    emptyState: 'Posez une question pour commencer la conversation.',
    you: 'Vous',
    assistant: 'Assistant',
    openChat: 'Ouvrir la discussion',
    closeChat: 'Fermer la discussion',
    chatPanelLabel: 'Discussion',
    thinking: 'Réflexion…',
    interrupted: 'Cette réponse a été interrompue.',
    offlineWaiting: 'Vous êtes hors ligne. Votre message partira dès que la connexion sera rétablie.',
    waitingToSend: 'En attente de la connexion…',
    cancelWaiting: 'Ne pas envoyer',
    handoff: (name) => `Transmis à l’agent ${name}`,
    functionCall: (name) => `Appel de ${name}`,
    toolExecution: (name) => `Outil utilisé${NBSP}: ${name}`,
    functionArguments: 'Arguments',
    functionResult: 'Résultat',
    functionPending: 'En attente du résultat…',
    sendingAnnouncement: 'Message envoyé. En attente de la réponse…',
    writingAnnouncement: 'La réponse est en cours de rédaction…',
    replyAnnouncement: (text) => `Réponse${NBSP}: ${text}`,
    linkWarningTitle: 'Vérifiez ce lien',
    linkWarningBody: (shown, real) => `Le lien affiche ${shown} mais ouvre ${real}.`,
    openLink: 'Ouvrir le lien',
    imageBlocked: (host, alt) => (alt ? `Image «${NBSP}${alt}${NBSP}» de ${host} non chargée` : `Image de ${host} non chargée`),
    errorMessage: (error) => {
      const kind = chatErrorKind(error);
      if (kind === 'rate-limited' && error.retryAfter) {
        return `Trop de demandes. Réessayez dans ${count(Math.ceil(error.retryAfter), { one: '# seconde', other: '# secondes' })}.`;
      }
      return CHAT_ERRORS[kind];
    },
    readAloud: 'Lire à voix haute',
    stopReading: 'Arrêter la lecture',
    speakMessage: 'Dicter un message',
    stopListening: 'Arrêter l’écoute',
    handsFree: 'Mains libres',
    voiceListening: 'À l’écoute…',
    voiceThinking: 'Réflexion…',
    voiceSpeaking: 'Réponse en cours… (parlez pour l’interrompre)',
    voiceErrorMessage: (error) => VOICE_ERRORS[error.kind] ?? VOICE_ERRORS.platform,
    startersLabel: 'Suggestions',
    approvalQuestion: (name) => `Autoriser ${name} à s’exécuter${NBSP}?`,
    approvalAnnouncement: (name) => `${name} demande votre autorisation pour s’exécuter.`,
    allowTool: 'Autoriser',
    denyTool: 'Refuser',
    toolDeclined: (name) => `Refusé${NBSP}: ${name} ne s’est pas exécuté.`,
    toolRunning: (name) => `Exécution de ${name}…`,
    searchingDocuments: 'Recherche dans les documents…',
    attach: 'Joindre des images ou des PDF',
    attachmentsLabel: 'Fichiers joints',
    attachedImage: 'Image jointe',
    removeAttachment: (name) => `Retirer ${name}`,
    attachmentAdded: (name) => `${name} joint`,
    attachmentRemoved: (name) => `${name} retiré`,
    fileSize,
    attachmentTooLarge: (name, size, limit) => `${name} fait ${fileSize(size)}${NBSP}; la limite est de ${fileSize(limit)}.`,
    attachmentWrongType: (name, types) => `${name} ne peut pas être joint${NBSP}: types acceptés${NBSP}: ${types}.`,
    attachmentTooMany: (name, limit) => `${name} n’a pas été joint${NBSP}: ${count(limit, { one: 'un fichier', other: '# fichiers' })} par message au plus.`,
    attachmentUnreadable: (name) => `${name} n’a pas pu être lu.`,
    copyReply: 'Copier',
    copyCode: 'Copier le code',
    copied: 'Copié',
    copyFailed: `Copie impossible${NBSP}: sélectionnez le texte et copiez-le vous-même.`,
    goodReply: 'Bonne réponse',
    badReply: 'Mauvaise réponse',
    feedbackComment: `Qu’est-ce qui n’allait pas${NBSP}? (facultatif)`,
    sendFeedback: 'Envoyer l’avis',
    skipFeedback: 'Passer',
    feedbackThanks: 'Merci pour votre avis.',
    sources: (n) => `Sources (${num(n)})`,
    sourcePage: (n) => `page ${num(n)}`,
    showInDocument: (n) => `Afficher la page ${num(n)} dans le document`,
  },

  speechPlayer: {
    playerLabel: 'Lecteur vocal',
    play: 'Lire',
    pause: 'Pause',
    resume: 'Reprendre',
    stop: 'Arrêter',
    voice: 'Voix',
    defaultVoice: 'Voix par défaut',
    rate: 'Vitesse',
    progressLabel: 'Progression de la lecture',
    progressText: (played, received) => `${clock(played)} / ${clock(received)}`,
    rateOption: (rate) => `${num(rate)}×`,
    loading: 'Préparation de la voix…',
    playing: 'Lecture en cours',
    paused: 'En pause',
    stopped: 'Arrêté',
    ended: 'Terminé',
    nothingToSay: 'Il n’y a aucun texte à lire.',
    errorMessage: (error) => SPEECH_ERRORS[speechErrorKind(error)],
  },

  audioTranscriber: {
    transcriberLabel: 'Transcription audio',
    startRecording: 'Démarrer l’enregistrement',
    stopRecording: 'Arrêter l’enregistrement',
    holdToTalk: 'Maintenir pour parler',
    releaseToStop: 'Relâcher pour arrêter',
    levelLabel: 'Niveau du micro',
    elapsedLabel: 'Durée de l’enregistrement',
    chooseFile: 'Choisir un fichier audio',
    dropHint: 'ou déposez-en un ici',
    cancel: 'Annuler',
    language: 'Langue',
    autoLanguage: 'Automatique',
    timesNeedAuto: 'Les horodatages des segments ne sont disponibles qu’avec Automatique.',
    transcript: 'Transcription',
    segments: 'Segments',
    copy: 'Copier',
    copied: 'Copié',
    copyFailed,
    clear: 'Effacer',
    emptyTranscript: 'Enregistrez ou importez un fichier audio pour voir son texte ici.',
    microphone: 'Micro',
    speaker: (id) => {
      const n = speakerNumber(id);
      return n ? `Intervenant ${n}` : id;
    },
    interruptedNote: `Interrompu${NBSP}: voici le texte reçu avant la coupure du flux.`,
    listening: 'Enregistrement',
    finishing: 'Finalisation de la transcription…',
    transcribingFile: (name) => `Transcription de ${name}…`,
    cancelled: 'Annulé',
    nothingHeard: 'Rien n’a été entendu.',
    finalAnnouncement: (text) => `Transcrit${NBSP}: ${text}`,
    errorMessage: (kind) => {
      switch (kind) {
        case 'permission-denied':
          return 'L’accès au micro est bloqué. Autorisez le micro pour ce site dans les paramètres du site du navigateur (l’icône à côté de l’adresse), puis réessayez.';
        case 'no-microphone':
          return 'Aucun micro n’a été trouvé. Branchez-en un ou activez-le dans les paramètres du système, puis réessayez.';
        case 'audio-not-started':
          return 'Le micro n’a pas pu démarrer.';
        case 'microphone-busy':
          return 'Le micro est utilisé par une autre application. Fermez-la, puis réessayez.';
        case 'unsupported':
          return 'L’enregistrement n’est pas disponible dans ce navigateur ou sur cette page (il faut une page https sécurisée). Vous pouvez importer un fichier audio à la place.';
        case 'not-audio':
          return 'Ce fichier n’est pas un fichier audio. Choisissez un fichier audio, par exemple WAV, MP3, FLAC ou Ogg.';
        case 'too-large':
          return 'Ce fichier est trop volumineux pour être transcrit. Choisissez un enregistrement plus court ou un fichier plus petit.';
        case 'network':
          return 'Le service de transcription est injoignable. Vérifiez votre connexion et réessayez.';
        case 'interrupted':
          return 'La transcription a été interrompue avant la fin. Le texte déjà reçu est conservé.';
        case 'platform':
          return 'Le service de transcription n’a pas pu transcrire cet audio. Réessayez ou essayez un autre fichier.';
        case 'not-available':
          return 'La transcription n’est pas disponible sur cette page.';
      }
    },
  },

  docOcrViewer: {
    viewerLabel: 'Lecteur de documents',
    chooseFile: 'Choisir un PDF ou une image',
    dropHint: 'ou déposez-en ou collez-en un ici',
    urlLabel: 'URL du document',
    readUrl: 'Lire',
    cancel: 'Annuler',
    progressLabel: 'Pages lues',
    working: (name, done, total) => `Lecture de ${name}…${total ? ` ${num(done)} sur ${count(total, { one: '# page', other: '# pages' })}` : ''}`,
    done: (pages) => `${count(pages, { one: '# page lue', other: '# pages lues' })}.`,
    cancelled: 'Annulé',
    pagesLabel: 'Pages',
    pageTitle: (page) => `Page ${num(page)}`,
    pageOf: (page, total) => `Page ${num(page)} sur ${num(total)}`,
    previousPage: 'Page précédente',
    nextPage: 'Page suivante',
    emptyPage: '(aucun texte)',
    showOriginal: 'Afficher l’original',
    originalOf: (page) => `Original de la page ${num(page)}`,
    drawingOriginal: (page) => `Affichage de l’original de la page ${num(page)}…`,
    originalUnavailable: (page) => `L’original de la page ${num(page)} n’a pas pu être affiché.`,
    searchLabel: 'Rechercher dans le texte',
    matches: (n, current) => (n === 0 ? 'Aucun résultat' : current ? `Résultat ${num(current)} sur ${num(n)}` : count(n, { one: '# résultat', other: '# résultats' })),
    previousMatch: 'Résultat précédent',
    nextMatch: 'Résultat suivant',
    copyPage: 'Copier la page',
    copyAll: 'Tout copier',
    copied: 'Copié',
    copyFailed,
    download: 'Télécharger le .md',
    emptyResult: 'Choisissez, déposez ou collez un PDF ou une image, ou indiquez son URL, pour voir son texte ici.',
    imageUnavailable: (alt) => `[image${alt ? `${NBSP}: ${alt}` : ''}]`,
    errorMessage: (_message, kind) => {
      const sentences: Record<OcrErrorKind, string> = {
        network: 'Le service de lecture de documents est injoignable. Vérifiez votre connexion et réessayez.',
        forbidden: 'La lecture de documents n’est pas autorisée ici. Rechargez la page et réessayez.',
        'url-not-allowed': 'Les documents ne peuvent pas être lus depuis une adresse web ici. Téléchargez le document, puis choisissez le fichier.',
        'too-large': 'Le document est trop volumineux. Choisissez un fichier plus petit ou avec moins de pages.',
        rejected: 'Le document n’a pas pu être lu. Vérifiez qu’il s’agit d’un PDF ou d’une image lisible, ou que son URL mène à l’un d’eux.',
        'rate-limited': 'Trop de demandes. Réessayez dans un instant.',
        busy: 'Le service de lecture de documents est occupé ou n’est pas installé. Réessayez plus tard.',
        other: 'Le service de lecture de documents a rencontré un problème et n’a pas pu lire le document.',
      };
      return sentences[kind];
    },
    notAvailable: 'La lecture de documents n’est pas disponible sur cette page.',
    notDocument: (type) => `Ce fichier n’est ni un PDF ni une image (${type || 'type inconnu'}). Choisissez un fichier PDF, PNG, JPEG ou WebP.`,
  },
};

export default fr;
