import { createHash } from 'node:crypto';
import { Account, Keypair, Networks, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { signChallenge } from './auth';
import { signPreparedTrade } from './trading';

describe('signChallenge', () => {
  const kp = Keypair.random();
  const message = `DobProtocol Agent Auth\nAddress: ${kp.publicKey()}\nNonce: ${'0a'.repeat(32)}\nTimestamp: 1767225600000`;

  it('sep53: ed25519 over sha256("Stellar Signed Message:\\n" + message), hex', () => {
    const sig = Buffer.from(signChallenge(message, kp, 'sep53'), 'hex');
    const digest = createHash('sha256').update(`Stellar Signed Message:\n${message}`, 'utf8').digest();
    expect(kp.verify(digest, sig)).toBe(true);
    expect(kp.verify(Buffer.from(message, 'utf8'), sig)).toBe(false);
  });

  it("raw: ed25519 over the message's UTF-8 bytes, hex", () => {
    const sig = Buffer.from(signChallenge(message, kp, 'raw'), 'hex');
    expect(kp.verify(Buffer.from(message, 'utf8'), sig)).toBe(true);
  });

  it('raw: refuses anything but a sign-in challenge for this wallet, before signing', () => {
    const other = Keypair.random().publicKey();
    const refusals = [
      'hello', // not the challenge's shape
      Buffer.alloc(32, 1).toString('latin1'), // 32 bytes: what a transaction hash would be
      message.replace(kp.publicKey(), other), // another wallet's challenge
      `${message}\nAmount: 1000`, // the challenge with more after it
      `Stellar Signed Message:\n${message}`, // a prefix in front
      message.replace(/Nonce: \w+/, 'Nonce: 12'), // not the API's nonce
    ];
    for (const bad of refusals) expect(() => signChallenge(bad, kp, 'raw')).toThrow('refusing to sign raw bytes');
  });
});

describe('signPreparedTrade', () => {
  const wallet = Keypair.random();
  const unsigned = (source: string) =>
    new TransactionBuilder(new Account(source, '41'), { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.bumpSequence({ bumpTo: '42' }))
      .setTimeout(600)
      .build()
      .toXDR();

  it('signs the envelope with the wallet: the signature verifies over the transaction hash', () => {
    const signed = TransactionBuilder.fromXDR(
      signPreparedTrade({ xdr: unsigned(wallet.publicKey()), networkPassphrase: Networks.TESTNET }, wallet),
      Networks.TESTNET,
    ) as Transaction;
    expect(signed.signatures).toHaveLength(1);
    expect(wallet.verify(Buffer.from(signed.hash()), Buffer.from(signed.signatures[0].signature.value))).toBe(true);
  });

  it('refuses an envelope prepared for another account', () => {
    const other = Keypair.random().publicKey();
    expect(() => signPreparedTrade({ xdr: unsigned(other), networkPassphrase: Networks.TESTNET }, wallet)).toThrow(
      `prepared for ${other}, but the signer is ${wallet.publicKey()}`,
    );
  });
});
