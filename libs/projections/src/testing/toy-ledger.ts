import type { RecordedEvent } from '@dob/event-store';
import { reduceBatch, type ProjectionState } from '../documents/batch-state';
import { documentId, type CollectionSpecs, type Doc } from '../documents/collections';
import { prefetchingSource, type BulkDocumentSource } from '../documents/prefetch';

/**
 * The documents specs' fixture (prefetch, cached source): a toy ledger whose reads depend on what it read before: a
 * transfer moves a balance only if the account's `frozen` flag (its own document) is false, and an `audit` event
 * lists the open holds of an account (a find). So a speculative pass that sees every document as absent predicts
 * only part of what the real pass reads.
 */
export const collections: CollectionSpecs = {
  accounts: { fields: { id: 'text', frozen: 'bool' }, key: ['id'] },
  balances: { fields: { id: 'text', amount: 'amount' }, key: ['id'] },
  holds: { fields: { id: 'text', account: 'text', open: 'bool' }, key: ['id'], indexes: [{ keys: ['account', 'open'] }] },
  audits: { fields: { id: 'text', open_holds: 'int' }, key: ['id'] },
};

type Data = { account: string; amount?: number; hold?: string };

export async function apply(s: ProjectionState, e: RecordedEvent): Promise<void> {
  const d = e.data as Data;
  switch (e.type) {
    case 'Opened':
      s.put('accounts', { id: d.account, frozen: false });
      return;
    case 'Frozen':
      s.put('accounts', { id: d.account, frozen: true });
      return;
    case 'Moved': {
      const account = await s.get<{ id: string; frozen: boolean }>('accounts', { id: d.account });
      if (!account) throw new Error(`no account ${d.account}`); // the speculative pass sees this and predicts less
      if (account.frozen) return;
      const b = await s.get<{ id: string; amount: bigint }>('balances', { id: d.account });
      s.put('balances', { id: d.account, amount: (b?.amount ?? 0n) + BigInt(d.amount!) });
      return;
    }
    case 'Held':
      s.put('holds', { id: d.hold!, account: d.account, open: true });
      return;
    case 'Released': {
      const h = await s.get<Doc>('holds', { id: d.hold! });
      if (h) s.put('holds', { ...h, open: false });
      return;
    }
    case 'Audited': {
      const open = await s.find('holds', { account: d.account, open: true });
      s.put('audits', { id: d.account, open_holds: open.length });
      return;
    }
  }
}

/** Committed documents in memory, counting reads one by one and in bulk. */
export class CountingStore implements BulkDocumentSource {
  readonly docs = new Map<string, Map<string, Doc>>();
  single = 0;
  bulk = 0;

  commit(writes: readonly { collection: string; id: string; doc: Doc }[]): void {
    for (const w of writes) this.of(w.collection).set(w.id, w.doc);
  }

  async get(collection: string, key: Doc): Promise<Doc | null> {
    this.single++;
    return this.of(collection).get(documentId(collections[collection]!, key)) ?? null;
  }

  async find(collection: string, where: Doc): Promise<Doc[]> {
    this.single++;
    return this.matching(collection, [where]);
  }

  async getMany(collection: string, keys: readonly Doc[]): Promise<Doc[]> {
    this.bulk++;
    const ids = new Set(keys.map((k) => documentId(collections[collection]!, k)));
    return [...this.of(collection)].filter(([id]) => ids.has(id)).map(([, d]) => d);
  }

  async findMany(collection: string, _fields: readonly string[], wheres: readonly Doc[]): Promise<Doc[]> {
    this.bulk++;
    return this.matching(collection, wheres);
  }

  private matching(collection: string, wheres: readonly Doc[]): Doc[] {
    return [...this.of(collection).values()].filter((d) => wheres.some((w) => Object.entries(w).every(([k, v]) => d[k] === v)));
  }

  private of(collection: string): Map<string, Doc> {
    let m = this.docs.get(collection);
    if (!m) this.docs.set(collection, (m = new Map()));
    return m;
  }
}

let seq = 0;
const event = (type: string, data: Data): RecordedEvent => {
  seq++;
  return {
    id: `e${seq}`,
    streamId: 's',
    revision: seq,
    type,
    version: 1,
    data,
    metadata: {},
    position: { commit: BigInt(seq), prepare: BigInt(seq) },
    recordedAt: new Date(0),
  };
};

/** A history in batches: accounts opened (some frozen) in the first batch, then mixed traffic. */
export function history(): RecordedEvent[][] {
  const accounts = Array.from({ length: 40 }, (_, i) => `a${i}`);
  const first = accounts.flatMap((a, i) => [event('Opened', { account: a }), ...(i % 7 === 0 ? [event('Frozen', { account: a })] : [])]);
  const batches: RecordedEvent[][] = [first];
  for (let b = 0; b < 3; b++) {
    const batch: RecordedEvent[] = [];
    accounts.forEach((a, i) => {
      batch.push(event('Moved', { account: a, amount: i + b }));
      if (i % 3 === b) batch.push(event('Held', { account: a, hold: `h${b}-${i}` }));
      if (b > 0 && i % 3 === b - 1) batch.push(event('Released', { account: a, hold: `h${b - 1}-${i}` }));
      if (i % 5 === 0) batch.push(event('Audited', { account: a }));
    });
    // An account opened and moved within one batch: the read is of this batch's own write.
    batch.push(event('Opened', { account: `late${b}` }), event('Moved', { account: `late${b}`, amount: 5 }));
    batches.push(batch);
  }
  return batches;
}

export async function project(prefetch: boolean): Promise<CountingStore> {
  const store = new CountingStore();
  for (const batch of history()) {
    const source = prefetch ? await prefetchingSource(store, collections, apply, batch) : store;
    store.commit(await reduceBatch(source, collections, apply, batch));
  }
  return store;
}
