import { Account, Address, Contract, Keypair, nativeToScVal, Networks, StrKey, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { StellarNetworks } from '../networks/stellar-networks';
import type { PreparedTransaction, PreparedTransactions, SubmitOutcome } from '../ports/prepared-transactions.port';
import { SimulationFailed, type SendOutcome, type SorobanGateway, type TransactionLookup } from '../ports/soroban-gateway.port';
import { isSignedBy, parseSignedEnvelope } from './signed-envelope';
import { SubmitService } from './submit-service';

const PASS = Networks.STANDALONE;
const POOL = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAITA4';
const wallet = Keypair.random();
const networks = new StellarNetworks([{ id: 9, rpcUrl: 'http://unused', passphrase: PASS, explorerUrl: 'https://explorer' }]);
const NOW = 1_800_000_000_000;

function unsigned(maxTime = NOW / 1000 + 600): Transaction {
  return new TransactionBuilder(new Account(wallet.publicKey(), '41'), { fee: '100', networkPassphrase: PASS, timebounds: { minTime: 0, maxTime } })
    .addOperation(new Contract(POOL).call('cancel_listing'))
    .build();
}

/** In-memory PreparedTransactions with the SQL adapter's transition rules (the SQL one has its own contract test). */
class MemoryPrepared implements PreparedTransactions {
  rows = new Map<string, PreparedTransaction & { updatedAt: number }>();
  async save(tx: Omit<PreparedTransaction, 'state' | 'outcome'>) {
    this.rows.set(tx.hash, { ...tx, state: 'prepared', outcome: null, updatedAt: tx.createdAt.getTime() });
  }
  async find(hash: string) {
    return this.rows.get(hash) ?? null;
  }
  async claim(hash: string, signedXdr: string, at: Date, staleBefore: Date) {
    const r = this.rows.get(hash);
    if (!r || !(r.state === 'prepared' || (r.state === 'submitting' && r.updatedAt < staleBefore.getTime()))) return false;
    this.rows.set(hash, { ...r, state: 'submitting', signedXdr, updatedAt: at.getTime() });
    return true;
  }
  async finish(hash: string, outcome: SubmitOutcome) {
    const r = this.rows.get(hash)!;
    if (r.state === 'submitting') this.rows.set(hash, { ...r, state: outcome.state, outcome });
  }
  async release(hash: string) {
    const r = this.rows.get(hash)!;
    if (r.state === 'submitting') this.rows.set(hash, { ...r, state: 'prepared', signedXdr: null });
  }
}

/** A scripted chain: send answers and getTransaction answers in order; counts what was sent. */
class ScriptedChain implements Partial<SorobanGateway> {
  sent = 0;
  constructor(
    private readonly sends: SendOutcome[],
    private readonly lookups: TransactionLookup[],
    private readonly resimulation = 'HostError: Error(Contract, #13)',
  ) {}
  async send(): Promise<SendOutcome> {
    this.sent++;
    return this.sends.shift() ?? { status: 'PENDING' };
  }
  async getTransaction(): Promise<TransactionLookup> {
    return this.lookups.length > 1 ? this.lookups.shift()! : this.lookups[0]!;
  }
  async prepare(): Promise<Transaction> {
    throw new SimulationFailed(this.resimulation);
  }
  async eventIds() {
    return [];
  }
}

async function setup(chain: ScriptedChain, tx = unsigned(), sleep: (ms: number) => Promise<void> = async () => undefined) {
  const prepared = new MemoryPrepared();
  const hash = Buffer.from(tx.hash()).toString('hex');
  await prepared.save({
    hash,
    kind: 'cancel',
    networkId: 9,
    wallet: wallet.publicKey(),
    keyId: 'ak_1',
    xdr: tx.toXDR(),
    expiresAt: new Date(Number(tx.timeBounds!.maxTime) * 1000),
    context: { listing_id: 'SALE_1', pool: POOL, pool_version: '1', shares_returned: '5' },
    createdAt: new Date(NOW),
  });
  const service = new SubmitService({
    networks,
    chain: chain as unknown as SorobanGateway,
    prepared,
    clock: () => new Date(NOW),
    sleep,
    inFlightWaitMs: 2_000,
  });
  const signed = TransactionBuilder.fromXDR(tx.toXDR(), PASS) as Transaction;
  signed.sign(wallet);
  return { service, prepared, hash, signed: signed.toXDR() };
}
const caller = { keyId: 'ak_1', wallet: wallet.publicKey() };
const canceledEvent = () =>
  xdr.ContractEvent.fromXdrObject({
    ext: { v: 0 },
    contractId: StrKey.decodeContract(POOL),
    type: 1,
    body: {
      v: 0,
      v0: {
        topics: [xdr.ScVal.scvSymbol('canceled').toXdrObject(), new Address(wallet.publicKey()).toScVal().toXdrObject()],
        data: nativeToScVal(true).toXdrObject(),
      },
    },
  } as unknown as Parameters<typeof xdr.ContractEvent.fromXdrObject>[0]);

describe('signed envelope checks (native ed25519)', () => {
  it('accepts the wallet signature and refuses another signer or another network passphrase', () => {
    const tx = unsigned();
    const { tx: parsed } = parseSignedEnvelope(
      ((): string => {
        const t = TransactionBuilder.fromXDR(tx.toXDR(), PASS) as Transaction;
        t.sign(wallet);
        return t.toXDR();
      })(),
      PASS,
    );
    expect(isSignedBy(parsed, wallet.publicKey())).toBe(true);
    const other = TransactionBuilder.fromXDR(tx.toXDR(), PASS) as Transaction;
    other.sign(Keypair.random());
    expect(isSignedBy(other, wallet.publicKey())).toBe(false);
    const foreign = TransactionBuilder.fromXDR(tx.toXDR(), Networks.TESTNET) as Transaction;
    foreign.sign(wallet);
    expect(isSignedBy(parseSignedEnvelope(foreign.toXDR(), PASS).tx, wallet.publicKey())).toBe(false);
  });

  it('refuses garbage as VALIDATION_ERROR', () => {
    expect(() => parseSignedEnvelope('not-xdr', PASS)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});

describe('submit state machine', () => {
  it('polls past NOT_FOUND and TRY_AGAIN_LATER, treats DUPLICATE as sent, then replays the first result without sending', async () => {
    const chain = new ScriptedChain(
      [{ status: 'TRY_AGAIN_LATER' }, { status: 'DUPLICATE' }],
      [
        { status: 'NOT_FOUND', latestLedgerCloseTime: NOW / 1000 },
        { status: 'NOT_FOUND', latestLedgerCloseTime: NOW / 1000 + 5 },
        { status: 'SUCCESS', ledger: 7, events: [canceledEvent()], returnValue: null },
      ],
    );
    const { service, prepared, hash, signed } = await setup(chain);
    const result = await service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 });
    const data = { transaction_hash: hash, listing_id: 'SALE_1', shares_returned: 5, stellar_explorer_url: `https://explorer/tx/${hash}` };
    expect(result).toEqual({ data, replayed: false });
    expect(chain.sent).toBe(2);
    expect((await prepared.find(hash))!.state).toBe('succeeded');
    await expect(service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 })).resolves.toEqual({ data, replayed: true });
    expect(chain.sent).toBe(2);
  });

  it('NOT_FOUND after the ledger clock passes maxTime is TRANSACTION_EXPIRED', async () => {
    const chain = new ScriptedChain([], [{ status: 'NOT_FOUND', latestLedgerCloseTime: NOW / 1000 + 601 }]);
    const { service, signed } = await setup(chain);
    await expect(service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 })).rejects.toMatchObject({ code: 'TRANSACTION_EXPIRED', status: 400 });
  });

  it('a trapped transaction is TRANSACTION_FAILED 422 naming the contract error of its version', async () => {
    const chain = new ScriptedChain(
      [],
      [{ status: 'FAILED', ledger: 9, resultCode: 'txFailed', operationResultCode: 'invokeHostFunctionTrapped', diagnostics: [] }],
    );
    const { service, signed, prepared, hash } = await setup(chain);
    const err = await service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 }).catch((e) => e);
    expect(err).toMatchObject({ code: 'TRANSACTION_FAILED', status: 422 });
    expect(err.details).toMatchObject({
      result_code: 'txFailed',
      operation_result_code: 'invokeHostFunctionTrapped',
      contract_error: { code: 13, name: 'NoActiveListing', contract: 'splitter_v1' },
    });
    expect((await prepared.find(hash))!.outcome).toMatchObject({ state: 'failed' });
    // A retry gets the same refusal, and nothing is sent again.
    await expect(service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 })).rejects.toEqual(err);
  });

  it('refuses expired, wrong endpoint, other wallet and unprepared envelopes without sending', async () => {
    const chain = new ScriptedChain([], []);
    const old = await setup(chain, unsigned(NOW / 1000 - 1));
    await expect(old.service.submit('cancel', caller, { signed_xdr: old.signed, network_id: 9 })).rejects.toMatchObject({ code: 'TRANSACTION_EXPIRED' });
    const { service, signed } = await setup(chain);
    await expect(service.submit('buy', caller, { signed_xdr: signed, network_id: 9 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      service.submit('cancel', { keyId: 'ak_2', wallet: Keypair.random().publicKey() }, { signed_xdr: signed, network_id: 9 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(service.submit('cancel', caller, { signed_xdr: signed, network_id: 8453 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const stranger = unsigned(NOW / 1000 + 599);
    stranger.sign(wallet);
    await expect(service.submit('cancel', caller, { signed_xdr: stranger.toXDR(), network_id: 9 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/not prepared by this service/),
    });
    expect(chain.sent).toBe(0);
  });

  it('a refused send is TRANSACTION_FAILED with the result code (txBadSeq)', async () => {
    const chain = new ScriptedChain([{ status: 'ERROR', resultCode: 'txBadSeq' }], []);
    const { service, signed } = await setup(chain);
    await expect(service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 })).rejects.toMatchObject({
      code: 'TRANSACTION_FAILED',
      details: { result_code: 'txBadSeq' },
    });
  });

  it('a duplicate sent while the first is in flight waits for its outcome; a different signed envelope is refused', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const chain = new ScriptedChain([{ status: 'PENDING' }], [{ status: 'SUCCESS', ledger: 7, events: [canceledEvent()], returnValue: null }]);
    const send = chain.send.bind(chain);
    chain.send = async () => (await gate, send());
    // The duplicate's waits last until the first submit is let through.
    const { service, signed, tx } = await setupWithTx(chain, () => gate);
    const first = service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 });
    const second = service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 });
    const other = TransactionBuilder.fromXDR(tx.toXDR(), PASS) as Transaction;
    other.sign(wallet, Keypair.random());
    await new Promise((r) => setImmediate(r));
    await expect(service.submit('cancel', caller, { signed_xdr: other.toXDR(), network_id: 9 })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/different signed envelope/),
    });
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.replayed).toBe(false);
    expect(b).toEqual({ data: a.data, replayed: true });
    expect(chain.sent).toBe(1);
  });

  it('a duplicate still in flight after the bounded wait is CONFLICT with retry_after_seconds', async () => {
    const chain = new ScriptedChain([], []);
    chain.send = () => new Promise(() => undefined); // the first submit never settles
    let slept = 0;
    const { service, signed } = await setupWithTx(chain, async (ms) => {
      slept += ms;
      await new Promise((r) => setImmediate(r));
    });
    void service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 });
    await new Promise((r) => setImmediate(r));
    await expect(service.submit('cancel', caller, { signed_xdr: signed, network_id: 9 })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { state: 'submitting', retry_after_seconds: 1 },
    });
    expect(slept).toBe(2_000);
  });
});

async function setupWithTx(chain: ScriptedChain, sleep?: (ms: number) => Promise<void>) {
  const tx = unsigned();
  return { ...(await setup(chain, tx, sleep)), tx };
}
