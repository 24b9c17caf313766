/**
 * Spanish: every string of the four elements. Loaded by itself when an element's language is `es` (or
 * `es-MX`, `es-419`, …). To add a language, copy this file (see docs/guides/languages.md).
 */
import { chatErrorKind, clock, counter, fileSizeIn, numberIn, speakerNumber, speechErrorKind } from '../internal/locale.js';
import type { ChatErrorKind, CompleteLocaleCatalogue, SpeechErrorKind } from '../internal/locale.js';
import type { VoiceInputErrorKind } from '../../client/contracts.js';
import type { OcrErrorKind } from '../doc-ocr-viewer/events.js';

const count = counter('es');
const num = numberIn('es');
const fileSize = fileSizeIn('es');

const CHAT_ERRORS: Record<ChatErrorKind, string> = {
  unavailable: 'Este asistente no está disponible en esta página.',
  'no-sound': 'No se puede reproducir sonido en este dispositivo.',
  network: 'No se pudo conectar con el servicio de chat. Comprueba tu conexión e inténtalo de nuevo.',
  cut: 'La respuesta se cortó antes de terminar.',
  forbidden: 'Este chat no tiene permiso para hacer eso. Recarga la página e inténtalo de nuevo.',
  'not-found': 'No se encontró la conversación o el agente.',
  'too-long': 'El mensaje es demasiado largo.',
  rejected: 'La solicitud no fue aceptada.',
  'rate-limited': 'Demasiadas solicitudes. Inténtalo de nuevo en un momento.',
  server: 'El servicio de chat tuvo un problema y no pudo terminar la respuesta.',
  other: 'Algo salió mal.',
};

const VOICE_ERRORS: Record<VoiceInputErrorKind, string> = {
  'permission-denied': 'Se denegó el acceso al micrófono. Permite el micrófono para este sitio en el navegador e inténtalo de nuevo.',
  'no-microphone': 'No se encontró ningún micrófono. Conecta uno e inténtalo de nuevo.',
  unsupported: 'Este navegador no puede grabar audio aquí.',
  'audio-not-started': 'No se pudo iniciar el micrófono.',
  'microphone-busy': 'No se pudo iniciar el micrófono: puede que otra aplicación lo esté usando.',
  network: 'Se perdió la conexión con el servicio de transcripción.',
  platform: 'La transcripción falló.',
};

const SPEECH_ERRORS: Record<SpeechErrorKind, string> = {
  unavailable: 'La voz no está disponible en esta página.',
  'no-sound': 'No se puede reproducir sonido en este dispositivo.',
  network: 'No se pudo conectar con el servicio de voz.',
  cut: 'El audio se cortó antes de terminar.',
  forbidden: 'No está permitido leer este texto en voz alta.',
  rejected: 'La solicitud de voz no fue aceptada.',
  'rate-limited': 'Demasiadas solicitudes. Inténtalo de nuevo en un momento.',
  busy: 'El servicio de voz está ocupado o no está instalado.',
  other: 'No se pudo leer el texto en voz alta.',
};

const copyFailed = 'No se pudo copiar: el navegador denegó el acceso al portapapeles.';

