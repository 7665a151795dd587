import { Address, hash, Keypair, xdr } from '@stellar/stellar-sdk';
import { randomBytes } from 'node:crypto';
import { HostError } from './host-errors';
import { scvEquals } from './scval';
import { networkId } from './contract-address';

/** One contract-function frame on the call stack, as far as authorization cares. */
export interface AuthFrame {
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  /** Contract that called this frame (undefined for the transaction's root invocation). */
  readonly invoker: string | undefined;
  /** Per address: the node of the auth tree this frame was matched to / recorded as. */
  readonly authNodes: Map<string, AuthNode>;
}

interface AuthNode {
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  readonly subs: AuthNode[];
  /** enforce mode: the entry this node belongs to */
  readonly entry?: ProvidedEntry;
  consumed: boolean;
}

interface ProvidedEntry {
  readonly address: string;
  readonly isSourceAccount: boolean;
  readonly raw: xdr.SorobanAuthorizationEntry;
  readonly root: AuthNode;
  verified: boolean;
}

export interface AuthContext {
  readonly mode: 'record' | 'enforce';
  readonly source: string;
  readonly passphrase: string;
  readonly ledgerSequence: number;
  readonly entries: readonly xdr.SorobanAuthorizationEntry[];
  /** Records that a nonce was consumed; returns false if it was already used (replay). */
  consumeNonce(address: string, nonce: bigint, liveUntilLedger: number): boolean;
}

/**
 * `require_auth` semantics of the Soroban host.
 * - An address that is the direct invoker contract of the frame is authorized implicitly.
 * - record (simulation): each require_auth becomes a node of that address's invocation tree; it nests under
 *   the nearest ancestor frame that already required the same address, else it starts a new root — giving,
 *   e.g., buy_shares(buyer…) with sub-invocations token.transfer(buyer, seller, x) and transfer(buyer, rcpt, y).
 * - enforce: each require_auth must match an unconsumed node of a provided entry (the root for a fresh tree,
 *   a sub-invocation of the ancestor's matched node otherwise); address credentials must carry a valid ed25519
 *   signature of sha256(HashIdPreimage::SorobanAuthorization{networkId, nonce, expiration, rootInvocation}).
 *   Custom accounts (C… credentials with __check_auth) are not supported.
 */
export class AuthTracker {
  private readonly recordedRoots: Array<{ address: string; node: AuthNode }> = [];
  private readonly provided: ProvidedEntry[];

  constructor(private readonly ctx: AuthContext) {
    this.provided = ctx.mode === 'enforce' ? ctx.entries.map((e) => this.parseEntry(e)) : [];
  }

  requireAuth(stack: readonly AuthFrame[], address: string): void {
    const frame = stack[stack.length - 1];
    if (!frame) throw new Error('require_auth outside of a frame');
    if (frame.invoker === address) return;
    if (frame.authNodes.has(address)) return;
    let parent: AuthNode | undefined;
    for (let i = stack.length - 2; i >= 0 && !parent; i--) parent = stack[i]!.authNodes.get(address);
    if (this.ctx.mode === 'record') this.record(frame, address, parent);
    else this.enforce(frame, address, parent);
  }

