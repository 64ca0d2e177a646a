/** Builds and signs the EIP-4361 login message the gateway expects (nonce without hyphens). */
import { createSiweMessage } from 'viem/siwe';
import type { LocalAccount } from 'viem';

export interface SiweParams {
  domain: string;
  chainId: number;
  nonce: string;
  uri?: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
  statement?: string;
}

export function siweMessage(address: `0x${string}`, params: SiweParams): string {
  return createSiweMessage({
    address,
    chainId: params.chainId,
    domain: params.domain,
    nonce: params.nonce.replace(/-/g, ''),
    uri: params.uri ?? `http://${params.domain}`,
    version: '1',
    issuedAt: params.issuedAt ?? new Date(),
    ...(params.expirationTime ? { expirationTime: params.expirationTime } : {}),
    ...(params.notBefore ? { notBefore: params.notBefore } : {}),
    statement: params.statement ?? 'Sign in to the RFQ service',
  });
}

export async function signSiwe(account: LocalAccount, params: SiweParams): Promise<{ message: string; signature: `0x${string}` }> {
  const message = siweMessage(account.address, params);
  return { message, signature: await account.signMessage({ message }) };
}
