/**
 * Leases: which process owns a piece of single-writer work (a projection, the webhook fan-out, the Kafka relay, one
 * network's ingestion, the scheduler) right now. A lease is held for a duration and renewed on a heartbeat; when
 * its holder stops renewing (crash, pause, partition) it lapses and a standby takes it with a higher token. The
 * token fences: every commit of leased work checks, in its own transaction, that the lease still carries the token
 * it was started with, so a holder that lost its lease (a zombie) commits nothing more (docs/ARCHITECTURE.md).
 */
export interface LeaseOwner {
  /** Unique per process start: `<app>@<host>:<pid>:<random>`. */
  readonly id: string;
  readonly app: string;
  readonly host: string;
  readonly pid: number;
}

/** A lease this process holds. The token only grows: each new holder gets the previous token + 1. */
export interface HeldLease {
  readonly name: string;
  readonly token: number;
  readonly ownerId: string;
}

/** What leased work passes to its commit so the store can refuse a stale holder. */
export interface LeaseFence {
  readonly name: string;
  readonly token: number;
  /** The lease's duration: a commit left open longer than this (its process paused mid-transaction) is ended. */
  readonly durationMs?: number;
}

/** A stored lease as operators see it (`npm run ops -- cluster status`). */
export interface LeaseRecord {
  readonly name: string;
  readonly token: number;
  readonly owner: LeaseOwner;
  readonly acquiredAt: Date;
  readonly renewedAt: Date;
  readonly expiresAt: Date;
  /** Lapsed: the holder stopped renewing (or released it) and nobody has taken it yet. */
  readonly lapsed: boolean;
  /** What the holder reported with its last renewal (e.g. the indexer's ledgers behind). */
  readonly progress: Record<string, unknown> | null;
}

export interface LeaseStore {
  /** Creates the bookkeeping (idempotent). */
  init(): Promise<void>;
  /** Takes the lease when it is free, lapsed, or this owner's; null while another owner holds it. */
  tryAcquire(name: string, owner: LeaseOwner, durationMs: number): Promise<HeldLease | null>;
  /** Extends a held lease; false when it is no longer this holder's (taken over: a higher token exists). */
  renew(lease: HeldLease, durationMs: number, progress?: Record<string, unknown> | null): Promise<boolean>;
  /** Lets a standby take over at once (a clean stop); the token stays, so the next holder's is higher. */
  release(lease: HeldLease): Promise<void>;
  list(): Promise<LeaseRecord[]>;
}

/** Thrown by a commit whose lease token is no longer the stored one (or whose lease lapsed): nothing was written. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly fence: LeaseFence) {
    super(`lease ${fence.name} is no longer held with token ${fence.token}: commit refused (fenced)`);
  }
}