const es: CompleteLocaleCatalogue = {
  agentChat: {
    title: 'Chat',
    transcriptLabel: 'Mensajes',
    inputLabel: 'Mensaje',
    inputPlaceholder: 'Escribe un mensaje…',
    send: 'Enviar',
    stop: 'Detener',
    retry: 'Reintentar',
    regenerate: 'Generar otra respuesta',
    edit: 'Editar',
    editLabel: 'Edita tu mensaje',
    saveAndSend: 'Guardar y enviar',
    cancel: 'Cancelar',
    newConversation: 'Nueva conversación',
    conversations: 'Conversaciones',
    closeConversations: 'Volver al chat',
    noConversations: 'Todavía no hay conversaciones guardadas.',
    deleteConversation: (title) => `Eliminar la conversación: ${title}`,
    untitledConversation: 'Conversación sin título',
    showEarlier: (n) => count(n, { one: 'Mostrar # mensaje anterior', other: 'Mostrar # mensajes anteriores' }),
    search: 'Buscar',
    searchLabel: 'Buscar en los mensajes',
    searchPrevious: 'Resultado anterior',
    searchNext: 'Resultado siguiente',
    closeSearch: 'Cerrar la búsqueda',
    searchMatches: (current, total) => `${count(current, { other: '#' })} de ${count(total, { one: '# resultado', other: '# resultados' })}`,
    searchNoMatches: 'Sin resultados',
    emptyState: 'Pregunta lo que quieras para empezar la conversación.',
    you: 'Tú',
    assistant: 'Asistente',
    openChat: 'Abrir el chat',
    closeChat: 'Cerrar el chat',
    chatPanelLabel: 'Chat',
    thinking: 'Pensando…',
    interrupted: 'Esta respuesta se interrumpió.',
    offlineWaiting: 'Estás sin conexión. Tu mensaje se enviará cuando vuelva la conexión.',
    waitingToSend: 'Esperando la conexión…',
    cancelWaiting: 'No enviar',
    handoff: (name) => `Transferido al agente ${name}`,
    functionCall: (name) => `Se llamó a ${name}`,
    toolExecution: (name) => `Se usó ${name}`,
    functionArguments: 'Argumentos',
    functionResult: 'Resultado',
    functionPending: 'Esperando el resultado…',
    sendingAnnouncement: 'Mensaje enviado. Esperando la respuesta…',
    writingAnnouncement: 'Se está escribiendo la respuesta…',
    replyAnnouncement: (text) => `Respuesta: ${text}`,
    linkWarningTitle: 'Revisa este enlace',
    linkWarningBody: (shown, real) => `El enlace muestra ${shown}, pero abre ${real}.`,
    openLink: 'Abrir el enlace',
    imageBlocked: (host, alt) => (alt ? `No se cargó la imagen «${alt}» de ${host}` : `No se cargó la imagen de ${host}`),
    errorMessage: (error) => {
      const kind = chatErrorKind(error);
      if (kind === 'rate-limited' && error.retryAfter) {
        return `Demasiadas solicitudes. Inténtalo de nuevo en ${count(Math.ceil(error.retryAfter), { one: '# segundo', other: '# segundos' })}.`;
      }
      return CHAT_ERRORS[kind];
    },
    readAloud: 'Leer en voz alta',
    stopReading: 'Dejar de leer',
    speakMessage: 'Dictar un mensaje',
    stopListening: 'Dejar de escuchar',
    handsFree: 'Manos libres',
    voiceListening: 'Escuchando…',
    voiceThinking: 'Pensando…',
    voiceSpeaking: 'Hablando… (habla para interrumpir)',
    voiceErrorMessage: (error) => VOICE_ERRORS[error.kind] ?? VOICE_ERRORS.platform,
    startersLabel: 'Sugerencias',
    approvalQuestion: (name) => `¿Permitir que se ejecute ${name}?`,
    approvalAnnouncement: (name) => `${name} pide tu permiso para ejecutarse.`,
    allowTool: 'Permitir',
    denyTool: 'Denegar',
    toolDeclined: (name) => `Denegado: ${name} no se ejecutó.`,
    toolRunning: (name) => `Ejecutando ${name}…`,
    searchingDocuments: 'Buscando en los documentos…',
    attach: 'Adjuntar imágenes o PDF',
    attachmentsLabel: 'Archivos adjuntos',
    attachedImage: 'Imagen adjunta',
    removeAttachment: (name) => `Quitar ${name}`,
    attachmentAdded: (name) => `${name} adjuntado`,
    attachmentRemoved: (name) => `${name} quitado`,
    fileSize,
    attachmentTooLarge: (name, size, limit) => `${name} ocupa ${fileSize(size)}; el límite es ${fileSize(limit)}.`,
    attachmentWrongType: (name, types) => `No se puede adjuntar ${name}: los tipos aceptados son ${types}.`,
    attachmentTooMany: (name, limit) => `${name} no se adjuntó: como máximo ${count(limit, { one: 'un archivo', other: '# archivos' })} por mensaje.`,
    attachmentUnreadable: (name) => `No se pudo leer ${name}.`,
    copyReply: 'Copiar',
    copyCode: 'Copiar código',
    copied: 'Copiado',
    copyFailed: 'No se pudo copiar: seleccione el texto y cópielo usted mismo.',
    goodReply: 'Buena respuesta',
    badReply: 'Mala respuesta',
    feedbackComment: '¿Qué estuvo mal? (opcional)',
    sendFeedback: 'Enviar opinión',
    skipFeedback: 'Omitir',
    feedbackThanks: 'Gracias por su opinión.',
    sources: (n) => `Fuentes (${num(n)})`,
    sourcePage: (n) => `página ${num(n)}`,
    showInDocument: (n) => `Mostrar la página ${num(n)} en el documento`,
  },

  speechPlayer: {
    playerLabel: 'Reproductor de voz',
    play: 'Reproducir',
    pause: 'Pausa',
    resume: 'Continuar',
    stop: 'Detener',
    voice: 'Voz',
    defaultVoice: 'Voz predeterminada',
    rate: 'Velocidad',
    progressLabel: 'Reproducido',
    progressText: (played, received) => `${clock(played)} / ${clock(received)}`,
    rateOption: (rate) => `${num(rate)}×`,
    loading: 'Preparando la voz…',
    playing: 'Reproduciendo',
    paused: 'En pausa',
    stopped: 'Detenido',
    ended: 'Terminado',
    nothingToSay: 'No hay texto para leer.',
    errorMessage: (error) => SPEECH_ERRORS[speechErrorKind(error)],
  },

  audioTranscriber: {
    transcriberLabel: 'Transcriptor de audio',
    startRecording: 'Empezar a grabar',
    stopRecording: 'Dejar de grabar',
    holdToTalk: 'Mantén pulsado para hablar',
    releaseToStop: 'Suelta para terminar',
    levelLabel: 'Nivel del micrófono',
    elapsedLabel: 'Tiempo de grabación',
    chooseFile: 'Elegir un archivo de audio',
    dropHint: 'o suéltalo aquí',
    cancel: 'Cancelar',
    language: 'Idioma',
    autoLanguage: 'Automático',
    timesNeedAuto: 'Los tiempos de los segmentos solo están disponibles con Automático.',
    transcript: 'Transcripción',
    segments: 'Segmentos',
    copy: 'Copiar',
    copied: 'Copiado',
    copyFailed,
    clear: 'Borrar',
    emptyTranscript: 'Graba o sube un audio para ver aquí su texto.',
    microphone: 'Micrófono',
    speaker: (id) => {
      const n = speakerNumber(id);
      return n ? `Hablante ${n}` : id;
    },
    interruptedNote: 'Interrumpido: este es el texto recibido antes de que se cortara la transmisión.',
    listening: 'Grabando',
    finishing: 'Terminando la transcripción…',
    transcribingFile: (name) => `Transcribiendo ${name}…`,
    cancelled: 'Cancelado',
    nothingHeard: 'No se oyó nada.',
    finalAnnouncement: (text) => `Transcrito: ${text}`,
    errorMessage: (kind) => {
      switch (kind) {
        case 'permission-denied':
          return 'El acceso al micrófono está bloqueado. Permite el micrófono para este sitio en la configuración del sitio del navegador (el icono junto a la dirección) e inténtalo de nuevo.';
        case 'no-microphone':
          return 'No se encontró ningún micrófono. Conecta uno o actívalo en la configuración del sistema e inténtalo de nuevo.';
        case 'audio-not-started':
          return 'No se pudo iniciar el micrófono.';
        case 'microphone-busy':
          return 'Otra aplicación está usando el micrófono. Ciérrala e inténtalo de nuevo.';
        case 'unsupported':
          return 'No se puede grabar en este navegador o en esta página (hace falta una página https segura). Puedes subir un archivo de audio en su lugar.';
        case 'not-audio':
          return 'Ese archivo no es de audio. Elige un archivo de audio, por ejemplo WAV, MP3, FLAC u Ogg.';
        case 'too-large':
          return 'Ese archivo es demasiado grande para transcribirlo. Elige una grabación más corta o un archivo más pequeño.';
        case 'network':
          return 'No se pudo conectar con el servicio de transcripción. Comprueba tu conexión e inténtalo de nuevo.';
        case 'interrupted':
          return 'La transcripción se interrumpió antes de terminar. Se conserva el texto recibido hasta ahora.';
        case 'platform':
          return 'El servicio de transcripción no pudo transcribir este audio. Inténtalo de nuevo o prueba con otro archivo.';
        case 'not-available':
          return 'La transcripción no está disponible en esta página.';
      }
    },
  },

  docOcrViewer: {
    viewerLabel: 'Lector de documentos',
    chooseFile: 'Elegir un PDF o una imagen',
    dropHint: 'o suéltalo o pégalo aquí',
    urlLabel: 'URL del documento',
    readUrl: 'Leer',
    cancel: 'Cancelar',
    progressLabel: 'Páginas leídas',
    working: (name, done, total) => `Leyendo ${name}…${total ? ` ${num(done)} de ${count(total, { one: '# página', other: '# páginas' })}` : ''}`,
    done: (pages) => `${count(pages, { one: 'Se leyó # página', other: 'Se leyeron # páginas' })}.`,
    cancelled: 'Cancelado',
    pagesLabel: 'Páginas',
    pageTitle: (page) => `Página ${num(page)}`,
    pageOf: (page, total) => `Página ${num(page)} de ${num(total)}`,
    previousPage: 'Página anterior',
    nextPage: 'Página siguiente',
    emptyPage: '(sin texto)',
    showOriginal: 'Mostrar el original',
    originalOf: (page) => `Original de la página ${num(page)}`,
    drawingOriginal: (page) => `Dibujando el original de la página ${num(page)}…`,
    originalUnavailable: (page) => `No se pudo dibujar el original de la página ${num(page)}.`,
    searchLabel: 'Buscar en el texto',
    matches: (n, current) => (n === 0 ? 'Sin coincidencias' : current ? `Coincidencia ${num(current)} de ${num(n)}` : count(n, { one: '# coincidencia', other: '# coincidencias' })),
    previousMatch: 'Coincidencia anterior',
    nextMatch: 'Coincidencia siguiente',
    copyPage: 'Copiar la página',
    copyAll: 'Copiar todo',
    copied: 'Copiado',
    copyFailed,
    download: 'Descargar .md',
    emptyResult: 'Elige, suelta o pega un PDF o una imagen, o indica su URL, para ver aquí su texto.',
    imageUnavailable: (alt) => `[imagen${alt ? `: ${alt}` : ''}]`,
    errorMessage: (_message, kind) => {
      const sentences: Record<OcrErrorKind, string> = {
        network: 'No se pudo conectar con el servicio de documentos. Comprueba tu conexión e inténtalo de nuevo.',
        forbidden: 'Aquí no se permite leer documentos. Recarga la página e inténtalo de nuevo.',
        'url-not-allowed': 'Aquí no se pueden leer documentos desde una dirección web. Descarga el documento y luego elige el archivo.',
        'too-large': 'El documento es demasiado grande. Elige un archivo más pequeño o con menos páginas.',
        rejected: 'No se pudo leer el documento. Comprueba que sea un PDF o una imagen legible, o que su URL lleve a uno.',
        'rate-limited': 'Demasiadas solicitudes. Inténtalo de nuevo en un momento.',
        busy: 'El servicio de documentos está ocupado o no está instalado. Inténtalo más tarde.',
        other: 'El servicio de documentos tuvo un problema y no pudo leer el documento.',
      };
      return sentences[kind];
    },
    notAvailable: 'La lectura de documentos no está disponible en esta página.',
    notDocument: (type) => `Ese archivo no es un PDF ni una imagen (${type || 'tipo desconocido'}). Elige un archivo PDF, PNG, JPEG o WebP.`,
  },
};

export default es;
