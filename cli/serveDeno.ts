/**
 * `ariadne serve` under Deno: `deno run -A cli/serveDeno.ts [--port 8787] [--no-auth] …`.
 * The same command and app as under Node; the server is Deno.serve (see startServer.ts).
 */
import { main } from "./main.ts";

declare const Deno: { args: string[]; exit(code: number): never };

Deno.exit(await main(["serve", ...Deno.args]));
