import type { Command } from "../command.ts";
import { JSON_FLAG } from "./commonFlags.ts";

/** `ariadne keys …`: API keys and the seal's signing key. */
export const keys: Command = {
  name: "keys",
  summary: "API keys for the HTTP API, and the key pair run seals are signed with",
  subcommands: [
    {
      name: "create",
      summary: "an API key: --role client|auditor|admin --tenant T (printed once)",
      description: "Creates an API key for the HTTP API and prints it once; only its sha256 is stored.",
      flags: [
        {
          name: "role",
          type: "choice",
          arg: "ROLE",
          choices: ["client", "auditor", "admin"],
          help: "client: submit and read its tenant's runs; auditor: read them; admin: every tenant (required)",
          invalid: (raw) => `keys create needs --role client|auditor|admin (got "${raw}")`,
        },
        { name: "tenant", type: "string", arg: "T", help: "the tenant the key acts for: letters, digits, '.', '_' or '-' (required)" },
      ],
      positionals: { min: 0, max: 0, problem: "keys create takes no arguments" },
      run: async ({ flags, storeOptions, out }) =>
        (await import("../keys.ts")).createKey({ ...storeOptions, role: flags.string("role"), tenant: flags.string("tenant"), out }),
    },
    {
      name: "revoke",
      args: "ID",
      summary: "revoke an API key",
      description: "Revokes an API key by its id (as printed by keys create); requests with it are refused from then on.",
      positionals: { min: 1, max: 1, problem: "keys revoke needs the key id (as printed by keys create)" },
      run: async ({ positionals, storeOptions, out }) => (await import("../keys.ts")).revokeKey({ ...storeOptions, id: positionals[0]!, out }),
    },
    {
      name: "signing",
      summary: "the Ed25519 key pair run seals are signed with",
      subcommands: [
        {
          name: "create",
          summary: "the Ed25519 key pair run seals are signed with (default .ariadne/keys)",
          description: `Makes the Ed25519 key pair run seals and bundles are signed with: seal.key (private, mode 0600)
and seal.pub in DIR, and prints the public key and its fingerprint (sha256 of the raw public key).
Hosts sign with it from then on (ARIADNE_SIGNING_KEY names another file).`,
          flags: [{ name: "out", type: "string", arg: "DIR", shownDefault: ".ariadne/keys", help: "where the key pair is written" }],
          store: false,
          positionals: { min: 0, max: 0, problem: "keys signing create takes no arguments" },
          run: async ({ flags, out }) => (await import("../keys.ts")).createSigningKey({ outDir: flags.string("out"), out }),
        },
      ],
    },
  ],
};

/** `ariadne tools …`: the research tools, listed or run once by hand. */
export const tools: Command = {
  name: "tools",
  summary: "the research tools runs are hosted with: list them, or run one once outside any run",
  subcommands: [
    {
      name: "list",
      summary: "the tools runs are hosted with (name, effect, description)",
      description: "Lists the tools a real question's run is offered: name, effect class, description (--json: with input schemas); the demo corpus tools only the offline scenarios get are left out.",
      flags: [{ ...JSON_FLAG, help: "an array of {name, effect, description, input_schema}" }],
      store: false,
      positionals: { min: 0, max: 0, problem: "tools list takes no arguments" },
      run: async (invocation) => (await import("../toolsCommand.ts")).toolsList(invocation),
    },
    {
      name: "run",
      args: "TOOL",
      summary: "run one tool once outside any run (no model, no database); prints its result as the model would see it",
      description: `Runs one tool once, outside any run: no model, no database. It gets a scratch workspace in a
temporary folder (removed afterwards), an in-memory blob store and the system clock, and every
URL counts as reachable (inside a run, web_fetch fetches only URLs the executor has seen).
Prints the result as the model would see it, then the sources it recorded (kind, URL, sha256
of the raw bytes and of the text) and how many links it showed. Exit 0 when the tool
succeeded, 1 when it failed (its message is what the model would be told), 2 on bad usage.`,
      flags: [
        { name: "input", type: "string", arg: "JSON", help: `the tool's input, a JSON object (e.g. '{"url": "https://example.com/"}'; required)` },
        {
          name: "corpus",
          type: "string",
          arg: "DIR",
          help: "serve the corpus in DIR (the repository's is corpus/) on a local server and map its hosts to it (pages.corpus.test, docs.corpus.test, data.corpus.test and the scenario corpora); web_search then searches a local index of its pages. Without it, web_fetch uses the network and web_search the configured provider (ARIADNE_SEARXNG_URL, BRAVE_SEARCH_API_KEY; ARIADNE_SEARCH picks one; ARIADNE_SEARCH=anthropic searches only inside a model's calls, so here web_search says so)",
        },
        { name: "allow-loopback", type: "boolean", help: "let web_fetch fetch from this machine (127.0.0.1, ::1, localhost); refused by default" },
        { name: "allow-private", type: "boolean", help: "let web_fetch fetch from private networks (10/8, 172.16/12, 192.168/16, …); refused by default" },
        { ...JSON_FLAG, help: "one JSON object: {tool, ok, output, sources, artifacts, links, sanitized}" },
      ],
      store: false,
      positionals: { min: 1, max: 1, problem: "tools run takes one tool name: ariadne tools run TOOL --input JSON" },
      run: async (invocation) => (await import("../toolsCommand.ts")).toolsRun(invocation),
    },
  ],
};
