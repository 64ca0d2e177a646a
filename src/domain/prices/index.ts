export * from './ladder.ts';
export * from './top-of-book.ts';
export * from './price-band.ts';
