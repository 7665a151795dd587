import { Account, Contract, Keypair, rpc, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { AppError } from '@dob/domain';
import type { StellarNetwork } from '../networks/stellar-networks';
import { SimulationFailed, type ContractCall, type SendOutcome, type SorobanGateway, type TransactionLookup } from '../ports/soroban-gateway.port';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ERR_NETWORK',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** An RPC call's bound when the network does not say (STELLAR_RPC_TIMEOUT_MS's default, for networks built in code). */
const DEFAULT_RPC_TIMEOUT_MS = 1500;

/** Transport failures (refused, reset, timed out, 5xx) — the RPC is unreachable, not the request wrong. */
export function isUnreachable(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string }; message?: string; response?: { status?: number } };
  if (err?.code && NETWORK_CODES.has(err.code)) return true;
  if (err?.cause?.code && NETWORK_CODES.has(err.cause.code)) return true;
  if (typeof err?.response?.status === 'number' && err.response.status >= 500) return true;
  return /fetch failed|Network Error|socket hang up|timeout of \d+ms exceeded/i.test(err?.message ?? '');
}

/**
 * SorobanGateway over `@stellar/stellar-sdk` rpc.Server — the same code path for the devnet, testnet and mainnet.
 * One rpc.Server per network, reused (keep-alive). Per stellar-rpc docs: simulateTransaction never needs a valid
 * sequence or signature, so read-only calls use the caller's address with sequence 0.
 */
export class StellarRpcGateway implements SorobanGateway {
  private readonly servers = new Map<number, rpc.Server>();

  private server(network: StellarNetwork): rpc.Server {
    let s = this.servers.get(network.id);
    if (!s) {
      s = new rpc.Server(network.rpcUrl, { allowHttp: network.rpcUrl.startsWith('http://') });
      // rpc.Server takes no timeout of its own (its options have none: a `timeout` there was silently ignored, and a
      // silent RPC held a prepare for as long as the agent waited); its HTTP client's default applies to every call,
      // and a call past it fails ECONNABORTED, which isUnreachable() turns into 503 NETWORK_UNAVAILABLE.
      s.httpClient.defaults.timeout = network.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
      this.servers.set(network.id, s);
    }
    return s;
  }

  private async call<T>(network: StellarNetwork, what: string, fn: (s: rpc.Server) => Promise<T>): Promise<T> {
    try {
      return await fn(this.server(network));
    } catch (e) {
      if (e instanceof SimulationFailed || e instanceof AppError) throw e;
      if (isUnreachable(e)) {
        throw new AppError('NETWORK_UNAVAILABLE', `Stellar RPC for network ${network.id} is unreachable (${what})`);
      }
      throw e;
    }
  }

  accountSequence(network: StellarNetwork, account: string): Promise<string | null> {
    // getLedgerEntries directly: the SDK's getAccount turns every failure (even a refused connection) into
    // "Account not found", which would hide an unreachable RPC.
    const key = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(account).xdrPublicKey() }));
    return this.call(network, 'getLedgerEntries', async (s) => {
      const r = await s.getLedgerEntries(key);
      const entry = r.entries[0]?.val;
      return entry && entry.type === 'account' ? entry.account.seqNum.toString() : null;
    });
  }

  read(network: StellarNetwork, source: string, call: ContractCall): Promise<xdr.ScVal> {
    const tx = new TransactionBuilder(new Account(source, '0'), { fee: '100', networkPassphrase: network.passphrase })
      .addOperation(new Contract(call.contractId).call(call.fn, ...call.args))
      .setTimeout(0)
      .build();
    return this.call(network, `simulate ${call.fn}`, async (s) => {
      const sim = await s.simulateTransaction(tx);
      if (rpc.Api.isSimulationError(sim)) throw new SimulationFailed(sim.error);
      const retval = (sim as rpc.Api.SimulateTransactionSuccessResponse).result?.retval;
      return retval ?? xdr.ScVal.scvVoid();
    });
  }

  prepare(network: StellarNetwork, tx: Transaction): Promise<Transaction> {
    return this.call(network, 'simulateTransaction', async (s) => {
      const sim = await s.simulateTransaction(tx);
      if (rpc.Api.isSimulationError(sim)) throw new SimulationFailed(sim.error);
      return rpc.assembleTransaction(tx, sim).build();
    });
  }

  send(network: StellarNetwork, tx: Transaction): Promise<SendOutcome> {
    return this.call(network, 'sendTransaction', async (s) => {
      const r = await s.sendTransaction(tx);
      if (r.status === 'ERROR') return { status: 'ERROR', resultCode: r.errorResult?.result.type ?? 'unknown' };
      return { status: r.status };
    });
  }

  getTransaction(network: StellarNetwork, hash: string): Promise<TransactionLookup> {
    return this.call(network, 'getTransaction', async (s) => {
      const r = await s.getTransaction(hash);
      if (r.status === rpc.Api.GetTransactionStatus.NOT_FOUND) return { status: 'NOT_FOUND', latestLedgerCloseTime: Number(r.latestLedgerCloseTime) };
      if (r.status === rpc.Api.GetTransactionStatus.SUCCESS) {
        return { status: 'SUCCESS', ledger: r.ledger, events: contractEventsOf(r.resultMetaXdr, r.events), returnValue: r.returnValue ?? null };
      }
      const result = r.resultXdr.result;
      const op = result.type === 'txFailed' ? result.results[0] : undefined;
      const tr = op && op.type === 'opInner' ? op.tr : undefined;
      const diagnostics = (r.diagnosticEventsXdr ?? []).map((d) => describeDiagnostic(d));
      return {
        status: 'FAILED',
        ledger: r.ledger,
        resultCode: result.type,
        operationResultCode: tr && tr.type === 'invokeHostFunction' ? tr.invokeHostFunctionResult.type : (op?.type ?? null),
        diagnostics,
      };
    });
  }

  eventIds(network: StellarNetwork, q: { ledger: number; contractId: string; txHash: string }) {
    return this.call(network, 'getEvents', async (s) => {
      const r = await s.getEvents({
        startLedger: q.ledger,
        endLedger: q.ledger + 1,
        filters: [{ type: 'contract', contractIds: [q.contractId] }],
        limit: 1000,
      });
      return r.events.filter((e) => e.txHash === q.txHash).map((e) => ({ id: e.id, topic: e.topic }));
    });
  }
}

/** Contract events of a Soroban tx: meta v4 keeps them per operation, v3 in sorobanMeta (stellar-xdr). */
function contractEventsOf(meta: xdr.TransactionMeta, events?: rpc.Api.TransactionEvents): xdr.ContractEvent[] {
  const fromRpc = events?.contractEventsXdr?.flat() ?? [];
  if (fromRpc.length > 0) return fromRpc;
  if (meta.type === 'v4') return meta.v4.operations.flatMap((op) => op.events);
  if (meta.type === 'v3') return meta.v3.sorobanMeta?.events ?? [];
  return [];
}

function describeDiagnostic(d: xdr.DiagnosticEvent): string {
  try {
    const body = d.event.body.v0;
    const parts = [...body.topics, body.data].map((v) => (v.type === 'scvError' ? errorText(v.error) : ''));
    return parts.filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

function errorText(e: xdr.ScError): string {
  return e.type === 'sceContract' ? `Error(Contract, #${e.contractCode})` : `Error(${e.type})`;
}
