/**
 * The topics of `/v1/rfq/ws` (spec "Topics"): here, not in src/ws, because both the socket
 * session and the published frame schemas (src/api/schemas/ws-frames.ts) need the one list.
 */
export const SUPPORTED_TOPICS = ['prices', 'balances', 'rfqStatus', 'quotes', 'quoteStatus', 'openRfqs'] as const;
export type SupportedTopic = (typeof SUPPORTED_TOPICS)[number];
/** Per-account topics: frames carry `seq`, and `subscribe` may carry `fromSeq`. */
export const ACCOUNT_TOPICS = ['balances', 'rfqStatus', 'quotes', 'quoteStatus'] as const;
export type AccountTopic = (typeof ACCOUNT_TOPICS)[number];
