import { Asset, authorizeEntry, Keypair, Networks, xdr } from '@stellar/stellar-sdk';
import { accountKey, instanceKey } from './ledger-entries';
import type { InvokeResult, InvokeSuccess, LedgerInfo, SorobanHost } from './host.port';
import { addr, i128 } from './scval';
import { createSorobanHost, DEVNET_DEPLOYER } from './soroban-host';
import { contractIdFromDeployer } from './contract-address';

const PASS = Networks.STANDALONE;
const ledger: LedgerInfo = { sequence: 10, closeTime: 1_700_000_000n, networkPassphrase: PASS };
const issuer = Keypair.random();
const alice = Keypair.random();
const bob = Keypair.random();

function ok(r: InvokeResult): InvokeSuccess {
  if (!r.ok) throw new Error(`invocation failed: ${r.message}`);
  return r;
}

function setup(): { host: SorobanHost; usdc: string } {
  const host = createSorobanHost({ networkPassphrase: PASS });
  for (const k of [issuer, alice, bob]) host.createAccount(k.publicKey(), 100_000_000_000n, 1);
  const usdc = host.deployStellarAsset('USDC', issuer.publicKey(), ledger);
  return { host, usdc };
}

const call = (
  host: SorobanHost,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
  source: string,
  commit = true,
  authMode: 'record' | 'enforce' = 'record',
  authEntries?: xdr.SorobanAuthorizationEntry[],
) => host.invoke({ contractId, fn, args, source, ledger, authMode, ...(authEntries ? { authEntries } : {}) }, { commit });

describe('soroban host: accounts and world state', () => {
  it('stores real AccountEntry XDR readable through getLedgerEntries, with sequence = ledger << 32', () => {
    const { host } = setup();
    const [rec] = host.getLedgerEntries([accountKey(alice.publicKey())]);
    expect(rec?.entry.type).toBe('account');
    expect(host.getAccount(alice.publicKey())).toEqual({ accountId: alice.publicKey(), balance: 100_000_000_000n, sequence: 1n << 32n });
    host.consumeSequenceAndFee(alice.publicKey(), (1n << 32n) + 1n, 100n, 11);
    expect(host.getAccount(alice.publicKey())).toEqual({ accountId: alice.publicKey(), balance: 99_999_999_900n, sequence: (1n << 32n) + 1n });
  });

  it('derives SAC and deployed contract addresses like the real network', () => {
    const { host, usdc } = setup();
    expect(usdc).toBe(new Asset('USDC', issuer.publicKey()).contractId(PASS));
    expect(host.kindOf(usdc)).toBe('stellar_asset');
    const salt = Buffer.alloc(32, 7);
    const cf = host.deployContract('crowdfunding_v1', salt, ledger);
    expect(cf).toBe(contractIdFromDeployer(PASS, DEVNET_DEPLOYER, salt));
    expect(host.wasmHashOf(cf)).toBe('595c713623b2da4adc688e40ee03264a229d21fe3d77d7d1e35cf424185d17eb');
    const [inst] = host.getLedgerEntries([instanceKey(cf)]);
    expect(inst?.liveUntilLedgerSeq).toBeGreaterThan(ledger.sequence);
  });

  it('serialises and restores the whole ledger', () => {
    const { host, usdc } = setup();
    ok(call(host, usdc, 'mint', [addr(alice.publicKey()), i128(500n)], issuer.publicKey()));
    const restored = createSorobanHost({ networkPassphrase: PASS, snapshot: JSON.parse(JSON.stringify(host.serialise())) });
    const r = ok(call(restored, usdc, 'balance', [addr(alice.publicKey())], alice.publicKey(), false));
    expect(r.result.toXdr('base64')).toBe(i128(500n).toXdr('base64'));
    expect(restored.getAccount(bob.publicKey())?.balance).toBe(100_000_000_000n);
  });
});

