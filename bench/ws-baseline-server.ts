/**
 * The bare WebSocket baseline: a `ws` server that, for each message on its `/control` socket,
 * broadcasts one 300-byte frame (carrying the message's tick number) to every other client. No
 * auth, no JSON parsing per client, no buffering policy: the floor the service's fan-out is
 * compared with. Run as its own process by bench/ws.ts.
 */
import { WebSocketServer, type WebSocket } from 'ws';

const server = new WebSocketServer({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0), maxPayload: 64 * 1024 });
const clients = new Set<WebSocket>();
server.on('connection', (socket, request) => {
  if (request.url === '/control') {
    socket.on('message', (data) => {
      const { n } = JSON.parse(data.toString()) as { n: number };
      const head = `{"kind":"price","n":${n},"pad":"`;
      const frame = `${head}${'x'.repeat(300 - head.length - 2)}"}`;
      for (const client of clients) client.send(frame);
    });
    return;
  }
  clients.add(socket);
  socket.on('close', () => clients.delete(socket));
});
server.on('listening', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => {
  for (const client of clients) client.terminate();
  server.close(() => process.exit(0));
});
