/**
 * Output data types and encodings of embeddings (`output_dtype`, `encoding_format`), applied to the unit
 * vectors any embedding engine returns:
 * - `float`: the components as numbers (base64: little-endian float32).
 * - `int8` / `uint8`: each component scaled by the vector's largest magnitude to −127…127, or shifted to 0…255.
 * - `binary` / `ubinary`: one bit per component (1 when > 0), packed 8 per byte, most significant bit first,
 *   given as signed (`binary`, byte − 128) or unsigned (`ubinary`) bytes; the dimension must be a multiple of 8.
 */
export type EmbeddingDtype = 'float' | 'int8' | 'uint8' | 'binary' | 'ubinary';

/** The vector in `dtype`: numbers for `float`, integers for the others. */
export function quantize(vector: Float32Array, dtype: EmbeddingDtype): number[] {
  if (dtype === 'float') return Array.from(vector);
  if (dtype === 'int8' || dtype === 'uint8') {
    let max = 0;
    for (const x of vector) max = Math.max(max, Math.abs(x));
    const scaled = Array.from(vector, (x) => (max > 0 ? x / max : 0));
    return dtype === 'int8' ? scaled.map((x) => Math.round(x * 127)) : scaled.map((x) => Math.round(((x + 1) / 2) * 255));
  }
  const bytes: number[] = [];
  for (let i = 0; i < vector.length; i += 8) {
    let byte = 0;
    for (let j = 0; j < 8; j++) byte = (byte << 1) | (vector[i + j] > 0 ? 1 : 0);
    bytes.push(dtype === 'binary' ? byte - 128 : byte);
  }
  return bytes;
}

/** The quantized values as base64 of their bytes (float32 little-endian for `float`, one byte each otherwise). */
export function toBase64(values: number[], dtype: EmbeddingDtype): string {
  if (dtype === 'float') return Buffer.from(new Float32Array(values).buffer).toString('base64');
  const bytes = dtype === 'int8' || dtype === 'binary' ? Int8Array.from(values) : Uint8Array.from(values);
  return Buffer.from(bytes.buffer).toString('base64');
}
