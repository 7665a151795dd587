import { xdr } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../../chain/devnet-chain';
import { resultMetaXdrOf } from '../../chain/contract-events';
import { headerHistoryEntryXdr, ledgerCloseMetaXdr, PROTOCOL_VERSION } from '../../chain/ledger-header-xdr';
import type { ClosedLedger } from '../../chain/chain-records';
import { invalidParams, JsonRpcCode, JsonRpcError, type RpcMethod } from '../json-rpc';
import { optionalObject, optionalUint32, requireBase64Format } from '../params';

/** Per stellar-rpc: getLedgerEntries accepts at most 200 keys; getLedgers pages default 5, max 200. */
const MAX_LEDGER_ENTRY_KEYS = 200;
const DEFAULT_LEDGERS_LIMIT = 5;
const MAX_LEDGERS_LIMIT = 200;

export function ledgerRange(chain: DevnetChain) {
  const latest = chain.latestLedger();
  const oldest = chain.oldestLedger();
  return {
    latestLedger: latest.sequence,
    latestLedgerCloseTime: latest.closeTime.toString(),
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTime: oldest.closeTime.toString(),
  };
}

export function ledgerMetadataXdr(chain: DevnetChain, ledger: ClosedLedger): string {
  const transactions = ledger.transactionHashes.flatMap((hash) => {
    const tx = chain.history.transaction(hash);
    return tx ? [{ hash, envelopeXdr: tx.envelopeXdr, resultXdr: tx.resultXdr, resultMetaXdr: resultMetaXdrOf(tx) }] : [];
  });
  return ledgerCloseMetaXdr({ hash: ledger.hash, headerXdr: ledger.headerXdr, previousHash: ledger.previousHash, transactions });
}

export function ledgerMethods(chain: DevnetChain, options: { friendbotUrl?: () => string; retentionLedgers: number }): Record<string, RpcMethod> {
  return {
    getHealth: () => {
      const range = ledgerRange(chain);
      return { status: 'healthy', latestLedger: range.latestLedger, oldestLedger: range.oldestLedger, ledgerRetentionWindow: options.retentionLedgers };
    },

    getNetwork: () => ({
      ...(options.friendbotUrl ? { friendbotUrl: options.friendbotUrl() } : {}),
      passphrase: chain.networkPassphrase,
      protocolVersion: PROTOCOL_VERSION,
    }),

    getLatestLedger: () => {
      const latest = chain.latestLedger();
      return {
        id: latest.hash,
        protocolVersion: PROTOCOL_VERSION,
        sequence: latest.sequence,
        closeTime: latest.closeTime.toString(),
        headerXdr: latest.headerXdr,
        metadataXdr: ledgerMetadataXdr(chain, latest),
      };
    },

    getLedgers: (params) => {
      requireBase64Format(params);
      const range = ledgerRange(chain);
      const pagination = optionalObject(params, 'pagination');
      const limit = pagination ? (optionalUint32(pagination, 'limit') ?? DEFAULT_LEDGERS_LIMIT) : DEFAULT_LEDGERS_LIMIT;
      if (limit > MAX_LEDGERS_LIMIT) throw invalidParams(`limit must not exceed ${MAX_LEDGERS_LIMIT}`);
      const cursor = pagination?.cursor;
      let start: number;
      if (cursor !== undefined && cursor !== null && cursor !== '') {
        if (params.startLedger) throw invalidParams('startLedger and cursor cannot both be set');
        if (typeof cursor !== 'string' || !/^\d+$/.test(cursor)) throw invalidParams('invalid cursor');
        start = Number(cursor) + 1;
      } else {
        const startLedger = optionalUint32(params, 'startLedger');
        if (!startLedger) throw invalidParams('startLedger must be positive');
        start = startLedger;
      }
      if (start < range.oldestLedger || start > range.latestLedger) {
        throw new JsonRpcError(
          JsonRpcCode.invalidRequest,
          `start ledger must be between the oldest ledger: ${range.oldestLedger} and the latest ledger: ${range.latestLedger} for this rpc instance`,
        );
      }
      const ledgers = [];
      for (let seq = start; seq <= range.latestLedger && ledgers.length < (limit || DEFAULT_LEDGERS_LIMIT); seq++) {
        const ledger = chain.history.ledger(seq);
        if (!ledger) break;
        ledgers.push({
          hash: ledger.hash,
          sequence: ledger.sequence,
          ledgerCloseTime: ledger.closeTime.toString(),
          headerXdr: headerHistoryEntryXdr(ledger.hash, ledger.headerXdr),
          metadataXdr: ledgerMetadataXdr(chain, ledger),
        });
      }
      const last = ledgers[ledgers.length - 1];
      return { ledgers, ...range, cursor: String(last ? last.sequence : start - 1) };
    },

    getLedgerEntries: (params) => {
      requireBase64Format(params);
      const keys = params.keys;
      if (!Array.isArray(keys) || keys.length === 0) throw invalidParams('keys must be a non-empty array');
      if (keys.length > MAX_LEDGER_ENTRY_KEYS) throw invalidParams(`key count (${keys.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`);
      const decoded = keys.map((key, i) => {
        if (typeof key !== 'string') throw invalidParams(`cannot unmarshal key value ${i}`);
        try {
          return xdr.LedgerKey.fromXdr(key, 'base64');
        } catch {
          throw invalidParams(`cannot unmarshal key value ${key} at index ${i}`);
        }
      });
      const entries = chain.hostView.getLedgerEntries(decoded).map((record) => ({
        key: record.key.toXdr('base64'),
        xdr: record.entry.toXdr('base64'),
        lastModifiedLedgerSeq: record.lastModifiedLedgerSeq,
        ...(record.liveUntilLedgerSeq === undefined ? {} : { liveUntilLedgerSeq: record.liveUntilLedgerSeq }),
      }));
      return { entries, latestLedger: chain.latestLedger().sequence };
    },
  };
}
