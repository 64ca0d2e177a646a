/**
 * The project's own lint rules (plugin `rfq`):
 * - `layers`: an import must point to a layer the importing layer may use (scripts/lint/layers.js);
 *   `src/domain` imports no package and no `node:` module but those in DOMAIN_PURE_MODULES.
 * - `no-float-amount`: no floating-point conversion or formatting of an amount. Amounts are
 *   `bigint` in smallest units (TypeScript already refuses `bigint` mixed with `number` in
 *   arithmetic), so the remaining ways to lose exactness are the conversions to `number`
 *   (`Number(x)`, `parseFloat`, `parseInt`, unary `+`, `Math.*`) and `toFixed`/`toPrecision`.
 *   An operand counts as an amount by its name, in the spec's words (amount, balance, price,
 *   qty, fee, total, notional, size, payout, delta). `src/domain/money/` is exempt.
 * - `typed-results`: in `src/api`, no `as never` or `as any`, and no `as unknown as` inside a
 *   function. A route's handler result and `reply.send` argument are checked against its response
 *   schema only while nothing casts them; a module-level `as unknown as` (a CommonJS default
 *   export's interop) is left alone.
 */
import path from 'node:path';
import { DOMAIN_PURE_MODULES, LAYERS } from './layers.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

function layerOf(file) {
  const rel = path.relative(SRC, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const [first, ...rest] = rel.split(path.sep);
  return rest.length === 0 ? null : first;
}

const layers = {
  meta: { type: 'problem', docs: { description: 'imports follow the layering of docs/architecture.md' }, schema: [] },
  create(context) {
    const from = layerOf(context.filename);
    if (from === null || !(from in LAYERS)) return {};
    const allowed = LAYERS[from];
    function check(node, source) {
      if (typeof source !== 'string') return;
      if (source.startsWith('.')) {
        const target = path.resolve(path.dirname(context.filename), source);
        const to = layerOf(target);
        if (allowed === '*') return;
        if (to === null) {
          context.report({ node, message: `src/${from} may not import ${source} (outside src/)` });
        } else if (!allowed.includes(to)) {
          context.report({ node, message: `src/${from} may not import src/${to} (${source}); allowed: ${allowed.join(', ')}` });
        }
        return;
      }
      if (from === 'domain' && !DOMAIN_PURE_MODULES.includes(source)) {
        context.report({ node, message: `src/domain is pure: it may not import ${source}` });
      }
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

const AMOUNT_WORD = /amount|balance|price|qty|quantity|fee|total|notional|size|payout|delta/i;
/** Names that contain an amount word but are not amounts (sizes of buffers, counts, rates). */
const NOT_AMOUNT = /bytes|buffer|count|length|limit|pages?size|batch|window|rate|decimals|places|digits|ms$|secs$|interval/i;

function nameOf(node) {
  if (!node) return null;
  switch (node.type) {
    case 'Identifier': return node.name;
    case 'MemberExpression': return node.computed ? null : nameOf(node.property);
    case 'ChainExpression': return nameOf(node.expression);
    case 'TSNonNullExpression': case 'TSAsExpression': return nameOf(node.expression);
    case 'CallExpression': return nameOf(node.callee);
    default: return null;
  }
}

function isAmount(node) {
  const name = nameOf(node);
  return name !== null && AMOUNT_WORD.test(name) && !NOT_AMOUNT.test(name);
}

const noFloatAmount = {
  meta: { type: 'problem', docs: { description: 'no floating-point operation on an amount' }, schema: [] },
  create(context) {
    const rel = path.relative(SRC, context.filename).split(path.sep).join('/');
    if (rel.startsWith('domain/money/')) return {};
    const report = (node, what) => context.report({ node, message: `${what} on an amount loses exactness: use bigint and src/domain/money` });
    return {
      CallExpression(node) {
        const callee = node.callee;
        const arg = node.arguments[0];
        const calleeName = callee.type === 'Identifier' ? callee.name : null;
        const member = callee.type === 'MemberExpression' && !callee.computed ? callee : null;
        const objectName = member?.object.type === 'Identifier' ? member.object.name : null;
        const method = member?.property.name ?? null;
        if ((calleeName === 'Number' || calleeName === 'parseFloat' || calleeName === 'parseInt') && isAmount(arg)) report(node, `${calleeName}()`);
        else if (objectName === 'Number' && (method === 'parseFloat' || method === 'parseInt') && isAmount(arg)) report(node, `Number.${method}()`);
        else if (objectName === 'Math' && node.arguments.some(isAmount)) report(node, `Math.${method}()`);
        else if (member && (method === 'toFixed' || method === 'toPrecision') && isAmount(member.object)) report(node, `${method}()`);
      },
      UnaryExpression(node) {
        if (node.operator === '+' && isAmount(node.argument)) report(node, 'unary +');
      },
    };
  },
};

const FUNCTION = new Set(['ArrowFunctionExpression', 'FunctionExpression', 'FunctionDeclaration']);

const typedResults = {
  meta: { type: 'problem', docs: { description: "no cast that switches off the check of a route's result against its response schema" }, schema: [] },
  create(context) {
    const rel = path.relative(SRC, context.filename).split(path.sep).join('/');
    if (!rel.startsWith('api/')) return {};
    function check(node) {
      const target = node.typeAnnotation.type;
      if (target === 'TSNeverKeyword' || target === 'TSAnyKeyword') {
        context.report({ node, message: `a cast to ${target === 'TSNeverKeyword' ? 'never' : 'any'} in src/api switches off the response-schema check: give the value the schema's static type` });
        return;
      }
      const inner = node.expression;
      const viaUnknown = (inner.type === 'TSAsExpression' || inner.type === 'TSTypeAssertion') && inner.typeAnnotation.type === 'TSUnknownKeyword';
      if (viaUnknown && context.sourceCode.getAncestors(node).some((a) => FUNCTION.has(a.type))) {
        context.report({ node, message: "`as unknown as` in a src/api function switches off the response-schema check: give the value the schema's static type" });
      }
    }
    return { TSAsExpression: check, TSTypeAssertion: check };
  },
};

export default { meta: { name: 'rfq' }, rules: { layers, 'no-float-amount': noFloatAmount, 'typed-results': typedResults } };
