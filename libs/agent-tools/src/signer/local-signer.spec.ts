import { Account, Address, Keypair, nativeToScVal, Networks, Operation, StrKey, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { createAgentClient, type PreparedTrade } from '@dobprotocol/agent-client';
import { parseDecimal } from '../policy/decimal';
import { InMemorySpendLedger } from '../policy/spend-ledger';
import { parsePolicy } from '../policy/spending-policy';
import { summarizeTrade } from '../tools/trade-summary';
import { LocalSigner, SignerRefusal } from './local-signer';

const POOL = StrKey.encodeContract(Buffer.alloc(32, 7));
const wallet = Keypair.random();
const seller = Keypair.random().publicKey();
const NOW = new Date('2026-03-01T12:00:00Z');
let sequence = 100n;

/** A buy as the API prepares it: one buy_shares(buyer, seller, shares) call with the wallet as source. */
function preparedBuy(shares: bigint, total: string, over: Partial<PreparedTrade> = {}, detailShares = shares): PreparedTrade {
  const tx = new TransactionBuilder(new Account(wallet.publicKey(), String(sequence++)), { fee: '100', networkPassphrase: Networks.TESTNET })
    .addOperation(
      Operation.invokeContractFunction({
        contract: POOL,
        function: 'buy_shares',
        args: [new Address(wallet.publicKey()).toScVal(), new Address(seller).toScVal(), nativeToScVal(shares, { type: 'i128' })],
      }),
    )
    .setTimeout(600)
    .build();
  return {
    kind: 'buy',
    networkId: 9,
    xdr: tx.toXDR(),
    networkPassphrase: Networks.TESTNET,
    details: { listing_id: 'SALE_1', shares: Number(detailShares), price_per_share: '1.00', total_cost: total, payment_token: 'USDC', seller_address: seller },
    expiresAt: new Date(NOW.getTime() + 600_000).toISOString(),
    hash: Buffer.from(tx.hash()).toString('hex'),
    ...over,
  };
}

/** The API's submit route, faked: records what was sent and answers as scripted. */
function fakeApi(answer: (signedXdr: string) => { status: number; body: unknown }) {
  const submitted: Transaction[] = [];
  const client = createAgentClient({
    baseUrl: 'http://api.test',
    apiKey: 'svc_ak_test',
    retry: { retries: 0 },
    fetch: async (request) => {
      const { signed_xdr } = (await request.json()) as { signed_xdr: string };
      submitted.push(TransactionBuilder.fromXDR(signed_xdr, Networks.TESTNET) as Transaction);
      const { status, body } = answer(signed_xdr);
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, submitted };
}
const sold = (shares: number) => () => ({ status: 200, body: { success: true, data: { shares_bought: shares } } });

describe('LocalSigner', () => {
  const policy = parsePolicy({ maxPerDay: 'USDC:10', maxPricePerShare: 'USDC:1', allowedPools: POOL });
  let ledger: InMemorySpendLedger;
  let signer: LocalSigner;
  beforeEach(() => {
    ledger = new InMemorySpendLedger();
    signer = new LocalSigner(wallet, policy, ledger, () => NOW);
  });

  it('signs a remembered trade with the wallet, submits it and records the spend', async () => {
    const trade = preparedBuy(4n, '4.00');
    expect(signer.remember(trade).decision).toEqual({ allowed: true });
    const { client, submitted } = fakeApi(sold(4));
    await expect(signer.signAndSubmit(client, trade.hash)).resolves.toMatchObject({ result: { data: { shares_bought: 4 } } });
    expect(submitted).toHaveLength(1);
    expect(wallet.verify(Buffer.from(submitted[0].hash()), Buffer.from(submitted[0].signatures[0].signature.value))).toBe(true);
    expect(ledger.spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('4'));
    expect(signer.status()).toMatchObject({ wallet: wallet.publicKey(), spent_last_24h: { USDC: '4.00' } });
  });

  it('lets only one of two concurrent buys through when together they pass the daily limit', async () => {
    const a = preparedBuy(6n, '6.00');
    const b = preparedBuy(6n, '6.00');
    signer.remember(a);
    signer.remember(b);
    const { client, submitted } = fakeApi(sold(6));
    const outcomes = await Promise.allSettled([signer.signAndSubmit(client, a.hash), signer.signAndSubmit(client, b.hash)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(SignerRefusal);
    expect(submitted).toHaveLength(1);
  });

  it('signs nothing it did not prepare, nothing expired, nothing over a price limit', async () => {
    const { client, submitted } = fakeApi(sold(1));
    await expect(signer.signAndSubmit(client, 'f'.repeat(64))).rejects.toThrow('was prepared by this server');
    const stale = preparedBuy(1n, '1.00', { expiresAt: new Date(NOW.getTime() - 1).toISOString() });
    signer.remember(stale);
    await expect(signer.signAndSubmit(client, stale.hash)).rejects.toThrow('expired');
    const dear = preparedBuy(2n, '3.00');
    expect(signer.remember(dear).decision).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('paying 1.50 USDC per share exceeds the maximum price per share of 1.00 USDC'),
    });
    await expect(signer.signAndSubmit(client, dear.hash)).rejects.toThrow('maximum price per share');
    expect(submitted).toHaveLength(0);
  });

  it('refuses a transaction whose call disagrees with its details', () => {
    expect(() => signer.remember(preparedBuy(5n, '5.00', {}, 1n))).toThrow(
      'prepared transaction does not match its details (shares 1 vs 5 in the call); not signing it',
    );
  });

  it('counts an unknown outcome against the limit, and a refusal by the chain not', async () => {
    const failed = preparedBuy(1n, '1.00');
    signer.remember(failed);
    const chainSaysNo = fakeApi(() => ({ status: 422, body: { success: false, error: { code: 'TRANSACTION_FAILED', message: 'failed on chain' } } }));
    await expect(signer.signAndSubmit(chainSaysNo.client, failed.hash)).rejects.toMatchObject({ code: 'TRANSACTION_FAILED' });
    expect(ledger.spentSince(new Date(0)).get('USDC')).toBeUndefined();

    const unknown = preparedBuy(2n, '2.00');
    signer.remember(unknown);
    const rpcDown = fakeApi(() => ({ status: 503, body: { success: false, error: { code: 'NETWORK_UNAVAILABLE', message: 'rpc down' } } }));
    await expect(signer.signAndSubmit(rpcDown.client, unknown.hash)).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    expect(ledger.spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('2'));
  });
});

describe('summarizeTrade', () => {
  it('says what a buy moves, where, at what price and until when', () => {
    const trade = preparedBuy(3n, '3.00');
    expect(summarizeTrade(trade, POOL)).toBe(
      `Buy 3 shares of pool ${POOL} from listing SALE_1 (seller ${seller}) at 1.00 USDC per share: total 3.00 USDC. Valid until ${trade.expiresAt}.`,
    );
  });
});
