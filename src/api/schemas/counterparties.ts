/** Counterparty choice (DESIGN.md section 15): a maker's public alias, the disclosed makers, a maker's denylist. */
import { Type } from 'typebox';
import { Nullable } from './common.ts';
import { TakerPseudonym } from './rfq.ts';

const Alias = Type.String({ maxLength: 64, description: "3-32 letters, digits, '.', '_' or '-', starting with a letter or digit; unique without regard to case." });

export const MakerProfileRequest = Type.Object({ alias: Nullable(Alias) }, { additionalProperties: false, description: 'null withdraws the alias: the maker is anonymous again.' });
export const MakerProfile = Type.Object({ alias: Nullable(Type.String()) });
export const DisclosedMakers = Type.Object({ makers: Type.Array(Type.Object({ alias: Type.String() })) });

export const DenylistRequest = Type.Object(
  { takers: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000, description: 'Takers by your pseudonyms for them (OpenRfq.taker); replaces the list.' }) },
  { additionalProperties: false },
);
export const Denylist = Type.Object({ takers: Type.Array(TakerPseudonym) });
