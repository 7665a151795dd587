/** What a pool or campaign address is, on one network, as the read models know it. */
export type PoolInfo =
  | {
      readonly kind: 'splitter';
      readonly networkId: number;
      readonly address: string;
      readonly name: string | null;
      /** '1' | '2' from the pool's init, null if unknown. */
      readonly poolVersion: string | null;
    }
  | {
      readonly kind: 'crowdfunding';
      readonly networkId: number;
      readonly address: string;
      readonly name: string | null;
      readonly paymentToken: string;
    };

export interface PoolLookup {
  find(networkId: number, address: string): Promise<PoolInfo | null>;
}
