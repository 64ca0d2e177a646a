/** Credential issuance by wallet sign-in, and the caller's own key management. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createChallenge } from '../../services/auth/create-challenge.ts';
import { issueApiKey } from '../../services/auth/issue-api-key.ts';
import { listApiKeys, revokeApiKey } from '../../services/auth/manage-api-keys.ts';
import { ApiKeyList, ChallengeRequest, ChallengeResponse, LoginRequest, LoginResponse } from '../schemas/auth.ts';
import { errorResponses } from '../schemas/common.ts';
import type { ApiContext } from '../context.ts';

export function authRoutes(context: ApiContext) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/v1/auth/challenge', {
      config: { auth: 'none' },
      schema: { summary: 'Issue a single-use SIWE nonce (5 minutes)', tags: ['auth'], body: Type.Optional(ChallengeRequest), response: { 200: ChallengeResponse, ...errorResponses } },
    }, async (request) => createChallenge(context.service, request.ip));

    app.post('/v1/auth/api-keys', {
      config: { auth: 'none', multilineFields: ['message'] },
      schema: { summary: 'Sign in with a SIWE message: issue an access key and secret', tags: ['auth'], body: LoginRequest, response: { 200: LoginResponse, ...errorResponses } },
    }, async (request) => issueApiKey(context.service, request.body));

    app.get('/v1/auth/api-keys', {
      config: { auth: 'hmac' },
      schema: { summary: "List the account's access keys", tags: ['auth'], response: { 200: ApiKeyList, ...errorResponses } },
    }, async (request) => ({ keys: await listApiKeys(context.service, request.auth!.accountId) }));

    app.delete('/v1/auth/api-keys/:accessKey', {
      config: { auth: 'hmac' },
      schema: {
        summary: 'Revoke an access key',
        tags: ['auth'],
        params: Type.Object({ accessKey: Type.String({ maxLength: 128 }) }),
        response: { 200: Type.Object({ accessKey: Type.String(), revoked: Type.Boolean() }), ...errorResponses },
      },
    }, async (request) => {
      await revokeApiKey(context.service, request.auth!.accountId, request.params.accessKey);
      context.authentication.credentials.evict(request.params.accessKey);
      return { accessKey: request.params.accessKey, revoked: true };
    });
  };
}
