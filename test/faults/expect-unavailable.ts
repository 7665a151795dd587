import { AppError } from '@dob/domain';

/** Runs `run` and expects it to fail within `ms` as SERVICE_UNAVAILABLE naming `dependency` (the API's 503 + Retry-After). */
export async function expectUnavailableWithin(ms: number, dependency: string, run: () => Promise<unknown>): Promise<AppError> {
  const started = Date.now();
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(Date.now() - started).toBeLessThan(ms);
  expect(error).toBeInstanceOf(AppError);
  expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, details: { dependency } });
  expect((error as AppError).retryAfterSeconds).toBeGreaterThan(0);
  return error as AppError;
}
