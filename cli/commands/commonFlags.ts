import type { Flag } from "../flags.ts";

/** Flags several commands share, declared once. */
export const JSON_FLAG: Flag = { name: "json", type: "boolean", help: "print a machine-readable result (one JSON object)" };

/** Every command that opens a store takes it. */
export const DATA_DIR_FLAG: Flag = { name: "data-dir", type: "string", arg: "DIR", help: "embedded store directory when DATABASE_URL is unset", shownDefault: ".ariadne/data" };

/** Every command takes it. */
export const HELP_FLAG: Flag = { name: "help", short: "h", type: "boolean", help: "show this help" };
