/**
 * Where API instances that cache key lookups learn that keys changed (docs/auth.md "Key cache"). The epoch is a
 * value every committed change to a key's admission replaces in the same transaction as the change (the SQL index
 * bumps it in the writing statement), so a read of it that starts after a change's commit sees a new value.
 * Notifications are only the prompt path; the epoch read on a timer, under a lease, is the guarantee.
 */
export interface KeyChangeSignal {
  /** The epoch as stored now. Throws if it cannot be read (the cache then serves nothing from memory). */
  readEpoch(): Promise<string>;
  /** Calls `onChange` when a change is heard (sooner than the next epoch read). Returns the unsubscribe function. */
  listen(onChange: () => void): Promise<() => Promise<void>>;
}
