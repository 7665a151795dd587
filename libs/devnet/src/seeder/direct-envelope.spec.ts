import { Account, Address, Contract, Keypair, nativeToScVal, SorobanDataBuilder, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { STANDALONE_PASSPHRASE } from '../chain/devnet-chain';
import { validateTransaction } from '../chain/validate-transaction';
import { directEnvelope } from './direct-envelope';

const signer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 5));
const contractId = StrKey.encodeContract(Buffer.alloc(32, 8));
const args = [new Address(signer.publicKey()).toScVal(), new Address(contractId).toScVal(), nativeToScVal(12_345n, { type: 'i128' })];
const sorobanData = new SorobanDataBuilder()
  .setResourceFee(13_500n)
  .setResources(1_300_000, 768, 1024)
  .setReadOnly([
    xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(contractId).toScAddress(),
        key: xdr.ScVal.scvLedgerKeyContractInstance(),
        durability: xdr.ContractDataDurability.persistent,
      }),
    ),
  ])
  .build();

/** The same call built the SDK way: TransactionBuilder + sorobanData + source-account auth entry + sign. */
function viaSdk(sourceAuth: boolean): string {
  const auth = sourceAuth
    ? [
        new xdr.SorobanAuthorizationEntry({
          credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
          rootInvocation: new xdr.SorobanAuthorizedInvocation({
            function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
              new xdr.InvokeContractArgs({ contractAddress: new Address(contractId).toScAddress(), functionName: 'transfer', args }),
            ),
            subInvocations: [],
          }),
        }),
      ]
    : [];
  const op = new Contract(contractId).call('transfer', ...args);
  const withAuth = xdr.Operation.fromXDR(op.toXDR());
  (withAuth.body as unknown as { invokeHostFunctionOp: { auth: xdr.SorobanAuthorizationEntry[] } }).invokeHostFunctionOp.auth = auth;
  const tx = new TransactionBuilder(new Account(signer.publicKey(), '99'), { fee: '100', networkPassphrase: STANDALONE_PASSPHRASE }) // the builder adds the resource fee: 13,600
    .addOperation(withAuth)
    .setTimeout(0)
    .setSorobanData(sorobanData)
    .build();
  tx.sign(signer);
  return tx.toXDR();
}

describe('directEnvelope: the bytes the SDK builds, signed for this network', () => {
  it.each([true, false])('sourceAuth=%s', (sourceAuth) => {
    const direct = directEnvelope(
      { signer, sequence: 100n, fee: 13_600n, contractId, fn: 'transfer', args, sourceAuth, sorobanData: Buffer.from(sorobanData.toXDR()) },
      STANDALONE_PASSPHRASE,
    );
    expect(direct.envelopeXdr).toBe(viaSdk(sourceAuth));
    const valid = validateTransaction(direct.envelopeXdr, {
      host: { getAccount: () => ({ accountId: signer.publicKey(), balance: 10n ** 9n, sequence: 99n }) },
      networkPassphrase: STANDALONE_PASSPHRASE,
      ledger: { sequence: 2, closeTime: 1_800_000_000n },
    });
    expect(valid.ok && valid.tx.hash).toBe(direct.hash);
  });
});
