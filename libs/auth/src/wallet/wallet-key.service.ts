import { randomUUID } from 'node:crypto';
import { AppError } from '@dob/domain';
import { WrongExpectedVersionError, type EventStore } from '@dob/event-store';
import type { ApiKeyIndex } from '../keys/api-key-index.port';
import { generateApiKey, type IssuedApiKey } from '../keys/api-key';
import { newKeyId } from '../keys/key-id';
import {
  activeKeys,
  decideCreateKey,
  decideRevokeKey,
  decideRotateKey,
  decideSetRateLimit,
  emptyWallet,
  evolve,
  type WalletKey,
  type WalletKeys,
} from './wallet-keys.aggregate';
import { walletStreamId, type WalletEvent } from './wallet.events';

export interface CreatedKey {
  readonly key: string;
  readonly record: WalletKey;
}

export interface ListedKey extends WalletKey {
  readonly lastUsedAt: string | null;
}

export interface WalletKeyServiceOptions {
  readonly clock?: () => number;
  /** Attempts on optimistic-concurrency conflicts before giving up with CONFLICT (each re-reads the stream). */
  readonly maxAttempts?: number;
}

/**
 * Command handler of the wallet aggregate. Each command: read the stream, decide, append with expectedVersion =
 * the revision read; on a conflict re-read and decide again (so "at most 10 active keys" holds under concurrent
 * creates: two creates that both saw 9 cannot both append). After the append it projects the wallet's keys into
 * the guard's index before returning, which is what makes revoke/rotate effective "before the response returns".
 */
export class WalletKeyService {
  private readonly clock: () => number;
  private readonly maxAttempts: number;

  constructor(
    private readonly events: EventStore,
    private readonly index: ApiKeyIndex,
    options: WalletKeyServiceOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.maxAttempts = options.maxAttempts ?? 60;
  }

  async load(wallet: string): Promise<WalletKeys> {
    let state = emptyWallet(wallet);
    for (const e of await this.events.readStream(walletStreamId(wallet))) state = evolve(state, { type: e.type, data: e.data } as WalletEvent);
    return state;
  }

  async createKey(wallet: string, input: { label: string; scopes: readonly string[]; origin: 'register' | 'key_management' }): Promise<CreatedKey> {
    let issued: IssuedApiKey | undefined;
    const keyId = newKeyId(this.clock());
    const state = await this.execute(wallet, (s) => {
      issued ??= generateApiKey();
      return decideCreateKey(s, { keyId, material: issued, label: input.label, scopes: input.scopes, origin: input.origin, at: this.now() });
    });
    return { key: issued!.key, record: state.keys.get(keyId)! };
  }

  async listKeys(wallet: string): Promise<ListedKey[]> {
    const [state, lastUsed] = await Promise.all([this.load(wallet), this.index.lastUsed(wallet)]);
    return [...state.keys.values()].filter((k) => k.revokedAt === null).map((k) => ({ ...k, lastUsedAt: lastUsed.get(k.keyId)?.toISOString() ?? null }));
  }

  async revokeKey(wallet: string, keyId: string): Promise<WalletKey> {
    await this.suspendIfActive(wallet, keyId);
    const state = await this.execute(wallet, (s) => decideRevokeKey(s, { keyId, at: this.now() }));
    return state.keys.get(keyId)!;
  }

  async rotateKey(wallet: string, keyId: string): Promise<CreatedKey> {
    await this.suspendIfActive(wallet, keyId);
    let issued: IssuedApiKey | undefined;
    const state = await this.execute(wallet, (s) => {
      issued ??= generateApiKey();
      return decideRotateKey(s, { keyId, material: issued, at: this.now() });
    });
    return { key: issued!.key, record: state.keys.get(keyId)! };
  }

  /** Ops: sets a key's tier (60, 300, 1000+). Addressed by key_id alone, as an operator would. */
  async setRateLimit(keyId: string, rpm: number): Promise<WalletKey> {
    const wallet = await this.index.findWalletOfKey(keyId);
    if (!wallet) throw AppError.notFound('API key not found');
    const state = await this.execute(wallet, (s) => decideSetRateLimit(s, { keyId, rpm, at: this.now() }));
    return state.keys.get(keyId)!;
  }

  activeCount(state: WalletKeys): number {
    return activeKeys(state).length;
  }

  private async suspendIfActive(wallet: string, keyId: string): Promise<void> {
    const key = (await this.load(wallet)).keys.get(keyId);
    if (!key) throw AppError.notFound('API key not found');
    if (key.revokedAt === null) await this.index.suspend(keyId);
  }

  private now(): string {
    return new Date(this.clock()).toISOString();
  }

  /**
   * decide → append(expectedVersion) → project, retried on WrongExpectedVersionError. The projection runs even
   * when nothing is appended (an idempotent retry), which also repairs the index after a crash between an append
   * and its projection.
   */
  private async execute(wallet: string, decide: (state: WalletKeys) => WalletEvent | null): Promise<WalletKeys> {
    for (let attempt = 1; ; attempt++) {
      const state = await this.load(wallet);
      const event = decide(state);
      if (!event) {
        await this.index.project(wallet, state.version, [...state.keys.values()]);
        return state;
      }
      try {
        await this.events.appendToStream(walletStreamId(wallet), [{ id: randomUUID(), type: event.type, version: 1, data: event.data }], state.version);
      } catch (e) {
        if (e instanceof WrongExpectedVersionError && attempt < this.maxAttempts) {
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
          continue;
        }
        if (e instanceof WrongExpectedVersionError) throw AppError.conflict('Too many concurrent changes to this wallet; retry');
        throw e;
      }
      const next = evolve(state, event);
      await this.index.project(wallet, next.version, [...next.keys.values()]);
      return next;
    }
  }
}
