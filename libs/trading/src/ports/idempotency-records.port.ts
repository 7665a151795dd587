/** What a request with an Idempotency-Key answered, kept to answer the same again. */
export type StoredAnswer =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly details?: Record<string, unknown> };

export interface IdempotencyRecord {
  /** Hash of the request (method, path, body): the same key with another request is refused. */
  readonly fingerprint: string;
  /** null while the first request with this key is still running. */
  readonly answer: StoredAnswer | null;
}

/** Idempotency keys per API key. */
export interface IdempotencyRecords {
  /** Claims the key for this request; the existing record when it was claimed before. */
  begin(keyId: string, key: string, fingerprint: string, at: Date): Promise<'claimed' | IdempotencyRecord>;
  find(keyId: string, key: string): Promise<IdempotencyRecord | null>;
  complete(keyId: string, key: string, answer: StoredAnswer, at: Date): Promise<void>;
  /** Forgets a claim whose request failed in a way worth retrying (our fault, the network's): the key is free again. */
  abandon(keyId: string, key: string): Promise<void>;
}
