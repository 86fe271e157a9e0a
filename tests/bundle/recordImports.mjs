import { appendFileSync } from "node:fs";

/** A module resolve hook that appends every resolved URL to ARIADNE_IMPORT_LOG: which modules a command really loads. */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.ARIADNE_IMPORT_LOG) appendFileSync(process.env.ARIADNE_IMPORT_LOG, `${resolved.url}\n`);
  return resolved;
}
