/**
 * Ogg Opus writer (RFC 7845 on RFC 3533 pages) around any Opus frame encoder, streaming: every `push`
 * returns the pages completed so far (one page per push; the newest packet is held back so that the
 * last page can carry the end-of-stream flag and the final granule position that trims the padding).
 */

export interface OpusFrameEncoder {
  /** Encodes one frame of int16 samples (20 ms) into one Opus packet. */
  encode(frame: Int16Array): Uint8Array;
  close(): void;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** Ogg's CRC-32 (polynomial 0x04c11db7, not reflected, initial 0, no final xor). */
export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]) & 0xff]) >>> 0;
  return crc >>> 0;
}

/** Opus encoder lookahead at 48 kHz (2.5 ms + 4 ms delay compensation in libopus). */
const PRE_SKIP = 312;
const FRAME_MS = 20;
const MAX_PACKETS_PER_PAGE = 50;

export class OggOpusWriter {
  private readonly serial = (Math.random() * 0xffffffff) >>> 0;
  private readonly frameSize: number;
  private readonly granulePerSample: number;
  private sequence = 0;
  private headerDone = false;
  private pending = new Int16Array(0);
  private inputSamples = 0;
  private encodedFrames = 0;
  private held: Uint8Array | undefined;

  constructor(private readonly encoder: OpusFrameEncoder, private readonly inputRate: number) {
    this.frameSize = (inputRate * FRAME_MS) / 1000;
    this.granulePerSample = 48_000 / inputRate;
  }

  push(samples: Int16Array): Uint8Array {
    const parts: Uint8Array[] = [];
    if (!this.headerDone) parts.push(...this.headers());
    this.inputSamples += samples.length;
    const all = new Int16Array(this.pending.length + samples.length);
    all.set(this.pending);
    all.set(samples, this.pending.length);
    let at = 0;
    const packets: Uint8Array[] = [];
    while (all.length - at >= this.frameSize) {
      packets.push(...this.encodeFrame(all.subarray(at, at + this.frameSize)));
      at += this.frameSize;
    }
    this.pending = all.slice(at);
    parts.push(...this.pages(packets, false));
    return concat(parts);
  }

  end(): Uint8Array {
    const parts: Uint8Array[] = [];
    if (!this.headerDone) parts.push(...this.headers());
    const packets: Uint8Array[] = [];
    if (this.pending.length || (!this.held && this.encodedFrames === 0)) {
      const frame = new Int16Array(this.frameSize);
      frame.set(this.pending);
      packets.push(...this.encodeFrame(frame));
      this.pending = new Int16Array(0);
    }
    if (this.held) packets.push(this.held);
    this.held = undefined;
    const granule = PRE_SKIP + this.inputSamples * this.granulePerSample;
    parts.push(...this.pages(packets, true, granule));
    this.encoder.close();
    return concat(parts);
  }

  /** Encodes a frame and returns the packets now releasable (the previous held one). */
  private encodeFrame(frame: Int16Array): Uint8Array[] {
    const packet = this.encoder.encode(frame);
    this.encodedFrames++;
    const out = this.held ? [this.held] : [];
    this.held = packet;
    return out;
  }

  private headers(): Uint8Array[] {
    this.headerDone = true;
    const head = new Uint8Array(19);
    const hv = new DataView(head.buffer);
    head.set(new TextEncoder().encode('OpusHead'));
    head[8] = 1; // version
    head[9] = 1; // channels
    hv.setUint16(10, PRE_SKIP, true);
    hv.setUint32(12, this.inputRate, true);
    hv.setInt16(16, 0, true);
    head[18] = 0; // mapping family
    const vendor = new TextEncoder().encode('parley local platform (libopus via opusscript)');
    const tags = new Uint8Array(8 + 4 + vendor.length + 4);
    const tv = new DataView(tags.buffer);
    tags.set(new TextEncoder().encode('OpusTags'));
    tv.setUint32(8, vendor.length, true);
    tags.set(vendor, 12);
    tv.setUint32(12 + vendor.length, 0, true);
    return [this.page([head], 0x02, 0), this.page([tags], 0, 0)];
  }

  /** Pages for packets; granule = samples (48 kHz) decodable at the end of each page. */
  private pages(packets: Uint8Array[], last: boolean, finalGranule?: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (!packets.length && !last) return out;
    // Frames already released before these packets = encodedFrames - held(0/1) - packets.length.
    let released = this.encodedFrames - (this.held ? 1 : 0) - packets.length;
    for (let i = 0; i < packets.length || (last && i === 0); i += MAX_PACKETS_PER_PAGE) {
      const group = packets.slice(i, i + MAX_PACKETS_PER_PAGE);
      released += group.length;
      const isLast = last && i + MAX_PACKETS_PER_PAGE >= packets.length;
      const granule = isLast && finalGranule !== undefined ? finalGranule : PRE_SKIP + released * this.frameSize * this.granulePerSample;
      out.push(this.page(group, isLast ? 0x04 : 0, granule));
    }
    return out;
  }

  private page(packets: Uint8Array[], flags: number, granule: number): Uint8Array {
    const lacing: number[] = [];
    for (const p of packets) {
      let n = p.length;
      while (n >= 255) { lacing.push(255); n -= 255; }
      lacing.push(n);
    }
    if (lacing.length > 255) throw new Error('Ogg page overflow');
    const bodyLength = packets.reduce((s, p) => s + p.length, 0);
    const page = new Uint8Array(27 + lacing.length + bodyLength);
    const view = new DataView(page.buffer);
    page.set([0x4f, 0x67, 0x67, 0x53]); // OggS
    page[4] = 0;
    page[5] = flags;
    view.setBigUint64(6, BigInt(granule), true);
    view.setUint32(14, this.serial, true);
    view.setUint32(18, this.sequence++, true);
    page[26] = lacing.length;
    page.set(lacing, 27);
    let at = 27 + lacing.length;
    for (const p of packets) { page.set(p, at); at += p.length; }
    view.setUint32(22, oggCrc(page), true);
    return page;
  }
}

export function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
