import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError } from '@dob/domain';

/**
 * class-validator on every DTO (query, path, body). Failures become VALIDATION_ERROR naming each parameter, e.g.
 * "limit must not be greater than 100"; unknown body properties are rejected rather than silently dropped.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const problems = flatten(errors);
      return AppError.validation(problems.map((p) => p.message).join('; '), {
        fields: Object.fromEntries(problems.map((p) => [p.field, p.message])),
      });
    },
  });
}

function flatten(errors: ValidationError[], prefix = ''): { field: string; message: string }[] {
  return errors.flatMap((e) => {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}
