/** A pino logger that keeps every line logged at error level or above (tests that nothing was). */
import { Writable } from 'node:stream';
import pino from 'pino';

export function capturingLogger(errors: string[]) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line && (JSON.parse(line) as { level: number }).level >= 50) errors.push(line);
      done();
    },
  });
  return pino({ level: 'warn' }, stream);
}
