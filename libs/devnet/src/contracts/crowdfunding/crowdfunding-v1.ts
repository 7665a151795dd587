import { HostError } from '../../host/host-errors';
import { addr, asAddress, asI128, asU32, asU64, i128, option, sym, u32, u64, vec, voidVal } from '../../host/scval';
import { expectArgs, type ContractDefinition, type ContractEnv, type ContractFunction } from '../contract';
import { checked } from '../shared/checked';
import { tokenClient } from '../shared/token-client';
import {
  ACTIVATION_DEADLINE_SECONDS,
  ACTIVATION_TIMELOCK_SECONDS,
  clearPending,
  configToScVal,
  ERR,
  isInitialized,
  MAX_SHARES,
  PAYOUT,
  readConfig,
  readContribution,
  readPending,
  readSplitter,
  readTotalRaised,
  STATUS,
  writeConfig,
  writeContribution,
  writePending,
  writeSplitter,
  writeTotalRaised,
  type CrowdfundConfig,
} from './storage';

/**
 * crowdfunding_v1 at release cf-v0.3.0 (CF-g, 7ff1df3): fixed price per share, on-chain escrow, two-step
 * activation with timelock 0, `cf_cncl`, payout_mode (InvalidPayoutMode = 24) and the S-3 soft-cap re-check on
 * opt_out (emits `cf_done` status 2). Lifecycle per docs/contracts.md §4.6.
 */

const campaignTopic = (env: ContractEnv) => addr(env.contractId);

function adminAuth(env: ContractEnv): CrowdfundConfig {
  const c = readConfig(env);
  env.requireAuth(c.admin);
  return c;
}

/** Shared guards of the Succeeded-but-not-activated state (propose/activate/opt_out/expire). */
function requireSucceeded(c: CrowdfundConfig): void {
  if (c.status === STATUS.Activated) throw HostError.contract(ERR.CampaignAlreadyActivated);
  if (c.status !== STATUS.Succeeded) throw HostError.contract(ERR.CampaignNotSucceeded);
}

