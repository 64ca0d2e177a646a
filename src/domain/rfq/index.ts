/** The RFQ domain: pure decisions on RFQs and quotes. Import from here. */
export * from './types.ts';
export * from './fees.ts';
export * from './legs.ts';
export * from './conformity.ts';
export * from './auction.ts';
export * from './selection.ts';
export * from './window.ts';
export * from './rfq-state.ts';
export * from './quote-state.ts';
export * from './quote-fates.ts';
export * from './quote-admission.ts';
export * from './sweep-selection.ts';
export * from './scorecard.ts';
export * from './counterparties.ts';
