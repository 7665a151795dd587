/** Per-network ingestion status, readable by /health. */
export type IngestionState = 'starting' | 'backfilling' | 'live' | 'degraded' | 'halted';

export interface IngestionStatus {
  readonly networkId: number;
  readonly state: IngestionState;
  /** Why ingestion stopped (retention gap, concurrent indexer); null unless halted. */
  readonly haltReason: string | null;
  /** Which alarm halted it (a metrics label, `indexer_halted{reason}`); null unless halted. */
  readonly haltKind: IngestionAlarmKind | null;
  /** First ledger not yet ingested. */
  readonly nextLedger: number | null;
  readonly latestLedger: number | null;
  readonly oldestLedger: number | null;
  readonly ledgersBehind: number | null;
  /** Estimated from ledgersBehind at ~5 s per ledger (Stellar's target close time); 0 when caught up. */
  readonly secondsBehind: number | null;
  readonly watchedContracts: number;
  readonly undecodedTotal: number;
  /** Domain events this process appended (since it started; a metrics counter). */
  readonly eventsIngested: number;
  readonly lastError: string | null;
  readonly updatedAt: string | null;
}

export type IngestionAlarmKind = 'retention_gap' | 'concurrent_indexer' | 'rpc_unavailable' | 'undecoded_event';

export interface IngestionAlarm {
  readonly networkId: number;
  readonly kind: IngestionAlarmKind;
  readonly message: string;
}

export interface IndexerLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

export const consoleLogger: IndexerLogger = {
  info: (m, meta) => console.log(JSON.stringify({ level: 'info', msg: m, ...meta })),
  warn: (m, meta) => console.warn(JSON.stringify({ level: 'warn', msg: m, ...meta })),
  error: (m, meta) => console.error(JSON.stringify({ level: 'error', msg: m, ...meta })),
};

export const silentLogger: IndexerLogger = { info: () => {}, warn: () => {}, error: () => {} };
