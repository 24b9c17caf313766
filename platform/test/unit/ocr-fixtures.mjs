/**
 * OCR test fixtures, generated at test time: a text-layer PDF (pdfkit), a PNG of rendered text
 * (@napi-rs/canvas with DejaVu Sans), a "scanned" PDF made of that PNG, and the character error rate.
 */
import { GlobalFonts, createCanvas } from '@napi-rs/canvas';
import PDFDocument from 'pdfkit';

export const HEADING = 'Quarterly Report';
export const SUBHEADING = 'Summary of results';
export const PARAGRAPHS = [
  'Revenue grew by twelve percent in the third quarter, driven by strong demand for the new product line across all regions.',
  'Operating costs stayed flat while the team shipped two major releases and closed the backlog of customer requests.',
];
export const BULLETS = ['Hire three engineers', 'Open the Berlin office', 'Launch the mobile app'];
export const NUMBERED = ['Review the budget', 'Approve the plan'];

/** The markdown the text-layer PDF should produce. */
export const EXPECTED_TEXT_MARKDOWN = [
  `# ${HEADING}`,
  `## ${SUBHEADING}`,
  ...PARAGRAPHS,
  BULLETS.map((b) => `- ${b}`).join('\n'),
  NUMBERED.map((b, i) => `${i + 1}. ${b}`).join('\n'),
].join('\n\n');

/** Lines printed in the image fixtures (clean printed text). */
export const SCAN_LINES = [
  'The quick brown fox jumps over the lazy dog.',
  'Invoice number 12345 is due on 2024-03-15.',
  'Total amount payable: 42.50 euros.',
];

/** @param {(doc: any) => void} build @param {string} [userPassword] @returns {Promise<Uint8Array>} */
function pdfBytes(build, userPassword) {
  const doc = new PDFDocument({ size: 'LETTER', margin: 72, userPassword });
  const chunks = [];
  doc.on('data', (c) => chunks.push(c));
  const done = new Promise((resolve) => doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks)))));
  build(doc);
  doc.end();
  return done;
}

/** One page (or `pages` copies, each page numbered) of heading, subheading, paragraphs and two lists. */
export function textLayerPdf(pages = 1) {
  return pdfBytes((doc) => {
    for (let p = 0; p < pages; p++) {
      if (p) doc.addPage();
      doc.font('Helvetica-Bold').fontSize(24).text(pages > 1 ? `${HEADING} ${p}` : HEADING);
      doc.moveDown(0.5);
      doc.fontSize(16).text(SUBHEADING);
      doc.moveDown(0.5);
      doc.font('Helvetica').fontSize(12);
      for (const para of PARAGRAPHS) { doc.text(para); doc.moveDown(); }
      for (const b of BULLETS) doc.text(`• ${b}`);
      doc.moveDown();
      NUMBERED.forEach((n, i) => doc.text(`${i + 1}. ${n}`));
    }
  });
}

/** A one-line PDF that opens only with a password. */
export const encryptedPdf = () => pdfBytes((doc) => doc.text('secret'), 'password');

/** `pages` empty pages. */
export const blankPdf = (/** @type {number} */ pages) => pdfBytes((doc) => { for (let p = 1; p < pages; p++) doc.addPage(); });

let fontRegistered = false;

/** A white PNG with `lines` in black DejaVu Sans (about 300 dpi for 12 pt text). */
export async function textPng(lines = SCAN_LINES, width = 1600) {
  if (!fontRegistered) {
    GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 'DejaVu Sans Test');
    fontRegistered = true;
  }
  const lineHeight = 70;
  const canvas = createCanvas(width, 80 + lines.length * lineHeight);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000';
  ctx.font = '44px "DejaVu Sans Test"';
  lines.forEach((line, i) => ctx.fillText(line, 40, 80 + i * lineHeight));
  return new Uint8Array(await canvas.encode('png'));
}

/** A red 300×200 PNG with a blue disc (a "figure"). */
export async function figurePng() {
  const canvas = createCanvas(300, 200);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#c00';
  ctx.fillRect(0, 0, 300, 200);
  ctx.fillStyle = '#00c';
  ctx.beginPath();
  ctx.arc(150, 100, 60, 0, Math.PI * 2);
  ctx.fill();
  return new Uint8Array(await canvas.encode('png'));
}

/** One text-layer page: heading, paragraph, a 200×133 pt figure at x 72 pt, paragraph. */
export async function figurePdf() {
  const png = Buffer.from(await figurePng());
  return pdfBytes((doc) => {
    doc.font('Helvetica-Bold').fontSize(24).text(HEADING);
    doc.moveDown(0.5);
    doc.font('Helvetica').fontSize(12).text(PARAGRAPHS[0]);
    doc.moveDown();
    doc.image(png, 72, doc.y, { width: 200 });
    doc.y += 133 + 20;
    doc.text(PARAGRAPHS[1], 72);
  });
}

export const TABLE = [['Item', 'Qty', 'Price'], ['Apples', '3', '1.20'], ['Pears', '12', '4.80']];

/** One text-layer page: a paragraph, {@link TABLE} as three columns, a paragraph. */
export function tablePdf() {
  return pdfBytes((doc) => {
    doc.font('Helvetica').fontSize(12).text(PARAGRAPHS[0]);
    doc.moveDown();
    let y = doc.y;
    for (const row of TABLE) {
      row.forEach((cell, i) => doc.text(cell, 72 + i * 150, y, { lineBreak: false }));
      y += 18;
    }
    doc.text(PARAGRAPHS[1], 72, y + 24);
  });
}

/** A PDF of `pages` pages, each only an image of text (no text layer). */
export async function scannedPdf(pages = 1) {
  const png = Buffer.from(await textPng());
  return pdfBytes((doc) => {
    for (let p = 0; p < pages; p++) {
      if (p) doc.addPage();
      doc.image(png, 72, 72, { width: 468 });
    }
  });
}

export const dataUrl = (/** @type {Uint8Array} */ bytes, type = 'application/pdf') => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

/** Text without markdown markers, whitespace collapsed, for comparing recognised text. */
export const plain = (/** @type {string} */ markdown) => markdown.replace(/^(#+|-|\d+\.)\s+/gm, '').replace(/\s+/g, ' ').trim();

/** Character error rate: Levenshtein distance / reference length. */
export function cer(/** @type {string} */ reference, /** @type {string} */ hypothesis) {
  const a = reference, b = hypothesis;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length] / Math.max(1, a.length);
}
