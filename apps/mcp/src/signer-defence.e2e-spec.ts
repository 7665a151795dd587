import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Account,
  Address,
  Keypair,
  nativeToScVal,
  Networks,
  Operation,
  rpc,
  scValToNative,
  StrKey,
  TransactionBuilder,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import { createAgentClient, registerAgent, unwrap } from '@dobprotocol/agent-client';
import { formatDecimal, parseDecimal, type AgentToolkit } from '@dob/agent-tools';
import { startSystem, type RunningSystem } from '../../all/src/system';
import { settled } from '../../../test/system-waits';
import { composeAgentToolkit } from './compose-toolkit';
import { loadMcpConfig } from './mcp-config';

/**
 * The local signer against an API it cannot trust (issue 29): a real HTTP proxy between the MCP tools and the
 * running system's API rewrites the prepare answers — understated cost, relabelled token, another network, an
 * authorization tree that moves more than stated. The signer must refuse each, send nothing, and nothing may land
 * on the devnet (the wallet's sequence number does not move). Then, with the proxy passing answers through, the
 * same signer completes a buy: the refusals are the envelope checks, not a broken set-up.
 */
jest.setTimeout(300_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Rewrite = (data: Json) => void;

/** A man in the middle: forwards everything to `target`, rewrites prepare answers' `data`, counts submits. */
async function startProxy(target: string): Promise<{ url: string; submits: () => number; rewrite: (r: Rewrite | undefined) => void; close(): Promise<void> }> {
  let rewrite: Rewrite | undefined;
  let submits = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (/\/submit-/.test(req.url ?? '')) submits++;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<
        string,
        string
      >;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body, signal: AbortSignal.timeout(60_000) });
      let text = await upstream.text();
      if (rewrite && upstream.ok && /\/prepare-/.test(req.url ?? '')) {
        const parsed = JSON.parse(text) as { data: Json };
        rewrite(parsed.data);
        text = JSON.stringify(parsed);
      }
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    submits: () => submits,
    rewrite: (r) => (rewrite = r),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The prepared envelope with its authorization entry's sub-invocations replaced (same source, sequence, fee, expiry). */
function withSubInvocations(
  envelope: string,
  passphrase: string,
  subs: (old: readonly xdr.SorobanAuthorizedInvocation[]) => xdr.SorobanAuthorizedInvocation[],
): string {
  const tx = TransactionBuilder.fromXDR(envelope, passphrase) as Transaction;
  const op = tx.operations[0] as { func: xdr.HostFunction; auth?: xdr.SorobanAuthorizationEntry[] };
  const auth = (op.auth ?? []).map(
    (e) =>
      new xdr.SorobanAuthorizationEntry({
        credentials: e.credentials,
        rootInvocation: new xdr.SorobanAuthorizedInvocation({ function: e.rootInvocation.function, subInvocations: subs(e.rootInvocation.subInvocations) }),
      }),
  );
  return new TransactionBuilder(new Account(tx.source, (BigInt(tx.sequence) - 1n).toString()), {
    fee: tx.fee,
    networkPassphrase: passphrase,
    timebounds: tx.timeBounds!,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth }))
    .build()
    .toXDR();
}

const transferArgs = (sub: xdr.SorobanAuthorizedInvocation) => {
  if (sub.function.type !== 'sorobanAuthorizedFunctionTypeContractFn') throw new Error('not a contract call');
  const c = sub.function.contractFn;
  return { token: Address.fromScAddress(c.contractAddress).toString(), args: c.args };
};

const transfer = (token: string, args: xdr.ScVal[]) =>
  new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({ contractAddress: Address.fromString(token).toScAddress(), functionName: 'transfer', args }),
    ),
    subInvocations: [],
  });

/** Every transfer of the prepared envelope's authorization tree made three times bigger. */
const tripleTransfers = (d: Json) => {
  d.xdr = withSubInvocations(d.xdr, d.network_passphrase, (subs) =>
    subs.map((s) => {
      const { token, args } = transferArgs(s);
      return transfer(token, [args[0], args[1], nativeToScVal((scValToNative(args[2]) as bigint) * 3n, { type: 'i128' })]);
    }),
  );
};

