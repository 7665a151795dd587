import { resultMetaXdrOf, toContractEvent } from '../../chain/contract-events';
import type { DevnetChain } from '../../chain/devnet-chain';
import { InvalidSimulationRequest, simulateTransaction } from '../../chain/simulate';
import { invalidParams, type RpcMethod } from '../json-rpc';
import { requireBase64Format, requiredString } from '../params';
import { ledgerRange } from './ledger-methods';

/** simulateTransaction, sendTransaction and getTransaction with stellar-rpc's field names and statuses. */
export function transactionMethods(chain: DevnetChain): Record<string, RpcMethod> {
  return {
    simulateTransaction: (params) => {
      requireBase64Format(params);
      const transaction = requiredString(params, 'transaction');
      if (params.authMode !== undefined && params.authMode !== '' && params.authMode !== 'record') {
        throw invalidParams(`authMode ${String(params.authMode)} is not supported by the devnet (only "record")`);
      }
      const latestLedger = chain.latestLedger().sequence;
      try {
        const simulation = simulateTransaction(chain.hostView, transaction, chain.nextLedgerInfo());
        if (!simulation.ok) return { latestLedger, error: simulation.error, events: simulation.events };
        const { ok: _ok, ...rest } = simulation;
        return { latestLedger, ...rest };
      } catch (err) {
        if (err instanceof InvalidSimulationRequest) throw invalidParams(err.message);
        throw err;
      }
    },

    sendTransaction: (params) => {
      requireBase64Format(params);
      const transaction = requiredString(params, 'transaction');
      const latest = chain.latestLedger();
      const submitted = chain.submit(transaction);
      const base = { hash: submitted.hash, latestLedger: latest.sequence, latestLedgerCloseTime: latest.closeTime.toString() };
      if (submitted.status === 'ERROR') return { status: 'ERROR', ...base, errorResultXdr: submitted.errorResultXdr };
      return { status: submitted.status, ...base };
    },

    getTransaction: (params) => {
      requireBase64Format(params);
      const hash = requiredString(params, 'hash');
      if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw invalidParams('unexpected hash length');
      const range = ledgerRange(chain);
      const record = chain.history.transaction(hash.toLowerCase());
      if (!record) return { status: 'NOT_FOUND', ...range };
      return {
        status: record.status,
        ...range,
        txHash: record.hash,
        applicationOrder: record.applicationOrder,
        feeBump: false,
        envelopeXdr: record.envelopeXdr,
        resultXdr: record.resultXdr,
        resultMetaXdr: resultMetaXdrOf(record),
        ledger: record.ledger,
        createdAt: record.createdAt.toString(),
        events: {
          transactionEventsXdr: [],
          contractEventsXdr: [record.events.map((e) => toContractEvent(e).toXdr('base64'))],
        },
      };
    },
  };
}
