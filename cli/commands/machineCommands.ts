import type { Command } from "../command.ts";
import { SUPPORTED_NODE } from "../../setup/prerequisites.ts";
import { JSON_FLAG } from "./commonFlags.ts";

/** `ariadne doctor`: every prerequisite, found or missing. */
export const doctor: Command = {
  name: "doctor",
  summary: "every prerequisite (Node, Deno, the database, bubblewrap, Python's packages, Chromium), found or missing, with how to install it",
  description: `Lists every prerequisite, found or missing, with what it is for and how to install it:
Node (${SUPPORTED_NODE}),
Deno (the npm package deno), the database this command would use (DATABASE_URL, asked to
answer; unset, the embedded store in --data-dir), bubblewrap and whether it can create
compute's sandbox here, Python 3 with numpy, pandas and statsmodels, and Chromium (the audit
page's browser test). npm run setup installs the system packages on Debian and Ubuntu.
Then the web search a real question would use (ARIADNE_SEARCH, ARIADNE_SEARXNG_URL,
BRAVE_SEARCH_API_KEY, ARIADNE_ANTHROPIC_SEARCH_*), or why its configuration is refused.
Exit 0 when everything is found and the search configuration is accepted, 1 otherwise.`,
  flags: [{ ...JSON_FLAG, help: "{ok, prerequisites: [{name, found, detail, neededFor, install}], search: {provider, says} or {provider: null, problem}}" }],
  positionals: { min: 0, max: 0, problem: "doctor takes no arguments" },
  run: async (invocation) => (await import("../doctorCommand.ts")).doctorCommand(invocation),
};
