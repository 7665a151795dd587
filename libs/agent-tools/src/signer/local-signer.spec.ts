import { Keypair, Networks, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { createAgentClient } from '@dobprotocol/agent-client';
import { parseDecimal } from '../policy/decimal';
import { InMemorySpendLedger } from '../policy/spend-ledger';
import { parsePolicy } from '../policy/spending-policy';
import { POOL, preparedBuy as buyFor, testSettings, transfer, USDC, usdcUnits } from '../testing/prepared-trades';
import { summarizeTrade } from '../tools/trade-summary';
import { LocalSigner, SignerRefusal } from './local-signer';

const wallet = Keypair.random();
const seller = Keypair.random().publicKey();
const NOW = new Date('2026-03-01T12:00:00Z');

const preparedBuy = (shares: bigint, total: string, over: Partial<Parameters<typeof buyFor>[0]> = {}) =>
  buyFor({ wallet, seller, shares, total, now: NOW, ...over });

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
    signer = new LocalSigner(wallet, policy, ledger, testSettings(), () => NOW);
  });

  it('signs a remembered trade with the wallet, submits it and records the spend', async () => {
    const trade = preparedBuy(4n, '4.00');
    expect(signer.remember(trade).decision).toEqual({ allowed: true });
    const { client, submitted } = fakeApi(sold(4));
    await expect(signer.signAndSubmit(client, trade.hash)).resolves.toMatchObject({ result: { data: { shares_bought: 4 } } });
    expect(submitted).toHaveLength(1);
    expect(wallet.verify(Buffer.from(submitted[0].hash()), Buffer.from(submitted[0].signatures[0].signature.value))).toBe(true);
    expect(ledger.spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('4'));
    expect(signer.status()).toMatchObject({
      wallet: wallet.publicKey(),
      network_passphrase: Networks.TESTNET,
      tokens: { USDC: { contract: USDC, decimals: 7 } },
      spent_last_24h: { USDC: '4.00' },
    });
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
    const stale = preparedBuy(1n, '1.00', { validForSeconds: -1 });
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

  it('refuses a transaction whose details say other than its envelope, and signs nothing', async () => {
    const { client, submitted } = fakeApi(sold(5));
    const understated = preparedBuy(5n, '5.00', { details: { total_cost: '0.50' } });
    expect(signer.remember(understated).decision).toEqual({
      allowed: false,
      reason:
        "Refused by the local signer: the API's transaction_details do not match the envelope (they say 0.50 USDC, the envelope moves 5.00 USDC); not signing it.",
    });
    const relabelled = preparedBuy(5n, '5.00', { details: { payment_token: 'EURC' } });
    signer.remember(relabelled);
    const fewerShares = preparedBuy(5n, '5.00', { details: { shares: 1 } });
    signer.remember(fewerShares);
    await expect(signer.signAndSubmit(client, understated.hash)).rejects.toThrow(SignerRefusal);
    await expect(signer.signAndSubmit(client, relabelled.hash)).rejects.toThrow('they say 5.00 EURC, the envelope moves 5.00 USDC');
    await expect(signer.signAndSubmit(client, fewerShares.hash)).rejects.toThrow('shares 1 vs 5 in the call');
    expect(submitted).toHaveLength(0);
  });

  it('judges what the authorization tree moves, not what the details say: a hidden transfer is over the limit', async () => {
    const { client, submitted } = fakeApi(sold(2));
    const thief = Keypair.random().publicKey();
    // The details and the first transfer say 2 USDC; a second transfer of 9 USDC to someone else rides along.
    const padded = preparedBuy(2n, '2.00', {
      subs: [transfer(USDC, wallet.publicKey(), seller, usdcUnits('2')), transfer(USDC, wallet.publicKey(), thief, usdcUnits('9'))],
    });
    expect(signer.remember(padded).decision).toMatchObject({ allowed: false, reason: expect.stringContaining('the envelope moves 11.00 USDC') });
    await expect(signer.signAndSubmit(client, padded.hash)).rejects.toThrow(SignerRefusal);
    expect(submitted).toHaveLength(0);
    expect(ledger.spentSince(new Date(0)).size).toBe(0);
  });

  it('counts a 409 "already being submitted" as spent: a copy may be on its way to the chain', async () => {
    const trade = preparedBuy(3n, '3.00');
    signer.remember(trade);
    const busy = fakeApi(() => ({ status: 409, body: { success: false, error: { code: 'CONFLICT', message: 'Transaction is already being submitted' } } }));
    await expect(signer.signAndSubmit(busy.client, trade.hash)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(ledger.spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('3'));
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

  it.each([
    [429, 'RATE_LIMIT_EXCEEDED'],
    [401, 'INVALID_API_KEY'],
    [403, 'INSUFFICIENT_SCOPE'],
  ])('keeps a spend whose answer was lost when the resend is refused at the request gate (%i %s)', async (status, code) => {
    const trade = preparedBuy(6n, '6.00');
    signer.remember(trade);
    // The first submit reaches the API, which sends it to the chain, but its answer is lost; submitTrade resends the
    // same envelope, and the request gate refuses the resend before the submit handler could replay the outcome.
    let attempt = 0;
    const lost = fakeApi(() => {
      if (attempt++ === 0) throw new TypeError('fetch failed: socket hang up');
      return { status, body: { success: false, error: { code, message: 'refused at the gate' } } };
    });
    await expect(signer.signAndSubmit(lost.client, trade.hash)).rejects.toMatchObject({ code });
    expect(lost.submitted).toHaveLength(2);
    expect(ledger.spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('6'));
    // So the next 6 USDC do not fit in the daily limit of 10: the first 6 may well be on chain.
    expect(signer.remember(preparedBuy(6n, '6.00')).decision).toMatchObject({ allowed: false, reason: expect.stringContaining('over the daily limit') });
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
