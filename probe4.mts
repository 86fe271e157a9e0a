import { PGlite } from "@electric-sql/pglite";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const f = "/tmp/pgl-probe.tar";
if (!existsSync(f)) { const p = new PGlite(); await p.waitReady; writeFileSync(f, Buffer.from(await (await p.dumpDataDir("none")).arrayBuffer())); console.log("made"); process.exit(0); }
let c = cpu(), t = performance.now();
const q = new PGlite({ loadDataDir: new Blob([readFileSync(f)]) }); await q.waitReady;
console.log(`load in fresh process ${(performance.now()-t).toFixed(0)} ms wall, ${(cpu()-c).toFixed(0)} ms cpu`);
