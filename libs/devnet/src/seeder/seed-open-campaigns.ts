import { FAUCET_XLM_STROOPS } from '../faucet/faucet';
import { addr, i128, u32, u64 } from '../host/scval';
import type { V2Context } from './seed-v2';

const USDC = 10_000_000n;
const DAY = 86_400n;
/** The closing campaign's deadline, after the seeded history ends (wall time at first start). */
export const CLOSING_CAMPAIGN_SECONDS = 15n * 60n;
/** The open campaign's deadline: days ahead, so a new user can contribute for a while. */
export const OPEN_CAMPAIGN_SECONDS = 10n * DAY;

export interface SeededOpenCampaign {
  readonly address: string;
  readonly role: 'open' | 'closing';
  readonly deadline: bigint;
  readonly createdAt: bigint;
}

/**
 * Campaigns still fundraising when the seeded chain reaches wall time (issue 14: a fresh `npm start` must list an
 * open campaign, or prepare-contribute cannot be tried):
 *   open — deadline OPEN_CAMPAIGN_SECONDS after the history ends, about a third of its soft cap raised;
 *   closing — deadline CLOSING_CAMPAIGN_SECONDS after it, 85 % of its soft cap raised, so the first minutes of a
 *   new system show the deadline pass: the devnet's campaign keeper finalizes it — succeeded if agents topped it
 *   up to the soft cap (crowdfunding_finalized), failed otherwise (crowdfunding_failed).
 * Both are opened by their own admin through signed transactions; the backers are the seeded investors.
 */
/** Same context as the splitter V2 phase (chain, submitter, PRNG stream, token, investors, labels, historyEnd). */
export function seedOpenCampaigns(ctx: V2Context): SeededOpenCampaign[] {
  const plans = [
    { role: 'open' as const, deadline: ctx.historyEnd + OPEN_CAMPAIGN_SECONDS, softCap: 2_000n, hardCap: 10_000n, raisedPercent: BigInt(ctx.rng.int(25, 40)) },
    { role: 'closing' as const, deadline: ctx.historyEnd + CLOSING_CAMPAIGN_SECONDS, softCap: 1_000n, hardCap: 3_000n, raisedPercent: 85n },
  ];
  return plans.map((plan) => {
    const admin = ctx.label(`campaign-${plan.role}/admin`);
    ctx.chain.createAccount(admin.publicKey(), FAUCET_XLM_STROOPS);
    const address = ctx.chain.deployContract('crowdfunding_v1', ctx.salt(`campaign-${plan.role}`));
    const init = ctx.submit.call({
      signer: admin,
      contractId: address,
      fn: 'init',
      args: [addr(admin.publicKey()), addr(ctx.token), i128(USDC), i128(plan.softCap), i128(plan.hardCap), u64(plan.deadline), u32(0)],
    });
    // Three backers share the raised part (the last takes the rounding remainder); shares at 1 USDC each.
    const raised = (plan.softCap * plan.raisedPercent) / 100n;
    const backers = ctx.investors.slice(0, 3);
    const each = raised / BigInt(backers.length);
    const amounts = backers.map((_, k) => (k === backers.length - 1 ? raised - each * BigInt(backers.length - 1) : each));
    ctx.submit.ledger(backers.map((b, k) => ({ signer: b, contractId: address, fn: 'contribute', args: [addr(b.publicKey()), i128(amounts[k]!)] })));
    return { address, role: plan.role, deadline: plan.deadline, createdAt: init.createdAt };
  });
}
