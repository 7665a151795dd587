import { Keypair } from '@stellar/stellar-sdk';
import { challengeMessage } from './wallet-challenges';
import { isStellarAccountId, verifyWalletSignature } from './signature';

describe('wallet signature verification (native ed25519)', () => {
  const kp = Keypair.random();
  const other = Keypair.random();
  const message = challengeMessage('DobProtocol', kp.publicKey(), 'ab'.repeat(32), 1_710_000_000_000);

  it('accepts a raw ed25519 signature over the UTF-8 message (keypair.sign, as Dob documents)', () => {
    const sig = Buffer.from(kp.sign(Buffer.from(message, 'utf8'))).toString('hex');
    expect(verifyWalletSignature(kp.publicKey(), message, sig)).toBe('ed25519-raw');
    expect(verifyWalletSignature(kp.publicKey(), message, sig.toUpperCase())).toBe('ed25519-raw');
  });

  it('accepts a SEP-53 signature (Keypair.signMessage)', () => {
    const sig = Buffer.from(kp.signMessage(message)).toString('hex');
    expect(verifyWalletSignature(kp.publicKey(), message, sig)).toBe('sep53');
    // Cross-check with the SDK's own SEP-53 verifier.
    expect(kp.verifyMessage(message, Buffer.from(sig, 'hex'))).toBe(true);
  });

  it('refuses a signature by another wallet, over another message, or malformed', () => {
    const foreign = Buffer.from(other.signMessage(message)).toString('hex');
    expect(verifyWalletSignature(kp.publicKey(), message, foreign)).toBeNull();
    const sig = Buffer.from(kp.signMessage(message)).toString('hex');
    expect(verifyWalletSignature(kp.publicKey(), message + ' ', sig)).toBeNull();
    expect(verifyWalletSignature(kp.publicKey(), message, sig.slice(2))).toBeNull();
    expect(verifyWalletSignature(kp.publicKey(), message, 'zz' + sig.slice(2))).toBeNull();
    expect(verifyWalletSignature(kp.publicKey(), message, Buffer.from(sig, 'hex').toString('base64'))).toBeNull();
    expect(verifyWalletSignature('GNOTAKEY', message, sig)).toBeNull();
  });

  it('recognises only G… account ids', () => {
    expect(isStellarAccountId(kp.publicKey())).toBe(true);
    expect(isStellarAccountId(kp.publicKey().replace(/^G/, 'C'))).toBe(false);
    // Another last character breaks the checksum (a fixed 'A' was the key itself for 1 random key in 32).
    const pk = kp.publicKey();
    expect(isStellarAccountId(pk.slice(0, -1) + (pk.endsWith('A') ? 'B' : 'A'))).toBe(false);
    expect(isStellarAccountId(42)).toBe(false);
  });

  it('names the service, the wallet, a 32-byte nonce and the time in the challenge text', () => {
    expect(message).toBe(`DobProtocol Agent Auth\nAddress: ${kp.publicKey()}\nNonce: ${'ab'.repeat(32)}\nTimestamp: 1710000000000`);
  });
});
