/**
 * `ariadne serve` under Deno: `deno run -A http/serveDeno.ts [--port 8787] [--no-auth] …`.
 * The same command and app as under Node; the server is Deno.serve (see startServer.ts).
 */
import { main } from "../cli/main.ts";

declare const Deno: { args: string[]; exit(code: number): never };

Deno.exit(await main(["serve", ...Deno.args]));
