export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly streamId: string,
    readonly expected: string,
    readonly actual: number,
  ) {
    super(`stream ${streamId}: expected version ${expected}, actual ${actual}`);
  }
}

export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
  constructor(
    readonly eventType: string,
    readonly issues: string,
  ) {
    super(`invalid ${eventType} payload: ${issues}`);
  }
}
