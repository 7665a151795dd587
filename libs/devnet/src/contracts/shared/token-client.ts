import { addr, asI128, i128 } from '../../host/scval';
import type { ContractEnv } from '../contract';

/** soroban-sdk `token::Client` over a SEP-41 token (SAC or participation token), via cross-contract calls. */
export const tokenClient = (env: ContractEnv, token: string) => ({
  balance: (id: string): bigint => asI128(env.invoke(token, 'balance', [addr(id)])),
  transfer: (from: string, to: string, amount: bigint): void => {
    env.invoke(token, 'transfer', [addr(from), addr(to), i128(amount)]);
  },
});
