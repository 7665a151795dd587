import { xdr } from '@stellar/stellar-sdk';
import { ledgerKeyBase64 } from './fast-xdr';
import { HostError } from './host-errors';

/** One ledger entry as stored: the entry data plus the bookkeeping the RPC reports with it. */
export interface StoredEntry {
  readonly data: xdr.LedgerEntryData;
  readonly lastModifiedLedgerSeq: number;
  /** Only for contract data/code (Soroban TTL). */
  readonly liveUntilLedgerSeq?: number;
}

/** Serialised world state: one row per entry, everything as base64 XDR, so restore needs no schema knowledge. */
export interface WorldSnapshot {
  readonly version: 1;
  /** [ledgerKey base64, ledgerEntryData base64, lastModifiedLedgerSeq, liveUntilLedgerSeq | null] */
  readonly entries: ReadonlyArray<readonly [string, string, number, number | null]>;
}

/** The entry's id: its LedgerKey as base64 XDR (written by fast-xdr, byte-identical to `key.toXdr('base64')`). */
export const ledgerKeyId = (key: xdr.LedgerKey): string => ledgerKeyBase64(key);

/**
 * The devnet's ledger: entries keyed by their LedgerKey XDR (base64). Entry data is kept decoded for fast
 * contract access; its base64 form is cached lazily so repeated snapshots of a large, mostly unchanged
 * state only re-encode what changed.
 *
 * No state archival: entries past liveUntilLedgerSeq stay readable (the devnet never evicts).
 */
export class WorldState {
  private readonly entries = new Map<string, StoredEntry>();
  private readonly encoded = new Map<string, string>();

  get(id: string): StoredEntry | undefined {
    return this.entries.get(id);
  }

  set(id: string, entry: StoredEntry): void {
    this.entries.set(id, entry);
    this.encoded.delete(id);
  }

  delete(id: string): void {
    this.entries.delete(id);
    this.encoded.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  *keys(): IterableIterator<string> {
    yield* this.entries.keys();
  }

  serialise(): WorldSnapshot {
    const rows: Array<readonly [string, string, number, number | null]> = [];
    for (const [id, e] of this.entries) {
      let data = this.encoded.get(id);
      if (data === undefined) {
        data = e.data.toXdr('base64');
        this.encoded.set(id, data);
      }
      rows.push([id, data, e.lastModifiedLedgerSeq, e.liveUntilLedgerSeq ?? null]);
    }
    return { version: 1, entries: rows };
  }

  static restore(snapshot: WorldSnapshot): WorldState {
    if (snapshot.version !== 1) throw new Error(`unsupported world snapshot version ${String(snapshot.version)}`);
    const ws = new WorldState();
    for (const [id, data, lastModified, liveUntil] of snapshot.entries) {
      const entry: StoredEntry = {
        data: xdr.LedgerEntryData.fromXdr(data, 'base64'),
        lastModifiedLedgerSeq: lastModified,
        ...(liveUntil === null ? {} : { liveUntilLedgerSeq: liveUntil }),
      };
      ws.entries.set(id, entry);
      ws.encoded.set(id, data);
    }
    return ws;
  }
}

/** A transaction's declared footprint as entry ids (what a submitted transaction may read / write). */
export interface DeclaredFootprint {
  readonly readOnly: ReadonlySet<string>;
  readonly readWrite: ReadonlySet<string>;
}

export function declaredFootprint(footprint: { readonly readOnly: readonly xdr.LedgerKey[]; readonly readWrite: readonly xdr.LedgerKey[] }): DeclaredFootprint {
  return { readOnly: new Set(footprint.readOnly.map(ledgerKeyId)), readWrite: new Set(footprint.readWrite.map(ledgerKeyId)) };
}

/**
 * A write buffer over the WorldState for one invocation: reads fall through, writes stay here until commit,
 * so a failed or simulated invocation leaves the ledger untouched. It also records the footprint. With a declared
 * footprint (an applied transaction) every access is checked against it like soroban-env-host's footprint
 * enforcement: reading a key outside it, or writing one not declared read-write, traps the invocation.
 */
export class LedgerTxn {
  private readonly writes = new Map<string, StoredEntry | null>();
  private readonly touched = new Map<string, xdr.LedgerKey>();
  private readonly written = new Set<string>();

  constructor(
    private readonly base: WorldState,
    private readonly declared?: DeclaredFootprint,
  ) {}

  private checkRead(id: string) {
    if (this.declared && !this.declared.readWrite.has(id) && !this.declared.readOnly.has(id)) {
      throw HostError.outsideFootprint(`ledger key ${id} is not in the transaction's footprint`);
    }
  }

  private checkWrite(id: string) {
    if (this.declared && !this.declared.readWrite.has(id)) {
      throw HostError.outsideFootprint(`ledger key ${id} is not in the transaction's read-write footprint`);
    }
  }

  load(key: xdr.LedgerKey): StoredEntry | undefined {
    const id = ledgerKeyId(key);
    this.checkRead(id);
    if (!this.touched.has(id)) this.touched.set(id, key);
    if (this.writes.has(id)) return this.writes.get(id) ?? undefined;
    return this.base.get(id);
  }

  put(key: xdr.LedgerKey, entry: StoredEntry): void {
    const id = ledgerKeyId(key);
    this.checkWrite(id);
    this.touched.set(id, key);
    this.written.add(id);
    this.writes.set(id, entry);
  }

  erase(key: xdr.LedgerKey): void {
    const id = ledgerKeyId(key);
    this.checkWrite(id);
    this.touched.set(id, key);
    this.written.add(id);
    this.writes.set(id, null);
  }

  commit(): void {
    for (const [id, e] of this.writes) {
      if (e === null) this.base.delete(id);
      else this.base.set(id, e);
    }
    this.writes.clear();
  }

  /** Records a key the invocation writes outside the contracts' storage calls (e.g. a simulated auth nonce). */
  declareWrite(key: xdr.LedgerKey): void {
    const id = ledgerKeyId(key);
    this.touched.set(id, key);
    this.written.add(id);
  }

  footprint(): { readOnly: xdr.LedgerKey[]; readWrite: xdr.LedgerKey[] } {
    const readOnly: xdr.LedgerKey[] = [];
    const readWrite: xdr.LedgerKey[] = [];
    for (const [id, key] of this.touched) (this.written.has(id) ? readWrite : readOnly).push(key);
    return { readOnly, readWrite };
  }
}
