import { Address, Keypair, nativeToScVal, Networks, StrKey, xdr } from '@stellar/stellar-sdk';
import { parseDecimal } from '../policy/decimal';
import { invocation, POOL, preparedBuy, testSettings, transfer, USDC, usdcUnits } from '../testing/prepared-trades';
import { auditEnvelope } from './envelope-audit';
import { SignerRefusal } from './signer-refusal';

const wallet = Keypair.random();
const me = wallet.publicKey();
const seller = Keypair.random().publicKey();
const NOW = new Date('2026-03-01T12:00:00Z');
const settings = testSettings();
const buy = (over: Partial<Parameters<typeof preparedBuy>[0]> = {}) => preparedBuy({ wallet, seller, shares: 2n, total: '2.00', now: NOW, ...over });
const audit = (t: ReturnType<typeof buy>) => auditEnvelope(t.xdr, t.networkPassphrase, t.kind, me, settings, NOW.getTime());
const refusedWith = (t: ReturnType<typeof buy>, text: string) => {
  expect(() => audit(t)).toThrow(SignerRefusal);
  expect(() => audit(t)).toThrow(text);
};

describe('auditEnvelope', () => {
  it('reads the call, the shares and every USDC movement of the authorization tree, nested ones included', () => {
    const commission = Keypair.random().publicKey();
    const t = buy({
      subs: [transfer(USDC, me, seller, usdcUnits('1.97')), transfer(USDC, me, commission, usdcUnits('0.03'))],
    });
    expect(audit(t)).toMatchObject({ call: { contract: POOL, fn: 'buy_shares' }, shares: 2n, spends: new Map([['USDC', parseDecimal('2')]]) });
    // A transfer whose own authorization covers a second one (as a token calling a token would record).
    const outer = transfer(USDC, me, seller, 5n);
    const nested = buy({ subs: [new xdr.SorobanAuthorizedInvocation({ function: outer.function, subInvocations: [transfer(USDC, me, seller, 7n)] })] });
    expect(audit(nested).spends.get('USDC')).toBe(12n * 10n ** 11n);
  });

  it('counts an approve as its whole allowance', () => {
    const spender = StrKey.encodeContract(Buffer.alloc(32, 3));
    const approve = invocation(USDC, 'approve', [
      new Address(me).toScVal(),
      new Address(spender).toScVal(),
      nativeToScVal(usdcUnits('50'), { type: 'i128' }),
      nativeToScVal(1000, { type: 'u32' }),
    ]);
    expect(audit(buy({ subs: [transfer(USDC, me, seller, usdcUnits('2')), approve] })).spends.get('USDC')).toBe(parseDecimal('52'));
  });

  it('refuses a network other than the pinned one, whatever the API calls it', () => {
    refusedWith(buy({ passphrase: Networks.PUBLIC }), `the API names the network "${Networks.PUBLIC}", but this signer signs only for "${Networks.TESTNET}"`);
  });

  it('refuses another source account, a fee over the cap, no or a long expiry, a second operation', () => {
    refusedWith(buy({ source: seller }), `its source account is ${seller}, not this wallet`);
    refusedWith(buy({ fee: '10000001' }), 'its fee of 10000001 stroops is over the cap of 10000000');
    refusedWith(buy({ validForSeconds: 3600 }), 'longer than 900 s from now');
    refusedWith(buy({ extraOperation: true }), 'it has 2 operations');
  });

  it('refuses authorization it cannot account for', () => {
    const other = StrKey.encodeContract(Buffer.alloc(32, 5));
    refusedWith(buy({ subs: [invocation(POOL, 'set_admin', [new Address(seller).toScVal()])] }), `covers ${POOL}.set_admin`);
    refusedWith(buy({ subs: [transfer(other, me, seller, 10n)] }), `moves 10 of token ${other}, which is not one of this signer's tokens`);
    refusedWith(buy({ subs: [transfer(USDC, seller, me, 10n)] }), `covers ${USDC}.transfer`);
    const foreign = xdr.SorobanCredentials.sorobanCredentialsAddress(
      new xdr.SorobanAddressCredentials({
        address: new Address(seller).toScAddress(),
        nonce: 1n,
        signatureExpirationLedger: 0,
        signature: xdr.ScVal.scvVoid(),
      }),
    );
    refusedWith(buy({ credentials: foreign }), `separate credentials (${seller})`);
    expect(() => auditEnvelope(buy().xdr, Networks.TESTNET, 'contribute', me, settings, NOW.getTime())).toThrow(
      'it calls buy_shares, a contribute calls contribute',
    );
  });

  it('refuses a buy acting for another wallet', () => {
    const t = buy();
    expect(() => auditEnvelope(t.xdr, t.networkPassphrase, t.kind, seller, settings, NOW.getTime())).toThrow('its source account');
  });
});
