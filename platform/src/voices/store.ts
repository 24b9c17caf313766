/**
 * Durable custom voices of a workspace: the voice's wire record (jsonb), its sample as WAV (bytea) and the
 * sample's measured median pitch, which binds the voice to the local engine (voices/binding.ts).
 * Every member of the workspace sees, uses, edits and deletes its custom voices; other workspaces never do.
 */
import type { Voice } from 'parley-kit/types';
import type { Db } from '../store/db.js';

/** A stored custom voice: its wire shape plus what synthesis needs. */
export interface CustomVoice {
  voice: Voice;
  /** Median pitch of the sample in Hz. */
  pitchHz: number;
}

/** Fields `PATCH /v1/audio/voices/{id}` may change. */
export type VoicePatch = Partial<Pick<Voice, 'name' | 'languages' | 'gender' | 'age' | 'tags' | 'description'>>;

interface Row { record: Voice; pitch_hz: number }

const toVoice = (r: Row): CustomVoice => ({ voice: r.record, pitchHz: Number(r.pitch_hz) });

/** Stores a new voice; false when its slug is already used in the workspace. */
export async function insertVoice(db: Db, workspaceId: string, voice: Voice, pitchHz: number, sampleWav: Uint8Array): Promise<boolean> {
  const { affectedRows } = await db.query(
    `insert into custom_voices (id, workspace_id, user_id, created_at, record, pitch_hz, sample_wav) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict do nothing`,
    [voice.id, workspaceId, voice.user_id ?? '', voice.created_at, voice, pitchHz, sampleWav],
  );
  return (affectedRows ?? 0) > 0;
}

/** A custom voice of the workspace by id or slug. */
export async function getVoice(db: Db, workspaceId: string, idOrSlug: string): Promise<CustomVoice | undefined> {
  const { rows } = await db.query<Row>(
    `select record, pitch_hz from custom_voices where workspace_id = $1 and (id = $2 or record->>'slug' = $2) order by id = $2 desc limit 1`,
    [workspaceId, idOrSlug],
  );
  return rows[0] && toVoice(rows[0]);
}

/** The workspace's custom voices, oldest first. */
export async function listVoices(db: Db, workspaceId: string): Promise<Voice[]> {
  const { rows } = await db.query<Row>('select record, pitch_hz from custom_voices where workspace_id = $1 order by seq', [workspaceId]);
  return rows.map((r) => r.record);
}

/** Applies a patch (undefined fields are kept) and returns the new voice, or undefined when there is none. */
export async function updateVoice(db: Db, workspaceId: string, id: string, patch: VoicePatch): Promise<Voice | undefined> {
  const current = await getVoice(db, workspaceId, id);
  if (!current) return undefined;
  const next: Voice = { ...current.voice };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
  await db.query('update custom_voices set record = $3 where workspace_id = $1 and id = $2', [workspaceId, current.voice.id, next]);
  return next;
}

/** Deletes a voice and returns what it was, or undefined when there is none. */
export async function deleteVoice(db: Db, workspaceId: string, id: string): Promise<Voice | undefined> {
  const { rows } = await db.query<Row>('delete from custom_voices where workspace_id = $1 and (id = $2 or record->>\'slug\' = $2) returning record, pitch_hz', [workspaceId, id]);
  return rows[0]?.record;
}

/** The voice's stored sample (WAV), or undefined. */
export async function voiceSample(db: Db, workspaceId: string, id: string): Promise<Uint8Array | undefined> {
  const { rows } = await db.query<{ sample_wav: Uint8Array }>('select sample_wav from custom_voices where workspace_id = $1 and (id = $2 or record->>\'slug\' = $2)', [workspaceId, id]);
  return rows[0]?.sample_wav;
}
