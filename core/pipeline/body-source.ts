// Where a request's body comes from: the HTTP layer reads it only once the head phase has admitted the request.

import type { BodyBytes } from '../formats/body-bytes.js';

export interface BodySource {
  /** The whole body; rejects with the GatewayError to answer (too large, too slow, too many bodies at once, client gone). */
  read(): Promise<BodyBytes>;
}
