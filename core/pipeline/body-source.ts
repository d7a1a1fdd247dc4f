// Where a request's body comes from: the HTTP layer reads it only once the head phase has admitted the request.

import type { BodyBytes } from '../formats/body-bytes.js';
import type { ClientAbort } from '../client-abort.js';

export interface BodySource {
  /**
   * The whole body; rejects with the GatewayError to answer (too large, too slow, too many bodies at once, client
   * gone, shutdown: the read ends when `abort` fires).
   */
  read(abort: ClientAbort): Promise<BodyBytes>;
  /** The request is answered and its body no longer held: its bytes stop counting against the intake's cap. */
  release(): void;
}
