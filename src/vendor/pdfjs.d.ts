export * from 'pdfjs-dist';
