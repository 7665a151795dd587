import { whileAlive } from './mongo-read-model-reader';

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const never = () => new Promise<never>(() => undefined);
const patience = { everyMs: 40, pingMs: 30 };

describe('whileAlive (a MongoDB read bounded by the server answering, not by a deadline)', () => {
  it('lets a slow read on a server that answers its pings finish', async () => {
    let pings = 0;
    const answer = await whileAlive(after(300, 'slow but right'), async () => void pings++, patience);
    expect(answer).toBe('slow but right');
    expect(pings).toBeGreaterThanOrEqual(3); // asked several times, answered each time
  });

  it('fails as MongoDB unavailable once a ping goes unanswered (a silent server), without waiting for the read', async () => {
    const started = Date.now();
    await expect(whileAlive(never(), never, patience)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { dependency: 'mongodb' } });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('fails as MongoDB unavailable when a ping fails, and never pings a read that answered in time', async () => {
    await expect(whileAlive(never(), () => Promise.reject(new Error('connection reset')), patience)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    let pinged = false;
    await expect(whileAlive(after(5, 'quick'), async () => void (pinged = true), patience)).resolves.toBe('quick');
    await after(100, null);
    expect(pinged).toBe(false);
  });
});
