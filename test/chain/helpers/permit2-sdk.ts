// Loads @uniswap/permit2-sdk's SignatureTransfer for use as a reference implementation.
//
// The package cannot be imported normally under Node 24: its ESM build uses extensionless
// relative imports, and its CJS build requires `tslib`, which it does not declare. So we
// load the ESM `signatureTransfer.js` file directly (bypassing the index, which pulls in
// the tslib-dependent providers) and resolve its extensionless imports with a loader hook
// scoped to that package's directory.
import { createRequire, registerHooks } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type TypedDataField = { name: string; type: string };
type Permit = {
  permitted: { token: string; amount: bigint | string };
  spender: string;
  nonce: bigint | string;
  deadline: bigint | string;
};
type Witness = { witness: unknown; witnessTypeName: string; witnessType: Record<string, TypedDataField[]> };
export type SdkSignatureTransfer = {
  hash(permit: Permit, permit2Address: string, chainId: number, witness?: Witness): string;
  getPermitData(
    permit: Permit,
    permit2Address: string,
    chainId: number,
    witness?: Witness,
  ): { domain: unknown; types: Record<string, TypedDataField[]>; values: unknown };
};

const require = createRequire(import.meta.url);
// The CJS entry lives at dist/cjs/src/index.js; its ESM sibling is dist/esm/src/.
const esmDir = join(dirname(require.resolve('@uniswap/permit2-sdk')), '..', '..', 'esm', 'src') + '/';
const esmUrl = pathToFileURL(esmDir).href;

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && !specifier.endsWith('.js') && context.parentURL?.startsWith(esmUrl)) {
      return next(`${specifier}.js`, context);
    }
    return next(specifier, context);
  },
});

const mod = (await import(`${esmUrl}signatureTransfer.js`)) as { SignatureTransfer: SdkSignatureTransfer };
export const SignatureTransfer = mod.SignatureTransfer;