  /** record mode: the auth entries a simulation returns. */
  recordedEntries(): xdr.SorobanAuthorizationEntry[] {
    return this.recordedRoots.map(({ address, node }) => {
      const credentials =
        address === this.ctx.source
          ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
          : xdr.SorobanCredentials.sorobanCredentialsAddress(
              new xdr.SorobanAddressCredentials({
                address: Address.fromString(address).toScAddress(),
                nonce: randomBytes(8).readBigInt64BE(),
                signatureExpirationLedger: 0,
                signature: xdr.ScVal.scvVoid(),
              }),
            );
      return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: toInvocation(node) });
    });
  }

  private record(frame: AuthFrame, address: string, parent: AuthNode | undefined): void {
    const node: AuthNode = { contractId: frame.contractId, fn: frame.fn, args: frame.args, subs: [], consumed: true };
    if (parent) parent.subs.push(node);
    else this.recordedRoots.push({ address, node });
    frame.authNodes.set(address, node);
  }

  private enforce(frame: AuthFrame, address: string, parent: AuthNode | undefined): void {
    const candidates: AuthNode[] = parent ? parent.subs : this.provided.filter((p) => p.address === address && !p.root.consumed).map((p) => p.root);
    const node = candidates.find((n) => !n.consumed && matches(n, frame));
    if (!node) throw HostError.auth(`${address} did not authorize ${frame.contractId}.${frame.fn}`);
    const entry = node.entry!;
    if (!entry.verified) this.verify(entry);
    node.consumed = true;
    frame.authNodes.set(address, node);
  }

  private verify(entry: ProvidedEntry): void {
    if (entry.isSourceAccount) {
      entry.verified = true;
      return;
    }
    const creds = entry.raw.credentials;
    if (creds.type !== 'sorobanCredentialsAddress') throw HostError.auth('unsupported credentials type');
    const c = creds.address;
    if (!entry.address.startsWith('G')) throw HostError.auth('contract (custom account) credentials are not supported');
    if (c.signatureExpirationLedger < this.ctx.ledgerSequence) throw HostError.auth('signature expired');
    const payload = hash(
      Buffer.from(
        xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
          new xdr.HashIdPreimageSorobanAuthorization({
            networkId: networkId(this.ctx.passphrase),
            nonce: c.nonce,
            signatureExpirationLedger: c.signatureExpirationLedger,
            invocation: entry.raw.rootInvocation,
          }),
        ).toXdr(),
      ),
    );
    const kp = Keypair.fromPublicKey(entry.address);
    const signed = signaturesOf(c.signature).some(
      (s) => Buffer.from(s.publicKey).equals(kp.rawPublicKey()) && kp.verify(Buffer.from(payload), Buffer.from(s.signature)),
    );
    if (!signed) throw HostError.auth(`bad signature for ${entry.address}`);
    if (!this.ctx.consumeNonce(entry.address, c.nonce, c.signatureExpirationLedger)) throw HostError.auth('nonce already used');
    entry.verified = true;
  }

  private parseEntry(raw: xdr.SorobanAuthorizationEntry): ProvidedEntry {
    const creds = raw.credentials;
    const isSourceAccount = creds.type === 'sorobanCredentialsSourceAccount';
    const address = isSourceAccount
      ? this.ctx.source
      : creds.type === 'sorobanCredentialsAddress'
        ? Address.fromScAddress(creds.address.address).toString()
        : '';
    const entry: ProvidedEntry = { address, isSourceAccount, raw, root: undefined as unknown as AuthNode, verified: false };
    (entry as { root: AuthNode }).root = fromInvocation(raw.rootInvocation, entry);
    return entry;
  }
}

interface SignaturePair {
  publicKey: Uint8Array;
  signature: Uint8Array;
}

/** Account signatures: Vec<Map{public_key: Bytes, signature: Bytes}> (soroban-env-host AccountEd25519Signature). */
function signaturesOf(sig: xdr.ScVal): SignaturePair[] {
  if (sig.type !== 'scvVec') return [];
  const out: SignaturePair[] = [];
  for (const item of sig.vec ?? []) {
    if (item.type !== 'scvMap') continue;
    const pair: Partial<SignaturePair> = {};
    for (const e of item.map ?? []) {
      if (e.key.type !== 'scvSymbol' || e.val.type !== 'scvBytes') continue;
      const b = e.val.toXdrObject().bytes as Uint8Array;
      if (e.key.value === 'public_key') pair.publicKey = b;
      if (e.key.value === 'signature') pair.signature = b;
    }
    if (pair.publicKey && pair.signature) out.push(pair as SignaturePair);
  }
  return out;
}

function matches(node: AuthNode, frame: AuthFrame): boolean {
  if (node.contractId !== frame.contractId || node.fn !== frame.fn || node.args.length !== frame.args.length) return false;
  return node.args.every((a, i) => scvEquals(a, frame.args[i]!));
}

function toInvocation(node: AuthNode): xdr.SorobanAuthorizedInvocation {
  return new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({
        contractAddress: Address.fromString(node.contractId).toScAddress(),
        functionName: node.fn,
        args: [...node.args],
      }),
    ),
    subInvocations: node.subs.map(toInvocation),
  });
}

function fromInvocation(inv: xdr.SorobanAuthorizedInvocation, entry: ProvidedEntry): AuthNode {
  const subs = inv.subInvocations.map((s) => fromInvocation(s, entry));
  const f = inv.function;
  if (f.type !== 'sorobanAuthorizedFunctionTypeContractFn') {
    // create-contract host functions are never required by the reproduced contracts: an unmatchable node.
    return { contractId: '', fn: '', args: [], subs, entry, consumed: false };
  }
  const c = f.contractFn;
  return {
    contractId: Address.fromScAddress(c.contractAddress).toString(),
    fn: c.functionName.toString(),
    args: c.args,
    subs,
    entry,
    consumed: false,
  };
}
