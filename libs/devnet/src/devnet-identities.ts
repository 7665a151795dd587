import { createHash } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';

/**
 * Devnet keys are derived from public labels, so they are NOT secrets: anyone can rebuild them. That is the point
 * (a reproducible local chain); never use them on a real network.
 */
export function devnetKeypair(label: string): Keypair {
  return Keypair.fromRawEd25519Seed(createHash('sha256').update(`dob-devnet/${label}`).digest());
}

/** Issuer (and SAC admin) of the devnet's test USDC. */
export const USDC_CODE = 'USDC';
export const usdcIssuer = (): Keypair => devnetKeypair('usdc-issuer');
