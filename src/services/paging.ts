/** Opaque page cursors: a position (time and id), never an offset. */
import { invalidField } from '../domain/errors.ts';

export interface CursorPosition { at: number; id: string }

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string, field: string): CursorPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') {
      return { at: value[0] as number, id: value[1] };
    }
  } catch {
    // fall through to the uniform refusal
  }
  throw invalidField(field, 'cursor', `${field} is not a cursor this service issued`);
}

/** A page envelope from `limit + 1` rows: `nextCursor` only when there is more. */
export function pageOf<R, V>(rows: R[], limit: number, position: (row: R) => CursorPosition, render: (row: R) => V) {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = items[items.length - 1];
  return { items: items.map(render), hasMore, ...(hasMore && last ? { nextCursor: encodeCursor(position(last)) } : {}) };
}
