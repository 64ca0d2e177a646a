/**
 * Named component schemas for `/openapi.json`, so a client generator gets types with names
 * instead of one anonymous shape per route. The routes keep validating with their TypeBox
 * schemas as they are; only the published document changes:
 *
 * - every exported TypeBox object schema of `src/api/schemas/` (and the route files that export
 *   one) is a component under its export name (`ErrorEnvelope`, `CreateQuoteRequest`, ...);
 * - each request and response body is a `$ref`: to the component it equals, else to one named
 *   after its route (`PostV1RfqRequestsIdAcceptRequest`, `GetV1TimeResponse200`);
 * - inside any schema, a sub-schema equal to a named object component becomes a `$ref` to it;
 * - the perp order envelopes, untyped at the route because the service reads them strictly
 *   itself, are published as `PerpSignedAction`.
 */
import * as account from '../api/schemas/account.ts';
import * as adminReads from '../api/schemas/admin-reads.ts';
import * as adminV0 from '../api/schemas/admin-v0.ts';
import * as auth from '../api/schemas/auth.ts';
import * as common from '../api/schemas/common.ts';
import * as custodyTransfers from '../api/schemas/custody-transfers.ts';
import * as funds from '../api/schemas/funds.ts';
import * as perpExecutions from '../api/schemas/perp-executions.ts';
import * as perpOrder from '../api/schemas/perp-order.ts';
import * as protection from '../api/schemas/protection.ts';
import * as rfq from '../api/schemas/rfq.ts';
import { NetworkInfo } from '../api/v1/network.routes.ts';
import { MakerView } from '../api/admin/admin.routes.ts';

type Json = Record<string, unknown>;

const MODULES: Record<string, unknown>[] = [common, perpOrder, rfq, account, auth, funds, protection, custodyTransfers, perpExecutions, adminReads, adminV0, { NetworkInfo, MakerView }];

/** The fields that carry a signed venue action, published as `PerpSignedAction`. */
const PERP_ACTION_FIELDS = ['perpMakerOrder', 'perpMakerCancel', 'perpTakerOrder'];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Object and union schemas get a name; a bare string or integer reads better inline. */
const isNameable = (schema: Json) => schema.type === 'object' || Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf);

/** Every named TypeBox schema, by export name (the first export of an identical shape wins). */
export function namedSchemas(): Record<string, Json> {
  const named: Record<string, Json> = {};
  for (const module of MODULES) {
    for (const [name, value] of Object.entries(module)) {
      if (!/^[A-Z]/.test(name) || !isObject(value) || !isNameable(value)) continue;
      // Plain JSON (TypeBox's own markers dropped) without `$id`: the document references by name.
      const { $id: _id, ...schema } = JSON.parse(JSON.stringify(value)) as Json;
      named[name] ??= schema;
    }
  }
  return named;
}

/** A schema's identity: its JSON with keys sorted and `$id` ignored. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  return `{${Object.keys(value).filter((k) => k !== '$id').sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `post` `/v1/rfq/requests/{id}/accept` -> `PostV1RfqRequestsIdAccept`. */
function operationName(method: string, path: string): string {
  const words = [method, ...path.split(/[^A-Za-z0-9]+/)].filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** Each component's shape to its name (the first of identical ones). */
export function shapeIndex(schemas: Record<string, Json>): Map<string, string> {
  const byShape = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) if (!byShape.has(canonical(schema))) byShape.set(canonical(schema), name);
  return byShape;
}

/** `refine` replaces named sub-schemas below a schema (not the schema itself) by references; `refineChild` the schema too. */
export function componentRefiner(byShape: Map<string, string>) {
  const refine = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map((item) => refineChild(item));
    if (!isObject(schema)) return schema;
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([field, inner]) => [field, PERP_ACTION_FIELDS.includes(field) ? perpField(inner) : refineChild(inner)]));
      } else out[key] = isObject(value) || Array.isArray(value) ? refineChild(value) : value;
    }
    return out;
  };
  const refineChild = (schema: unknown): unknown => {
    if (isObject(schema) && isNameable(schema)) {
      const name = byShape.get(canonical(schema));
      if (name) return ref(name);
    }
    return refine(schema);
  };
  // The route has it as `{}` (any value) or `{ anyOf: [..., null] }`; the document names what it must be.
  const perpField = (schema: unknown) => ({ ...ref('PerpSignedAction'), ...(isObject(schema) && typeof schema.description === 'string' ? { description: schema.description } : {}) });
  return { refine, refineChild };
}

/** Rewrites the document built by @fastify/swagger (whose `components.schemas` hold `namedSchemas()`, converted). */
export function withComponentRefs(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const byShape = shapeIndex(schemas);
  const { refine } = componentRefiner(byShape);

  /** A body's schema as a reference: to the component it equals, else to a new one named `name`. */
  const hoist = (schema: unknown, name: string): unknown => {
    if (!isObject(schema) || typeof schema.$ref === 'string') return schema;
    const known = byShape.get(canonical(schema));
    if (known) return ref(known);
    let unique = name;
    for (let n = 2; schemas[unique] !== undefined; n++) unique = `${name}${n}`;
    schemas[unique] = refine(schema) as Json;
    byShape.set(canonical(schema), unique);
    return ref(unique);
  };

  for (const name of Object.keys(schemas)) schemas[name] = refine(schemas[name]) as Json;
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!isObject(operation)) continue;
      const base = operationName(method, path);
      const body = operation.requestBody as { content?: Record<string, Json> } | undefined;
      for (const media of Object.values(body?.content ?? {})) media.schema = hoist(media.schema, `${base}Request`);
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, { content?: Record<string, Json> }>)) {
        for (const media of Object.values(response.content ?? {})) media.schema = hoist(media.schema, `${base}Response${status}`);
      }
    }
  }
  return { ...document, components: { ...components, schemas } };
}
