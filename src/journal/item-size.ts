/**
 * DynamoDB's size of an item, by its published rules (attribute names plus values), and the
 * largest item it stores: what a write must fit in before it is sent, so a refusal is the
 * caller's typed error instead of a `ValidationException` from the server.
 */

/** Largest item DynamoDB stores (names and values), in bytes. */
export const ITEM_MAX_BYTES = 400 * 1024;

/** The size DynamoDB counts for an item (or a key, or a set of expression values): names plus values. */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item))
    if (value !== undefined) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  return bytes;
}

/** The size DynamoDB counts for one attribute value. */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint')
    return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set || Array.isArray(value)) {
    let bytes = 3;
    for (const element of value) bytes += 1 + valueBytes(element);
    return bytes;
  }
  if (typeof value === 'object') {
    let bytes = 3;
    for (const [name, element] of Object.entries(value as Record<string, unknown>)) {
      if (element !== undefined) bytes += 1 + Buffer.byteLength(name, 'utf8') + valueBytes(element);
    }
    return bytes;
  }
  return 0;
}

/** True for DynamoDB's refusal of a write that would make an item larger than {@link ITEM_MAX_BYTES}. */
export function isItemTooLarge(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: string; message?: string };
  return name === 'ValidationException' && /item size .*exceeded the maximum allowed size/i.test(message ?? '');
}
