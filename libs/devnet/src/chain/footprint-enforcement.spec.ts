import { Account, Address, Contract, Keypair, nativeToScVal, scValToBigInt, SorobanDataBuilder, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { createSorobanHost } from '../host/soroban-host';
import { DevnetChain, STANDALONE_PASSPHRASE } from './devnet-chain';
import { simulateTransaction } from './simulate';

/**
 * Footprint enforcement at apply time (soroban-env-host: an access outside the declared footprint, or a write to a
 * read-only entry, is Error(Storage, ExceededLimit) and the operation fails as INVOKE_HOST_FUNCTION_TRAPPED):
 * the transaction is included as FAILED, fee and sequence consumed, contract state unchanged.
 */
describe('footprint enforcement', () => {
  const issuer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 0x21));
  const alice = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 0x22));
  let chain: DevnetChain;
  let token: string;

  beforeEach(() => {
    chain = new DevnetChain({ host: createSorobanHost({ networkPassphrase: STANDALONE_PASSPHRASE }), networkPassphrase: STANDALONE_PASSPHRASE });
    chain.createAccount(issuer.publicKey(), 10n ** 12n);
    chain.createAccount(alice.publicKey(), 10n ** 12n);
    token = chain.deployStellarAsset('USDC', issuer.publicKey());
    chain.genesis();
  });

  /** mint(alice, amount) by the issuer, with the simulated footprint rewritten by `edit`. */
  function mint(amount: bigint, edit: (fp: { readOnly: xdr.LedgerKey[]; readWrite: xdr.LedgerKey[] }) => void): string {
    const account = chain.hostView.getAccount(issuer.publicKey())!;
    const tx = new TransactionBuilder(new Account(issuer.publicKey(), account.sequence.toString()), { fee: '100', networkPassphrase: STANDALONE_PASSPHRASE })
      .addOperation(new Contract(token).call('mint', new Address(alice.publicKey()).toScVal(), nativeToScVal(amount, { type: 'i128' })))
      .setTimeout(0)
      .build();
    const sim = simulateTransaction(chain.hostView, tx.toXDR(), chain.nextLedgerInfo());
    if (!sim.ok) throw new Error(sim.error);
    const data = xdr.SorobanTransactionData.fromXdr(sim.transactionData, 'base64');
    const fp = { readOnly: [...data.resources.footprint.readOnly], readWrite: [...data.resources.footprint.readWrite] };
    edit(fp);
    const op = xdr.Operation.fromXDR(
      new Contract(token).call('mint', new Address(alice.publicKey()).toScVal(), nativeToScVal(amount, { type: 'i128' })).toXDR(),
    );
    (op.body as unknown as { invokeHostFunctionOp: { auth: xdr.SorobanAuthorizationEntry[] } }).invokeHostFunctionOp.auth = sim.results[0]!.auth.map((a) =>
      xdr.SorobanAuthorizationEntry.fromXdr(a, 'base64'),
    );
    const signed = new TransactionBuilder(new Account(issuer.publicKey(), account.sequence.toString()), {
      fee: '100',
      networkPassphrase: STANDALONE_PASSPHRASE,
    })
      .addOperation(op)
      .setTimeout(0)
      .setSorobanData(new SorobanDataBuilder(sim.transactionData).setReadOnly(fp.readOnly).setReadWrite(fp.readWrite).build())
      .build();
    signed.sign(issuer);
    const sent = chain.submit(signed.toXDR());
    expect(sent.status).toBe('PENDING');
    chain.closeLedger();
    return sent.hash;
  }

  const balance = () => {
    const r = chain.hostView.invoke(
      {
        contractId: token,
        fn: 'balance',
        args: [new Address(alice.publicKey()).toScVal()],
        source: alice.publicKey(),
        ledger: chain.nextLedgerInfo(),
        authMode: 'record',
      },
      { commit: false },
    );
    if (!r.ok) throw new Error(r.message);
    return scValToBigInt(r.result);
  };
  const balanceKeyOf = (fp: { readWrite: xdr.LedgerKey[] }) => fp.readWrite.findIndex((k) => k.type === 'contractData');
  const outcome = (hash: string) => {
    const record = chain.history.transaction(hash)!;
    // TransactionResult codes: txSuccess 0 / txFailed -1; InvokeHostFunctionResultCode: SUCCESS 0 / TRAPPED -2.
    const wire = xdr.TransactionResult.fromXdr(record.resultXdr, 'base64').toXdrObject() as unknown as {
      result: { code: number; results: { tr: { invokeHostFunctionResult: { code: number } } }[] };
    };
    const names: Record<number, string> = { 0: 'success', [-1]: 'txFailed', [-2]: 'trapped' };
    return {
      status: record.status,
      code: names[wire.result.code],
      op: names[wire.result.results[0]!.tr.invokeHostFunctionResult.code],
      events: record.events.length,
    };
  };

  it('applies a transaction whose footprint covers every entry it touches', () => {
    expect(outcome(mint(5n, () => {}))).toEqual({ status: 'SUCCESS', code: 'success', op: 'success', events: 1 });
  });

  it('traps a read of an entry outside the footprint: FAILED, sequence consumed, nothing written', () => {
    const before = chain.hostView.getAccount(issuer.publicKey())!.sequence;
    const hash = mint(5n, (fp) => {
      fp.readOnly.splice(0, fp.readOnly.length); // the SAC instance is read but no longer declared
    });
    expect(outcome(hash)).toEqual({ status: 'FAILED', code: 'txFailed', op: 'trapped', events: 0 });
    expect(chain.hostView.getAccount(issuer.publicKey())!.sequence).toBe(before + 1n);
    expect(balance()).toBe(0n);
    expect(outcome(mint(7n, () => {})).status).toBe('SUCCESS'); // the next, complete one applies
    expect(balance()).toBe(7n);
  });

  it('traps a write to an entry declared read-only', () => {
    const hash = mint(5n, (fp) => {
      const i = balanceKeyOf(fp);
      fp.readOnly.push(fp.readWrite[i]!);
      fp.readWrite.splice(i, 1);
    });
    expect(outcome(hash)).toMatchObject({ status: 'FAILED', op: 'trapped' });
  });
});
