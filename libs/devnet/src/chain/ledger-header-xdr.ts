import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';

/**
 * LedgerHeader / LedgerHeaderHistoryEntry / LedgerCloseMeta for the devnet's ledgers, so getLatestLedger and
 * getLedgers return real XDR (stellar-sdk 17 parses headerXdr and metadataXdr and rejects responses without them).
 */

type Wire<T extends { fromXdrObject(w: never): unknown }> = Parameters<T['fromXdrObject']>[0];

export const PROTOCOL_VERSION = 23;
export const BASE_FEE = 100;
export const BASE_RESERVE = 5_000_000;
/** 100 billion XLM in stroops, the standalone network's total coins. */
const TOTAL_COINS = 1_000_000_000_000_000_000n;

function headerWire(input: { sequence: number; closeTime: bigint; previousHash: Buffer; txSetHash: Buffer }): Wire<typeof xdr.LedgerHeader> {
  const zero = new Uint8Array(32);
  return {
    ledgerVersion: PROTOCOL_VERSION,
    previousLedgerHash: input.previousHash,
    scpValue: { txSetHash: input.txSetHash, closeTime: input.closeTime, upgrades: [], ext: { v: 0 } },
    txSetResultHash: zero,
    bucketListHash: zero,
    ledgerSeq: input.sequence,
    totalCoins: TOTAL_COINS,
    feePool: 0n,
    inflationSeq: 0,
    idPool: 0n,
    baseFee: BASE_FEE,
    baseReserve: BASE_RESERVE,
    maxTxSetSize: 1000,
    skipList: [zero, zero, zero, zero],
    ext: { v: 0 },
  } as Wire<typeof xdr.LedgerHeader>;
}

export interface BuiltHeader {
  readonly hash: string;
  readonly headerXdr: string;
}

/** The ledger hash is sha256 of the header XDR, as in stellar-core. */
export function buildLedgerHeader(input: { sequence: number; closeTime: bigint; previousHash: string; transactionHashes: readonly string[] }): BuiltHeader {
  const txSetHash = createHash('sha256');
  for (const h of input.transactionHashes) txSetHash.update(Buffer.from(h, 'hex'));
  const header = xdr.LedgerHeader.fromXdrObject(
    headerWire({
      sequence: input.sequence,
      closeTime: input.closeTime,
      previousHash: Buffer.from(input.previousHash, 'hex'),
      txSetHash: txSetHash.digest(),
    }),
  );
  const raw = header.toXdr('raw');
  return { hash: createHash('sha256').update(raw).digest('hex'), headerXdr: Buffer.from(raw).toString('base64') };
}

export function headerHistoryEntryXdr(hash: string, headerXdr: string): string {
  const header = xdr.LedgerHeader.fromXdr(headerXdr, 'base64');
  return xdr.LedgerHeaderHistoryEntry.fromXdrObject({
    hash: Buffer.from(hash, 'hex'),
    header: header.toXdrObject(),
    ext: { v: 0 },
  } as Wire<typeof xdr.LedgerHeaderHistoryEntry>).toXdr('base64');
}

export interface MetaTransaction {
  readonly hash: string;
  readonly envelopeXdr: string;
  readonly resultXdr: string;
  readonly resultMetaXdr: string;
}

/** LedgerCloseMeta v2 with the ledger's transactions in one classic-phase component. */
export function ledgerCloseMetaXdr(input: { hash: string; headerXdr: string; previousHash: string; transactions: readonly MetaTransaction[] }): string {
  const header = xdr.LedgerHeader.fromXdr(input.headerXdr, 'base64');
  const wire = {
    v: 2,
    v2: {
      ext: { v: 0 },
      ledgerHeader: { hash: Buffer.from(input.hash, 'hex'), header: header.toXdrObject(), ext: { v: 0 } },
      txSet: {
        v: 1,
        v1TxSet: {
          previousLedgerHash: Buffer.from(input.previousHash, 'hex'),
          phases: [
            {
              v: 0,
              v0Components: [
                {
                  type: 0,
                  txsMaybeDiscountedFee: {
                    baseFee: null,
                    txs: input.transactions.map((t) => xdr.TransactionEnvelope.fromXdr(t.envelopeXdr, 'base64').toXdrObject()),
                  },
                },
              ],
            },
          ],
        },
      },
      txProcessing: input.transactions.map((t) => ({
        ext: { v: 0 },
        result: { transactionHash: Buffer.from(t.hash, 'hex'), result: xdr.TransactionResult.fromXdr(t.resultXdr, 'base64').toXdrObject() },
        feeProcessing: [],
        txApplyProcessing: xdr.TransactionMeta.fromXdr(t.resultMetaXdr, 'base64').toXdrObject(),
        postTxApplyFeeProcessing: [],
      })),
      upgradesProcessing: [],
      scpInfo: [],
      totalByteSizeOfLiveSorobanState: 0n,
      evictedKeys: [],
    },
  };
  return xdr.LedgerCloseMeta.fromXdrObject(wire as Wire<typeof xdr.LedgerCloseMeta>).toXdr('base64');
}
