import { register } from "node:module";

register("./recordImports.mjs", import.meta.url);
