/**
 * Control characters are refused at the edge: no field of this interface carries one,
 * PostgreSQL cannot store NUL in text, and a control character in a stored id or memo only ever
 * serves log injection or confusion. Pure.
 */

/** C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** Nesting beyond this is not walked further (request bodies are bounded and shallow anyway). */
const MAX_DEPTH = 32;

/**
 * The path (`a.b[2]`, keys included) of the first string or object key in `value` holding a
 * control character, or null when there is none. Fields named in `multiline` may hold `\n`.
 */
export function controlCharacterPath(value: unknown, path = '', depth = 0, multiline: readonly string[] = []): string | null {
  if (typeof value === 'string') {
    // A field made of lines (the EIP-4361 sign-in message) may hold line feeds, nothing else.
    const text = multiline.includes(path) ? value.replace(/\n/g, '') : value;
    return hasControlCharacter(text) ? path || '(value)' : null;
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
    if (hasControlCharacter(key)) return child;
    const found = controlCharacterPath(item, child, depth + 1, multiline);
    if (found !== null) return found;
  }
  return null;
}
