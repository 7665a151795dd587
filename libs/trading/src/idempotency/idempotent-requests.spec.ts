import { AppError } from '@dob/domain';
import type { IdempotencyRecord, IdempotencyRecords, StoredAnswer } from '../ports/idempotency-records.port';
import { IdempotentRequests } from './idempotent-requests';

/** In-memory records with the SQL adapter's rules (claim once per key, complete once, abandon only unanswered). */
class MemoryRecords implements IdempotencyRecords {
  rows = new Map<string, { fingerprint: string; answer: StoredAnswer | null }>();
  async begin(keyId: string, key: string, fingerprint: string): Promise<'claimed' | IdempotencyRecord> {
    const id = `${keyId}/${key}`;
    const row = this.rows.get(id);
    if (row) return { ...row };
    this.rows.set(id, { fingerprint, answer: null });
    return 'claimed';
  }
  async find(keyId: string, key: string) {
    const row = this.rows.get(`${keyId}/${key}`);
    return row ? { ...row } : null;
  }
  async complete(keyId: string, key: string, answer: StoredAnswer) {
    const row = this.rows.get(`${keyId}/${key}`);
    if (row && !row.answer) row.answer = answer;
  }
  async abandon(keyId: string, key: string) {
    if (!this.rows.get(`${keyId}/${key}`)?.answer) this.rows.delete(`${keyId}/${key}`);
  }
}

const setup = () => {
  const records = new MemoryRecords();
  return { records, requests: new IdempotentRequests({ records, sleep: () => new Promise((r) => setImmediate(r)), waitMs: 1000, pollMs: 100 }) };
};
const fp = (body: unknown) => IdempotentRequests.fingerprint('POST', '/api/agent/marketplace/prepare-buy', body);

describe('Idempotency-Key', () => {
  it('the same key and request answers the first response again, marked a replay; the work runs once', async () => {
    const { requests } = setup();
    let runs = 0;
    const work = async () => ({ xdr: `tx${++runs}` });
    expect(await requests.run('ak_1', 'k1', fp({ amount: 1 }), work)).toEqual({ data: { xdr: 'tx1' }, replayed: false });
    expect(await requests.run('ak_1', 'k1', fp({ amount: 1 }), work)).toEqual({ data: { xdr: 'tx1' }, replayed: true });
    // Keys belong to the API key: another key's k1 is its own.
    expect(await requests.run('ak_2', 'k1', fp({ amount: 1 }), work)).toEqual({ data: { xdr: 'tx2' }, replayed: false });
    expect(runs).toBe(2);
  });

  it('the same key with another request is 422 IDEMPOTENCY_KEY_REUSED; a malformed key is 400', async () => {
    const { requests } = setup();
    await requests.run('ak_1', 'k1', fp({ amount: 1 }), async () => 'first');
    await expect(requests.run('ak_1', 'k1', fp({ amount: 2 }), async () => 'second')).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    await expect(requests.run('ak_1', 'bad key', fp({}), async () => 'x')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    await expect(requests.run('ak_1', undefined, fp({}), async () => 'no key')).resolves.toEqual({ data: 'no key', replayed: false });
  });

  it('a 4xx refusal is kept and replayed; a failure of ours frees the key so a retry runs again', async () => {
    const { requests } = setup();
    const refusal = new AppError('CONFLICT', 'listing is no longer active', { listing_id: 'SALE_1' });
    await expect(requests.run('ak_1', 'k1', fp({}), () => Promise.reject(refusal))).rejects.toBe(refusal);
    await expect(requests.run('ak_1', 'k1', fp({}), async () => 'later')).rejects.toMatchObject({ code: 'CONFLICT', details: { listing_id: 'SALE_1' } });
    await expect(requests.run('ak_1', 'k2', fp({}), () => Promise.reject(new AppError('NETWORK_UNAVAILABLE', 'rpc down')))).rejects.toMatchObject({
      status: 503,
    });
    await expect(requests.run('ak_1', 'k2', fp({}), async () => 'retried')).resolves.toEqual({ data: 'retried', replayed: false });
  });

  it('a repeat while the first still runs waits for its answer; past the wait it is 409 with retry_after_seconds', async () => {
    const { requests } = setup();
    let finish!: (v: string) => void;
    const first = requests.run('ak_1', 'k1', fp({}), () => new Promise<string>((r) => (finish = r)));
    const repeat = requests.run('ak_1', 'k1', fp({}), async () => 'never');
    await new Promise((r) => setImmediate(r));
    finish('done');
    expect(await first).toEqual({ data: 'done', replayed: false });
    expect(await repeat).toEqual({ data: 'done', replayed: true });

    void requests.run('ak_1', 'k3', fp({}), () => new Promise<string>(() => undefined));
    await new Promise((r) => setImmediate(r));
    await expect(requests.run('ak_1', 'k3', fp({}), async () => 'never')).rejects.toMatchObject({ code: 'CONFLICT', details: { retry_after_seconds: 1 } });
  });
});
