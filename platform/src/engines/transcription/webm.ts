/**
 * A minimal WebM/Matroska demuxer for Opus audio, enough for what browsers' MediaRecorder writes
 * (`audio/webm;codecs=opus`: unknown-size Segment and Clusters, SimpleBlocks without lacing).
 * Reads the first `A_OPUS` track's CodecPrivate (OpusHead) and frames; Xiph/EBML-laced blocks are
 * rejected as unsupported. Other codecs (Vorbis, PCM…) → unsupported.
 */
export class WebmError extends Error {
  constructor(message: string, readonly unsupported = false) { super(message); }
}

export interface WebmOpus { channels: number; preSkip: number; frames: Uint8Array[] }

const MASTER = new Set([0x18538067, 0x1f43b675, 0x1654ae6b, 0xae, 0xa0, 0xe1]); // Segment, Cluster, Tracks, TrackEntry, BlockGroup, Audio

function vint(b: Uint8Array, pos: number, keepMarker: boolean): { value: number; length: number } {
  const first = b[pos];
  if (first === undefined || first === 0) throw new WebmError('Malformed WebM: invalid element header');
  const length = Math.clz32(first) - 23;
  if (pos + length > b.length) throw new WebmError('Malformed WebM: truncated element header');
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === (0xff >> length);
  for (let i = 1; i < length; i++) { value = value * 256 + b[pos + i]; if (b[pos + i] !== 0xff) allOnes = false; }
  return { value: !keepMarker && allOnes ? -1 : value, length };
}

const uint = (b: Uint8Array) => b.reduce((a, x) => a * 256 + x, 0);

export function demuxWebmOpus(b: Uint8Array): WebmOpus {
  type Track = { number?: number; codec?: string; priv?: Uint8Array; channels?: number };
  const tracks: Track[] = [];
  const blocks: Array<{ track: number; data: Uint8Array }> = [];
  let pos = 0;
  while (pos < b.length) {
    const id = vint(b, pos, true);
    const size = vint(b, pos + id.length, false);
    const start = pos + id.length + size.length;
    if (MASTER.has(id.value)) {
      if (id.value === 0xae) tracks.push({});
      pos = start;
      continue;
    }
    if (size.value < 0) throw new WebmError('Malformed WebM: unknown size on a non-container element');
    const end = Math.min(start + size.value, b.length); // a truncated last block is cut, not fatal
    const body = b.subarray(start, end);
    const track = tracks[tracks.length - 1];
    switch (id.value) {
      case 0xd7: if (track) track.number = uint(body); break;
      case 0x86: if (track) track.codec = new TextDecoder().decode(body); break;
      case 0x63a2: if (track) track.priv = body; break;
      case 0x9f: if (track) track.channels = uint(body); break;
      case 0xa3: case 0xa1: {
        if (end - start < size.value) break;
        const t = vint(body, 0, false);
        const flags = body[t.length + 2];
        if (((flags >> 1) & 3) !== 0) throw new WebmError('Laced WebM blocks are not supported', true);
        blocks.push({ track: t.value, data: body.subarray(t.length + 3) });
        break;
      }
    }
    pos = start + size.value;
  }
  const opus = tracks.find((t) => t.codec === 'A_OPUS');
  if (!tracks.length) throw new WebmError('The WebM file has no tracks');
  if (!opus) {
    const codecs = tracks.map((t) => t.codec).filter(Boolean).join(', ');
    throw new WebmError(`WebM without an Opus audio track${codecs ? ` (found ${codecs})` : ''} is not supported`, true);
  }
  const head = opus.priv && new TextDecoder().decode(opus.priv.subarray(0, 8)) === 'OpusHead' ? opus.priv : undefined;
  const channels = head ? head[9] : opus.channels ?? 1;
  const preSkip = head ? head[10] | (head[11] << 8) : 0;
  if (channels > 2) throw new WebmError(`WebM Opus with ${channels} channels is not supported (mono or stereo are)`, true);
  return { channels, preSkip, frames: blocks.filter((x) => x.track === opus.number).map((x) => x.data) };
}
