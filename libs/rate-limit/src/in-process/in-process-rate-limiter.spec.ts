import { BURST, WINDOW_MS } from '../sliding-window-rule';
import { InProcessRateLimiter } from './in-process-rate-limiter';

/** The log keeps runs of equal timestamps; these pin what the contract suite's steady clock does not reach. */
describe('InProcessRateLimiter', () => {
  let now = 1_710_000_000_000;
  const limiter = new InProcessRateLimiter(() => now);
  afterAll(() => limiter.close());

  it('lets a millisecond’s run of admissions leave the window together, at its own time', () => {
    const rpm = 50;
    const t0 = now;
    for (let i = 0; i < 30; i++) expect(limiter.consumeNow('run', rpm).allowed).toBe(true);
    now = t0 + 1000;
    for (let i = 0; i < rpm + BURST - 30; i++) expect(limiter.consumeNow('run', rpm).allowed).toBe(true);
    const refused = limiter.consumeNow('run', rpm);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 60 });
    now = t0 + WINDOW_MS + 1; // the first run (30 admissions) has left; the second is still in
    expect(limiter.consumeNow('run', rpm)).toMatchObject({ allowed: true, remaining: rpm + BURST - 31 }); // 30 left in, 1 new
  });

  it('keeps the window right when the clock steps back: an earlier admission leaves first', () => {
    const rpm = 1;
    const t0 = now;
    now = t0 + 5000;
    limiter.consumeNow('back', rpm);
    now = t0; // stepped back: this admission sorts before the one at +5 s
    limiter.consumeNow('back', rpm);
    limiter.consumeNow('back', rpm); // same instant: joins its run
    now = t0 + WINDOW_MS + 1; // the two at t0 have left, the one at +5 s has not
    const d = limiter.consumeNow('back', rpm);
    expect(d).toMatchObject({ allowed: true, remaining: rpm + BURST - 2 });
    expect(d.resetAt).toBe(Math.ceil((now + WINDOW_MS + 1) / 1000));
  });
});
