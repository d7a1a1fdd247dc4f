// A console body's required text field (a name, a password, a token).

import { GatewayError } from '../../core/errors.js';

export function requiredText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${field} is required.`, { param: field });
  return value;
}
