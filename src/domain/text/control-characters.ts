/**
 * Bad text is refused at the edge: no field of this interface carries a
 * control character or an unpaired UTF-16 surrogate. PostgreSQL cannot store NUL in text nor a
 * lone surrogate in `jsonb`, and a control character in a stored id or memo only ever serves log
 * injection or confusion. Pure.
 */

/** C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** A control character or an unpaired surrogate (`"\ud800"` in JSON parses to one). */
export function hasBadText(text: string): boolean {
  return CONTROL.test(text) || !text.isWellFormed();
}

/** Every control character and unpaired surrogate, and each char of a well-formed pair left alone. */
const BAD_CHARACTER = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` with each control character and unpaired surrogate written as `\uXXXX`: what a refusal
 * may quote of client text (a field path built from a client's key, a key named in a message),
 * so the reason can be stored and logged whatever the client sent.
 */
export function printable(text: string): string {
  return text.replace(BAD_CHARACTER, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Nesting beyond this is not walked further (request bodies are bounded and shallow anyway). */
const MAX_DEPTH = 32;

/**
 * The path (`a.b[2]`, keys included, written `printable`) of the first string or object key in
 * `value` holding a control character or an unpaired surrogate, or null when there is none.
 * Fields named in `multiline` may hold `\n`.
 */
export function controlCharacterPath(value: unknown, path = '', depth = 0, multiline: readonly string[] = []): string | null {
  if (typeof value === 'string') {
    // A field made of lines (the EIP-4361 sign-in message) may hold line feeds, nothing else.
    const text = multiline.includes(path) ? value.replace(/\n/g, '') : value;
    return hasBadText(text) || !value.isWellFormed() ? printable(path) || '(value)' : null;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = controlCharacterPath(value[i], `${path}[${i}]`, depth + 1, multiline);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const child = path === '' ? key : `${path}.${key}`;
    if (hasBadText(key)) return printable(child);
    const found = controlCharacterPath(item, child, depth + 1, multiline);
    if (found !== null) return found;
  }
  return null;
}
