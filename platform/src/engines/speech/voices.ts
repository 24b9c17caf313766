import { createHash } from 'node:crypto';
import type { PresetVoice } from './types.js';

/** Namespace of the local platform's preset voice ids (UUID v5 of the slug → stable across restarts). */
const VOICE_NAMESPACE = 'c0a8f3e2-5b7d-4e1a-9f36-2d4b8c1e7a90';
/** Preset voices exist since the platform does; a fixed date keeps answers stable. */
const PRESET_CREATED_AT = '2026-01-01T00:00:00.000000Z';

/** RFC 4122 version-5 UUID (SHA-1, name-based): deterministic for a namespace and name. */
export function uuidV5(name: string, namespace = VOICE_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function presetVoice(v: { slug: string; name: string; languages: string[]; gender: 'male' | 'female'; engineVoice: string; description: string; tags?: string[] }): PresetVoice {
  return {
    id: uuidV5(v.slug),
    name: v.name,
    slug: v.slug,
    languages: v.languages,
    gender: v.gender,
    age: null,
    tags: v.tags ?? ['preset', 'espeak-ng'],
    color: null,
    description: v.description,
    retention_notice: 30,
    created_at: PRESET_CREATED_AT,
    user_id: null,
    trimmed_seconds: null,
    engineVoice: v.engineVoice,
  };
}

/** The wire shape of a voice (drops engine-only fields). */
export function voiceResponse(v: PresetVoice) {
  const { engineVoice: _engineVoice, ...wire } = v;
  return wire;
}
