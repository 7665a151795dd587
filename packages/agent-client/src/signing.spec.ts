import { createHash } from 'node:crypto';
import { Account, Keypair, Networks, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { signChallenge } from './auth';
import { signPreparedTrade } from './trading';

describe('signChallenge', () => {
  const kp = Keypair.random();
  const message = 'dob agent api wants you to sign in with GABC…\nnonce: 0123456789abcdef';

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