describe('soroban host: stellar asset contract', () => {
  it('mints and transfers with CAP-67 events, and simulation never changes state', () => {
    const { host, usdc } = setup();
    const mint = ok(call(host, usdc, 'mint', [addr(alice.publicKey()), i128(1_000n)], issuer.publicKey()));
    const name = `USDC:${issuer.publicKey()}`;
    expect(mint.events.map((e) => e.toJson())).toEqual([
      {
        ext: 'v0',
        contract_id: usdc,
        type: 'contract',
        body: { v0: { topics: [{ symbol: 'mint' }, { address: alice.publicKey() }, { string: name }], data: { i128: '1000' } } },
      },
    ]);
    const sim = ok(call(host, usdc, 'transfer', [addr(alice.publicKey()), addr(bob.publicKey()), i128(400n)], alice.publicKey(), false));
    expect(sim.events[0]!.toJson()).toMatchObject({
      body: { v0: { topics: [{ symbol: 'transfer' }, { address: alice.publicKey() }, { address: bob.publicKey() }, { string: name }], data: { i128: '400' } } },
    });
    expect(sim.footprint.readWrite.length).toBe(2);
    expect(sim.footprint.readOnly.map((k) => k.toXdr('base64'))).toContain(instanceKey(usdc).toXdr('base64'));
    const bal = () => ok(call(host, usdc, 'balance', [addr(bob.publicKey())], bob.publicKey(), false)).result.toJson();
    expect(bal()).toEqual({ i128: '0' });
    ok(call(host, usdc, 'transfer', [addr(alice.publicKey()), addr(bob.publicKey()), i128(400n)], alice.publicKey()));
    expect(bal()).toEqual({ i128: '400' });
  });

  it('fails with BalanceError #10 and NegativeAmount #8 and leaves state untouched', () => {
    const { host, usdc } = setup();
    const r = call(host, usdc, 'transfer', [addr(alice.publicKey()), addr(bob.publicKey()), i128(1n)], alice.publicKey());
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.toJson()).toEqual({ contract: 10 });
    const n = call(host, usdc, 'transfer', [addr(alice.publicKey()), addr(bob.publicKey()), i128(-1n)], alice.publicKey());
    if (n.ok) throw new Error('expected failure');
    expect(n.message).toBe('Error(Contract, #8)');
  });

  it('records source-account and address credentials in simulation', () => {
    const { host, usdc } = setup();
    const asSource = ok(call(host, usdc, 'mint', [addr(alice.publicKey()), i128(5n)], issuer.publicKey(), false));
    expect(asSource.auth.map((a) => a.toJson())).toEqual([
      {
        credentials: 'source_account',
        root_invocation: {
          function: { contract_fn: { contract_address: usdc, function_name: 'mint', args: [{ address: alice.publicKey() }, { i128: '5' }] } },
          sub_invocations: [],
        },
      },
    ]);
    const other = ok(call(host, usdc, 'mint', [addr(alice.publicKey()), i128(5n)], bob.publicKey(), false));
    expect(other.auth[0]!.credentials.type).toBe('sorobanCredentialsAddress');
  });

  it('enforce mode: source-account credentials pass, missing auth fails with Error(Auth, InvalidAction)', () => {
    const { host, usdc } = setup();
    const args = [addr(alice.publicKey()), i128(5n)];
    const sim = ok(call(host, usdc, 'mint', args, issuer.publicKey(), false));
    ok(call(host, usdc, 'mint', args, issuer.publicKey(), true, 'enforce', [...sim.auth]));
    const missing = call(host, usdc, 'mint', args, bob.publicKey(), true, 'enforce', []);
    if (missing.ok) throw new Error('expected auth failure');
    expect(missing.error.toJson()).toEqual({ auth: 'invalid_action' });
    // source-account credentials of bob do not cover the issuer
    const wrong = call(host, usdc, 'mint', args, bob.publicKey(), true, 'enforce', [...sim.auth]);
    expect(wrong.ok).toBe(false);
  });

  it('enforce mode: address credentials signed with stellar-sdk authorizeEntry are verified, replay is refused', async () => {
    const { host, usdc } = setup();
    const args = [addr(alice.publicKey()), i128(5n)];
    const sim = ok(call(host, usdc, 'mint', args, bob.publicKey(), false));
    const signed = await authorizeEntry(sim.auth[0]!, issuer, ledger.sequence + 100, PASS);
    ok(call(host, usdc, 'mint', args, bob.publicKey(), true, 'enforce', [signed]));
    const replay = call(host, usdc, 'mint', args, bob.publicKey(), true, 'enforce', [signed]);
    expect(replay.ok).toBe(false);
    const forged = await authorizeEntry(sim.auth[0]!, alice, ledger.sequence + 100, PASS);
    const bad = call(host, usdc, 'mint', args, bob.publicKey(), true, 'enforce', [forged]);
    if (bad.ok) throw new Error('expected auth failure');
    expect(bad.error.toJson()).toEqual({ auth: 'invalid_action' });
  });
});
