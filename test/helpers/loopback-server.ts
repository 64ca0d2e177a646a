/** A plain HTTP server on loopback for client-side tests: the handler gets each request with its body read. */
import http from 'node:http';
import { once } from 'node:events';

export interface LoopbackServer {
  url: string;
  close(): void;
}

export async function startLoopbackServer(handle: (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void): Promise<LoopbackServer> {
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handle(request, body, response));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close() {
      // Tests leave requests unanswered on purpose: their sockets go too.
      server.closeAllConnections();
      server.close();
    },
  };
}
