import { Keypair } from '@stellar/stellar-sdk';
import { signatureHint, verifyAccountSignature } from './ed25519';

describe('account ed25519 signatures (native)', () => {
  const kp = Keypair.random();
  const message = Buffer.from('DobProtocol Agent Auth');

  it('verifies what the SDK signs, and nothing else', () => {
    const signature = kp.sign(message);
    expect(verifyAccountSignature(kp.publicKey(), message, signature)).toBe(true);
    expect(verifyAccountSignature(kp.publicKey(), Buffer.from('another message'), signature)).toBe(false);
    expect(verifyAccountSignature(Keypair.random().publicKey(), message, signature)).toBe(false);
  });

  it('answers false, never throws, for malformed input', () => {
    expect(verifyAccountSignature(kp.publicKey(), message, Buffer.alloc(63))).toBe(false);
    expect(verifyAccountSignature('GNOTANACCOUNT', message, kp.sign(message))).toBe(false);
  });

  it("gives the SDK's signature hint", () => {
    expect(signatureHint(kp.publicKey()).equals(Buffer.from(kp.signatureHint()))).toBe(true);
  });
});
