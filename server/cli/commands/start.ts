/** `ucp-storefront start`: the storefront server (server/main.ts), as `npm start` runs it after building host.js. */
import { UsageError, type Command } from '../cli.ts';

export const start: Command = {
  name: 'start',
  summary: 'start the storefront server',
  usage: `usage: ucp-storefront start [--port N] [--host ADDRESS]

  Starts the server with the environment's settings (README "Settings"): PORT (8080), HOST
  (127.0.0.1), DATA_DIR (.data), DATABASE_URL, NODE_ENV, SEED_DEMO, ... --port and --host override
  PORT and HOST. Serves dist/host.js as built (npm start builds it first). Stops cleanly on Ctrl-C or
  SIGTERM (requests in flight finish, the database closes); a second signal exits at once.`,
  options: { port: { type: 'string' }, host: { type: 'string' } },
  async run({ values, io }) {
    if (values.json) throw new UsageError('start has no --json output');
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) throw new UsageError('--port must be a port number (0-65535)');
    const { logFatalErrors, main } = await import('../../main.ts');
    logFatalErrors(); // this process is the server now
    await main({ ...(port !== undefined ? { port } : {}), ...(values.host ? { host: values.host } : {}) }, io.out);
    return -1; // keep running: the server stops on SIGINT/SIGTERM
  },
};
