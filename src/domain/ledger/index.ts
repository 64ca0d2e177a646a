/** The ledger's pure part: posting shapes and the posting sets. Import from here. */
export * from './postings.ts';
export * from './posting-sets.ts';
