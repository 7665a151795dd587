import { nativeToScVal } from '@stellar/stellar-sdk';
import { addressArg, decimalString, type ChainReader } from './chain-reader';

interface Member {
  readonly user_address: string;
  readonly shares: number | string;
}

/** Every page of a paged list of the Agent API (limit 100), with the agent's key. */
async function allPages<T>(url: string, key: string): Promise<T[] | string> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const r = await fetch(`${url}${url.includes('?') ? '&' : '?'}limit=100&page=${page}`, { headers: { 'x-api-key': key } });
    if (r.status !== 200) return `GET ${url} page ${page}: ${r.status}`;
    const body = (await r.json()) as { data: T[]; meta?: { total: number } };
    out.push(...body.data);
    if (body.data.length < 100) return out;
  }
}

/** A list the Agent API serves whole (not paged: a pool's listings, the campaigns), with the agent's key. */
async function wholeList<T>(url: string, key: string): Promise<T[] | string> {
  const r = await fetch(url, { headers: { 'x-api-key': key } });
  return r.status === 200 ? ((await r.json()) as { data: T[] }).data : `GET ${url}: ${r.status}`;
}

/**
 * The read models against the chain itself (issue 31: "after the suite, read models equal the chain"): for each
 * splitter pool, the members an API serves and their shares are the contract's cap table (ChainReader.capTable),
 * and the pool's `total_shares` is their sum. Asked of every API given (the SQL- and the MongoDB-backed ones), so a
 * chain event the indexer lost across the faults, or one applied twice, shows here even where a clean build from
 * the same events would agree. Returns what differs (empty when all holds).
 */
export async function chainProblems(
  apis: readonly { name: string; base: string }[],
  key: string,
  chain: ChainReader,
  pools: readonly string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const pool of pools) {
    let onChain: Map<string, bigint> | undefined;
    // V2: token holders cannot be listed on chain, so a holder missing from the API shows as a sum short of the pool's.
    const config = await chain.read<{ participation_token?: string; total_shares?: bigint }>(pool, 'get_config');
    for (const api of apis) {
      const members = await allPages<Member>(`${api.base}/pools/${pool}/members?network_id=9`, key);
      if (typeof members === 'string') {
        problems.push(`${api.name}: ${members}`);
        continue;
      }
      onChain ??= await chain.capTable(
        pool,
        members.map((m) => m.user_address),
      );
      const served = new Map(members.map((m) => [m.user_address, BigInt(m.shares)]));
      for (const [holder, share] of onChain) {
        if (served.get(holder) !== share) problems.push(`${api.name} ${pool}: ${holder} holds ${share} on chain, ${served.get(holder) ?? 'none'} served`);
      }
      for (const [holder, share] of served)
        if (!onChain.has(holder) && share !== 0n) problems.push(`${api.name} ${pool}: ${holder} served with ${share}, none on chain`);
      const detail = await fetch(`${api.base}/pools/${pool}?network_id=9`, { headers: { 'x-api-key': key } });
      const total = detail.status === 200 ? BigInt(((await detail.json()) as { data: { total_shares: number } }).data.total_shares) : undefined;
      const sum = [...served.values()].reduce((n, s) => n + s, 0n);
      if (total !== sum) problems.push(`${api.name} ${pool}: total_shares ${total ?? `(status ${detail.status})`}, members sum to ${sum}`);
      if (typeof config.participation_token === 'string' && config.total_shares !== sum)
        problems.push(`${api.name} ${pool}: members sum to ${sum}, the pool's total_shares on chain is ${config.total_shares}`);
    }
  }
  return problems;
}

interface ServedListing {
  readonly seller_address: string;
  readonly shares_amount: number;
  readonly status: string;
}
interface ServedRound {
  readonly round_id: number | string;
  readonly total_amount: string;
  readonly total_claimed: string;
}
interface ServedCampaign {
  readonly address: string;
  readonly raised_amount: string;
}

