/**
 * What the funds use cases read from the chain about custody's own transactions (a port: the chain
 * adapter implements it, src/chain/custody/custody-chain-reader.ts). An operator decision that
 * says what happened on-chain is checked against it, so it can never contradict the chain.
 */
export interface CustodyChainReader {
  /** How many of custody's nonces are used by mined transactions (the `latest` transaction count). */
  minedNonceCount(): Promise<number>;
  /** The mined transaction's outcome, or null when it is not mined (unknown or still pending). */
  receiptStatus(txHash: string): Promise<'success' | 'reverted' | null>;
}
