import type { ChainReader } from './chain-reader';

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
