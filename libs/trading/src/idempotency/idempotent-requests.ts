import { createHash } from 'node:crypto';
import { AppError } from '@dob/domain';
import type { IdempotencyRecords, StoredAnswer } from '../ports/idempotency-records.port';

export interface IdempotentRequestsOptions {
  readonly records: IdempotencyRecords;
  readonly clock?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
  /** How long a repeat waits for the first request with its key to finish (default 20 s), then 409 + Retry-After. */
  readonly waitMs?: number;
  readonly pollMs?: number;
}

// Visible ASCII, as a header value allows without quoting issues; long enough for UUIDs and ULIDs with a prefix.
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/**
 * The optional Idempotency-Key header of prepare-* and submit-* (IETF draft-ietf-httpapi-idempotency-key-header):
 * the first request with a key runs and its answer (success, or a 4xx refusal) is kept; the same key with the same
 * request answers that again (marked a replay); the same key with another request is 422 IDEMPOTENCY_KEY_REUSED; a
 * repeat while the first still runs waits for it, bounded, then 409 with Retry-After. A failure that is not the
 * client's (5xx, network) frees the key so a retry runs again. Keys belong to the API key that sent them.
 */
export class IdempotentRequests {
  private readonly now: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly o: IdempotentRequestsOptions) {
    this.now = o.clock ?? (() => new Date());
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash('sha256')
      .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
      .digest('hex');
  }

  async run<T>(keyId: string, key: string | undefined, fingerprint: string, request: () => Promise<T>): Promise<{ data: T; replayed: boolean }> {
    if (key === undefined) return { data: await request(), replayed: false };
    if (!KEY_FORMAT.test(key)) throw AppError.validation('Idempotency-Key must be 1 to 255 visible ASCII characters');
    const existing = await this.o.records.begin(keyId, key, fingerprint, this.now());
    if (existing !== 'claimed') {
      if (existing.fingerprint !== fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request; use a new key for a new request');
      }
      return { data: replay<T>(existing.answer ?? (await this.awaitAnswer(keyId, key))), replayed: true };
    }
    try {
      const data = await request();
      await this.o.records.complete(keyId, key, { ok: true, data }, this.now());
      return { data, replayed: false };
    } catch (e) {
      if (e instanceof AppError && e.status < 500) {
        await this.o.records.complete(keyId, key, { ok: false, code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }, this.now());
      } else {
        await this.o.records.abandon(keyId, key);
      }
      throw e;
    }
  }

  private async awaitAnswer(keyId: string, key: string): Promise<StoredAnswer> {
    const waitMs = this.o.waitMs ?? 20_000;
    const pollMs = this.o.pollMs ?? 250;
    for (let waited = 0; waited < waitMs; waited += pollMs) {
      await this.sleep(pollMs);
      const r = await this.o.records.find(keyId, key);
      if (r?.answer) return r.answer;
      if (!r) break; // the first request failed on our side and freed the key
    }
    throw AppError.conflict('A request with this Idempotency-Key is still being processed; retry later', { retry_after_seconds: 1 }, 1);
  }
}

function replay<T>(answer: StoredAnswer): T {
  if (answer.ok) return answer.data as T;
  throw new AppError(answer.code as AppError['code'], answer.message, answer.details);
}
