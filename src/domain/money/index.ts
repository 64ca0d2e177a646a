export * from './decimal.ts';
export * from './arithmetic.ts';
