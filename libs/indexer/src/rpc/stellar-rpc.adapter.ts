import { Address, rpc, xdr } from '@stellar/stellar-sdk';
import type { ChainRpc, ContractExecutableInfo, ContractInvocation, GetEventsPage, GetEventsRequest, RpcHealth } from './chain-rpc.port';

export interface StellarRpcOptions {
  readonly rpcUrl: string;
  /** Needed for the local devnet (http://127.0.0.1:…). */
  readonly allowHttp?: boolean;
  readonly timeoutMs?: number;
}

/** ChainRpc over HTTP with stellar-sdk's rpc.Server (getEvents, getHealth, getLedgerEntries). */
export function createStellarChainRpc(options: StellarRpcOptions): ChainRpc {
  const server = new rpc.Server(options.rpcUrl, {
    allowHttp: options.allowHttp ?? options.rpcUrl.startsWith('http://'),
    timeout: options.timeoutMs ?? 30_000,
  });
  return {
    async getEvents(request: GetEventsRequest): Promise<GetEventsPage> {
      const filters = request.filters.map((f) => ({
        type: f.type,
        contractIds: f.contractIds ? [...f.contractIds] : undefined,
        topics: f.topics ? f.topics.map((t) => [...t]) : undefined,
      }));
      const req: rpc.Api.GetEventsRequest =
        'cursor' in request
          ? { cursor: request.cursor, filters, limit: request.limit }
          : { startLedger: request.startLedger, endLedger: request.endLedger, filters, limit: request.limit };
      const res = await server.getEvents(req);
      return {
        events: res.events.map((e) => ({
          id: e.id,
          ledger: e.ledger,
          ledgerClosedAt: e.ledgerClosedAt,
          txHash: e.txHash,
          contractId: e.contractId ? e.contractId.contractId() : '',
          topic: e.topic,
          value: e.value,
          inSuccessfulContractCall: e.inSuccessfulContractCall,
        })),
        cursor: res.cursor,
        latestLedger: res.latestLedger,
        oldestLedger: res.oldestLedger,
        latestLedgerCloseTime: closeTime(res.latestLedgerCloseTime),
      };
    },
    async getHealth(): Promise<RpcHealth> {
      const h = await server.getHealth();
      return { latestLedger: h.latestLedger, oldestLedger: h.oldestLedger };
    },
    async getContractExecutable(contractId: string): Promise<ContractExecutableInfo> {
      const key = xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: Address.fromString(contractId).toScAddress(),
          key: xdr.ScVal.scvLedgerKeyContractInstance(),
          durability: xdr.ContractDataDurability.persistent,
        }),
      );
      const res = await server.getLedgerEntries(key);
      const entry = res.entries[0];
      if (!entry) return null;
      if (entry.val.type !== 'contractData') return null;
      const val = entry.val.contractData.val;
      if (val.type !== 'scvContractInstance') return null;
      const exe = val.instance.executable;
      return exe.type === 'contractExecutableWasm'
        ? { kind: 'wasm', hash: Buffer.from(exe.wasmHash.toBytes()).toString('hex') }
        : { kind: 'sac' };
    },
    async getInvocation(txHash: string): Promise<ContractInvocation | null> {
      const res = await server.getTransaction(txHash);
      if (res.status === rpc.Api.GetTransactionStatus.NOT_FOUND) return null;
      return invocationOf(res.envelopeXdr);
    },
  };
}

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
