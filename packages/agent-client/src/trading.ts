import { FeeBumpTransaction, TransactionBuilder, type Keypair } from '@stellar/stellar-sdk';
import type { AgentClient } from './client';
import { isAgentApiError, unwrap } from './errors';
import type { paths } from './generated/openapi';
import { requireObject, requireString } from './shape';

/** Every on-chain action is a prepare route and a submit route (spec: prepare/submit trading pattern). */
export const TRADE_ROUTES = {
  buy: { prepare: '/api/agent/marketplace/prepare-buy', submit: '/api/agent/marketplace/submit-buy' },
  list: { prepare: '/api/agent/marketplace/prepare-list', submit: '/api/agent/marketplace/submit-list' },
  cancel: { prepare: '/api/agent/marketplace/prepare-cancel', submit: '/api/agent/marketplace/submit-cancel' },
  contribute: { prepare: '/api/agent/crowdfunding/prepare-contribute', submit: '/api/agent/crowdfunding/submit-contribute' },
  reclaim: { prepare: '/api/agent/crowdfunding/prepare-reclaim', submit: '/api/agent/crowdfunding/submit-reclaim' },
} as const satisfies Record<string, { prepare: keyof paths; submit: keyof paths }>;

export type TradeKind = keyof typeof TRADE_ROUTES;
export const TRADE_KINDS = Object.keys(TRADE_ROUTES) as TradeKind[];

type JsonBody<P extends keyof paths> = paths[P] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;
type Json200<P extends keyof paths> = paths[P] extends { post: { responses: { 200: { content: { 'application/json': infer R } } } } }
  ? R
  : { success: true; data: Record<string, unknown> };

/** The request body of a prepare route, from the generated types (e.g. PrepareBuyDto for 'buy'). */
export type PrepareRequest<K extends TradeKind> = JsonBody<(typeof TRADE_ROUTES)[K]['prepare']>;
/** The success body of a submit route: generated when the document describes it, the plain envelope otherwise. */
export type SubmitResponse<K extends TradeKind> = Json200<(typeof TRADE_ROUTES)[K]['submit']>;

export interface PreparedTrade<K extends TradeKind = TradeKind> {
  readonly kind: K;
  readonly networkId: number;
  /** Unsigned transaction envelope (base64 XDR), source = the API key's wallet. */
  readonly xdr: string;
  readonly networkPassphrase: string;
  /** The spec's transaction_details of this kind (shares, price_per_share, total_cost, …). */
  readonly details: Record<string, unknown>;
  readonly expiresAt: string;
  /** Hex hash of the transaction: the API accepts back only what it prepared, by this hash. */
  readonly hash: string;
}

/** One POST for every kind: the route is chosen at run time, its body type was checked by the caller's signature. */
function post(client: AgentClient, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const untyped = client.api.POST as unknown as (
    path: string,
    init: { body: unknown; signal?: AbortSignal },
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  return unwrap(untyped(path, { body, ...(signal ? { signal } : {}) }));
}

export interface SubmitRetryOptions {
  /** Resends after the first attempt (default 4). */
  readonly retries?: number;
  /** One attempt longer than this is abandoned and resent (default 60 s: a submit waits for its ledger). */
  readonly timeoutMs?: number;
  /** First wait after a network error or timeout, doubled each time (default 1 s). */
  readonly backoffMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * How long to wait before resending a submit that failed this way, or undefined when it must not be resent. Safe
 * because submits are idempotent (docs/trading.md): the same signed envelope again answers the first outcome
 * (`Idempotent-Replayed: true`) and is never sent to the network twice.
 */
function submitRetryWait(e: unknown, attempt: number, o: Required<Omit<SubmitRetryOptions, 'sleep'>>): number | undefined {
  if (attempt >= o.retries) return undefined;
  // A duplicate that found the first submit still in flight: come back when it says.
  if (isAgentApiError(e, 'CONFLICT') && e.details?.state === 'submitting') return (e.retryAfterSeconds ?? 1) * 1000;
  if (isAgentApiError(e)) return undefined;
  // fetch's network failures are TypeErrors; our own timeout aborts with TimeoutError.
  const name = (e as Error | undefined)?.name;
  if (e instanceof TypeError || name === 'TimeoutError' || name === 'AbortError') return o.backoffMs * 2 ** attempt;
  return undefined;
}

export async function prepareTrade<K extends TradeKind>(client: AgentClient, kind: K, body: PrepareRequest<K>): Promise<PreparedTrade<K>> {
  const data = requireObject(await post(client, TRADE_ROUTES[kind].prepare, body), 'data', `prepare-${kind}`);
  const xdr = requireString(data, 'xdr', `prepare-${kind}`);
  const networkPassphrase = requireString(data, 'network_passphrase', `prepare-${kind}`);
  return {
    kind,
    networkId: (body as { network_id: number }).network_id,
    xdr,
    networkPassphrase,
    details: requireObject(data, 'transaction_details', `prepare-${kind}`),
    expiresAt: requireString(data, 'expires_at', `prepare-${kind}`),
    hash: Buffer.from(TransactionBuilder.fromXDR(xdr, networkPassphrase).hash()).toString('hex'),
  };
}

/**
 * Signs a prepared envelope locally with @stellar/stellar-sdk. Refuses an envelope whose source is another account:
 * the API builds it for the key's wallet, so a mismatch means the wrong key or the wrong signer.
 */
export function signPreparedTrade(prepared: Pick<PreparedTrade, 'xdr' | 'networkPassphrase'>, keypair: Keypair): string {
  const tx = TransactionBuilder.fromXDR(prepared.xdr, prepared.networkPassphrase);
  if (tx instanceof FeeBumpTransaction) throw new Error('prepared envelope is a fee bump; the API prepares plain transactions');
  if (tx.source !== keypair.publicKey()) throw new Error(`prepared for ${tx.source}, but the signer is ${keypair.publicKey()}`);
  tx.sign(keypair);
  return tx.toXDR();
}

/** Submits a signed envelope; a lost answer (network error, timeout) is resent — the API answers the first outcome. */
export async function submitTrade<K extends TradeKind>(
  client: AgentClient,
  kind: K,
  signedXdr: string,
  networkId: number,
  retry: SubmitRetryOptions = {},
): Promise<SubmitResponse<K>> {
  const o = { retries: retry.retries ?? 4, timeoutMs: retry.timeoutMs ?? 60_000, backoffMs: retry.backoffMs ?? 1000 };
  const sleep = retry.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      const body = { signed_xdr: signedXdr, network_id: networkId };
      return (await post(client, TRADE_ROUTES[kind].submit, body, AbortSignal.timeout(o.timeoutMs))) as SubmitResponse<K>;
    } catch (e) {
      const wait = submitRetryWait(e, attempt, o);
      if (wait === undefined) throw e;
      await sleep(wait);
    }
  }
}

/** prepare → sign locally → submit, for agents that do not need to look at the prepared transaction first. */
export async function trade<K extends TradeKind>(
  client: AgentClient,
  keypair: Keypair,
  kind: K,
  body: PrepareRequest<K>,
): Promise<{ prepared: PreparedTrade<K>; result: SubmitResponse<K> }> {
  const prepared = await prepareTrade(client, kind, body);
  const result = await submitTrade(client, kind, signPreparedTrade(prepared, keypair), prepared.networkId);
  return { prepared, result };
}
