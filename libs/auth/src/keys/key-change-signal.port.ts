/**
 * How API instances that cache key lookups learn that keys changed (docs/auth.md "Key cache"). A writer calls
 * `announce()` after every committed change to a key's admission; it replaces the shared epoch with a value never
 * used before, so every instance's next rate-limit decision (which reads the epoch in its own round trip) differs
 * from the epoch its cache was filled under. Notifications are only the prompt path; the epoch is the guarantee.
 */
export interface KeyChangeSignal {
  /** Resolves once the new epoch is stored: any request that starts after this sees it. Throws if it could not be. */
  announce(): Promise<void>;
  /**
   * Pushes each announced epoch as it is heard, and `null` when notifications may have been missed (a reconnect):
   * the listener then forgets everything. Returns the unsubscribe function.
   */
  listen(onEpoch: (epoch: string | null) => void): Promise<() => Promise<void>>;
}
