// The body of a batch's or a code's PATCH: {"disabled": true | false}, and nothing else.

import { GatewayError } from '../../core/errors.js';

export function readDisabled(body: Readonly<Record<string, unknown>>): boolean {
  const unknown = Object.keys(body).find((field) => field !== 'disabled');
  if (unknown !== undefined) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Unknown field "${unknown}": the one setting here is disabled.`, { param: unknown });
  const disabled = body['disabled'];
  if (typeof disabled !== 'boolean') throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', 'disabled (true or false) is required.', { param: 'disabled' });
  return disabled;
}
