/**
 * Request validation: one Ajv for bodies (no type coercion: a JSON number is never an amount
 * string) and one for query/params (strings coerced to the declared integer/boolean types).
 * Ajv errors become the spec's `details.errors[]` with dot/bracket field paths and stable reasons.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { FieldError } from '../domain/errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const paramAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

/** `/makerPays/amount` -> `makerPays.amount`; `/bids/2/0` -> `bids[2][0]`. */
export function pointerToPath(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) path += `[${part}]`;
    else path += path === '' ? part : `.${part}`;
  }
  return path;
}

function joinPath(base: string, name: string): string {
  return base === '' ? name : `${base}.${name}`;
}

/** The part of a schema error a field error is made of; Fastify passes on Ajv's errors as this. */
type SchemaError = Pick<FastifySchemaValidationError, 'keyword' | 'instancePath' | 'params' | 'message'>;

export function fieldErrorsFromAjv(errors: readonly SchemaError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let field = pointerToPath(e.instancePath);
    let reason = e.keyword;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = joinPath(field, String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = joinPath(field, String((e.params as { additionalProperty: string }).additionalProperty));
      reason = 'unknownField';
      message = 'is not a known field';
    } else if (e.keyword === 'anyOf' || e.keyword === 'const' || e.keyword === 'enum') {
      reason = 'enum';
    }
    if (prefix !== '' && field === '') field = prefix;
    const key = `${field}|${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: field === '' ? '(body)' : field, reason, message: `${field === '' ? 'body' : field} ${message}` });
  }
  return out;
}
