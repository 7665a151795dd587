import { Address, rpc, xdr } from '@stellar/stellar-sdk';
import type { RawChainEvent } from '../decoding/chain-event';
import { ParsedTopics, parseScVal } from './parsed-topics';
import {
  MAX_LEDGER_ENTRY_KEYS,
  type ChainRpc,
  type ContractExecutableInfo,
  type ContractInvocation,
  type GetEventsPage,
  type GetEventsRequest,
  type RpcCallOptions,
  type RpcHealth,
} from './chain-rpc.port';

export interface StellarRpcOptions {
  readonly rpcUrl: string;
  /** Needed for the local devnet (http://127.0.0.1:…). */
  readonly allowHttp?: boolean;
}

/** A JSON-RPC error answer (stellar-rpc's `{code, message}`), thrown as an Error so its message reaches the logs. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * ChainRpc over HTTP: Stellar JSON-RPC 2.0 posted with `fetch`, answers decoded by stellar-sdk (`rpc.parseRawEvents`,
 * the typed XDR classes). Not `rpc.Server`: its methods take no AbortSignal, so a call that timed out could only be
 * raced and its request would keep its socket; here the caller's signal aborts the fetch, and undici (Node's
 * fetch) aborts the request on the signal (undici lib/api/abort-signal.js), which for HTTP/1.1 means closing its
 * connection — `rpc-abort.int-spec.ts` checks the server sees it close.
 */
export function createStellarChainRpc(options: StellarRpcOptions): ChainRpc {
  const url = new URL(options.rpcUrl);
  if (url.protocol !== 'https:' && !(options.allowHttp ?? url.protocol === 'http:')) {
    throw new Error(`insecure Stellar RPC URL ${options.rpcUrl} (allowHttp not set)`);
  }
  let id = 0;
  async function call<R>(method: string, params: unknown, o?: RpcCallOptions): Promise<R> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: o?.signal,
    });
    // One utf8 decode of the whole body (a 10,000-event getEvents page is megabytes): Buffer's decoder, not the
    // streaming TextDecoder behind Response#text().
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    let body: { result?: R; error?: { code: number; message: string } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`${method}: HTTP ${res.status} with a non-JSON body`);
    }
    if (body.error) throw new RpcError(body.error.code, body.error.message);
    if (!res.ok || body.result === undefined) throw new Error(`${method}: HTTP ${res.status} without a result`);
    return body.result;
  }

  return {
    async getEvents(request: GetEventsRequest, o?: RpcCallOptions): Promise<GetEventsPage> {
      const filters = request.filters.map((f) => ({
        type: f.type,
        contractIds: f.contractIds ? [...f.contractIds] : undefined,
        topics: f.topics ? f.topics.map((t) => [...t]) : undefined,
      }));
      // The parameter layout stellar-sdk's rpc.Server#getEvents sends.
      const params =
        'cursor' in request
          ? { filters, pagination: { cursor: request.cursor, limit: request.limit } }
          : { filters, pagination: { limit: request.limit }, startLedger: request.startLedger, ...(request.endLedger ? { endLedger: request.endLedger } : {}) };
      const res = await call<rpc.Api.RawGetEventsResponse>('getEvents', params, o);
      return {
        events: (res.events ?? []).map((e) => new RpcChainEvent(e)),
        cursor: res.cursor,
        latestLedger: res.latestLedger,
        oldestLedger: res.oldestLedger,
        latestLedgerCloseTime: closeTime(res.latestLedgerCloseTime),
      };
    },
    async getHealth(o?: RpcCallOptions): Promise<RpcHealth> {
      const h = await call<{ latestLedger: number; oldestLedger: number }>('getHealth', undefined, o);
      return { latestLedger: h.latestLedger, oldestLedger: h.oldestLedger };
    },
    async getContractExecutables(contractIds: readonly string[], o?: RpcCallOptions): Promise<ReadonlyMap<string, ContractExecutableInfo>> {
      if (contractIds.length > MAX_LEDGER_ENTRY_KEYS)
        throw new Error(`getLedgerEntries takes at most ${MAX_LEDGER_ENTRY_KEYS} keys, got ${contractIds.length}`);
      const out = new Map<string, ContractExecutableInfo>(contractIds.map((id) => [id, null]));
      if (out.size === 0) return out;
      const keys = [...out.keys()].map((id) => instanceKey(id).toXDR('base64'));
      const res = await call<{ entries?: { xdr: string }[] | null }>('getLedgerEntries', { keys }, o);
      // Each entry is matched by the contract its own data names (the RPC returns found entries only, in no promised
      // order), and only to an id that was asked for.
      for (const raw of res.entries ?? []) {
        const val = xdr.LedgerEntryData.fromXDR(raw.xdr, 'base64');
        if (val.type !== 'contractData') continue;
        const contractId = Address.fromScAddress(val.contractData.contract).toString();
        const instance = val.contractData.val;
        if (!out.has(contractId) || instance.type !== 'scvContractInstance') continue;
        const exe = instance.instance.executable;
        out.set(
          contractId,
          exe.type === 'contractExecutableWasm' ? { kind: 'wasm', hash: Buffer.from(exe.wasmHash.toBytes()).toString('hex') } : { kind: 'sac' },
        );
      }
      return out;
    },
    async getInvocation(txHash: string, o?: RpcCallOptions): Promise<ContractInvocation | null> {
      const res = await call<{ status: string; envelopeXdr?: string }>('getTransaction', { hash: txHash }, o);
      if (res.status === rpc.Api.GetTransactionStatus.NOT_FOUND || !res.envelopeXdr) return null;
      return invocationOf(xdr.TransactionEnvelope.fromXDR(res.envelopeXdr, 'base64'));
    },
  };
}

