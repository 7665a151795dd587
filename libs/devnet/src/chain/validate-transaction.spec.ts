import { Account, Contract, Keypair, nativeToScVal, SorobanDataBuilder, StrKey, TransactionBuilder } from '@stellar/stellar-sdk';
import type { AccountRecord } from '../host/host.port';
import { STANDALONE_PASSPHRASE } from './devnet-chain';
import { validateTransaction } from './validate-transaction';

/** Validation against a fake account book (the host's getAccount is all validation reads). */
const source = Keypair.random();
const accounts = new Map<string, AccountRecord>([[source.publicKey(), { accountId: source.publicKey(), balance: 1_000_000_000n, sequence: 41n }]]);
const host = { getAccount: (id: string) => accounts.get(id) };
const ledger = { sequence: 10, closeTime: 1_800_000_000n };
const contract = new Contract(StrKey.encodeContract(Buffer.alloc(32, 3)));

function build(opts: { seq?: string; fee?: string; resourceFee?: bigint; maxTime?: number; signer?: Keypair; passphrase?: string; soroban?: boolean } = {}) {
  const builder = new TransactionBuilder(new Account(source.publicKey(), opts.seq ?? '41'), {
    fee: opts.fee ?? '100',
    networkPassphrase: opts.passphrase ?? STANDALONE_PASSPHRASE,
  })
    .addOperation(contract.call('ping', nativeToScVal(1, { type: 'u32' })))
    .setTimebounds(0, opts.maxTime ?? 1_800_000_100);
  if (opts.soroban !== false) builder.setSorobanData(new SorobanDataBuilder().setResourceFee(opts.resourceFee ?? 10_000n).build());
  const tx = builder.build();
  tx.sign(opts.signer ?? source);
  return tx.toXDR();
}

const validate = (xdr: string) => validateTransaction(xdr, { host, networkPassphrase: STANDALONE_PASSPHRASE, ledger });
const code = (xdr: string) => {
  const v = validate(xdr);
  return v.ok ? 'ok' : v.code;
};

describe('validateTransaction (stellar-core admission rules)', () => {
  it('admits a well-formed, signed, funded transaction with the next sequence number', () => {
    const v = validate(build());
    expect(v.ok).toBe(true);
    if (v.ok) {
      expect(v.tx.sequence).toBe(42n);
      expect(v.tx.call).toMatchObject({ contractId: contract.contractId(), fn: 'ping' });
    }
  });

  it('rejects with the real TransactionResult codes', () => {
    expect(code(build({ seq: '40' }))).toBe('txBadSeq'); // sequence 41 ≠ current + 1
    expect(code(build({ seq: '42' }))).toBe('txBadSeq');
    expect(code(build({ signer: Keypair.random() }))).toBe('txBadAuth');
    expect(code(build({ passphrase: 'Test SDF Network ; September 2015' }))).toBe('txBadAuth');
    expect(code(build({ maxTime: 1_799_999_999 }))).toBe('txTooLate');
    expect(code(build({ fee: '99' }))).toBe('txInsufficientFee'); // the builder adds resourceFee: 99 + 10,000 < 100 + 10,000
    expect(code(build({ soroban: false }))).toBe('txMalformed');
    expect(code('not xdr')).toBe('txMalformed');
    accounts.delete(source.publicKey());
    try {
      expect(code(build())).toBe('txNoAccount');
    } finally {
      accounts.set(source.publicKey(), { accountId: source.publicKey(), balance: 1_000_000_000n, sequence: 41n });
    }
  });

  it('rejects an extra unused signature', () => {
    const tx = TransactionBuilder.fromXDR(build(), STANDALONE_PASSPHRASE);
    tx.sign(Keypair.random());
    expect(code(tx.toXDR())).toBe('txBadAuthExtra');
  });
});
