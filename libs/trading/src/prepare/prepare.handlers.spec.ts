import { AppError } from '@dob/domain';
import {
  PrepareBuyCommand,
  PrepareBuyHandler,
  PrepareCancelCommand,
  PrepareCancelHandler,
  PrepareContributeCommand,
  PrepareContributeHandler,
  PrepareListCommand,
  PrepareListHandler,
  PrepareReclaimCommand,
  PrepareReclaimHandler,
} from './prepare.handlers';
import { SubmitSignedTradeCommand, SubmitSignedTradeHandler } from '../submit/submit.handler';
import type { TradingService } from '../trading-service';

const caller = { keyId: 'key-1', wallet: 'GWALLET' };

/** A TradingService that records each call and answers with the method's name, or refuses with `failure`. */
function fakeTrading(failure?: Error) {
  const calls: unknown[][] = [];
  const answer =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
      return failure ? Promise.reject(failure) : Promise.resolve({ answeredBy: name });
    };
  const trading = {
    prepareBuy: answer('prepareBuy'),
    prepareList: answer('prepareList'),
    prepareCancel: answer('prepareCancel'),
    prepareContribute: answer('prepareContribute'),
    prepareReclaim: answer('prepareReclaim'),
    submit: answer('submit'),
  } as unknown as TradingService;
  return { trading, calls };
}

describe('trading command handlers', () => {
  const buy = { listing_id: 'L1', amount: 5, network_id: 1 };
  const list = { pool_address: 'CPOOL', shares_amount: 3, price_per_share: '1.5', payment_token: 'USDC', network_id: 1 };
  const cases = [
    ['prepareBuy', (t: TradingService) => new PrepareBuyHandler(t).execute(new PrepareBuyCommand(caller, buy)), buy],
    ['prepareList', (t: TradingService) => new PrepareListHandler(t).execute(new PrepareListCommand(caller, list)), list],
    [
      'prepareCancel',
      (t: TradingService) => new PrepareCancelHandler(t).execute(new PrepareCancelCommand(caller, { listing_id: 'L2', network_id: 1 })),
      { listing_id: 'L2', network_id: 1 },
    ],
    [
      'prepareContribute',
      (t: TradingService) =>
        new PrepareContributeHandler(t).execute(new PrepareContributeCommand(caller, { pool_address: 'CCF', amount: '25', network_id: 1 })),
      { pool_address: 'CCF', amount: '25', network_id: 1 },
    ],
    [
      'prepareReclaim',
      (t: TradingService) => new PrepareReclaimHandler(t).execute(new PrepareReclaimCommand(caller, { pool_address: 'CCF', network_id: 1 })),
      { pool_address: 'CCF', network_id: 1 },
    ],
  ] as const;

  it.each(cases)('%s: the command reaches its use case with the caller and request, and its answer comes back', async (method, run, request) => {
    const { trading, calls } = fakeTrading();
    await expect(run(trading)).resolves.toEqual({ answeredBy: method });
    expect(calls).toEqual([[method, caller, request]]);
  });

  it('submit carries the trade kind, the caller and the signed envelope', async () => {
    const { trading, calls } = fakeTrading();
    const request = { signed_xdr: 'AAAA', network_id: 1 };
    await expect(new SubmitSignedTradeHandler(trading).execute(new SubmitSignedTradeCommand('contribute', caller, request))).resolves.toEqual({
      answeredBy: 'submit',
    });
    expect(calls).toEqual([['submit', 'contribute', caller, request]]);
  });

  it("a use case's refusal is the handler's refusal, unchanged (the API maps it to the same envelope)", async () => {
    const refusal = new AppError('CONFLICT', 'listing is no longer active');
    const { trading } = fakeTrading(refusal);
    await expect(new PrepareBuyHandler(trading).execute(new PrepareBuyCommand(caller, buy))).rejects.toBe(refusal);
  });
});
