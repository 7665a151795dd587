import { Address, Keypair, nativeToScVal, StrKey, xdr } from '@stellar/stellar-sdk';
import { ledgerKeyBase64, scValBase64, scValBytes } from './fast-xdr';
import { accountKey, contractDataKey, instanceKey } from './ledger-entries';
import { compareScVal } from './scval';

const account = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 3)).publicKey();
const contract = StrKey.encodeContract(Buffer.alloc(32, 9));
const values: xdr.ScVal[] = [
  xdr.ScVal.scvBool(true),
  xdr.ScVal.scvVoid(),
  xdr.ScVal.scvU32(4_000_000_000),
  xdr.ScVal.scvI32(-7),
  xdr.ScVal.scvU64(2n ** 64n - 1n),
  xdr.ScVal.scvI64(-5n),
  nativeToScVal(-(2n ** 100n), { type: 'i128' }),
  nativeToScVal(2n ** 127n - 1n, { type: 'i128' }),
  nativeToScVal(3n, { type: 'u128' }),
  xdr.ScVal.scvBytes(Buffer.from([1, 2, 3, 4, 5])),
  xdr.ScVal.scvString('USDC:issuer'),
  xdr.ScVal.scvSymbol('Balance'),
  xdr.ScVal.scvSymbol('abcd'),
  new Address(account).toScVal(),
  new Address(contract).toScVal(),
  xdr.ScVal.scvLedgerKeyContractInstance(),
  xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Claim'), new Address(account).toScVal(), xdr.ScVal.scvU64(3n)]),
  xdr.ScVal.scvMap([new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('amount'), val: nativeToScVal(5n, { type: 'i128' }) })]),
  xdr.ScVal.scvVec(null as unknown as xdr.ScVal[]),
  xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: 42n })), // not hand-encoded: falls back to js-xdr
];

describe('fast-xdr: byte-identical to js-xdr', () => {
  it.each(values.map((v) => [v.type, v]))('%s', (_type, v) => {
    expect(scValBase64(v)).toBe(v.toXdr('base64'));
    expect(scValBytes(v).equals(Buffer.from(v.toXdr()))).toBe(true);
  });

  it('ledger keys: account, contract instance, persistent and temporary contract data', () => {
    const keys = [
      accountKey(account),
      instanceKey(contract),
      ...values.slice(0, -1).map((v, i) => contractDataKey(contract, v, i % 2 ? xdr.ContractDataDurability.temporary : xdr.ContractDataDurability.persistent)),
      contractDataKey(account, xdr.ScVal.scvU32(1), xdr.ContractDataDurability.persistent),
      xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: Buffer.alloc(32, 1) })),
    ];
    for (const k of keys) expect(ledgerKeyBase64(k)).toBe(k.toXdr('base64'));
  });

  it('host ordering of addresses follows their XDR (accounts before contracts)', () => {
    expect(compareScVal(new Address(account).toScVal(), new Address(contract).toScVal())).toBeLessThan(0);
    expect(compareScVal(xdr.ScVal.scvU32(9), xdr.ScVal.scvSymbol('a'))).toBeLessThan(0);
  });
});
