/** Shapes shared by every surface: the error envelope, amounts, instants, pages. */
import { Type, type TLiteral, type TSchema, type TUnion } from 'typebox';

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable, machine-branchable code (open set; see docs/errors.md).' }),
      message: Type.String({ description: 'Human-readable; not a contract.' }),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { $id: 'ErrorEnvelope' },
);

/** Validated by the money module (stable reasons), so the schema only says "string". */
export const DecimalString = Type.String({ description: 'Canonical non-negative decimal string in human units (max 64 chars).' });
export const PositiveDecimalString = Type.String({ description: 'Canonical decimal string greater than zero.' });
export const SignedDecimalString = Type.String({ description: 'Decimal string with optional leading minus.' });
export const UnixMillis = Type.Integer({ description: 'Unix milliseconds.' });
export const UnixSeconds = Type.Integer({ description: 'Unix seconds (fields named ...Deadline).' });
export const EvmAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'EIP-55 checksummed on output.' });
export const TokenSymbol = Type.String({ pattern: '^[A-Z0-9]{1,16}$' });
export const InstrumentId = Type.String({ pattern: '^[A-Z0-9]{1,16}-[A-Z0-9]{1,16}-(SPOT|PERP)$' });
export const Side = Type.Union([Type.Literal('BUY'), Type.Literal('SELL')]);
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * `anyOf` one `const` per value, typed as the union of the values. Mapping a list through
 * `Type.Literal` gives a literal of the whole union, whose static type is `never`; the mapped
 * tuple type keeps one literal per value so a handler's result is checked against the values.
 */
export const Literals = <const Values extends readonly string[]>(values: Values) =>
  Type.Union(values.map((value) => Type.Literal(value))) as TUnion<{ -readonly [K in keyof Values]: TLiteral<Values[K]> }>;

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    hasMore: Type.Boolean(),
    nextCursor: Type.Optional(Nullable(Type.String())),
  });
}

/** Standard error responses for a route, so every status has a schema and nothing leaks. */
export const errorResponses = {
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  403: ErrorEnvelope,
  404: ErrorEnvelope,
  409: ErrorEnvelope,
  429: ErrorEnvelope,
  500: ErrorEnvelope,
};
