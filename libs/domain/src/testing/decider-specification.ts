/**
 * Given/when/then for an aggregate written as a decider (emmett's DeciderSpecification): `given` past events are
 * folded with `evolve` from `initial`, `when` runs a decision on that state, and `then` states the events it decides
 * (none: an empty list), or `thenThrows` the refusal. No store, no clock: the decision alone.
 *
 *   const spec = DeciderSpec.for({ initial: () => emptyWallet(W), evolve });
 *   spec.given(created).when((s) => decideRevokeKey(s, { keyId, at })).then([revoked]);
 */
export class DeciderSpec<State, Event> {
  private constructor(private readonly decider: { initial: () => State; evolve: (state: State, event: Event) => State }) {}

  static for<State, Event>(decider: { initial: () => State; evolve: (state: State, event: Event) => State }): DeciderSpec<State, Event> {
    return new DeciderSpec(decider);
  }

  given(...events: Event[]): { when(decide: (state: State) => Event | readonly Event[] | null): DecisionOutcome<Event> } {
    return {
      when: (decide) => new DecisionOutcome(() => decide(events.reduce(this.decider.evolve, this.decider.initial()))),
    };
  }
}

class DecisionOutcome<Event> {
  constructor(private readonly run: () => Event | readonly Event[] | null) {}

  then(expected: readonly Event[]): void {
    const out = this.run();
    expect(out === null ? [] : Array.isArray(out) ? out : [out]).toEqual(expected);
  }

  thenThrows(error: string | RegExp | Error | (new (...args: never[]) => Error)): void {
    expect(() => this.run()).toThrow(error);
  }
}
