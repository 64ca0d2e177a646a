/** The line `main.ts` prints once it listens; `launch.ts` waits for it. */
export const READY_PREFIX = 'venue-sim listening on ';
