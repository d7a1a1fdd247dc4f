// A TCP proxy a test controls, to take a server (PostgreSQL) away and give it back: cut() ends every connection
// through it and refuses new ones (accepted, then reset at once), restore() passes them through again.

import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Ends every connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      // Either side's error ends both; the peer sees its connection reset.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    port: address.port,
    cut() {
      refusing = true;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    restore() {
      refusing = false;
    },
    close() {
      refusing = true;
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
