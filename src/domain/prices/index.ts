export * from './ladder.ts';
export * from './top-of-book.ts';
