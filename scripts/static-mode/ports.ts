import { createServer } from "node:net";

/** a free TCP port on `host` (listen on 0, read it, close); the caller binds it right after */
export function freePortOf(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