/** The ledger key of a contract's instance entry (persistent contract data under the instance key). */
function instanceKey(contractId: string): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contractId).toScAddress(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
}

/**
 * One getEvents event as the indexer reads it. Not `rpc.parseRawEvents`: that turns every contract id into a
 * `Contract` (strkey decode) which the indexer turned back into the same string, and parsed every topic and value
 * up front, also for the events of a page past the window that are dropped unread. Here the contract id stays the
 * string the RPC sent, and topics/value are parsed from base64 on first read (then kept), with Buffer's base64.
 */
class RpcChainEvent implements RawChainEvent {
  readonly id: string;
  readonly ledger: number;
  readonly ledgerClosedAt: string;
  readonly txHash: string;
  readonly contractId: string;
  readonly inSuccessfulContractCall: boolean;
  private readonly topicXdr: readonly string[];
  private readonly valueXdr: string;
  private parsedTopic?: readonly xdr.ScVal[];
  private parsedValue?: xdr.ScVal;

  constructor(e: rpc.Api.RawEventResponse) {
    this.id = e.id;
    this.ledger = e.ledger;
    this.ledgerClosedAt = e.ledgerClosedAt;
    this.txHash = e.txHash;
    this.contractId = e.contractId ?? '';
    this.inSuccessfulContractCall = e.inSuccessfulContractCall;
    this.topicXdr = e.topic ?? [];
    this.valueXdr = e.value;
  }

  get topic(): readonly xdr.ScVal[] {
    return (this.parsedTopic ??= this.topicXdr.map((t) => TOPICS.parse(t)));
  }

  get value(): xdr.ScVal {
    return (this.parsedValue ??= parseScVal(this.valueXdr));
  }
}

/** Shared by every page this process reads: the same topics recur across windows. */
const TOPICS = new ParsedTopics();

/** A v1 envelope with one invokeHostFunction(invokeContract) operation → its contract, function and args. */
export function invocationOf(envelope: xdr.TransactionEnvelope): ContractInvocation | null {
  // stellar-sdk 17's typed XDR unions (discriminated by `type`), as libs/devnet's parse-invocation reads them.
  if (envelope.type !== 'envelopeTypeTx') return null;
  const body = envelope.v1.tx.operations[0]?.body;
  if (!body || body.type !== 'invokeHostFunction') return null;
  const fn = body.invokeHostFunctionOp.hostFunction;
  if (fn.type !== 'hostFunctionTypeInvokeContract') return null;
  const call = fn.invokeContract;
  return {
    contractId: Address.fromScAddress(call.contractAddress).toString(),
    functionName: Buffer.from(call.functionName.bytes).toString('utf8'),
    args: call.args,
  };
}

/** getEvents reports close times as unix-seconds strings (per stellar-rpc docs); normalise to ISO. */
function closeTime(v: string | number | undefined): string | null {
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  if (Number.isFinite(n)) return new Date(n * 1000).toISOString();
  const d = new Date(String(v));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