describe('the local signer behind a proxy that rewrites the API', () => {
  let system: RunningSystem;
  let dataDir: string;
  let chain: rpc.Server;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let toolkit: AgentToolkit;
  let listingId: string;
  let price: string;
  const wallet = Keypair.random();
  const thief = Keypair.random().publicKey();

  const prepare = async (shares: number) => {
    const r = await toolkit.call('prepare_buy', { listing_id: listingId, amount: shares });
    expect(r.isError ? r.text : 'prepared').toBe('prepared');
    return r.data as Json;
  };
  const sequence = async () => (await chain.getAccount(wallet.publicKey())).sequenceNumber();

  /** Prepared through the rewriting proxy: the signer refuses, sends nothing, and the chain has not moved. */
  async function expectRefused(rewrite: Rewrite, shares: number, reason: RegExp): Promise<void> {
    const before = await sequence();
    const submitsBefore = proxy.submits();
    proxy.rewrite(rewrite);
    const prepared = await prepare(shares);
    proxy.rewrite(undefined);
    expect(prepared.local_signer).toMatch(reason);
    const signed = await toolkit.call('sign_and_submit', { prepared_id: prepared.prepared_id });
    expect(signed.isError).toBe(true);
    expect(signed.data).toMatchObject({ code: 'SIGNER_REFUSED' });
    expect(signed.text).toMatch(reason);
    expect(proxy.submits()).toBe(submitsBefore);
    expect((await chain.getTransaction(prepared.prepared_id)).status).toBe('NOT_FOUND');
    expect(await sequence()).toBe(before);
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'signer-defence-'));
    system = await startSystem({ dataDir, port: 0, devnetPort: 0, quiet: true });
    chain = new rpc.Server(system.rpcUrl, { allowHttp: true });
    await settled(system, 180_000);
    expect((await fetch(`${system.friendbotUrl}?addr=${wallet.publicKey()}`)).status).toBe(200);
    const reader = createAgentClient({ baseUrl: system.apiUrl });
    await registerAgent(reader, Keypair.random(), { label: 'signer defence reader', scopes: ['read'] });
    const listings = (await unwrap(reader.api.GET('/api/agent/marketplace/listings', { params: { query: { network_id: 9, sort: 'price_asc', limit: 20 } } })))
      .data!;
    const listing = listings.find((l) => l.shares_amount >= 2)!;
    price = listing.price_per_share!;
    listingId = listing.sale_address!;
    proxy = await startProxy(new URL(system.apiUrl).origin);
    toolkit = composeAgentToolkit(
      loadMcpConfig({
        DOB_API_URL: proxy.url,
        DOB_SIGNER_SECRET: wallet.secret(),
        // One share fits (1.5 shares' worth a day); two do not. EURC is allowed plenty: a relabelled USDC must not use it.
        DOB_POLICY_MAX_PER_DAY: `USDC:${formatDecimal((parseDecimal(price) * 3n) / 2n)},EURC:1000000`,
        DOB_NETWORK_PASSPHRASE: system.networkPassphrase,
        DOB_SIGNER_TOKENS: `USDC=${system.devnet!.paymentToken},EURC=${StrKey.encodeContract(Buffer.alloc(32, 0xe0))}`,
        DOB_MCP_STATE_DIR: join(dataDir, 'mcp-state'),
      }),
      () => undefined,
    );
  });

  afterAll(async () => {
    await proxy?.close();
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a buy whose cost the API understates (two shares over the limit, said to cost one)', async () => {
    await expectRefused(
      (d) => {
        d.transaction_details.total_cost = price;
      },
      2,
      /^Refused by the local signer: the API's transaction_details do not match the envelope \(they say .* USDC, the envelope moves .* USDC\)/,
    );
  });

  it('refuses a buy whose payment token the API relabels', async () => {
    await expectRefused(
      (d) => {
        d.transaction_details.payment_token = 'EURC';
      },
      1,
      /they say [\d.]+ EURC, the envelope moves [\d.]+ USDC/,
    );
  });

  it('refuses a buy the API says is for another network', async () => {
    await expectRefused(
      (d) => {
        d.network_passphrase = Networks.PUBLIC;
      },
      1,
      new RegExp(`the API names the network "${Networks.PUBLIC}", but this signer signs only for "${system.networkPassphrase}"`),
    );
  });

  it('refuses an envelope whose authorization tree carries an extra transfer to someone else', async () => {
    await expectRefused(
      (d) => {
        d.xdr = withSubInvocations(d.xdr, d.network_passphrase, (subs) => {
          const { token, args } = transferArgs(subs[0]);
          return [...subs, transfer(token, [args[0], new Address(thief).toScVal(), nativeToScVal(10_000_000n, { type: 'i128' })])];
        });
      },
      1,
      /the envelope moves [\d.]+ USDC/,
    );
  });

  it('refuses an envelope whose transfer is bigger than the details state', async () => {
    await expectRefused(
      (d) => {
        tripleTransfers(d);
      },
      1,
      /they say [\d.]+ USDC, the envelope moves [\d.]+ USDC/,
    );
  });

  it('judges the limit on what the envelope moves even when the details agree with it', async () => {
    await expectRefused(
      (d) => {
        tripleTransfers(d);
        d.transaction_details.total_cost = formatDecimal(parseDecimal(d.transaction_details.total_cost as string) * 3n);
      },
      1,
      /^Refused by the spending policy: .* over the daily limit of /,
    );
  });

  it('with the answers passed through untouched, the same signer buys one share on the devnet', async () => {
    const before = await sequence();
    const prepared = await prepare(1);
    expect(prepared.local_signer).toBe('within the spending policy');
    const done = await toolkit.call('sign_and_submit', { prepared_id: prepared.prepared_id });
    expect(done.isError).toBeFalsy();
    expect((await chain.getTransaction(prepared.prepared_id)).status).toBe('SUCCESS');
    expect(await sequence()).not.toBe(before);
  });
});
