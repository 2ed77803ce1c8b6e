import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are (what app.inject and fetch refuse to send: a bad request line, a bad
 * header, an unknown method) and reads the answer until the server closes the connection.
 */
export function rawRequest(port: number, text: string, timeoutMs = 5_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from(text, 'latin1')));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      const data = bytes.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no HTTP response: ${JSON.stringify(data.slice(0, 200))}`));
      const [statusLine = '', ...lines] = data.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: bytes.subarray(end + 4).toString('utf8') });
    });
  });
}

/** A request line plus headers, the connection closed after the answer. */
export function requestText(requestLine: string, headers: string[] = [], body = ''): string {
  return [requestLine, 'Host: 127.0.0.1', ...headers, 'Connection: close', '', body].join('\r\n');
}
