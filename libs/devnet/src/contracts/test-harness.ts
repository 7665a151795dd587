import { Keypair, Networks, xdr } from '@stellar/stellar-sdk';
import type { ContractKind, InvokeSuccess, LedgerInfo, SorobanHost } from '../host/host.port';
import { createSorobanHost } from '../host/soroban-host';

/** Test-only driver of a SorobanHost: accounts, one payment SAC, calls in record mode with commit. */
export class HostHarness {
  readonly host: SorobanHost;
  readonly passphrase = Networks.STANDALONE;
  readonly issuer = Keypair.random().publicKey();
  readonly token: string;
  time = 1_700_000_000n;
  sequence = 100;

  constructor() {
    this.host = createSorobanHost({ networkPassphrase: this.passphrase });
    this.host.createAccount(this.issuer, 10_000_000_000n, 1);
    this.token = this.host.deployStellarAsset('USDC', this.issuer, this.ledger());
  }

  ledger(): LedgerInfo {
    return { sequence: this.sequence, closeTime: this.time, networkPassphrase: this.passphrase };
  }

  account(): string {
    const id = Keypair.random().publicKey();
    this.host.createAccount(id, 10_000_000_000n, this.sequence);
    return id;
  }

  deploy(kind: ContractKind): string {
    return this.host.deployContract(kind, Buffer.from(Keypair.random().rawPublicKey()), this.ledger());
  }

  /** Invokes and commits (record-mode auth, like soroban-sdk mock_all_auths); throws on failure. */
  call(contractId: string, fn: string, args: xdr.ScVal[], source: string = this.issuer): InvokeSuccess {
    this.sequence += 1;
    const r = this.host.invoke({ contractId, fn, args, source, ledger: this.ledger(), authMode: 'record' }, { commit: true });
    if (!r.ok) throw new Error(`${fn} failed: ${r.message}`);
    return r;
  }

  /** Invokes expecting failure; returns the ScError as JSON, e.g. { contract: 13 }. */
  fail(contractId: string, fn: string, args: xdr.ScVal[], source: string = this.issuer): unknown {
    const r = this.host.invoke({ contractId, fn, args, source, ledger: this.ledger(), authMode: 'record' }, { commit: true });
    if (r.ok) throw new Error(`${fn} unexpectedly succeeded`);
    return r.error.toJson();
  }

  /** Read-only call (simulation, no commit). */
  read(contractId: string, fn: string, args: xdr.ScVal[] = []): unknown {
    const r = this.host.invoke({ contractId, fn, args, source: this.issuer, ledger: this.ledger(), authMode: 'record' }, { commit: false });
    if (!r.ok) throw new Error(`${fn} failed: ${r.message}`);
    return r.result.toJson();
  }

  events(r: InvokeSuccess): unknown[] {
    return r.events.map((e) => {
      const j = e.toJson() as { contract_id: string; body: { v0: { topics: unknown[]; data: unknown } } };
      return { contract: j.contract_id, topics: j.body.v0.topics, data: j.body.v0.data };
    });
  }
}
