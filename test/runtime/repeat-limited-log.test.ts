/** Repeated identical errors logged once per window, with how many were left out. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { RepeatLimitedLog } from '../../src/runtime/repeat-limited-log.ts';

describe('repeat-limited error log', () => {
  it('logs the first of a run of identical errors, counts the rest, and logs distinct ones at once', () => {
    const lines: { msg: string; repeated?: number; err?: { message: string } }[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write(chunk, _e, done) { lines.push(JSON.parse(String(chunk))); done(); } }));
    let now = 0;
    const log = new RepeatLimitedLog(logger, 60_000, () => now);
    for (let i = 0; i < 240; i++, now += 250) log.error({ err: new Error('jsonb refused') }, 'deadline batch failed');
    log.error({ err: new Error('another failure') }, 'deadline batch failed');
    assert.equal(lines.length, 2, 'a minute of failures four times a second is one line, a new error another');
    now = 60_000;
    log.error({ err: new Error('jsonb refused') }, 'deadline batch failed');
    assert.equal(lines.length, 3);
    assert.equal(lines[2]!.repeated, 239, 'the line after the window says how many were left out');
  });
});
