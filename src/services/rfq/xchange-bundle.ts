/**
 * The synchronous check of a maker's xchange bundle at quote time (spec, "Maker settlement bundle";
 * docs/maker-integration.md says the same to makers). The bundle's swap message must be exactly the
 * swap the service will execute from custody through the adapter:
 * - `incomingTransfer` (into custody): the maker's leg, `makerPays` token and raw amount, from the
 *   maker's address to custody;
 * - `outgoingTransfer` (out of custody): the taker's payment to the maker, `makerReceives` token and
 *   raw amount, from custody to the maker's address;
 * - `quoteId`: the quote's id, chosen by the maker on a first quote (`qt_` + a lowercase UUID) and
 *   kept by re-quotes (the write refuses a mismatch against the stored quote);
 * - `expiration`: the RFQ's `settlementDeadline` (unix seconds), the last second the adapter executes;
 * - `adapterSignature`: EIP-712 over the message (domain of the node's adapter and chain), recovering
 *   the maker's registered `adapterSigner`.
 * Every defect is reported, each with its field path and a stable reason.
 */
import { getAddress, isAddress } from 'viem';
import { ServiceError, type FieldError } from '../../domain/errors.ts';

export interface WireTransfer {
  token: string;
  from: string;
  to: string;
  amount: string;
}

export interface XchangeBundleInput {
  adapter: string;
  settlement: {
    swapMessage: { quoteId: string; expiration: string; incomingTransfer: WireTransfer; outgoingTransfer: WireTransfer };
    adapterSignature: string;
  };
}

/** What a node operating an xchange adapter provides (wired by the chain adapter). */
export interface XchangeOperation {
  /** The adapter name makers put in `adapter`. */
  adapterName: string;
  custodyAddress: string;
  /** Recovers the signer of the swap message's EIP-712 digest; throws on a malformed message or signature. */
  recoverSigner(bundle: XchangeBundleInput): Promise<string>;
}

export const XCHANGE_QUOTE_ID = /^qt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ExpectedSwap {
  makerAddress: string;
  adapterSigner: string | null;
  /** The maker's leg: token address (null when the token has none) and raw amount. */
  makerPays: { symbol: string; address: string | null; amount: bigint };
  makerReceives: { symbol: string; address: string | null; amount: bigint };
  expirationSecs: number;
}

const PATH = 'xchange.settlement.swapMessage';
const sameAddress = (a: string, b: string | null) => b !== null && isAddress(a, { strict: false }) && getAddress(a) === getAddress(b);

/** Checks the bundle against the quote; throws XCHANGE_BUNDLE_INVALID listing every defect. */
export async function checkXchangeBundle(op: XchangeOperation, bundle: XchangeBundleInput, expected: ExpectedSwap): Promise<void> {
  const errors: FieldError[] = [];
  const defect = (field: string, reason: string, message: string) => errors.push({ field, reason, message });
  if (bundle.adapter !== op.adapterName) defect('xchange.adapter', 'unknownAdapter', `adapter must be ${op.adapterName}`);
  const message = bundle.settlement.swapMessage;
  if (!XCHANGE_QUOTE_ID.test(message.quoteId)) defect(`${PATH}.quoteId`, 'quoteId', 'quoteId must be qt_ followed by a lowercase UUID');
  if (message.expiration !== String(expected.expirationSecs)) {
    defect(`${PATH}.expiration`, 'expiration', `expiration must be the RFQ's settlementDeadline, ${expected.expirationSecs}`);
  }
  const transfer = (name: 'incomingTransfer' | 'outgoingTransfer', leg: ExpectedSwap['makerPays'], from: string, to: string, fromRole: string, toRole: string) => {
    const t = message[name];
    const at = `${PATH}.${name}`;
    if (leg.address === null) defect(`${at}.token`, 'token', `${leg.symbol} has no on-chain address`);
    else if (!sameAddress(t.token, leg.address)) defect(`${at}.token`, 'token', `token must be ${leg.symbol} (${leg.address})`);
    if (!sameAddress(t.from, from)) defect(`${at}.from`, fromRole, `from must be ${fromRole === 'custody' ? 'the custody address' : "the maker's address"} ${from}`);
    if (!sameAddress(t.to, to)) defect(`${at}.to`, toRole, `to must be ${toRole === 'custody' ? 'the custody address' : "the maker's address"} ${to}`);
    if (t.amount !== leg.amount.toString()) defect(`${at}.amount`, 'amount', `amount must be ${leg.amount} (raw ${leg.symbol} units)`);
  };
  transfer('incomingTransfer', expected.makerPays, expected.makerAddress, op.custodyAddress, 'maker', 'custody');
  transfer('outgoingTransfer', expected.makerReceives, op.custodyAddress, expected.makerAddress, 'custody', 'maker');
  if (expected.adapterSigner === null) {
    defect('xchange.settlement.adapterSignature', 'signer', 'the maker has no registered adapterSigner');
  } else {
    let signer: string | null = null;
    try {
      signer = await op.recoverSigner(bundle);
    } catch {
      defect('xchange.settlement.adapterSignature', 'signature', 'adapterSignature is not a valid signature over the swap message');
    }
    if (signer !== null && !sameAddress(signer, expected.adapterSigner)) {
      defect('xchange.settlement.adapterSignature', 'signer', "adapterSignature does not recover the maker's registered adapterSigner");
    }
  }
  if (errors.length > 0) throw new ServiceError('XCHANGE_BUNDLE_INVALID', errors[0]!.message, { errors });
}
