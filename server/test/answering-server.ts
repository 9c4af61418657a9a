/**
 * TEST DOUBLE: some other service at an address (a router's page, an internal API) on 127.0.0.1:0: every
 * request is answered with the status, content type and body the test set, whatever was asked. Tests point a
 * provider at it to show that nothing of what it says reaches the page.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Answer {
  status: number;
  type: string;
  body: string;
}

export async function answeringServer(
  answer: Answer,
): Promise<{ url: string; set(a: Answer): void; close(): Promise<void> }> {
  let current = answer;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(current.status, { "content-type": current.type });
      res.end(current.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (a) => void (current = a),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
