/**
 * The signed venue action a perp quote or accept carries (`perpMakerOrder`, `perpMakerCancel`,
 * `perpTakerOrder`), for the OpenAPI document only. The routes take these bodies as they are
 * and the service reads them strictly itself (src/domain/perp/signed-action.ts, maker-order.ts,
 * taker-order.ts): key order is part of what was signed, so no schema may coerce or reorder them.
 */
import { Type } from 'typebox';

export const PerpSignedAction = Type.Object(
  {
    action: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'The venue action exactly as signed, keys in the signed order: an order `{ type: "order", orders: [{ a, b, p, s, r, t, c }], grouping: "na" }` ' +
        '(`a` integer asset index from meta.universe, `b` boolean, `p` and `s` decimal strings, `r` boolean, `t` `{ limit: { tif } }`, `c` 0x + 32 hex), ' +
        'or a cancel `{ type: "cancelByCloid", cancels: [{ asset, cloid }] }`; docs/maker-integration.md "Perps".',
    }),
    nonce: Type.Integer({ minimum: 1, description: 'Unix milliseconds; each (signer, nonce) once.' }),
    signature: Type.Object(
      {
        r: Type.String({ description: '0x hex' }),
        s: Type.String({ description: '0x hex' }),
        v: Type.Integer({ description: '27 or 28' }),
      },
      { description: "The venue's L1-action signature, recovered for GET /v1/rfq/network venue.network." },
    ),
  },
  { additionalProperties: false, description: 'A venue action signed by the trader: `{ action, nonce, signature }` and nothing else.' },
);
