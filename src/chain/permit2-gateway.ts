/**
 * permit2-mode settlement, the selection half (DESIGN.md section 5): inside the selecting
 * transaction the custody key signs, locally, the Permit2 `PermitWitnessTransferFrom` that lets
 * the winning maker's wrapper pull the taker's payment leg from custody, bound by the RfqFill
 * witness to the maker's leg arriving at custody in the same transaction. The observation half
 * is rfq-settled-handler.ts.
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { getAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ServiceError } from '../domain/errors.ts';
import type { Instrument } from '../domain/rfq/index.ts';
import type { ReferenceData } from '../store/reference-data.ts';
import type { Tx } from '../store/transaction.ts';
import type { SelectionFields, SettlementGateway } from '../services/rfq/settlement-gateway.ts';
import type { QuoteRow, RfqRow } from '../services/rfq/rows.ts';
import type { ChainContext } from './chain-context.ts';
import { quoteHash, quoteNonce, rfqPermitTypedData } from './permit.ts';

export function permit2Gateway(chain: ChainContext, refdata: ReferenceData, logger: Logger): SettlementGateway {
  const custody = privateKeyToAccount(chain.settings.custodyKey);
  return {
    onChain: true,

    async assertQuotable(instrument: Instrument) {
      const { tokens } = await refdata.current();
      const missing = [instrument.base, instrument.quote].filter((symbol) => !tokens.get(symbol)?.address);
      if (missing.length > 0) {
        throw new ServiceError('TOKEN_NOT_ON_CHAIN', `${missing.join(', ')} has no on-chain address: a permit2 quote on ${instrument.instrumentId} cannot settle`, { tokens: missing });
      }
    },

    async onSelected(tx: Tx, { rfq, quote }: { rfq: RfqRow; quote: QuoteRow }): Promise<SelectionFields> {
      const hash = quoteHash(quote.id);
      const found = await sql<{ spender: string | null; pay_token: string | null; deliver_token: string | null }>`
        select (select spender from makers where maker_id = ${quote.maker_id}) as spender,
               (select address from tokens where symbol = ${quote.maker_receives_token}) as pay_token,
               (select address from tokens where symbol = ${quote.maker_pays_token}) as deliver_token
      `.execute(tx);
      const { spender, pay_token: payToken, deliver_token: deliverToken } = found.rows[0]!;
      if (!spender || !payToken || !deliverToken) {
        // Registration and quoting refuse both cases, so only an operator change since can get here;
        // the quote then carries no permit and the RFQ fails at its deadline, not blamed on the maker.
        logger.error({ quoteId: quote.id, rfqId: rfq.id, spender, payToken, deliverToken }, 'permit2 winner cannot be given a permit: no spender or token address');
        return { quote_hash: hash };
      }
      const typedData = rfqPermitTypedData({
        chainId: chain.chainId,
        permit2Address: chain.settings.permit2Address,
        token: getAddress(payToken),
        amount: quote.maker_receives_amount,
        spender: getAddress(spender),
        nonce: quoteNonce(quote.id),
        deadline: BigInt(rfq.settlement_deadline_secs),
        witness: { quoteHash: hash, deliverToken: getAddress(deliverToken), deliverAmount: quote.maker_pays_amount, deliverTo: custody.address as Address },
      });
      const signature: Hex = await custody.signTypedData(typedData);
      return { permit_signature: signature, spender: getAddress(spender), quote_hash: hash };
    },
  };
}
