/** pdf.js's worker entry; only its module object is handed to pdf.js. */
export declare const WorkerMessageHandler: unknown;
