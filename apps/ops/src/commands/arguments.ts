import { StrKey } from '@stellar/stellar-sdk';
import { OpsError } from '../ops-context';

/** A non-negative (or ≥ min) integer option, refused with the option's name otherwise. */
export function parseInteger(value: string, name: string, min: number): number {
  if (!/^\d+$/.test(value.trim())) throw new OpsError(`${name} must be an integer, got "${value}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new OpsError(`${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

/** A checksummed Stellar strkey: C… for contracts (pools), G… for accounts. */
export function parseAddress(value: string, kind: 'C' | 'G', what: string): string {
  const ok = kind === 'C' ? StrKey.isValidContract(value) : StrKey.isValidEd25519PublicKey(value);
  if (!ok) throw new OpsError(`${what} must be a valid ${kind}… Stellar address, got "${value}"`);
  return value;
}
