/**
 * Arabic: every string of the four elements. Loaded by itself when an element's language is `ar` (or
 * `ar-EG`, `ar-MA`, …). The page sets `dir="rtl"`; nothing here forces a direction. Names, hosts and
 * other text from outside (often left to right) are wrapped in Unicode isolates (FSI … PDI), so they
 * do not reorder the Arabic around them. To add a language, copy this file (see docs/guides/languages.md).
 */
import { chatErrorKind, clock, counter, fileSizeIn, numberIn, speakerNumber, speechErrorKind } from '../internal/locale.js';
import type { ChatErrorKind, CompleteLocaleCatalogue, SpeechErrorKind } from '../internal/locale.js';
import type { VoiceInputErrorKind } from '../../client/contracts.js';
import type { OcrErrorKind } from '../doc-ocr-viewer/events.js';

const count = counter('ar');
const num = numberIn('ar');
const fileSize = fileSizeIn('ar');
/** First-strong isolate: the inserted text keeps its own direction without moving its neighbours. */
const iso = (text: string): string => `\u2068${text}\u2069`;

const CHAT_ERRORS: Record<ChatErrorKind, string> = {
  unavailable: 'هذا المساعد غير متاح في هذه الصفحة.',
  'no-sound': 'لا يمكن تشغيل الصوت على هذا الجهاز.',
  network: 'تعذّر الوصول إلى خدمة المحادثة. تحقّق من اتصالك وحاول مرة أخرى.',
  cut: 'انقطع الرد قبل أن يكتمل.',
  forbidden: 'لا يُسمح لهذه المحادثة بذلك. أعد تحميل الصفحة وحاول مرة أخرى.',
  'not-found': 'لم يتم العثور على المحادثة أو الوكيل.',
  'too-long': 'الرسالة طويلة جدًا.',
  rejected: 'لم يتم قبول الطلب.',
  'rate-limited': 'طلبات كثيرة جدًا. حاول مرة أخرى بعد قليل.',
  server: 'حدثت مشكلة في خدمة المحادثة ولم يكتمل الرد.',
  other: 'حدث خطأ ما.',
};

const VOICE_ERRORS: Record<VoiceInputErrorKind, string> = {
  'permission-denied': 'تم رفض الوصول إلى الميكروفون. اسمح باستخدام الميكروفون لهذا الموقع في المتصفح وحاول مرة أخرى.',
  'no-microphone': 'لم يتم العثور على ميكروفون. وصّل ميكروفونًا وحاول مرة أخرى.',
  unsupported: 'لا يستطيع هذا المتصفح تسجيل الصوت هنا.',
  'audio-not-started': 'تعذّر تشغيل الميكروفون.',
  'microphone-busy': 'تعذّر تشغيل الميكروفون: ربما يستخدمه تطبيق آخر.',
  network: 'انقطع الاتصال بخدمة تحويل الكلام إلى نص.',
  platform: 'فشل تحويل الكلام إلى نص.',
};

const SPEECH_ERRORS: Record<SpeechErrorKind, string> = {
  unavailable: 'القراءة الصوتية غير متاحة في هذه الصفحة.',
  'no-sound': 'لا يمكن تشغيل الصوت على هذا الجهاز.',
  network: 'تعذّر الوصول إلى خدمة الصوت.',
  cut: 'انقطع الصوت قبل أن يكتمل.',
  forbidden: 'لا يُسمح بقراءة هذا النص بصوت عالٍ.',
  rejected: 'لم يتم قبول طلب القراءة الصوتية.',
  'rate-limited': 'طلبات كثيرة جدًا. حاول مرة أخرى بعد قليل.',
  busy: 'خدمة الصوت مشغولة أو غير مثبّتة.',
  other: 'تعذّرت قراءة النص.',
};

const copyFailed = 'تعذّر النسخ: رفض المتصفح الوصول إلى الحافظة.';