const fns: Record<string, ContractFunction> = {
  init(env, args) {
    expectArgs(args, 7);
    const admin = asAddress(args[0]);
    const paymentToken = asAddress(args[1]);
    const price = asI128(args[2]);
    const soft = asI128(args[3]);
    const hard = asI128(args[4]);
    const deadline = asU64(args[5]);
    const payoutMode = asU32(args[6]);
    env.requireAuth(admin);
    if (isInitialized(env)) throw HostError.contract(ERR.AlreadyInitialized);
    if (price <= 0n) throw HostError.contract(ERR.InvalidPrice);
    if (soft <= 0n || soft > MAX_SHARES || hard < soft || hard > MAX_SHARES) throw HostError.contract(ERR.InvalidCap);
    if (deadline <= env.timestamp) throw HostError.contract(ERR.InvalidDeadline);
    if (payoutMode !== PAYOUT.Escrow && payoutMode !== PAYOUT.DirectToOwner) throw HostError.contract(ERR.InvalidPayoutMode);
    writeConfig(env, {
      admin,
      paymentToken,
      pricePerShare: price,
      softCapShares: soft,
      hardCapShares: hard,
      deadline,
      status: STATUS.Fundraising,
      totalSharesSold: 0n,
      payoutMode,
    });
    writeTotalRaised(env, 0n);
    env.emit([sym('cf_init'), addr(admin)], vec([addr(paymentToken), i128(price), i128(soft), i128(hard), u64(deadline), u32(payoutMode)]));
    return voidVal();
  },
  contribute(env, args) {
    expectArgs(args, 2);
    const investor = asAddress(args[0]);
    const shares = asI128(args[1]);
    env.requireAuth(investor);
    const c = readConfig(env);
    if (c.status !== STATUS.Fundraising || env.timestamp >= c.deadline) throw HostError.contract(ERR.CampaignNotActive);
    if (shares <= 0n) throw HostError.contract(ERR.InvalidSharesAmount);
    const payment = checked(shares * c.pricePerShare, ERR.Overflow);
    const soldAfter = checked(c.totalSharesSold + shares, ERR.Overflow);
    if (soldAfter > c.hardCapShares) throw HostError.contract(ERR.HardCapReached);
    tokenClient(env, c.paymentToken).transfer(investor, env.contractId, payment);
    writeContribution(env, investor, checked(readContribution(env, investor) + shares, ERR.Overflow));
    writeConfig(env, { ...c, totalSharesSold: soldAfter });
    writeTotalRaised(env, checked(readTotalRaised(env) + payment, ERR.Overflow));
    env.emit([sym('cf_ctrb'), addr(investor)], vec([i128(shares), i128(payment), i128(soldAfter)]));
    return i128(payment);
  },
  finalize(env, args) {
    expectArgs(args, 0);
    const c = readConfig(env);
    if (c.status !== STATUS.Fundraising) throw HostError.contract(ERR.CampaignAlreadyFinalized);
    if (env.timestamp < c.deadline) throw HostError.contract(ERR.DeadlineNotReached);
    const status = c.totalSharesSold >= c.softCapShares ? STATUS.Succeeded : STATUS.Failed;
    writeConfig(env, { ...c, status });
    env.emit([sym('cf_done'), campaignTopic(env)], vec([u32(status), i128(c.totalSharesSold), i128(readTotalRaised(env))]));
    return u32(status);
  },
  refund(env, args) {
    expectArgs(args, 1);
    const investor = asAddress(args[0]);
    env.requireAuth(investor);
    const c = readConfig(env);
    if (c.status !== STATUS.Failed) throw HostError.contract(ERR.CampaignNotFailed);
    const shares = readContribution(env, investor);
    if (shares <= 0n) throw HostError.contract(ERR.NothingToRefund);
    const amount = checked(shares * c.pricePerShare, ERR.Overflow);
    tokenClient(env, c.paymentToken).transfer(env.contractId, investor, amount);
    writeContribution(env, investor, 0n);
    env.emit([sym('cf_rfnd'), addr(investor)], vec([i128(shares), i128(amount)]));
    return i128(amount);
  },
  propose_activation(env, args) {
    expectArgs(args, 1);
    const splitter = asAddress(args[0]);
    const c = adminAuth(env);
    requireSucceeded(c);
    if (splitter === env.contractId || splitter === c.paymentToken || splitter === c.admin) throw HostError.contract(ERR.InvalidSplitter);
    // Destination probe: the splitter must answer get_allocation(Address, Address) -> i128 (traps otherwise).
    env.invoke(splitter, 'get_allocation', [addr(env.contractId), addr(c.paymentToken)]);
    const eta = checked(env.timestamp + ACTIVATION_TIMELOCK_SECONDS, ERR.Overflow);
    writePending(env, splitter, eta);
    env.emit([sym('cf_prop'), campaignTopic(env)], vec([addr(splitter), u64(eta)]));
    return u64(eta);
  },
  activate(env, args) {
    expectArgs(args, 1);
    const splitter = asAddress(args[0]);
    const c = adminAuth(env);
    requireSucceeded(c);
    const pending = readPending(env);
    if (!pending) throw HostError.contract(ERR.NoPendingActivation);
    if (pending.splitter !== splitter) throw HostError.contract(ERR.SplitterMismatch);
    if (env.timestamp < pending.eta) throw HostError.contract(ERR.ActivationTimelockPending);
    if (env.timestamp >= c.deadline + ACTIVATION_DEADLINE_SECONDS) throw HostError.contract(ERR.ActivationWindowExpired);
    const raised = readTotalRaised(env);
    const destination = c.payoutMode === PAYOUT.Escrow ? splitter : c.admin;
    tokenClient(env, c.paymentToken).transfer(env.contractId, destination, raised);
    writeConfig(env, { ...c, status: STATUS.Activated });
    writeSplitter(env, splitter);
    clearPending(env);
    env.emit([sym('cf_actv'), campaignTopic(env)], vec([addr(splitter), i128(raised), u32(c.payoutMode)]));
    return i128(raised);
  },
  opt_out(env, args) {
    expectArgs(args, 1);
    const investor = asAddress(args[0]);
    env.requireAuth(investor);
    const c = readConfig(env);
    requireSucceeded(c);
    if (!readPending(env)) throw HostError.contract(ERR.NoPendingActivation);
    const shares = readContribution(env, investor);
    if (shares <= 0n) throw HostError.contract(ERR.NothingToRefund);
    const amount = checked(shares * c.pricePerShare, ERR.Overflow);
    tokenClient(env, c.paymentToken).transfer(env.contractId, investor, amount);
    writeContribution(env, investor, 0n);
    const sold = c.totalSharesSold - shares;
    const raised = readTotalRaised(env) - amount;
    writeTotalRaised(env, raised);
    clearPending(env);
    env.emit([sym('cf_optout'), addr(investor)], vec([i128(shares), i128(amount)]));
    // S-3 (cf-v0.3.0): an exit that breaks the soft cap settles the campaign as Failed.
    const status = sold < c.softCapShares ? STATUS.Failed : c.status;
    writeConfig(env, { ...c, totalSharesSold: sold, status });
    if (status === STATUS.Failed) env.emit([sym('cf_done'), campaignTopic(env)], vec([u32(STATUS.Failed), i128(sold), i128(raised)]));
    return i128(amount);
  },
  cancel_activation(env, args) {
    expectArgs(args, 0);
    adminAuth(env);
    const pending = readPending(env);
    if (!pending) throw HostError.contract(ERR.NoPendingActivation);
    clearPending(env);
    env.emit([sym('cf_cncl'), campaignTopic(env)], addr(pending.splitter));
    return voidVal();
  },
  expire_activation(env, args) {
    expectArgs(args, 0);
    const c = readConfig(env);
    requireSucceeded(c);
    if (env.timestamp < c.deadline + ACTIVATION_DEADLINE_SECONDS) throw HostError.contract(ERR.ActivationWindowStillOpen);
    writeConfig(env, { ...c, status: STATUS.Failed });
    clearPending(env);
    env.emit([sym('cf_expr'), campaignTopic(env)], vec([i128(c.totalSharesSold), i128(readTotalRaised(env))]));
    return u32(STATUS.Failed);
  },
  get_config(env, args) {
    expectArgs(args, 0);
    return configToScVal(readConfig(env));
  },
  get_contribution(env, args) {
    expectArgs(args, 1);
    return i128(readContribution(env, asAddress(args[0])));
  },
  get_total_raised(env, args) {
    expectArgs(args, 0);
    return i128(readTotalRaised(env));
  },
  get_status(env, args) {
    expectArgs(args, 0);
    return u32(readConfig(env).status);
  },
  get_splitter(env, args) {
    expectArgs(args, 0);
    const s = readSplitter(env);
    return option(s === undefined ? undefined : addr(s));
  },
  get_pending_activation(env, args) {
    expectArgs(args, 0);
    const p = readPending(env);
    return option(p && vec([addr(p.splitter), u64(p.eta)]));
  },
};

export const crowdfundingV1: ContractDefinition = { kind: 'crowdfunding_v1', functions: fns };