/**
 * Listings, distribution rounds and campaigns against the chain (issue 31: "every pool, member, listing, round,
 * campaign"): per splitter, each seller an API serves a listing of has, on chain (`get_listing`), an active listing
 * of exactly the served shares, or none when none is served active; each served round of a V2 splitter has the
 * contract's `total_amount` and `total_claimed` (`get_round`); each served campaign has raised what the contract
 * says (`get_total_raised`). Amounts compared as the API formats them (7 decimals, the devnet's USDC). Returns what
 * differs (empty when all holds).
 */
export async function tradeStateProblems(
  apis: readonly { name: string; base: string }[],
  key: string,
  chain: ChainReader,
  splitters: readonly string[],
  /** Filled with how many of each were compared (so a run shows the check was not vacuous). */
  compared: Record<'listings' | 'rounds' | 'campaigns', number> = { listings: 0, rounds: 0, campaigns: 0 },
): Promise<string[]> {
  const problems: string[] = [];
  const onChain = new Map<string, unknown>(); // one getter call per contract and argument, shared by every API
  const read = async <T>(contract: string, fn: string, arg?: string | bigint): Promise<T> => {
    const id = `${contract}.${fn}(${String(arg ?? '')})`;
    if (!onChain.has(id)) {
      const args = arg === undefined ? [] : [typeof arg === 'bigint' ? nativeU64(arg) : addressArg(arg)];
      onChain.set(id, await chain.read<T>(contract, fn, ...args));
    }
    return onChain.get(id) as T;
  };
  for (const api of apis) {
    for (const pool of splitters) {
      const listings = await wholeList<ServedListing>(`${api.base}/marketplace/listings/${pool}?network_id=9`, key);
      if (typeof listings === 'string') problems.push(`${api.name}: ${listings}`);
      else {
        for (const seller of new Set(listings.map((l) => l.seller_address))) {
          const served = listings.find((l) => l.seller_address === seller && l.status === 'active')?.shares_amount ?? 0;
          const listed = await read<{ shares_for_sale?: bigint } | null | undefined>(pool, 'get_listing', seller);
          const held = listed?.shares_for_sale ?? 0n;
          compared.listings += 1;
          if (BigInt(served) !== held) problems.push(`${api.name} ${pool}: ${seller}'s listing has ${held} shares for sale on chain, ${served} served active`);
        }
      }
      const config = await read<{ participation_token?: string }>(pool, 'get_config');
      if (typeof config.participation_token !== 'string') continue; // V1 splitters keep no rounds to read back
      const rounds = await allPages<ServedRound>(`${api.base}/pools/${pool}/distributions?network_id=9`, key);
      if (typeof rounds === 'string') problems.push(`${api.name}: ${rounds}`);
      else {
        for (const r of rounds) {
          const round = await read<{ total_amount: bigint; total_claimed: bigint }>(pool, 'get_round', BigInt(r.round_id));
          const chainSide = [decimalString(round.total_amount), decimalString(round.total_claimed)];
          compared.rounds += 1;
          if (chainSide.join() !== [r.total_amount, r.total_claimed].join())
            problems.push(
              `${api.name} ${pool} round ${r.round_id}: amount/claimed ${chainSide.join('/')} on chain, ${r.total_amount}/${r.total_claimed} served`,
            );
        }
      }
    }
    const campaigns = await wholeList<ServedCampaign>(`${api.base}/pools/crowdfunding?network_id=9&status=all`, key);
    if (typeof campaigns === 'string') problems.push(`${api.name}: ${campaigns}`);
    else {
      for (const c of campaigns) {
        const raised = decimalString(await read<bigint>(c.address, 'get_total_raised'));
        compared.campaigns += 1;
        if (raised !== c.raised_amount) problems.push(`${api.name} campaign ${c.address}: raised ${raised} on chain, ${c.raised_amount} served`);
      }
    }
  }
  return problems;
}

const nativeU64 = (n: bigint) => nativeToScVal(n, { type: 'u64' });
