import { tolerateBriefLag, type ProjectionsHealth } from './projections-health';

const ready: ProjectionsHealth = { status: 'up', ready: true, details: {} };
const behind: ProjectionsHealth = { status: 'up', ready: false, waitingFor: 'catching up: pools 2 events behind', details: {} };
const faulted: ProjectionsHealth = { status: 'down', ready: false, waitingFor: 'faulted: pools (npm run ops -- projections retry <name>)', details: {} };

/** The checks in order, on a clock the test moves. */
function sequence(answers: ProjectionsHealth[]) {
  let t = 0;
  const health = tolerateBriefLag(
    async () => answers.shift()!,
    5000,
    () => t,
  );
  return { at: async (ms: number) => ((t = ms), (await health()).ready) };
}

describe('tolerateBriefLag (the API alone under writes)', () => {
  it('stays ready through a lag shorter than the grace, and says so once it lasts longer', async () => {
    const h = sequence([ready, behind, behind, behind, ready]);
    expect([await h.at(0), await h.at(100), await h.at(4000), await h.at(5200), await h.at(6000)]).toEqual([true, true, true, false, true]);
  });

  it('after a long lag, is not ready again until caught up (no grace restarted by the next lagging sample)', async () => {
    const h = sequence([ready, behind, behind, behind]);
    expect([await h.at(0), await h.at(1), await h.at(6000), await h.at(6100)]).toEqual([true, true, false, false]);
  });

  it('reports a lag at start-up (before the first ready answer) and a faulted projection at once', async () => {
    expect(await sequence([behind]).at(0)).toBe(false);
    const h = sequence([ready, faulted]);
    expect([await h.at(0), await h.at(1)]).toEqual([true, false]);
  });

  it('stays ready while the projections keep applying (a burst behind at every sample), and says so once they stall', async () => {
    const at = (applied: number): ProjectionsHealth => ({ ...behind, details: { pools: { eventsApplied: applied, lag: 2 } } });
    const h = sequence([{ ...ready, details: { pools: { eventsApplied: 10, lag: 0 } } }, at(20), at(40), at(60), at(80), at(80), at(80)]);
    const seen = [await h.at(0), await h.at(3000), await h.at(6000), await h.at(9000), await h.at(12_000), await h.at(15_000), await h.at(17_500)];
    // behind from 3 s to 12 s but applying at every sample; stalled from 12 s, reported once the grace (5 s) has passed
    expect(seen).toEqual([true, true, true, true, true, true, false]);
  });

  it('restarts the grace after the read models caught up in between', async () => {
    const h = sequence([ready, behind, ready, behind, behind]);
    expect([await h.at(0), await h.at(1000), await h.at(4000), await h.at(8000), await h.at(12_000)]).toEqual([true, true, true, true, true]);
  });
});
