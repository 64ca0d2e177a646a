export * from './types.ts';
export * from './venue-decimals.ts';
export * from './signed-action.ts';
export * from './order-action.ts';
export * from './recover-signer.ts';
export * from './authorised-signer.ts';
export * from './taker-order.ts';
export * from './maker-order.ts';
