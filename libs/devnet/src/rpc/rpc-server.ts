import Fastify, { type FastifyInstance } from 'fastify';
import type { DevnetChain } from '../chain/devnet-chain';
import { DEVNET_MANIFEST_PATH, type DevnetManifest } from '@dob/devnet-manifest';
import { type Faucet, FaucetError } from '../faucet/faucet';
import { dispatch, JsonRpcCode, type RpcMethod } from './json-rpc';
import { getEventsMethod } from './methods/get-events';
import { ledgerMethods } from './methods/ledger-methods';
import { transactionMethods } from './methods/transaction-methods';

export interface RpcServerOptions {
  readonly chain: DevnetChain;
  readonly retentionLedgers: number;
  readonly faucet?: Faucet;
  /** Public base URL (e.g. http://localhost:8000), used for getNetwork's friendbotUrl. */
  readonly publicUrl: () => string;
  /** Served at GET /devnet/contracts once the devnet is up. */
  readonly manifest?: () => DevnetManifest | undefined;
}

export function rpcMethods(options: RpcServerOptions): Record<string, RpcMethod> {
  return {
    ...ledgerMethods(options.chain, {
      retentionLedgers: options.retentionLedgers,
      ...(options.faucet ? { friendbotUrl: () => `${options.publicUrl()}/friendbot` } : {}),
    }),
    ...transactionMethods(options.chain),
    ...getEventsMethod(options.chain),
  };
}

/** POST /rpc (Stellar RPC JSON-RPC 2.0), GET /friendbot?addr=G… and GET /devnet/contracts on one Fastify server. */
export function createRpcServer(options: RpcServerOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  const methods = rpcMethods(options);

  // Parse JSON ourselves so that malformed bodies get a JSON-RPC parse error instead of Fastify's 400.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, { ok: true, value: JSON.parse(body as string) as unknown });
    } catch {
      done(null, { ok: false });
    }
  });

  app.post('/rpc', async (request, reply) => {
    const body = request.body as { ok: boolean; value?: unknown } | undefined;
    if (!body || !body.ok) {
      return reply.send({ jsonrpc: '2.0', id: null, error: { code: JsonRpcCode.parseError, message: 'parse error' } });
    }
    const payload = body.value;
    if (Array.isArray(payload)) {
      if (payload.length === 0) return reply.send({ jsonrpc: '2.0', id: null, error: { code: JsonRpcCode.invalidRequest, message: 'empty batch' } });
      return reply.send(payload.map((item) => dispatch(methods, item)));
    }
    return reply.send(dispatch(methods, payload));
  });

  app.get(DEVNET_MANIFEST_PATH, async (_request, reply) => {
    const manifest = options.manifest?.();
    if (!manifest) return reply.code(503).send({ status: 503, detail: 'the devnet is starting' });
    return reply.send(manifest);
  });

  app.get('/friendbot', async (request, reply) => {
    if (!options.faucet) return reply.code(404).send({ status: 404, detail: 'friendbot is disabled on this devnet' });
    const addr = (request.query as Record<string, unknown>).addr;
    try {
      const grant = await options.faucet.fund(typeof addr === 'string' ? addr : '');
      return reply.send({ successful: true, ...grant });
    } catch (err) {
      const status = err instanceof FaucetError ? err.statusCode : 500;
      // Friendbot answers problem+json with a `detail` (e.g. "createAccountAlreadyExist").
      return reply
        .code(status)
        .type('application/problem+json')
        .send({ type: 'https://stellar.org/horizon-errors/bad_request', title: 'Bad Request', status, detail: (err as Error).message });
    }
  });

  return app;
}
