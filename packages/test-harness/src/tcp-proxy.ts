import { createServer, Socket, type Server } from 'node:net';
import { freePort } from './free-port.js';

export interface TcpProxy {
  /** Where clients connect instead of the target. */
  port: number;
  /**
   * From now on, bytes are no longer passed on in either direction, and connections stay
   * open: to the client, its server has simply stopped answering (a hung peer, or a
   * partition that drops packets rather than refusing them).
   */
  blackhole(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of `target`, for faults a real server cannot be asked
 * to make on cue. Kept minimal: each client connection gets its own upstream connection.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let holding = false;
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    const pass = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!holding) to.write(chunk);
      });
    pass(client, upstream);
    pass(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.connect(target.port, target.host);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    blackhole() {
      holding = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
