/** Settlement decisions that need no store: relay timing. Import from here. */
export * from './relay-timing.ts';
