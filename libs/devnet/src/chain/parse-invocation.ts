import { Address, xdr } from '@stellar/stellar-sdk';

/** The single contract call a devnet transaction carries (the chain supports invokeHostFunction/invokeContract only). */
export interface ContractCall {
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  readonly auth: readonly xdr.SorobanAuthorizationEntry[];
}

export type InvocationParse =
  | { readonly ok: true; readonly call: ContractCall; readonly sorobanData: xdr.SorobanTransactionData | null }
  | { readonly ok: false; readonly reason: 'missing' | 'not-invoke' | 'unsupported-host-function' | 'too-many-operations' };

export function parseInvocation(envelope: xdr.TransactionEnvelope): InvocationParse {
  if (envelope.type !== 'envelopeTypeTx') return { ok: false, reason: 'not-invoke' };
  const tx = envelope.v1.tx;
  if (tx.operations.length === 0) return { ok: false, reason: 'missing' };
  if (tx.operations.length > 1) return { ok: false, reason: 'too-many-operations' };
  const body = tx.operations[0].body;
  if (body.type !== 'invokeHostFunction') return { ok: false, reason: 'not-invoke' };
  const op = body.invokeHostFunctionOp;
  if (op.hostFunction.type !== 'hostFunctionTypeInvokeContract') return { ok: false, reason: 'unsupported-host-function' };
  const invoke = op.hostFunction.invokeContract;
  const sorobanData = tx.ext.type === 'sorobanData' ? tx.ext.sorobanData : null;
  return {
    ok: true,
    call: {
      contractId: Address.fromScAddress(invoke.contractAddress).toString(),
      fn: Buffer.from(invoke.functionName.bytes).toString('utf8'),
      args: invoke.args,
      auth: op.auth,
    },
    sorobanData,
  };
}
