// The attempts an image request may go to: the channels whose `images.max_n` takes as many images as it asks for
// (matched on the client's model name); none is a 400 naming the highest cap, before any channel is called.

import type { ResolvedConfig } from '../../core/config/resolved.js';
import { sectionOf } from '../../core/config/section.js';
import { GatewayError } from '../../core/errors.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import type { Attempt } from '../../core/routing/router.js';
import { IMAGE_SETTINGS } from './config.js';

export function withinImageCaps(request: ParsedRequest, found: readonly Attempt[], config: ResolvedConfig): readonly Attempt[] {
  const { caps } = sectionOf(config, IMAGE_SETTINGS);
  const asked = request.images ?? 1;
  const model = request.model;
  let highest = 0;
  const allowed = found.filter(({ channel }) => {
    const cap = caps.get(channel.name)?.find((c) => c.matches(model));
    if (cap === undefined || asked <= cap.maxN) return true;
    highest = Math.max(highest, cap.maxN);
    return false;
  });
  if (allowed.length > 0) return allowed;
  throw new GatewayError(
    'GW_ERR_REQUEST_INVALID_FIELD',
    `Invalid value for 'n': at most ${highest} image${highest === 1 ? '' : 's'} per request for the model "${model}" (you asked for ${asked}).`,
    { param: 'n' },
  );
}
