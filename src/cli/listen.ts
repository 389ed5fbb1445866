/** Binding the HTTP server of `signfold serve`, and the address it prints. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from './cli-error.js';

/** Why a listen failed, in plain words (the errno code otherwise). */
const describeListenError = (cause: unknown): string => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return 'address already in use';
  if (code === 'EACCES') return 'permission denied (a port below 1024 needs privileges)';
  if (code === 'EADDRNOTAVAIL') return 'no such address on this host';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknown host';
  return cause instanceof Error ? cause.message : String(cause);
};

/**
 * Listens on `host:port` (0: any free port) and resolves with the URL it
 * listens on, the actual port included. A failure is a {@link CliError}.
 */
export const listen = (server: Server, port: number, host: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const failed = (cause: unknown): void => {
      reject(new CliError(`cannot listen on ${host}:${port}: ${describeListenError(cause)}`));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shown}:${address.port}`);
    });
  });