const ar: CompleteLocaleCatalogue = {
  agentChat: {
    title: 'المحادثة',
    transcriptLabel: 'الرسائل',
    inputLabel: 'الرسالة',
    inputPlaceholder: 'اكتب رسالة…',
    send: 'إرسال',
    stop: 'إيقاف',
    retry: 'إعادة المحاولة',
    regenerate: 'إنشاء رد جديد',
    edit: 'تعديل',
    editLabel: 'عدّل رسالتك',
    saveAndSend: 'حفظ وإرسال',
    cancel: 'إلغاء',
    newConversation: 'محادثة جديدة',
    conversations: 'المحادثات',
    closeConversations: 'العودة إلى المحادثة',
    noConversations: 'لا توجد محادثات محفوظة بعد.',
    deleteConversation: (title) => `حذف المحادثة: ${iso(title)}`,
    untitledConversation: 'محادثة بلا عنوان',
    showEarlier: (n) => count(n, {
      zero: 'عرض الرسائل السابقة',
      one: 'عرض رسالة سابقة واحدة',
      two: 'عرض رسالتين سابقتين',
      few: 'عرض # رسائل سابقة',
      other: 'عرض # رسالة سابقة',
    }),
    search: 'بحث',
    searchLabel: 'البحث في الرسائل',
    searchPrevious: 'النتيجة السابقة',
    searchNext: 'النتيجة التالية',
    closeSearch: 'إغلاق البحث',
    // "Result 3 of 12": the count stays a plain number, so no plural form is needed.
    searchMatches: (current, total) => `النتيجة ${num(current)} من ${num(total)}`,
    searchNoMatches: 'لا توجد نتائج',
    emptyState: 'اسأل عن أي شيء لبدء المحادثة.',
    you: 'أنت',
    assistant: 'المساعد',
    openChat: 'فتح المحادثة',
    closeChat: 'إغلاق المحادثة',
    chatPanelLabel: 'المحادثة',
    thinking: 'جارٍ التفكير…',
    interrupted: 'انقطع هذا الرد.',
    offlineWaiting: 'أنت غير متصل. ستُرسل رسالتك عند عودة الاتصال.',
    waitingToSend: 'في انتظار الاتصال…',
    cancelWaiting: 'لا ترسل',
    handoff: (name) => `تم التحويل إلى الوكيل ${iso(name)}`,
    functionCall: (name) => `تم استدعاء ${iso(name)}`,
    toolExecution: (name) => `تم استخدام ${iso(name)}`,
    functionArguments: 'الوسائط',
    functionResult: 'النتيجة',
    functionPending: 'في انتظار النتيجة…',
    sendingAnnouncement: 'تم إرسال الرسالة. في انتظار الرد…',
    writingAnnouncement: 'جارٍ كتابة الرد…',
    replyAnnouncement: (text) => `الرد: ${iso(text)}`,
    linkWarningTitle: 'تحقّق من هذا الرابط',
    linkWarningBody: (shown, real) => `يعرض الرابط ${iso(shown)} لكنه يفتح ${iso(real)}.`,
    openLink: 'فتح الرابط',
    imageBlocked: (host, alt) => (alt ? `لم يتم تحميل الصورة «${iso(alt)}» من ${iso(host)}` : `لم يتم تحميل صورة من ${iso(host)}`),
    errorMessage: (error) => {
      const kind = chatErrorKind(error);
      if (kind === 'rate-limited' && error.retryAfter) {
        const seconds = count(Math.ceil(error.retryAfter), { one: 'ثانية واحدة', two: 'ثانيتين', few: '# ثوانٍ', other: '# ثانية' });
        return `طلبات كثيرة جدًا. حاول مرة أخرى بعد ${seconds}.`;
      }
      return CHAT_ERRORS[kind];
    },
    readAloud: 'قراءة بصوت عالٍ',
    stopReading: 'إيقاف القراءة',
    speakMessage: 'إملاء رسالة',
    stopListening: 'إيقاف الاستماع',
    handsFree: 'دون استخدام اليدين',
    voiceListening: 'جارٍ الاستماع…',
    voiceThinking: 'جارٍ التفكير…',
    voiceSpeaking: 'جارٍ التحدث… (تكلّم للمقاطعة)',
    voiceErrorMessage: (error) => VOICE_ERRORS[error.kind] ?? VOICE_ERRORS.platform,
    startersLabel: 'اقتراحات',
    approvalQuestion: (name) => `هل تسمح بتشغيل ${iso(name)}؟`,
    approvalAnnouncement: (name) => `يطلب ${iso(name)} إذنك للتشغيل.`,
    allowTool: 'السماح',
    denyTool: 'الرفض',
    toolDeclined: (name) => `تم الرفض: لم يُشغَّل ${iso(name)}.`,
    toolRunning: (name) => `جارٍ تشغيل ${iso(name)}…`,
    searchingDocuments: 'جارٍ البحث في المستندات…',
    attach: 'إرفاق صور أو ملفات PDF',
    attachmentsLabel: 'الملفات المرفقة',
    attachedImage: 'صورة مرفقة',
    removeAttachment: (name) => `إزالة ${iso(name)}`,
    attachmentAdded: (name) => `أُرفق ${iso(name)}`,
    attachmentRemoved: (name) => `أُزيل ${iso(name)}`,
    fileSize,
    attachmentTooLarge: (name, size, limit) => `حجم ${iso(name)} هو ${iso(fileSize(size))}، والحد الأقصى ${iso(fileSize(limit))}.`,
    attachmentWrongType: (name, types) => `لا يمكن إرفاق ${iso(name)}: الأنواع المقبولة هي ${iso(types)}.`,
    attachmentTooMany: (name, limit) => `لم يُرفق ${iso(name)}: الحد الأقصى ${count(limit, { one: 'ملف واحد', two: 'ملفان', few: '# ملفات', other: '# ملفًا' })} لكل رسالة.`,
    attachmentUnreadable: (name) => `تعذّرت قراءة ${iso(name)}.`,
    copyReply: 'نسخ',
    copyCode: 'نسخ الشيفرة',
    copied: 'تم النسخ',
    copyFailed: 'تعذّر النسخ: حدّد النص وانسخه بنفسك.',
    goodReply: 'رد جيد',
    badReply: 'رد سيئ',
    feedbackComment: 'ما الخطأ؟ (اختياري)',
    sendFeedback: 'إرسال الرأي',
    skipFeedback: 'تخطٍّ',
    feedbackThanks: 'شكرًا على رأيك.',
    sources: (n) => `المصادر (${num(n)})`,
    sourcePage: (n) => `الصفحة ${num(n)}`,
    showInDocument: (n) => `عرض الصفحة ${num(n)} في المستند`,
  },

  speechPlayer: {
    playerLabel: 'مشغّل الكلام',
    play: 'تشغيل',
    pause: 'إيقاف مؤقت',
    resume: 'استئناف',
    stop: 'إيقاف',
    voice: 'الصوت',
    defaultVoice: 'الصوت الافتراضي',
    rate: 'السرعة',
    progressLabel: 'المدة المشغّلة',
    progressText: (played, received) => `${clock(played)} / ${clock(received)}`,
    rateOption: (rate) => `${num(rate)}×`,
    loading: 'جارٍ تجهيز الصوت…',
    playing: 'قيد التشغيل',
    paused: 'متوقف مؤقتًا',
    stopped: 'متوقف',
    ended: 'انتهى',
    nothingToSay: 'لا يوجد نص للقراءة.',
    errorMessage: (error) => SPEECH_ERRORS[speechErrorKind(error)],
  },

  audioTranscriber: {
    transcriberLabel: 'تحويل الصوت إلى نص',
    startRecording: 'بدء التسجيل',
    stopRecording: 'إيقاف التسجيل',
    holdToTalk: 'اضغط مطولًا للتحدث',
    releaseToStop: 'أفلت للإيقاف',
    levelLabel: 'مستوى الميكروفون',
    elapsedLabel: 'مدة التسجيل',
    chooseFile: 'اختر ملفًا صوتيًا',
    dropHint: 'أو أفلته هنا',
    cancel: 'إلغاء',
    language: 'اللغة',
    autoLanguage: 'تلقائي',
    timesNeedAuto: 'أوقات المقاطع متاحة فقط مع «تلقائي».',
    transcript: 'النص',
    segments: 'المقاطع',
    copy: 'نسخ',
    copied: 'تم النسخ',
    copyFailed,
    clear: 'مسح',
    emptyTranscript: 'سجّل صوتًا أو ارفع ملفًا صوتيًا لترى نصه هنا.',
    microphone: 'الميكروفون',
    speaker: (id) => {
      const n = speakerNumber(id);
      return n ? `المتحدث ${n}` : id;
    },
    interruptedNote: 'منقطع: هذا هو النص الذي وصل قبل انقطاع البث.',
    listening: 'جارٍ التسجيل',
    finishing: 'جارٍ إنهاء النص…',
    transcribingFile: (name) => `جارٍ تحويل ${iso(name)} إلى نص…`,
    cancelled: 'تم الإلغاء',
    nothingHeard: 'لم يُسمع شيء.',
    finalAnnouncement: (text) => `النص: ${iso(text)}`,
    errorMessage: (kind) => {
      switch (kind) {
        case 'permission-denied':
          return 'الوصول إلى الميكروفون محظور. اسمح باستخدام الميكروفون لهذا الموقع من إعدادات الموقع في المتصفح (الرمز بجوار العنوان)، ثم حاول مرة أخرى.';
        case 'no-microphone':
          return 'لم يتم العثور على ميكروفون. وصّل ميكروفونًا أو شغّله من إعدادات النظام، ثم حاول مرة أخرى.';
        case 'audio-not-started':
          return 'تعذّر تشغيل الميكروفون.';
        case 'microphone-busy':
          return 'يستخدم تطبيق آخر الميكروفون. أغلقه، ثم حاول مرة أخرى.';
        case 'unsupported':
          return 'التسجيل غير متاح في هذا المتصفح أو في هذه الصفحة (يتطلب صفحة https آمنة). يمكنك رفع ملف صوتي بدلًا من ذلك.';
        case 'not-audio':
          return 'هذا الملف ليس ملفًا صوتيًا. اختر ملفًا صوتيًا، مثل WAV أو MP3 أو FLAC أو Ogg.';
        case 'too-large':
          return 'هذا الملف كبير جدًا لتحويله إلى نص. اختر تسجيلًا أقصر أو ملفًا أصغر.';
        case 'network':
          return 'تعذّر الوصول إلى خدمة تحويل الكلام إلى نص. تحقّق من اتصالك وحاول مرة أخرى.';
        case 'interrupted':
          return 'انقطع التحويل إلى نص قبل أن يكتمل. تم الاحتفاظ بالنص الذي وصل حتى الآن.';
        case 'platform':
          return 'تعذّر على خدمة تحويل الكلام إلى نص معالجة هذا التسجيل. حاول مرة أخرى أو جرّب ملفًا آخر.';
        case 'not-available':
          return 'تحويل الكلام إلى نص غير متاح في هذه الصفحة.';
      }
    },
  },

  docOcrViewer: {
    viewerLabel: 'قارئ المستندات',
    chooseFile: 'اختر ملف PDF أو صورة',
    dropHint: 'أو أفلته أو الصقه هنا',
    urlLabel: 'رابط المستند',
    readUrl: 'قراءة',
    cancel: 'إلغاء',
    progressLabel: 'الصفحات المقروءة',
    working: (name, done, total) => `جارٍ قراءة ${iso(name)}…${total ? ` الصفحات: ${num(done)} من ${num(total)}` : ''}`,
    done: (pages) => count(pages, {
      zero: 'لم تتم قراءة أي صفحة.',
      one: 'تمت قراءة صفحة واحدة.',
      two: 'تمت قراءة صفحتين.',
      few: 'تمت قراءة # صفحات.',
      other: 'تمت قراءة # صفحة.',
    }),
    cancelled: 'تم الإلغاء',
    pagesLabel: 'الصفحات',
    pageTitle: (page) => `الصفحة ${num(page)}`,
    pageOf: (page, total) => `الصفحة ${num(page)} من ${num(total)}`,
    previousPage: 'الصفحة السابقة',
    nextPage: 'الصفحة التالية',
    emptyPage: '(لا يوجد نص)',
    showOriginal: 'عرض الأصل',
    originalOf: (page) => `أصل الصفحة ${num(page)}`,
    drawingOriginal: (page) => `جارٍ رسم أصل الصفحة ${num(page)}…`,
    originalUnavailable: (page) => `تعذّر رسم أصل الصفحة ${num(page)}.`,
    searchLabel: 'البحث في النص',
    matches: (n, current) => (n === 0
      ? 'لا توجد نتائج'
      : current
        ? `النتيجة ${num(current)} من ${num(n)}`
        : count(n, { one: 'نتيجة واحدة', two: 'نتيجتان', few: '# نتائج', other: '# نتيجة' })),
    previousMatch: 'النتيجة السابقة',
    nextMatch: 'النتيجة التالية',
    copyPage: 'نسخ الصفحة',
    copyAll: 'نسخ الكل',
    copied: 'تم النسخ',
    copyFailed,
    download: 'تنزيل بصيغة Markdown',
    emptyResult: 'اختر ملف PDF أو صورة أو أفلته أو الصقه، أو أدخل رابطه، لترى نصه هنا.',
    imageUnavailable: (alt) => `[صورة${alt ? `: ${iso(alt)}` : ''}]`,
    errorMessage: (_message, kind) => {
      const sentences: Record<OcrErrorKind, string> = {
        network: 'تعذّر الوصول إلى خدمة قراءة المستندات. تحقّق من اتصالك وحاول مرة أخرى.',
        forbidden: 'لا يُسمح بقراءة المستندات هنا. أعد تحميل الصفحة وحاول مرة أخرى.',
        'url-not-allowed': 'لا يمكن قراءة المستندات من عنوان ويب هنا. نزّل المستند ثم اختر الملف.',
        'too-large': 'المستند كبير جدًا. اختر ملفًا أصغر أو ملفًا بعدد صفحات أقل.',
        rejected: 'تعذّرت قراءة المستند. تأكّد من أنه ملف PDF أو صورة قابلة للقراءة، أو أن عنوان URL الخاص به يشير إلى أحدهما.',
        'rate-limited': 'طلبات كثيرة جدًا. حاول مرة أخرى بعد قليل.',
        busy: 'خدمة قراءة المستندات مشغولة أو غير مثبّتة. حاول مرة أخرى لاحقًا.',
        other: 'حدثت مشكلة في خدمة قراءة المستندات ولم تتم قراءة المستند.',
      };
      return sentences[kind];
    },
    notAvailable: 'قراءة المستندات غير متاحة في هذه الصفحة.',
    notDocument: (type) => `هذا الملف ليس ملف PDF ولا صورة (${type ? iso(type) : 'نوع غير معروف'}). اختر ملف PDF أو PNG أو JPEG أو WebP.`,
  },
};

export default ar;
