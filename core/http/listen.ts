// A server listening on host:port, or the bind's error (an address in use, a host not ours) as a rejection.

import type { Server } from 'node:http';

export async function listen(server: Server, port: number, host: string): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
